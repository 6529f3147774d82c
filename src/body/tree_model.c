/* Kinematic trees as a model (tree.h): creation, checks, reference counting, and the scene's table
 * of trees (sorted by the global id of the body each tree is). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/la.h"
#include "signorini/scene.h"
#include "signorini/tree.h"

static const int joint_nq[SG_JOINT_TYPES] = {0, 1, 1, 4, 7}, joint_nv[SG_JOINT_TYPES] = {0, 1, 1, 3, 6};
static const char *const joint_names[SG_JOINT_TYPES] = {"fixed", "revolute", "prismatic", "spherical", "free"};

int sg_joint_nq(int type) { return type >= 0 && type < SG_JOINT_TYPES ? joint_nq[type] : 0; }
int sg_joint_nv(int type) { return type >= 0 && type < SG_JOINT_TYPES ? joint_nv[type] : 0; }
const char *sg_joint_name(int type) { return type >= 0 && type < SG_JOINT_TYPES ? joint_names[type] : "unknown"; }

sg_err sg_tree_create(int n_links, int64_t body, sg_tree **out) {
  *out = NULL;
  if (n_links < 1 || n_links > SG_TREE_MAX_LINKS)
    return sg_error_set(SG_ERR_ARG, "a tree has %d links, expected 1 to %d (body %lld)", n_links, SG_TREE_MAX_LINKS,
                        (long long)body);
  sg_tree *t = sg_calloc(1, sizeof *t, "tree");
  if (t) t->link = sg_calloc((size_t)n_links, sizeof *t->link, "tree links");
  if (!t || !t->link) {
    if (t) free(t);
    return SG_ERR_MEM;
  }
  t->refs = 1;
  t->body = body;
  t->n_links = n_links;
  for (int l = 0; l < n_links; ++l) {
    t->link[l].parent = l - 1;
    t->link[l].quat[0] = 1;
    t->link[l].limit[0] = -INFINITY;
    t->link[l].limit[1] = INFINITY;
  }
  *out = t;
  return SG_OK;
}

static int finite_n(const double *x, int n) {
  for (int k = 0; k < n; ++k)
    if (!isfinite(x[k])) return 0;
  return 1;
}

/* A joint's limits (lower <= upper, either may be infinite) and PD gains (finite, >= 0, a damping
 * kd > 0 whenever there is a gain: the soft row (4) of paper 002 needs b_i > 0), on revolute and
 * prismatic joints only. */
static sg_err check_control(const sg_link *L, int l, long long b, const char *where) {
  const int one_dof = L->type == SG_JOINT_REVOLUTE || L->type == SG_JOINT_PRISMATIC;
  const int limited = L->limit[0] > -INFINITY || L->limit[1] < INFINITY, controlled = L->pd[0] != 0 || L->pd[1] != 0;
  if (isnan(L->limit[0]) || isnan(L->limit[1]) || L->limit[0] > L->limit[1])
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: link %d has the limits [%g, %g], expected lower <= upper", where,
                        b, l, L->limit[0], L->limit[1]);
  if (!finite_n(L->pd, 3) || L->pd[0] < 0 || L->pd[1] < 0 || (controlled && !(L->pd[1] > 0)))
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: link %d has the PD gains kp %g, kd %g, target %g: expected finite, "
                        "kp >= 0 and kd > 0", where, b, l, L->pd[0], L->pd[1], L->pd[2]);
  if ((limited || controlled) && !one_dof)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: link %d: limits and PD control are for revolute and prismatic joints, "
                        "not a %s joint", where, b, l, sg_joint_name(L->type));
  return SG_OK;
}

/* One link's numbers: a parent before it (so the links form a tree without cycles), a known joint,
 * finite numbers, a unit joint orientation and axis, a positive mass, an inertia with a
 * non-negative diagonal. */
static sg_err check_link(const sg_tree *t, int l, const char *where) {
  const sg_link *L = &t->link[l];
  const long long b = (long long)t->body;
  if (L->parent < -1 || L->parent >= l)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: link %d has parent %d, which is not an earlier link (or -1, the world)",
                        where, b, l, L->parent);
  if (L->type < 0 || L->type >= SG_JOINT_TYPES)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: link %d has the unknown joint type %d", where, b, l, L->type);
  if (!finite_n(L->pos, 3) || !finite_n(L->quat, 4) || !finite_n(L->axis, 3) || !isfinite(L->mass) || !finite_n(L->com, 3) ||
      !finite_n(L->inertia, 6))
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: link %d has a number that is not finite", where, b, l);
  double qn = sqrt(L->quat[0] * L->quat[0] + L->quat[1] * L->quat[1] + L->quat[2] * L->quat[2] + L->quat[3] * L->quat[3]);
  if (fabs(qn - 1) > 1e-6)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: link %d: joint orientation is not a unit quaternion", where, b, l);
  if ((L->type == SG_JOINT_REVOLUTE || L->type == SG_JOINT_PRISMATIC) && fabs(v3_norm(L->axis) - 1) > 1e-6)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: link %d: the %s joint's axis is not a unit vector", where, b, l,
                        sg_joint_name(L->type));
  if (!(L->mass > 0))
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: link %d has mass %g, expected > 0", where, b, l, L->mass);
  if (L->inertia[0] < 0 || L->inertia[1] < 0 || L->inertia[2] < 0)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: link %d has a negative moment of inertia", where, b, l);
  return check_control(L, l, b, where);
}

/* A geom on a link of the tree, of a shape a moving body may have, with positive finite sizes (a
 * capsule's half length may be 0), a finite position and a unit orientation. */
static sg_err check_geom(const sg_tree *t, int g, const char *where) {
  const sg_link_geom *G = &t->geom[g];
  const long long b = (long long)t->body;
  if (G->link < 0 || G->link >= t->n_links)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: geom %d is on link %d, which the tree (%d links) lacks", where, b, g,
                        G->link, t->n_links);
  if (G->shape != SG_SHAPE_SPHERE && G->shape != SG_SHAPE_BOX && G->shape != SG_SHAPE_CAPSULE)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: geom %d has shape %d, expected 0 (sphere), 1 (box) or 2 (capsule)",
                        where, b, g, G->shape);
  const int n_pos = G->shape == SG_SHAPE_BOX ? 3 : 1; /* a sphere's and a capsule's radius, a box's half extents */
  int ok = finite_n(G->size, 3) && finite_n(G->pos, 3) && finite_n(G->quat, 4) && !(G->shape == SG_SHAPE_CAPSULE && G->size[1] < 0);
  for (int d = 0; d < n_pos; ++d) ok &= G->size[d] > 0;
  if (!ok)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: geom %d (a %s) has a size that is not positive or a number that is "
                        "not finite", where, b, g, sg_shape_name(G->shape));
  double qn = sqrt(G->quat[0] * G->quat[0] + G->quat[1] * G->quat[1] + G->quat[2] * G->quat[2] + G->quat[3] * G->quat[3]);
  if (fabs(qn - 1) > 1e-6)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: geom %d: orientation is not a unit quaternion", where, b, g);
  return SG_OK;
}

sg_err sg_tree_finish(sg_tree *t, const char *where) {
  int nq = 0, nv = 0;
  for (int g = 0; g < t->n_geoms; ++g) SG_CHECK(check_geom(t, g, where));
  for (int c = 0; c < t->n_closures; ++c) SG_CHECK(sg_tree_check_closure(t, c, where));
  for (int l = 0; l < t->n_links; ++l) {
    SG_CHECK(check_link(t, l, where));
    t->link[l].q_off = nq;
    t->link[l].v_off = nv;
    nq += sg_joint_nq(t->link[l].type);
    nv += sg_joint_nv(t->link[l].type);
  }
  if (nv < 1 || nv > SG_TREE_MAX_DOF)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld has %d degrees of freedom, expected 1 to %d", where,
                        (long long)t->body, nv, SG_TREE_MAX_DOF);
  free(t->q);
  free(t->v);
  t->q = sg_calloc((size_t)nq + 1, sizeof *t->q, "tree coordinates");
  t->v = sg_calloc((size_t)nv, sizeof *t->v, "tree velocities");
  if (!t->q || !t->v) return SG_ERR_MEM;
  t->nq = nq;
  t->nv = nv;
  sg_tree_neutral(t, t->q);
  return SG_OK;
}

sg_tree *sg_tree_ref(sg_tree *t) {
  t->refs++;
  return t;
}

void sg_tree_release(sg_tree **pt) {
  sg_tree *t = *pt;
  *pt = NULL;
  if (!t || --t->refs > 0) return;
  free(t->link);
  free(t->geom);
  free(t->closure);
  free(t->q);
  free(t->v);
  free(t);
}

void sg_tree_neutral(const sg_tree *t, double *q) {
  memset(q, 0, (size_t)t->nq * sizeof *q);
  for (int l = 0; l < t->n_links; ++l) {
    const sg_link *L = &t->link[l];
    if (L->type == SG_JOINT_SPHERICAL) q[L->q_off] = 1;
    if (L->type == SG_JOINT_FREE) q[L->q_off + 3] = 1;
  }
}

int sg_tree_dof_is_linear(const sg_tree *t, int k) {
  for (int l = 0; l < t->n_links; ++l) {
    const sg_link *L = &t->link[l];
    if (k < L->v_off || k >= L->v_off + sg_joint_nv(L->type)) continue;
    return L->type == SG_JOINT_PRISMATIC || (L->type == SG_JOINT_FREE && k < L->v_off + 3);
  }
  return 0;
}

/* ---- the scene's trees ---- */

static int tree_index(const sg_scene *s, int64_t gid) {
  int lo = 0, hi = s->n_trees - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (s->trees[mid]->body == gid) return mid;
    if (s->trees[mid]->body < gid) lo = mid + 1; else hi = mid - 1;
  }
  return -(lo + 1);
}

sg_tree *sg_scene_tree_by_gid(const sg_scene *s, int64_t gid) {
  int k = tree_index(s, gid);
  return k >= 0 ? s->trees[k] : NULL;
}

sg_err sg_scene_add_tree(sg_scene *s, sg_tree *t) {
  int k = tree_index(s, t->body);
  if (k >= 0) return sg_error_set(SG_ERR_FORMAT, "two trees name body %lld", (long long)t->body);
  k = -k - 1;
  sg_tree **grown = realloc(s->trees, ((size_t)s->n_trees + 1) * sizeof *grown);
  if (!grown) return sg_error_set(SG_ERR_MEM, "out of memory for the scene's trees");
  s->trees = grown;
  memmove(s->trees + k + 1, s->trees + k, (size_t)(s->n_trees - k) * sizeof *grown);
  s->trees[k] = sg_tree_ref(t);
  s->n_trees++;
  return SG_OK;
}

void sg_scene_release_trees(sg_scene *s) {
  for (int k = 0; k < s->n_trees; ++k) sg_tree_release(&s->trees[k]);
  free(s->trees);
  s->trees = NULL;
  s->n_trees = 0;
}

sg_err sg_scene_share_trees(sg_scene *dst, const sg_scene *src) {
  if (dst->trees == src->trees) return SG_OK;
  sg_scene_release_trees(dst);
  for (int k = 0; k < src->n_trees; ++k) SG_CHECK(sg_scene_add_tree(dst, src->trees[k]));
  return SG_OK;
}

/* Each link's orientation: its parent's, its joint's placement, the joint's own rotation. */
void sg_tree_link_quats(const sg_tree *t, const double *q, double (*quat)[4]) {
  for (int l = 0; l < t->n_links; ++l) {
    const sg_link *L = &t->link[l];
    const double *ql = q + L->q_off;
    double m[4] = {1, 0, 0, 0}, placed[4];
    if (L->type == SG_JOINT_REVOLUTE) quat_from_axis_angle(m, L->axis, ql[0]);
    if (L->type == SG_JOINT_SPHERICAL) memcpy(m, ql, sizeof m);
    if (L->type == SG_JOINT_FREE) memcpy(m, ql + 3, sizeof m);
    quat_normalize(m);
    if (L->parent >= 0) quat_mul(placed, quat[L->parent], L->quat);
    else memcpy(placed, L->quat, sizeof placed);
    quat_mul(quat[l], placed, m);
    quat_normalize(quat[l]);
  }
}

void sg_tree_update_row(sg_scene *s, int i, const sg_tree *t) {
  sg_tree_kin k;
  double tw[6], wx[3], *vel = s->state.vel + 6 * i;
  sg_tree_kinematics(t, t->q, &k);
  v3_copy(s->state.pos + 3 * i, k.x[0]);
  double quat[SG_TREE_MAX_LINKS][4];
  sg_tree_link_quats(t, t->q, quat);
  memcpy(s->state.quat + 4 * i, quat[0], sizeof quat[0]);
  sg_tree_link_twist(t, &k, 0, t->v, tw);
  v3_cross(wx, tw, k.x[0]);
  v3_add(vel, tw + 3, wx); /* linear velocity at the link's origin */
  v3_copy(vel + 3, tw);
}

sg_err sg_scene_attach_trees(sg_scene *s, const char *where) {
  for (int k = 0; k < s->n_trees; ++k) {
    sg_tree *t = s->trees[k];
    int i = sg_scene_find_gid(s, s->n, t->body);
    if (i < 0) continue;
    if (s->fixed[i])
      return sg_error_set(SG_ERR_FORMAT, "%s: the tree of body %lld names a fixed body (a tree must be a moving body)", where,
                          (long long)t->body);
    double mass = 0;
    for (int l = 0; l < t->n_links; ++l) mass += t->link[l].mass;
    s->kind[i] = SG_BODY_TREE;
    s->mass[i] = mass;
    memset(s->inertia + 3 * i, 0, 3 * sizeof(double));
    sg_tree_update_row(s, i, t);
  }
  return SG_OK;
}

int sg_scene_max_dof(const sg_scene *s) {
  int w = sg_body_rigid6_ops.max_dof;
  for (int k = 0; k < s->n_trees; ++k)
    if (s->trees[k]->nv > w) w = s->trees[k]->nv;
  return w;
}

void sg_scene_trees_copy_state(sg_scene *dst, const sg_scene *src) {
  for (int k = 0; k < src->n_trees; ++k) {
    const sg_tree *from = src->trees[k];
    sg_tree *to = sg_scene_tree_by_gid(dst, from->body);
    if (!to || to == from || to->nq != from->nq || to->nv != from->nv) continue;
    memcpy(to->q, from->q, (size_t)from->nq * sizeof *to->q);
    memcpy(to->v, from->v, (size_t)from->nv * sizeof *to->v);
  }
}
