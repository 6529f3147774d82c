/* The tree body kind (body_kind.h): a kinematic tree (tree.h) whose unknowns are its generalized
 * velocities, paper 002 (8) with A_j = M(q) / (1 - theta), b_j = A_j v_k + f_k dt from (2), and
 * point Jacobians J_ij = J_{i,b} J_{b,j} through the tree (29)-(31). In the problem's units u a
 * linear velocity (prismatic, a free joint's first three) is in length/time and an angular one in
 * 1/time, as for a rigid body: with v_si = D v, A and b scale as D A D / (mass V^2) and D b / (mass V^2),
 * and J as J D / V (V the unit of velocity). */
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/la.h"
#include "signorini/tree.h"

/* The migration record's fixed part; the tree's q and v follow it. */
typedef struct {
  int64_t gid;
  int32_t shape, material;
  int64_t fixed, nq, nv;
  double size[3], density, mass, pos[3], quat[4], vel[6];
} tree_record;

static const sg_tree *tree_of(const sg_scene *s, int i) { return sg_scene_tree_by_gid(s, s->gid[i]); }

/* D_k: SI per problem unit of velocity k. */
static void unit_scales(const sg_tree *t, const sg_units *u, double *D) {
  for (int k = 0; k < t->nv; ++k) D[k] = sg_tree_dof_is_linear(t, k) ? sg_units_velocity(u) : 1.0 / u->time;
}

static int dof(const sg_scene *s, int i) {
  const sg_tree *t = tree_of(s, i);
  return t ? t->nv : 0;
}

static void subsystem(const sg_scene *s, int i, const sg_units *u, double dt, double theta, double *A, double *b) {
  const sg_tree *t = tree_of(s, i);
  double M[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF], f[SG_TREE_MAX_DOF], D[SG_TREE_MAX_DOF];
  const int nv = t->nv;
  const double V = sg_units_velocity(u), scale = 1.0 / (u->mass * V * V), inv = 1.0 / (1.0 - theta);
  /* a mass matrix that cannot be factorized leaves f unpredicted; the solver then reports A */
  (void)sg_tree_step_terms(t, t->q, t->v, s->gravity, dt, theta, M, f);
  unit_scales(t, u, D);
  for (int a = 0; a < nv; ++a) {
    double Mv = 0;
    for (int c = 0; c < nv; ++c) {
      Mv += M[a * nv + c] * t->v[c];
      A[a * nv + c] = D[a] * M[a * nv + c] * D[c] * inv * scale;
    }
    b[a] = D[a] * (Mv * inv + f[a] * dt) * scale; /* b = A v_k + f_k dt */
  }
}

/* A joint's first velocity rides on the last velocity of its nearest ancestor that has any (a fixed
 * joint has none), each further velocity of the joint on the one before it: the CRBA's sparsity
 * (M_ab = 0 unless a and b are on one path to the root, Featherstone 2008, Sec. 6.5). */
static void dof_parents(const sg_scene *s, int i, int *parent) {
  const sg_tree *t = tree_of(s, i);
  for (int l = 0; l < t->n_links; ++l) {
    const sg_link *L = &t->link[l];
    int up = -1;
    for (int a = L->parent; a >= 0 && up < 0; a = t->link[a].parent)
      if (sg_joint_nv(t->link[a].type) > 0) up = t->link[a].v_off + sg_joint_nv(t->link[a].type) - 1;
    for (int k = 0; k < sg_joint_nv(L->type); ++k) parent[L->v_off + k] = k ? L->v_off + k - 1 : up;
  }
}

/* Row k: sign dirs_k . (velocity of the point per unit of each velocity), in units u. */
static void point_jacobian(const sg_scene *s, int i, int link, const double point[3], const double *dirs, int rows,
                           const sg_units *u, double sign, double *J) {
  const sg_tree *t = tree_of(s, i);
  sg_tree_kin k;
  double J3[3 * SG_TREE_MAX_DOF], D[SG_TREE_MAX_DOF];
  const int nv = t->nv;
  sg_tree_kinematics(t, t->q, &k);
  sg_tree_point_jacobian(t, &k, link, point, J3);
  unit_scales(t, u, D);
  const double V = sg_units_velocity(u);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < nv; ++c)
      J[r * nv + c] =
          sign * (dirs[3 * r] * J3[c] + dirs[3 * r + 1] * J3[nv + c] + dirs[3 * r + 2] * J3[2 * nv + c]) * D[c] / V;
}

/* Unknown k's motion: the columns of S (tree.h: angular, then linear at the origin) as (linear,
 * angular) per problem unit of k, D_k / V, the angular one times the unit of length (paper 002 (44):
 * a point's velocity is lin + ang x r with r in units of length). */
static void dof_motion(const sg_scene *s, int i, const sg_units *u, double *motion) {
  const sg_tree *t = tree_of(s, i);
  sg_tree_kin k;
  double D[SG_TREE_MAX_DOF];
  sg_tree_kinematics(t, t->q, &k);
  unit_scales(t, u, D);
  const double V = sg_units_velocity(u);
  for (int c = 0; c < t->nv; ++c)
    for (int r = 0; r < 3; ++r) {
      motion[6 * c + r] = k.S[c][3 + r] * D[c] / V;
      motion[6 * c + 3 + r] = k.S[c][r] * D[c] * u->length / V;
    }
}

/* The last unknown of the link or of its nearest ancestor that has any (dof_parents: its chain
 * holds every joint between the link and the world). */
static int point_anchor(const sg_scene *s, int i, int link, const double point[3], const sg_units *u, double lever[3]) {
  const sg_tree *t = tree_of(s, i);
  for (int r = 0; r < 3; ++r) lever[r] = point[r] / u->length;
  for (int l = link; l >= 0; l = t->link[l].parent) {
    const int nv = sg_joint_nv(t->link[l].type);
    if (nv > 0) return t->link[l].v_off + nv - 1;
  }
  return -1;
}

static void velocity_in_units(const sg_scene *s, int i, const sg_units *u, double *v) {
  const sg_tree *t = tree_of(s, i);
  double D[SG_TREE_MAX_DOF];
  unit_scales(t, u, D);
  for (int k = 0; k < t->nv; ++k) v[k] = t->v[k] / D[k];
}

/* The solved motion of the body's row (6 numbers, scene.h): the first link's linear velocity at
 * its origin and its angular velocity under vhat. */
static void velocity_to_si(const sg_scene *s, int i, const sg_units *u, const double *v, double *v_si) {
  const sg_tree *t = tree_of(s, i);
  sg_tree_kin k;
  double D[SG_TREE_MAX_DOF], vs[SG_TREE_MAX_DOF], tw[6], wx[3];
  unit_scales(t, u, D);
  for (int c = 0; c < t->nv; ++c) vs[c] = v[c] * D[c];
  sg_tree_kinematics(t, t->q, &k);
  sg_tree_link_twist(t, &k, 0, vs, tw);
  v3_cross(wx, tw, k.x[0]);
  v3_add(v_si, tw + 3, wx);
  v3_copy(v_si + 3, tw);
}

/* Paper 002 (2): v_{k+1} = (vhat - theta v_k) / (1 - theta), q_{k+1} = q_k (+) dt vhat. */
static void integrate(sg_scene *s, int i, const sg_units *u, const double *vhat, double theta, double dt) {
  sg_tree *t = sg_scene_tree_by_gid(s, s->gid[i]);
  double D[SG_TREE_MAX_DOF], vs[SG_TREE_MAX_DOF];
  unit_scales(t, u, D);
  for (int c = 0; c < t->nv; ++c) vs[c] = vhat[c] * D[c];
  sg_tree_advance(t, t->q, vs, dt, t->q);
  for (int c = 0; c < t->nv; ++c) t->v[c] = (vs[c] - theta * t->v[c]) / (1.0 - theta);
  sg_tree_update_row(s, i, t);
}

static size_t record_size(const sg_scene *s, int i) {
  const sg_tree *t = tree_of(s, i);
  return sizeof(tree_record) + (size_t)(t->nq + t->nv) * sizeof(double);
}

static void pack(const sg_scene *s, int i, void *record) {
  const sg_tree *t = tree_of(s, i);
  tree_record r;
  memset(&r, 0, sizeof r);
  r.gid = s->gid[i];
  r.shape = s->shape[i];
  r.material = s->material[i];
  r.fixed = s->fixed[i];
  r.nq = t->nq;
  r.nv = t->nv;
  memcpy(r.size, s->size + 3 * i, sizeof r.size);
  r.density = s->density[i];
  r.mass = s->mass[i];
  memcpy(r.pos, s->state.pos + 3 * i, sizeof r.pos);
  memcpy(r.quat, s->state.quat + 4 * i, sizeof r.quat);
  memcpy(r.vel, s->state.vel + 6 * i, sizeof r.vel);
  unsigned char *out = record;
  memcpy(out, &r, sizeof r);
  memcpy(out + sizeof r, t->q, (size_t)t->nq * sizeof(double));
  memcpy(out + sizeof r + (size_t)t->nq * sizeof(double), t->v, (size_t)t->nv * sizeof(double));
}

/* The row is appended; the tree's state goes to the receiving scene's tree of that body, when it
 * holds the trees (a ghost scene does not; its bodies are read through the scene they join). */
static sg_err unpack(sg_scene *s, const void *record, size_t size, int *index) {
  tree_record r;
  if (size < sizeof r) return sg_error_set(SG_ERR_FORMAT, "tree record of %zu bytes (expected at least %zu)", size, sizeof r);
  memcpy(&r, record, sizeof r);
  if (r.nq < 0 || r.nv < 0 || size != sizeof r + (size_t)(r.nq + r.nv) * sizeof(double))
    return sg_error_set(SG_ERR_FORMAT, "tree record of body %lld: %zu bytes for %lld coordinates and %lld velocities",
                        (long long)r.gid, size, (long long)r.nq, (long long)r.nv);
  int k;
  SG_CHECK(sg_scene_add_body(s, r.shape, r.size, r.material, (int)r.fixed, r.density, r.pos, r.quat, r.vel, &k));
  s->gid[k] = r.gid;
  s->mass[k] = r.mass;
  sg_tree *t = sg_scene_tree_by_gid(s, r.gid);
  if (t && t->nq == r.nq && t->nv == r.nv) {
    const unsigned char *in = (const unsigned char *)record + sizeof r;
    memcpy(t->q, in, (size_t)t->nq * sizeof(double));
    memcpy(t->v, in + (size_t)t->nq * sizeof(double), (size_t)t->nv * sizeof(double));
  }
  *index = k;
  return SG_OK;
}

/* Its unknowns (factorization, the v-update) and one per contact. */
static sg_body_weight partition_weight(const sg_scene *s, int i) {
  const sg_tree *t = tree_of(s, i);
  return (sg_body_weight){t ? t->nv : 1, 1};
}

const sg_body_kind_ops sg_body_tree_ops = {
    .name = "tree",
    .max_dof = SG_TREE_MAX_DOF,
    .dof = dof,
    .subsystem = subsystem,
    .dof_parents = dof_parents,
    .point_jacobian = point_jacobian,
    .dof_motion = dof_motion,
    .point_anchor = point_anchor,
    .velocity_in_units = velocity_in_units,
    .velocity_to_si = velocity_to_si,
    .integrate = integrate,
    .record_size = record_size,
    .pack = pack,
    .unpack = unpack,
    .partition_weight = partition_weight,
};
