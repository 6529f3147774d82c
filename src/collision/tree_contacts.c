/* Contacts of the trees' link geoms (tree.h, sg_link_geom; collision.h, sg_find_tree_contacts).
 * A tree's geoms are placed from its replicated state (q, v), the same bits on every rank that holds
 * its body, and tested against each body of the scene (other trees aside) and each geom of the
 * trees of higher id and of its own tree, by bounding spheres grown by the pair's reach over the step
 * as the broad phase's (collision.h: margin, relative displacement, rotation sweeps), then by the
 * narrow phase. Every tree meets every body: the work is the geoms times the bodies held, which
 * suits scenes of a few robots among many bodies; a grid would take over at scale. */
#include <math.h>
#include <stdlib.h>
#include "signorini/body_kind.h"
#include "signorini/collision.h"
#include "signorini/la.h"
#include "signorini/tree.h"

typedef struct {
  sg_geom g;
  double vel[3], w[3]; /* centre velocity, angular velocity (world) */
  double r, sweep;     /* bounding radius about the centre; dt |w| times the rotation lever */
  int link, index;
} placed_geom;

/* Farthest point of a geom's core from its centre (collision.h: rotation moves only the core). */
static double rotation_lever(const sg_geom *g) {
  const double *d = g->size;
  if (g->shape == SG_SHAPE_CAPSULE) return d[1];
  if (g->shape == SG_SHAPE_BOX) return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  return 0.0;
}

static void place_geoms(const sg_tree *t, double dt, placed_geom *out) {
  sg_tree_kin k;
  sg_tree_kinematics(t, t->q, &k);
  for (int g = 0; g < t->n_geoms; ++g) {
    placed_geom *p = &out[g];
    const sg_link_geom *G = &t->geom[g];
    p->g.shape = G->shape;
    v3_copy(p->g.size, G->size);
    p->g.mesh = NULL;
    sg_tree_geom_world(t, &k, g, p->g.pos, p->g.R);
    sg_tree_geom_motion(t, &k, g, t->v, p->vel, p->w);
    p->r = sg_tree_geom_radius(G);
    p->sweep = dt * v3_norm(p->w) * rotation_lever(&p->g);
    p->link = G->link;
    p->index = g;
  }
}

/* Can geom a and body j come within margin during the step? Returns the narrow phase's reach, or
 * -1 when they cannot. A turning (kinematic) plane sweeps by its rotation at the geom. */
static double reach_body(const sg_scene *s, const placed_geom *a, int j, double margin, double dt) {
  static const double rest[3] = {0, 0, 0};
  const double *vj = s->fixed[j] != SG_FIXED ? s->state.vel + 6 * j : rest, *xj = s->state.pos + 3 * j;
  double d[3], rel[3];
  v3_sub(d, vj, a->vel);
  v3_sub(rel, a->g.pos, xj);
  double reach = margin + dt * v3_norm(d) + a->sweep + sg_body_rotation_sweep(s, j, dt);
  if (s->shape[j] == SG_SHAPE_PLANE) {
    double R[9], n[3];
    if (s->fixed[j] != SG_FIXED) reach += dt * v3_norm(s->state.vel + 6 * j + 3) * (v3_norm(rel) + a->r);
    quat_to_mat(R, s->state.quat + 4 * j);
    m3_col(n, R, 2);
    return v3_dot(rel, n) - a->r < reach ? reach : -1;
  }
  return v3_norm(rel) < a->r + sg_body_bounding_radius(s, j) + reach ? reach : -1;
}

static double reach_geoms(const placed_geom *a, const placed_geom *b, double margin, double dt) {
  double d[3], rel[3];
  v3_sub(d, b->vel, a->vel);
  v3_sub(rel, a->g.pos, b->g.pos);
  double reach = margin + dt * v3_norm(d) + (a->sweep + b->sweep);
  return v3_norm(rel) < a->r + b->r + reach ? reach : -1;
}

/* The manifold of A (body ia, geom code fa) and B as contacts; fa, fb: geom index + 1, 0 for a body. */
static sg_err add_manifold(const sg_scene *s, int ia, int la, unsigned fa, int ib, int lb, unsigned fb, const sg_manifold *m,
                           sg_contacts *out) {
  SG_CHECK(sg_grow((void **)&out->c, &out->cap, out->n + m->n, sizeof *out->c, "contacts"));
  for (int p = 0; p < m->n; ++p) {
    sg_contact *c = &out->c[out->n++];
    c->a = ia;
    c->b = ib;
    c->link_a = la;
    c->link_b = lb;
    c->gid_a = s->gid[ia];
    c->gid_b = s->gid[ib];
    c->cp = m->p[p];
    c->cp.feature = (c->cp.feature & 0xFFFFu) | fa << 24 | fb << 16;
    c->shift[0] = c->shift[1] = c->shift[2] = 0;
    c->meet[0] = c->meet[1] = c->meet[2] = 0;
  }
  return SG_OK;
}

/* Geom a of tree body i against body j (not a tree), A the one of smaller id. */
static sg_err geom_body(const sg_scene *s, int i, const placed_geom *a, int j, double margin, double dt, sg_contacts *out) {
  const double reach = reach_body(s, a, j, margin, dt);
  if (reach < 0) return SG_OK;
  sg_geom gj;
  sg_manifold m;
  sg_scene_geom(s, j, &gj);
  const unsigned code = (unsigned)a->index + 1;
  if (s->gid[i] < s->gid[j]) {
    if (sg_collide(&a->g, &gj, reach, &m) <= 0) return SG_OK;
    return add_manifold(s, i, a->link, code, j, 0, 0, &m, out);
  }
  if (sg_collide(&gj, &a->g, reach, &m) <= 0) return SG_OK;
  return add_manifold(s, j, 0, 0, i, a->link, code, &m, out);
}

/* Geom a of tree body i against geom b of tree body j (i's id below j's, or the same tree with a
 * before b). */
static sg_err geom_geom(const sg_scene *s, int i, const placed_geom *a, int j, const placed_geom *b, double margin, double dt,
                        sg_contacts *out) {
  const double reach = reach_geoms(a, b, margin, dt);
  sg_manifold m;
  if (reach < 0 || sg_collide(&a->g, &b->g, reach, &m) <= 0) return SG_OK;
  return add_manifold(s, i, a->link, (unsigned)a->index + 1, j, b->link, (unsigned)b->index + 1, &m, out);
}

/* Tree body i (its geoms placed in ga) against every body j and the trees' geoms. */
static sg_err tree_against_scene(const sg_scene *s, int i, const sg_tree *t, const placed_geom *ga, placed_geom *gb,
                                 double margin, double dt, sg_contacts *out) {
  for (int a = 0; a < t->n_geoms; ++a)
    for (int b = a + 1; b < t->n_geoms; ++b)
      if (!sg_tree_links_joined(t, ga[a].link, ga[b].link)) SG_CHECK(geom_geom(s, i, &ga[a], i, &ga[b], margin, dt, out));
  for (int j = 0; j < s->n; ++j) {
    if (j == i) continue;
    if (s->kind[j] != SG_BODY_TREE) {
      for (int a = 0; a < t->n_geoms; ++a) SG_CHECK(geom_body(s, i, &ga[a], j, margin, dt, out));
      continue;
    }
    const sg_tree *u = sg_scene_tree_by_gid(s, s->gid[j]);
    if (!u || !u->n_geoms || s->gid[j] < s->gid[i]) continue; /* that pair is j's to find */
    place_geoms(u, dt, gb);
    for (int a = 0; a < t->n_geoms; ++a)
      for (int b = 0; b < u->n_geoms; ++b) SG_CHECK(geom_geom(s, i, &ga[a], j, &gb[b], margin, dt, out));
  }
  return SG_OK;
}

sg_err sg_find_tree_contacts(const sg_scene *s, double margin, double dt, sg_contacts *out) {
  placed_geom *buf = NULL;
  sg_err err = SG_OK;
  for (int i = 0; i < s->n && !err; ++i) {
    if (s->kind[i] != SG_BODY_TREE) continue;
    const sg_tree *t = sg_scene_tree_by_gid(s, s->gid[i]);
    if (!t || !t->n_geoms) continue;
    if (!buf && !(buf = sg_calloc(2 * SG_TREE_MAX_GEOMS, sizeof *buf, "placed link geoms"))) return SG_ERR_MEM;
    place_geoms(t, dt, buf);
    err = tree_against_scene(s, i, t, buf, buf + SG_TREE_MAX_GEOMS, margin, dt, out);
  }
  free(buf);
  return err;
}
