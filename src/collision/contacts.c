/* Whole-scene collision: broad phase pairs, narrow phase per pair, contacts in canonical order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/collision.h"
#include "signorini/la.h"
#include "signorini/tree.h"

void sg_scene_geom(const sg_scene *s, int i, sg_geom *g) {
  g->shape = s->shape[i];
  memcpy(g->size, s->size + 3 * i, sizeof g->size);
  memcpy(g->pos, s->state.pos + 3 * i, sizeof g->pos);
  quat_to_mat(g->R, s->state.quat + 4 * i);
  g->mesh = s->shape[i] == SG_SHAPE_MESH ? s->meshes[(int)s->size[3 * i]] : NULL;
}

void sg_contacts_destroy(sg_contacts *c) {
  free(c->c);
  memset(c, 0, sizeof *c);
}

int sg_contact_key_cmp(const sg_contact *x, const sg_contact *y) {
  if (x->gid_a != y->gid_a) return x->gid_a < y->gid_a ? -1 : 1;
  if (x->gid_b != y->gid_b) return x->gid_b < y->gid_b ? -1 : 1;
  if (x->cp.feature != y->cp.feature) return x->cp.feature < y->cp.feature ? -1 : 1;
  return 0;
}

static int cmp_contact(const void *a, const void *b) { return sg_contact_key_cmp(a, b); }

/* A pair's manifold points by feature, stably (a manifold has a handful of points). */
static void sort_by_feature(sg_manifold *m) {
  for (int p = 1; p < m->n; ++p)
    for (int q = p; q > 0 && m->p[q - 1].feature > m->p[q].feature; --q) {
      sg_contact_point t = m->p[q];
      m->p[q] = m->p[q - 1];
      m->p[q - 1] = t;
    }
}

static int in_canonical_order(const sg_contacts *c) {
  for (int k = 1; k < c->n; ++k)
    if (sg_contact_key_cmp(&c->c[k - 1], &c->c[k]) > 0) return 0;
  return 1;
}

/* A body whose geometry moves: moving and kinematic bodies (a fixed body's velocity is only its
 * surface's, scene.h). */
static int geometry_moves(const sg_scene *s, int i) { return s->fixed[i] != SG_FIXED; }

double sg_body_speed_bound(const sg_scene *s, int i) {
  if (!geometry_moves(s, i)) return 0.0;
  const double *v = s->state.vel + 6 * i;
  if (s->kind[i] == SG_BODY_TREE) { /* its links move apart from its row: the fastest geom point */
    const sg_tree *t = sg_scene_tree_by_gid(s, s->gid[i]);
    double r, speed = 0;
    if (t) sg_tree_geom_bounds(t, &r, &speed);
    return fmax(speed, v3_norm(v) + v3_norm(v + 3) * sg_body_bounding_radius(s, i));
  }
  return v3_norm(v) + v3_norm(v + 3) * sg_body_bounding_radius(s, i);
}

/* Farthest point of the body's core from its centre. A sphere or a capsule is its core (a point,
 * a segment) grown by its radius, a rounding that rotation maps onto itself: only the core's
 * motion moves the surface. */
static double rotation_lever(const sg_scene *s, int i) {
  const double *d = s->size + 3 * i;
  switch (s->shape[i]) {
    case SG_SHAPE_CAPSULE: return d[1];
    case SG_SHAPE_BOX: return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    case SG_SHAPE_CYLINDER:
    case SG_SHAPE_CONE:
    case SG_SHAPE_DISK:
    case SG_SHAPE_MESH: return sg_body_bounding_radius(s, i);
    default: return 0.0;
  }
}

/* A wall of revolution is unchanged by a turn about its own axis (a drum): only the rest of its
 * angular velocity moves its surface. */
static double surface_turn_rate(const sg_scene *s, int i) {
  const double *w = s->state.vel + 6 * i + 3;
  if (!sg_shape_is_revolved(s->shape[i])) return v3_norm(w);
  double R[9], axis[3], off[3];
  quat_to_mat(R, s->state.quat + 4 * i);
  m3_col(axis, R, 2);
  v3_copy(off, w);
  v3_axpy(off, -v3_dot(w, axis), axis);
  return v3_norm(off);
}

double sg_body_reach(const sg_scene *s, int i, double dt, double margin) {
  return sg_body_bounding_radius(s, i) + dt * sg_body_speed_bound(s, i) + 0.5 * margin;
}

double sg_body_rotation_sweep(const sg_scene *s, int i, double dt) {
  if (!geometry_moves(s, i)) return 0.0;
  return dt * surface_turn_rate(s, i) * rotation_lever(s, i);
}

void sg_pair_displacement(const sg_scene *s, int i, int j, double dt, double d[3]) {
  static const double rest[3] = {0, 0, 0};
  const double *vi = geometry_moves(s, i) ? s->state.vel + 6 * i : rest, *vj = geometry_moves(s, j) ? s->state.vel + 6 * j : rest;
  v3_sub(d, vj, vi);
  v3_scale(d, d, dt);
}

int sg_pair_displacements(const sg_scene *s, int i, int j, double dt, int stops, double d[3][3]) {
  sg_pair_displacement(s, i, j, dt, d[0]);
  int n = 1;
  if (!stops) return n;
  /* only a dynamic body can be stopped by the solve; a fixed body's geometry never moves */
  if (s->fixed[i] == SG_MOVING && geometry_moves(s, j)) v3_scale(d[n++], s->state.vel + 6 * j, dt);
  if (s->fixed[j] == SG_MOVING && geometry_moves(s, i)) v3_scale(d[n++], s->state.vel + 6 * i, -dt);
  return n;
}

double sg_plane_turn_sweep(const sg_scene *s, int plane, int other, double dt) {
  if (s->shape[plane] != SG_SHAPE_PLANE || !geometry_moves(s, plane)) return 0.0;
  double rel[3];
  v3_sub(rel, s->state.pos + 3 * other, s->state.pos + 3 * plane);
  return dt * v3_norm(s->state.vel + 6 * plane + 3) * (v3_norm(rel) + sg_body_bounding_radius(s, other));
}

double sg_pair_reach(const sg_scene *s, int i, int j, double margin, double dt, int stops) {
  if (s->gid[j] < s->gid[i]) { int t = i; i = j; j = t; } /* one rounding whatever the order */
  double d[3][3], far = 0;
  int nd = sg_pair_displacements(s, i, j, dt, stops, d);
  for (int k = 0; k < nd; ++k) far = fmax(far, v3_norm(d[k]));
  double turn = sg_body_rotation_sweep(s, i, dt) + sg_body_rotation_sweep(s, j, dt);
  return margin + far + (turn + (sg_plane_turn_sweep(s, i, j, dt) + sg_plane_turn_sweep(s, j, i, dt)));
}

/* The point q = p + t d of the segment t in [0, 1] closest to the origin; returns t. */
static double closest_approach(const double *p, const double *d, double q[3]) {
  const double dd = v3_dot(d, d), t = dd > 0 ? fmin(1.0, fmax(0.0, -v3_dot(p, d) / dd)) : 0.0;
  v3_copy(q, p);
  v3_axpy(q, t, d);
  return t;
}

double sg_spheres_least_gap(const double *p, const double *d, double radii) {
  double q[3];
  closest_approach(p, d, q);
  return v3_norm(q) - radii;
}

void sg_meet_spheres(const double *xa, const double *xb, double ra, double rb, const double *d_a, sg_contact *c) {
  double p[3], q[3], n[3];
  v3_sub(p, xa, xb);
  const double radii = ra + rb, dd = v3_dot(d_a, d_a), pd = v3_dot(p, d_a);
  if (!(dd > 0) || !(c->cp.gap > 0)) return;
  double t = closest_approach(p, d_a, q);
  if (v3_norm(q) < radii) { /* they touch: the first root of |p + t d|^2 = radii^2, in its stable form */
    const double c0 = v3_dot(p, p) - radii * radii;
    t = c0 / (-pd + sqrt(fmax(0.0, pd * pd - dd * c0)));
    v3_copy(q, p);
    v3_axpy(q, t, d_a);
  }
  const double len = v3_norm(q);
  if (!(t > 0) || !(len > 1e-12 * radii)) return;
  v3_scale(n, q, 1.0 / len);
  const double along = v3_dot(p, n);
  v3_copy(c->cp.normal, n);
  c->cp.gap = along - radii;
  v3_copy(c->cp.point, xb); /* the middle of the gap, as the narrow phase places it (narrow_internal.h) */
  v3_axpy(c->cp.point, rb, n);
  v3_axpy(c->cp.point, 0.5 * c->cp.gap, n);
  v3_copy(c->meet, p);
  v3_axpy(c->meet, -along, n);
}

/* The narrow phase of bodies i and j (sg_collide); two spheres from their centres and radii, without
 * building their geometries. */
static int collide_bodies(const sg_scene *s, int i, int j, double reach, sg_manifold *m) {
  if (s->shape[i] == SG_SHAPE_SPHERE && s->shape[j] == SG_SHAPE_SPHERE)
    return sg_collide_sphere_centres(s->state.pos + 3 * i, s->size[3 * i], s->state.pos + 3 * j, s->size[3 * j], reach, m);
  sg_geom ga, gb;
  sg_scene_geom(s, i, &ga);
  sg_scene_geom(s, j, &gb);
  return sg_collide(&ga, &gb, reach, m);
}

sg_err sg_find_contacts(const sg_scene *s, double margin, double dt, sg_broadphase *bp, sg_contacts *out) {
  out->n = 0;
  SG_CHECK(sg_broadphase_pairs(bp, s, margin, dt));
  SG_CHECK(sg_broadphase_sort_canonical(bp, s));
  for (int k = 0; k < bp->n; ++k) {
    int i = bp->pairs[2 * k], j = bp->pairs[2 * k + 1];
    /* canonical roles: A is the body with the smaller global id */
    if (s->gid[j] < s->gid[i]) { int t = i; i = j; j = t; }
    sg_manifold m;
    if (collide_bodies(s, i, j, sg_pair_reach(s, i, j, margin, dt, bp->stops), &m) <= 0) continue;
    sort_by_feature(&m);
    SG_CHECK(sg_grow((void **)&out->c, &out->cap, out->n + m.n, sizeof *out->c, "contacts"));
    for (int p = 0; p < m.n; ++p) {
      sg_contact *c = &out->c[out->n++];
      c->a = i;
      c->b = j;
      c->link_a = c->link_b = 0;
      c->gid_a = s->gid[i];
      c->gid_b = s->gid[j];
      c->cp = m.p[p];
      c->shift[0] = c->shift[1] = c->shift[2] = 0;
      c->meet[0] = c->meet[1] = c->meet[2] = 0;
      if (bp->meet_normal && m.n == 1 && sg_body_is_rigid_sphere(s, i) && sg_body_is_rigid_sphere(s, j)) {
        double d_a[3];
        sg_pair_displacement(s, j, i, dt, d_a);
        sg_meet_spheres(s->state.pos + 3 * i, s->state.pos + 3 * j, s->size[3 * i], s->size[3 * j], d_a, c);
      }
    }
  }
  if (s->n_trees) SG_CHECK(sg_find_tree_contacts(s, margin, dt, out));
  /* the pairs' order makes the contacts canonical; the trees' contacts are appended unsorted */
  if (!in_canonical_order(out)) qsort(out->c, (size_t)out->n, sizeof *out->c, cmp_contact);
  return SG_OK;
}
