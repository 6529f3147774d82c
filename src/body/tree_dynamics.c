/* Dynamics of a kinematic tree (tree.h) in world coordinates: forward kinematics, the mass matrix by
 * the composite-rigid-body algorithm (Featherstone 2008, Sec. 6.2, Table 6.2) and inverse dynamics
 * by recursive Newton-Euler (Featherstone 2008, Sec. 5.3, Table 5.1), with spatial vectors in
 * Pluecker coordinates at the world origin, where composite inertias add without transforms
 * (Featherstone 2008, Sec. 5.5 and 6.2 give the same algorithms in world coordinates). */
#include <math.h>
#include <string.h>
#include "signorini/la.h"
#include "signorini/tree.h"

/* A spatial inertia at the world origin: mass m, first moment h = m c, rotational inertia I about
 * the origin; [[I, [h]x], [[h]x^T, m 1]] (Featherstone 2008 (2.63)). Sums of them are composites. */
typedef struct {
  double m, h[3], I[9];
} spatial_inertia;

static void m3_mul(double *o, const double *a, const double *b) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) o[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}

static double dot6(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* Motion cross product v x m (Featherstone 2008 (2.31)): the rate of a motion vector m fixed in a
 * body moving with v. */
static void cross_motion(const double *v, const double *m, double *o) {
  double a[3], b[3];
  v3_cross(o, v, m);
  v3_cross(a, v + 3, m);
  v3_cross(b, v, m + 3);
  v3_add(o + 3, a, b);
}

/* Force cross product v x* f (Featherstone 2008 (2.32)). */
static void cross_force(const double *v, const double *f, double *o) {
  double a[3], b[3];
  v3_cross(a, v, f);
  v3_cross(b, v + 3, f + 3);
  v3_add(o, a, b);
  v3_cross(o + 3, v, f + 3);
}

/* f = I v: moment n = I w + h x v_O, force m v_O + w x h (the momentum of the body or composite). */
static void inertia_apply(const spatial_inertia *in, const double *v, double *f) {
  double a[3];
  m3_mul_v(f, in->I, v);
  v3_cross(a, in->h, v + 3);
  v3_add(f, f, a);
  v3_cross(a, v, in->h);
  for (int r = 0; r < 3; ++r) f[3 + r] = in->m * v[3 + r] + a[r];
}

/* Link l's inertia at the world origin: I_c (world) + m (|c|^2 1 - c c^T) (parallel axes). */
static void link_inertia(const sg_tree *t, const sg_tree_kin *k, int l, spatial_inertia *in) {
  const sg_link *L = &t->link[l];
  const double *d = L->inertia, Ib[9] = {d[0], d[3], d[4], d[3], d[1], d[5], d[4], d[5], d[2]}, *R = k->R[l], *c = k->c[l];
  double RI[9], Rt[9];
  for (int r = 0; r < 3; ++r)
    for (int q = 0; q < 3; ++q) Rt[3 * r + q] = R[3 * q + r];
  m3_mul(RI, R, Ib);
  m3_mul(in->I, RI, Rt);
  const double cc = v3_dot(c, c);
  for (int r = 0; r < 3; ++r)
    for (int q = 0; q < 3; ++q) in->I[3 * r + q] += L->mass * ((r == q ? cc : 0.0) - c[r] * c[q]);
  in->m = L->mass;
  v3_scale(in->h, c, L->mass);
}

static void inertia_add(spatial_inertia *a, const spatial_inertia *b) {
  a->m += b->m;
  v3_add(a->h, a->h, b->h);
  for (int r = 0; r < 9; ++r) a->I[r] += b->I[r];
}

/* The joint's own rotation and translation (joint frame) at coordinates ql. */
static void joint_motion(const sg_link *L, const double *ql, double Rm[9], double tr[3]) {
  double qq[4] = {1, 0, 0, 0};
  memset(tr, 0, 3 * sizeof *tr);
  switch (L->type) {
    case SG_JOINT_REVOLUTE: quat_from_axis_angle(qq, L->axis, ql[0]); break;
    case SG_JOINT_PRISMATIC: v3_scale(tr, L->axis, ql[0]); break;
    case SG_JOINT_SPHERICAL: memcpy(qq, ql, sizeof qq); break;
    case SG_JOINT_FREE: v3_copy(tr, ql); memcpy(qq, ql + 3, sizeof qq); break;
    default: break;
  }
  quat_normalize(qq);
  quat_to_mat(Rm, qq);
}

/* Columns of S for link l: an axis a through the point p is (a; p x a), a translation along a is
 * (0; a) (Featherstone 2008 Table 4.1, in world coordinates). */
static void motion_columns(const sg_link *L, const double RJ[9], const double xJ[3], const double xl[3], double (*S)[6]) {
  double a[3];
  switch (L->type) {
    case SG_JOINT_REVOLUTE:
      m3_mul_v(a, RJ, L->axis);
      v3_copy(S[0], a);
      v3_cross(S[0] + 3, xJ, a);
      break;
    case SG_JOINT_PRISMATIC:
      m3_mul_v(a, RJ, L->axis);
      memset(S[0], 0, 3 * sizeof(double));
      v3_copy(S[0] + 3, a);
      break;
    case SG_JOINT_SPHERICAL:
      for (int e = 0; e < 3; ++e) {
        m3_col(a, RJ, e);
        v3_copy(S[e], a);
        v3_cross(S[e] + 3, xJ, a);
      }
      break;
    case SG_JOINT_FREE: /* linear velocity of the link origin, then rotation about it */
      for (int e = 0; e < 3; ++e) {
        m3_col(a, RJ, e);
        memset(S[e], 0, 3 * sizeof(double));
        v3_copy(S[e] + 3, a);
        v3_copy(S[3 + e], a);
        v3_cross(S[3 + e] + 3, xl, a);
      }
      break;
    default: break;
  }
}

void sg_tree_kinematics(const sg_tree *t, const double *q, sg_tree_kin *k) {
  static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, zero[3] = {0, 0, 0};
  for (int l = 0; l < t->n_links; ++l) {
    const sg_link *L = &t->link[l];
    const double *Rp = L->parent >= 0 ? k->R[L->parent] : I3, *xp = L->parent >= 0 ? k->x[L->parent] : zero;
    double Rpl[9], RJ[9], xJ[3], Rm[9], tr[3], d[3];
    quat_to_mat(Rpl, L->quat);
    m3_mul(RJ, Rp, Rpl);
    m3_mul_v(d, Rp, L->pos);
    v3_add(xJ, xp, d);
    joint_motion(L, q + L->q_off, Rm, tr);
    m3_mul(k->R[l], RJ, Rm);
    m3_mul_v(d, RJ, tr);
    v3_add(k->x[l], xJ, d);
    m3_mul_v(d, k->R[l], L->com);
    v3_add(k->c[l], k->x[l], d);
    motion_columns(L, RJ, xJ, k->x[l], k->S + L->v_off);
    for (int e = 0; e < sg_joint_nv(L->type); ++e) k->link_of_dof[L->v_off + e] = l;
  }
}

/* Composite-rigid-body algorithm (Featherstone 2008 Table 6.2): I^c of each link is its inertia
 * plus its descendants' (added leaf to root; no transform in world coordinates), then
 * M_ab = S_b . (I^c_l S_a) for every column b of l and of its ancestors. */
void sg_tree_mass_matrix(const sg_tree *t, const sg_tree_kin *k, double *M) {
  spatial_inertia Ic[SG_TREE_MAX_LINKS];
  const int nv = t->nv;
  for (int l = 0; l < t->n_links; ++l) link_inertia(t, k, l, &Ic[l]);
  for (int l = t->n_links - 1; l >= 0; --l)
    if (t->link[l].parent >= 0) inertia_add(&Ic[t->link[l].parent], &Ic[l]);
  memset(M, 0, (size_t)nv * (size_t)nv * sizeof *M);
  for (int l = 0; l < t->n_links; ++l)
    for (int a = t->link[l].v_off; a < t->link[l].v_off + sg_joint_nv(t->link[l].type); ++a) {
      double F[6];
      inertia_apply(&Ic[l], k->S[a], F);
      for (int j = l; j >= 0; j = t->link[j].parent)
        for (int b = t->link[j].v_off; b < t->link[j].v_off + sg_joint_nv(t->link[j].type); ++b)
          M[a * nv + b] = M[b * nv + a] = dot6(k->S[b], F);
    }
}

/* The velocity-product acceleration S' v of link l's joint (its columns move with the parent:
 * S' = v_parent x S), plus, for a free joint, the translation u of its origin that moves the axes
 * of its rotation columns: (0; u x w). */
static void joint_bias_acceleration(const sg_link *L, const double *vp, const double *vJ, const double (*S)[6],
                                    const double *v, double *c) {
  cross_motion(vp, vJ, c);
  if (L->type != SG_JOINT_FREE) return;
  double u[3] = {0, 0, 0}, w[3] = {0, 0, 0}, uw[3];
  for (int e = 0; e < 3; ++e) {
    v3_axpy(u, v[e], S[e] + 3);
    v3_axpy(w, v[3 + e], S[3 + e]);
  }
  v3_cross(uw, u, w);
  v3_add(c + 3, c + 3, uw);
}

/* Recursive Newton-Euler (Featherstone 2008 Table 5.1), gravity as the world's acceleration
 * (0; -g): out from the root v_l = v_p + S qd, a_l = a_p + S qdd + S' qd, f_l = I a_l + v_l x* I v_l;
 * back to the root tau = S^T f_l, f_p += f_l. */
void sg_tree_inverse_dynamics(const sg_tree *t, const sg_tree_kin *k, const double *v, const double *qdd,
                              const double g[3], double *tau) {
  double vel[SG_TREE_MAX_LINKS][6], acc[SG_TREE_MAX_LINKS][6], f[SG_TREE_MAX_LINKS][6];
  const double world_v[6] = {0, 0, 0, 0, 0, 0}, world_a[6] = {0, 0, 0, -g[0], -g[1], -g[2]};
  for (int l = 0; l < t->n_links; ++l) {
    const sg_link *L = &t->link[l];
    const double *vp = L->parent >= 0 ? vel[L->parent] : world_v, *ap = L->parent >= 0 ? acc[L->parent] : world_a;
    double vJ[6] = {0}, c[6], h[6], vxh[6];
    const int n = sg_joint_nv(L->type);
    for (int e = 0; e < n; ++e)
      for (int r = 0; r < 6; ++r) vJ[r] += k->S[L->v_off + e][r] * v[L->v_off + e];
    joint_bias_acceleration(L, vp, vJ, (const double (*)[6])(k->S + L->v_off), v + L->v_off, c);
    for (int r = 0; r < 6; ++r) {
      vel[l][r] = vp[r] + vJ[r];
      acc[l][r] = ap[r] + c[r];
    }
    if (qdd)
      for (int e = 0; e < n; ++e)
        for (int r = 0; r < 6; ++r) acc[l][r] += k->S[L->v_off + e][r] * qdd[L->v_off + e];
    spatial_inertia in;
    link_inertia(t, k, l, &in);
    inertia_apply(&in, acc[l], f[l]);
    inertia_apply(&in, vel[l], h);
    cross_force(vel[l], h, vxh);
    for (int r = 0; r < 6; ++r) f[l][r] += vxh[r];
  }
  for (int l = t->n_links - 1; l >= 0; --l) {
    const sg_link *L = &t->link[l];
    for (int e = 0; e < sg_joint_nv(L->type); ++e) tau[L->v_off + e] = dot6(k->S[L->v_off + e], f[l]);
    if (L->parent >= 0)
      for (int r = 0; r < 6; ++r) f[L->parent][r] += f[l][r];
  }
}

/* Column b's velocity of the point x: v_O + w x x. */
void sg_tree_point_jacobian(const sg_tree *t, const sg_tree_kin *k, int link, const double x[3], double *J) {
  const int nv = t->nv;
  memset(J, 0, 3 * (size_t)nv * sizeof *J);
  for (int j = link; j >= 0; j = t->link[j].parent)
    for (int b = t->link[j].v_off; b < t->link[j].v_off + sg_joint_nv(t->link[j].type); ++b) {
      double wx[3];
      v3_cross(wx, k->S[b], x);
      for (int r = 0; r < 3; ++r) J[r * nv + b] = k->S[b][3 + r] + wx[r];
    }
}

void sg_tree_link_twist(const sg_tree *t, const sg_tree_kin *k, int link, const double *v, double tw[6]) {
  memset(tw, 0, 6 * sizeof *tw);
  for (int j = link; j >= 0; j = t->link[j].parent)
    for (int b = t->link[j].v_off; b < t->link[j].v_off + sg_joint_nv(t->link[j].type); ++b)
      for (int r = 0; r < 6; ++r) tw[r] += k->S[b][r] * v[b];
}

/* Angles and displacements move by dt v; a quaternion (child to joint frame) turns by the exponential
 * map of the angular velocity, which is in the joint frame, so it multiplies from the left. */
void sg_tree_advance(const sg_tree *t, const double *q, const double *v, double dt, double *q_out) {
  if (q_out != q) memcpy(q_out, q, (size_t)t->nq * sizeof *q);
  for (int l = 0; l < t->n_links; ++l) {
    const sg_link *L = &t->link[l];
    double *ql = q_out + L->q_off;
    const double *vl = v + L->v_off;
    switch (L->type) {
      case SG_JOINT_REVOLUTE:
      case SG_JOINT_PRISMATIC: ql[0] += dt * vl[0]; break;
      case SG_JOINT_SPHERICAL: quat_integrate(ql, vl, dt); break;
      case SG_JOINT_FREE:
        v3_axpy(ql, dt, vl);
        quat_integrate(ql + 3, vl + 3, dt);
        break;
      default: break;
    }
  }
}

void sg_tree_energy(const sg_tree *t, const double *q, const double *v, const double g[3], double *kinetic,
                    double *potential) {
  sg_tree_kin k;
  double M[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF];
  sg_tree_kinematics(t, q, &k);
  sg_tree_mass_matrix(t, &k, M);
  double ke = 0, pe = 0;
  for (int a = 0; a < t->nv; ++a)
    for (int b = 0; b < t->nv; ++b) ke += 0.5 * v[a] * M[a * t->nv + b] * v[b];
  for (int l = 0; l < t->n_links; ++l) pe -= t->link[l].mass * v3_dot(g, k.c[l]);
  *kinetic = ke;
  *potential = pe;
}

sg_err sg_tree_step_terms(const sg_tree *t, const double *q, const double *v, const double g[3], double dt,
                          double theta, double *M, double *f) {
  sg_tree_kin k;
  double q_mid[SG_TREE_MAX_Q], v_mid[SG_TREE_MAX_DOF], bias[SG_TREE_MAX_DOF], L[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF];
  const int nv = t->nv;
  sg_tree_advance(t, q, v, theta * dt, q_mid);
  sg_tree_kinematics(t, q_mid, &k);
  sg_tree_mass_matrix(t, &k, M);
  sg_tree_inverse_dynamics(t, &k, v, NULL, g, bias);
  for (int a = 0; a < nv; ++a) f[a] = -bias[a];
  if (theta == 0) return SG_OK;
  /* the velocity at the same point of the step: v + theta dt M^-1 f, which makes the
   * velocity-dependent forces second order as well */
  sg_err err = chol_factor(nv, M, L);
  if (err) return sg_error_set(err, "tree of body %lld: its mass matrix is not positive definite", (long long)t->body);
  chol_solve(nv, L, f, v_mid);
  for (int a = 0; a < nv; ++a) v_mid[a] = v[a] + theta * dt * v_mid[a];
  sg_tree_inverse_dynamics(t, &k, v_mid, NULL, g, bias);
  for (int a = 0; a < nv; ++a) f[a] = -bias[a];
  return SG_OK;
}
