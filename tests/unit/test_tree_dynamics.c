/* The dynamics of kinematic trees (tree.h) against computations that do not share their code path:
 *  - the mass matrix of the composite-rigid-body algorithm against the kinetic energy of the links,
 *    each link's velocity taken by central differences of its pose along q (+) t v (the coordinates'
 *    own update), entry by entry through the polarization M_ab = T(e_a + e_b) - T(e_a) - T(e_b);
 *  - recursive Newton-Euler: linear in qdd with slope M (tau(qdd) - tau(0) = M qdd); the power
 *    identity dE/dt = v . tau along the motion qdd = M^-1 (tau - bias), E by central differences;
 *  - for a chain of revolute and prismatic joints (whose q are true coordinates) the whole bias
 *    against Lagrange's equations, C v + G = (dM/dt) v - dT/dq + dV/dq, every derivative by central
 *    differences.
 * Random trees with every joint type, placements, axes, masses and full inertias. Tolerances: central
 * differences of step h err by O(h^2) (about 1e-10 here) plus round-off eps/h (about 1e-11), so
 * 1e-6 relative to the size of the compared quantity holds with a wide margin, and a wrong term
 * (a missing Coriolis product, a transposed inertia) is off by O(1). */
#include <math.h>
#include <string.h>
#include "signorini/la.h"
#include "signorini/tree.h"
#include "test_util.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;
static double rnd(double lo, double hi) { return sg_test_rand(&rng, lo, hi); }

static void random_unit(double *a, int n) {
  double norm = 0;
  for (int k = 0; k < n; ++k) {
    a[k] = rnd(-1, 1);
    norm += a[k] * a[k];
  }
  for (int k = 0; k < n; ++k) a[k] /= sqrt(norm);
}

static void random_link(sg_link *L, int parent, int type) {
  L->parent = parent;
  L->type = type;
  for (int k = 0; k < 3; ++k) L->pos[k] = rnd(-0.5, 0.5), L->com[k] = rnd(-0.3, 0.3);
  random_unit(L->quat, 4);
  random_unit(L->axis, 3);
  L->mass = rnd(0.5, 2.0);
  for (int k = 0; k < 3; ++k) L->inertia[k] = rnd(0.01, 0.1);
  for (int k = 3; k < 6; ++k) L->inertia[k] = rnd(-0.003, 0.003);
}

/* A branching tree: a free base, then links of each type hanging off earlier links. */
static sg_tree *random_tree(void) {
  static const int types[] = {SG_JOINT_FREE, SG_JOINT_REVOLUTE, SG_JOINT_SPHERICAL, SG_JOINT_PRISMATIC,
                              SG_JOINT_FIXED, SG_JOINT_REVOLUTE, SG_JOINT_SPHERICAL, SG_JOINT_REVOLUTE};
  static const int parents[] = {-1, 0, 1, 0, 3, 4, 2, 6};
  sg_tree *t = NULL;
  CHECK_OK(sg_tree_create(8, 0, &t));
  for (int l = 0; l < 8; ++l) random_link(&t->link[l], parents[l], types[l]);
  CHECK_OK(sg_tree_finish(t, "random tree"));
  return t;
}

/* A chain of 5 revolute and prismatic joints with random (not parallel) axes. */
static sg_tree *random_chain(void) {
  static const int types[] = {SG_JOINT_REVOLUTE, SG_JOINT_PRISMATIC, SG_JOINT_REVOLUTE, SG_JOINT_REVOLUTE, SG_JOINT_REVOLUTE};
  sg_tree *t = NULL;
  CHECK_OK(sg_tree_create(5, 1, &t));
  for (int l = 0; l < 5; ++l) random_link(&t->link[l], l - 1, types[l]);
  CHECK_OK(sg_tree_finish(t, "random chain"));
  return t;
}

static void random_state(const sg_tree *t, double *q, double *v) {
  double dq[SG_TREE_MAX_DOF];
  sg_tree_neutral(t, q);
  for (int k = 0; k < t->nv; ++k) dq[k] = rnd(-1, 1), v[k] = rnd(-1, 1);
  sg_tree_advance(t, q, dq, 1.0, q); /* a configuration away from the neutral one */
}

/* Kinetic energy of the links from their poses at q (+) (+-h) v: com velocity and angular
 * velocity (the axial vector of (R+ - R-) R^T / 2h) by central differences. */
static double fd_kinetic_energy(const sg_tree *t, const double *q, const double *v) {
  const double h = 1e-5;
  double qp[SG_TREE_MAX_Q], qm[SG_TREE_MAX_Q], T = 0;
  static sg_tree_kin kp, km, k0;
  sg_tree_advance(t, q, v, h, qp);
  sg_tree_advance(t, q, v, -h, qm);
  sg_tree_kinematics(t, qp, &kp);
  sg_tree_kinematics(t, qm, &km);
  sg_tree_kinematics(t, q, &k0);
  for (int l = 0; l < t->n_links; ++l) {
    double vc[3], W[9], w[3], Iw[3];
    for (int r = 0; r < 3; ++r) vc[r] = (kp.c[l][r] - km.c[l][r]) / (2 * h);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        W[3 * r + c] = 0;
        for (int m = 0; m < 3; ++m) W[3 * r + c] += (kp.R[l][3 * r + m] - km.R[l][3 * r + m]) * k0.R[l][3 * c + m] / (2 * h);
      }
    w[0] = 0.5 * (W[7] - W[5]), w[1] = 0.5 * (W[2] - W[6]), w[2] = 0.5 * (W[3] - W[1]);
    /* I_world w = R I_body R^T w */
    const double *d = t->link[l].inertia, Ib[9] = {d[0], d[3], d[4], d[3], d[1], d[5], d[4], d[5], d[2]};
    double wb[3], Iwb[3];
    m3t_mul_v(wb, k0.R[l], w);
    m3_mul_v(Iwb, Ib, wb);
    m3_mul_v(Iw, k0.R[l], Iwb);
    T += 0.5 * t->link[l].mass * v3_dot(vc, vc) + 0.5 * v3_dot(w, Iw);
  }
  return T;
}

static void test_mass_matrix(const sg_tree *t, const double *q) {
  static sg_tree_kin k;
  double M[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF], e[SG_TREE_MAX_DOF], Tfd[SG_TREE_MAX_DOF], worst = 0;
  const int n = t->nv;
  sg_tree_kinematics(t, q, &k);
  sg_tree_mass_matrix(t, &k, M);
  const double scale = sg_test_max_abs(M, n * n);
  for (int a = 0; a < n; ++a) {
    memset(e, 0, sizeof e);
    e[a] = 1;
    Tfd[a] = fd_kinetic_energy(t, q, e);
    worst = fmax(worst, fabs(M[a * n + a] - 2 * Tfd[a]));
  }
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      memset(e, 0, sizeof e);
      e[a] = e[b] = 1;
      worst = fmax(worst, fabs(M[a * n + b] - (fd_kinetic_energy(t, q, e) - Tfd[a] - Tfd[b])));
      worst = fmax(worst, fabs(M[a * n + b] - M[b * n + a]));
    }
  double L[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF];
  CHECK(chol_factor(n, M, L) == SG_OK); /* positive definite */
  printf("CRBA vs kinetic energy: %d dof, max |M - M_fd| = %.3g (max |M| = %.3g)\n", n, worst, scale);
  CHECK(worst <= 1e-6 * scale);
}

static void test_rnea_linear_and_power(const sg_tree *t, const double *q, const double *v) {
  static sg_tree_kin k;
  const double g[3] = {0.3, -0.2, -9.81}, h = 1e-5;
  double M[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF], L[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF];
  double qdd[SG_TREE_MAX_DOF], tau0[SG_TREE_MAX_DOF], tau1[SG_TREE_MAX_DOF], tau[SG_TREE_MAX_DOF], rhs[SG_TREE_MAX_DOF];
  const int n = t->nv;
  sg_tree_kinematics(t, q, &k);
  sg_tree_mass_matrix(t, &k, M);
  for (int a = 0; a < n; ++a) qdd[a] = rnd(-2, 2);
  sg_tree_inverse_dynamics(t, &k, v, NULL, g, tau0);
  sg_tree_inverse_dynamics(t, &k, v, qdd, g, tau1);
  double worst = 0, scale = 0;
  for (int a = 0; a < n; ++a) {
    double Mq = 0;
    for (int b = 0; b < n; ++b) Mq += M[a * n + b] * qdd[b];
    worst = fmax(worst, fabs(tau1[a] - tau0[a] - Mq));
    scale = fmax(scale, fabs(Mq));
  }
  printf("RNEA: max |tau(qdd) - tau(0) - M qdd| = %.3g (max |M qdd| = %.3g)\n", worst, scale);
  CHECK(worst <= 1e-10 * scale);
  /* power: along qdd = M^-1 (tau - bias), dE/dt = v . tau */
  for (int a = 0; a < n; ++a) tau[a] = rnd(-3, 3), rhs[a] = tau[a] - tau0[a];
  CHECK_OK(chol_factor(n, M, L));
  chol_solve(n, L, rhs, qdd);
  double qp[SG_TREE_MAX_Q], qm[SG_TREE_MAX_Q], vp[SG_TREE_MAX_DOF], vm[SG_TREE_MAX_DOF], kp, pp, km, pm;
  sg_tree_advance(t, q, v, h, qp);
  sg_tree_advance(t, q, v, -h, qm);
  for (int a = 0; a < n; ++a) vp[a] = v[a] + h * qdd[a], vm[a] = v[a] - h * qdd[a];
  sg_tree_energy(t, qp, vp, g, &kp, &pp);
  sg_tree_energy(t, qm, vm, g, &km, &pm);
  double dEdt = (kp + pp - km - pm) / (2 * h), power = 0, pscale = 0;
  for (int a = 0; a < n; ++a) power += v[a] * tau[a], pscale += fabs(v[a] * tau[a]) + fabs(v[a] * tau0[a]);
  printf("RNEA power: dE/dt = %.12g, v . tau = %.12g\n", dEdt, power);
  CHECK(fabs(dEdt - power) <= 1e-6 * pscale);
}

/* Lagrange for true coordinates: bias = sum_c dM/dq_c v_c v - 1/2 v^T dM/dq v + dV/dq. */
static void test_bias_lagrange(const sg_tree *t, const double *q, const double *v) {
  static sg_tree_kin k;
  const double g[3] = {0, 0, -9.81}, h = 1e-5;
  const int n = t->nv;
  static double dM[SG_TREE_MAX_DOF][SG_TREE_MAX_DOF * SG_TREE_MAX_DOF];
  double dV[SG_TREE_MAX_DOF], bias[SG_TREE_MAX_DOF];
  for (int c = 0; c < n; ++c) {
    double qp[SG_TREE_MAX_Q], qm[SG_TREE_MAX_Q], Mp[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF], Mm[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF];
    double kin, pp, pm;
    memcpy(qp, q, (size_t)t->nq * sizeof *q);
    memcpy(qm, q, (size_t)t->nq * sizeof *q);
    qp[c] += h, qm[c] -= h;
    sg_tree_kinematics(t, qp, &k);
    sg_tree_mass_matrix(t, &k, Mp);
    sg_tree_kinematics(t, qm, &k);
    sg_tree_mass_matrix(t, &k, Mm);
    for (int r = 0; r < n * n; ++r) dM[c][r] = (Mp[r] - Mm[r]) / (2 * h);
    sg_tree_energy(t, qp, v, g, &kin, &pp);
    sg_tree_energy(t, qm, v, g, &kin, &pm);
    dV[c] = (pp - pm) / (2 * h);
  }
  sg_tree_kinematics(t, q, &k);
  sg_tree_inverse_dynamics(t, &k, v, NULL, g, bias);
  double worst = 0, scale = sg_test_max_abs(bias, n);
  for (int a = 0; a < n; ++a) {
    double lag = dV[a];
    for (int b = 0; b < n; ++b)
      for (int c = 0; c < n; ++c) lag += dM[c][a * n + b] * v[c] * v[b] - 0.5 * v[b] * dM[a][b * n + c] * v[c];
    worst = fmax(worst, fabs(bias[a] - lag));
  }
  printf("RNEA bias vs Lagrange (revolute/prismatic chain): max diff %.3g (max |bias| = %.3g)\n", worst, scale);
  CHECK(worst <= 1e-6 * scale);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double q[SG_TREE_MAX_Q], v[SG_TREE_MAX_DOF];
  for (int trial = 0; trial < 3; ++trial) {
    sg_tree *t = random_tree();
    random_state(t, q, v);
    test_mass_matrix(t, q);
    test_rnea_linear_and_power(t, q, v);
    sg_tree_release(&t);
    sg_tree *c = random_chain();
    random_state(c, q, v);
    test_mass_matrix(c, q);
    test_bias_lagrange(c, q, v);
    sg_tree_release(&c);
  }
  int rc = sg_test_exit();
  MPI_Finalize();
  return rc;
}
