/* Every solver (subadmm, pgs, canal, nsn) on the hard (3)/(36), soft (4)/(37) and contact (5) kinds, with analytic solutions
 * (1-DOF subsystems, A = m, so vhat = (b + J^T lambda)/m):
 *  - soft spring-damper on one body: lambda = -k e - c J v and m v = b + lambda give
 *    v = (b - k e)/(m + c), lambda = -k e - c v (to 1e-9 relative, tolerance 1e-12);
 *  - soft between two bodies (|Z_i| = 2, J = [1, -1]): the same law on the relative velocity,
 *    v1 - v2 = (b1/m1 - b2/m2 - k e (1/m1 + 1/m2)) / (1 + c (1/m1 + 1/m2));
 *  - hard inequality v + e >= 0 active (b = -5, e = 1: v = -1, lambda = m (-1) - b) and inactive
 *    (b = +5: lambda = 0, v = b/m), and a hard row between two bodies.
 *  - bilateral v + e = 0 (a loop closure) pulling as well as pushing (b = +5: lambda = -m e - b < 0,
 *    where a hard row would let go), between two bodies, and the same row given twice (redundant
 *    rows: v is unique, only the sum of the two multipliers is).
 *  - a 3-DOF point contact (A = m I, J = I) sticking and sliding, with closed-form impulses, and the
 *    same point with unequal tangential masses (W_tt no multiple of I), where the paper-002 residual
 *    must vanish (a Euclidean projection of a block step would leave it non-zero).
 * Also the paper-002 contact residual is ~0 at the solutions and clearly non-zero off them. */
#include "sim_util.h"

static void solve(const char *solver, sg_problem *p, double *v, double *lam, int nv, int nr) {
  sg_solver *s = sim_solver(solver, 1e-13, 100000);
  memset(v, 0, sizeof(double) * nv);
  memset(lam, 0, sizeof(double) * nr);
  sg_solve_info info;
  CHECK_OK(sg_solver_solve(s, p, v, lam, &info));
  CHECK(info.converged);
  sg_solver_destroy(&s);
}

static void run_cases(const char *solver) {
  const double one = 1.0, minus = -1.0;
  { /* soft, one body */
    sg_problem p = {0};
    double m = 2.0, b = 3.0, k = 50.0, c = 4.0, e = 0.1, v, lam;
    CHECK_OK(sg_problem_add_subsystem(&p, 1, &m, &b, 0, NULL));
    int sub = 0;
    const double *J[1] = {&one};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_SOFT, &e, 0, k, c, 1, &sub, J, NULL));
    solve(solver, &p, &v, &lam, 1, 1);
    double v_exact = (b - k * e) / (m + c), l_exact = -k * e - c * v_exact, res;
    printf("%s soft: v %.12g (exact %.12g), lambda %.12g (exact %.12g)\n", solver, v, v_exact, lam, l_exact);
    CHECK_NEAR(v, v_exact, 1e-9 * fabs(v_exact));
    CHECK_NEAR(lam, l_exact, 1e-9 * fabs(l_exact));
    CHECK_OK(sg_contact_residual(&p, &lam, &res));
    CHECK(res < 1e-9);
    double off = lam * 1.1;
    CHECK_OK(sg_contact_residual(&p, &off, &res));
    CHECK(res > 1e-3);
    sg_problem_destroy(&p);
  }
  { /* soft between two bodies */
    sg_problem p = {0};
    double m[2] = {1.0, 3.0}, b[2] = {2.0, -1.0}, k = 20.0, c = 2.0, e = -0.05, v[2], lam;
    for (int j = 0; j < 2; ++j) CHECK_OK(sg_problem_add_subsystem(&p, 1, &m[j], &b[j], j, NULL));
    int subs[2] = {0, 1};
    const double *J[2] = {&one, &minus};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_SOFT, &e, 0, k, c, 2, subs, J, NULL));
    solve(solver, &p, v, &lam, 2, 1);
    double w = 1 / m[0] + 1 / m[1];
    double rel = (b[0] / m[0] - b[1] / m[1] - k * e * w) / (1 + c * w);
    printf("%s soft pair: v1 - v2 %.12g (exact %.12g)\n", solver, v[0] - v[1], rel);
    CHECK_NEAR(v[0] - v[1], rel, 1e-9 * fabs(rel));
    CHECK_NEAR(lam, -k * e - c * rel, 1e-9 * fabs(k * e + c * rel));
    sg_problem_destroy(&p);
  }
  for (int active = 0; active < 2; ++active) { /* hard, one body */
    sg_problem p = {0};
    double m = 2.0, b = active ? -5.0 : 5.0, e = 1.0, v, lam;
    CHECK_OK(sg_problem_add_subsystem(&p, 1, &m, &b, 0, NULL));
    int sub = 0;
    const double *J[1] = {&one};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_HARD, &e, 0, 0, 0, 1, &sub, J, NULL));
    solve(solver, &p, &v, &lam, 1, 1);
    double v_exact = active ? -e : b / m, l_exact = active ? m * v_exact - b : 0.0;
    printf("%s hard (%s): v %.12g (exact %.12g), lambda %.12g (exact %.12g)\n", solver, active ? "active" : "inactive", v, v_exact,
           lam, l_exact);
    CHECK_NEAR(v, v_exact, 1e-9);
    CHECK_NEAR(lam, l_exact, 1e-9);
    sg_problem_destroy(&p);
  }
  { /* hard between two bodies approaching each other: v1 - v2 + e >= 0 becomes active */
    sg_problem p = {0};
    double m[2] = {1.0, 1.0}, b[2] = {-2.0, 2.0}, e = 0.5, v[2], lam;
    for (int j = 0; j < 2; ++j) CHECK_OK(sg_problem_add_subsystem(&p, 1, &m[j], &b[j], j, NULL));
    int subs[2] = {0, 1};
    const double *J[2] = {&one, &minus};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_HARD, &e, 0, 0, 0, 2, subs, J, NULL));
    solve(solver, &p, v, &lam, 2, 1);
    /* symmetric: v1 = -v2 = -e/2, lambda = m v1 - b1 */
    CHECK_NEAR(v[0], -0.25, 1e-9);
    CHECK_NEAR(v[1], 0.25, 1e-9);
    CHECK_NEAR(lam, 1.75, 1e-9);
    sg_problem_destroy(&p);
  }
  for (int pull = 0; pull < 2; ++pull) { /* bilateral, one body: v = -e whatever b */
    sg_problem p = {0};
    double m = 2.0, b = pull ? 5.0 : -5.0, e = 1.0, v, lam, res;
    CHECK_OK(sg_problem_add_subsystem(&p, 1, &m, &b, 0, NULL));
    int sub = 0;
    const double *J[1] = {&one};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_BILATERAL, &e, 0, 0, 0, 1, &sub, J, NULL));
    solve(solver, &p, &v, &lam, 1, 1);
    printf("%s bilateral (%s): v %.12g (exact %.12g), lambda %.12g (exact %.12g)\n", solver, pull ? "pulling" : "pushing", v, -e,
           lam, -m * e - b);
    CHECK_NEAR(v, -e, 1e-9);
    CHECK_NEAR(lam, -m * e - b, 1e-9);
    CHECK_OK(sg_contact_residual(&p, &lam, &res));
    CHECK(res < 1e-9);
    double off = lam + 0.1;
    CHECK_OK(sg_contact_residual(&p, &off, &res));
    CHECK(res > 1e-3);
    sg_problem_destroy(&p);
  }
  { /* bilateral between two bodies moving apart: v1 - v2 + e = 0 holds them */
    sg_problem p = {0};
    double m[2] = {1.0, 3.0}, b[2] = {2.0, -1.0}, e = 0.5, v[2], lam;
    for (int j = 0; j < 2; ++j) CHECK_OK(sg_problem_add_subsystem(&p, 1, &m[j], &b[j], j, NULL));
    int subs[2] = {0, 1};
    const double *J[2] = {&one, &minus};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_BILATERAL, &e, 0, 0, 0, 2, subs, J, NULL));
    solve(solver, &p, v, &lam, 2, 1);
    /* m1 v1 = b1 + lambda, m2 v2 = b2 - lambda, v1 - v2 = -e */
    double l_exact = (-e - b[0] / m[0] + b[1] / m[1]) / (1 / m[0] + 1 / m[1]);
    printf("%s bilateral pair: v1 - v2 %.12g, lambda %.12g (exact %.12g)\n", solver, v[0] - v[1], lam, l_exact);
    CHECK_NEAR(v[0] - v[1], -e, 1e-9);
    CHECK_NEAR(lam, l_exact, 1e-9);
    sg_problem_destroy(&p);
  }
  { /* the same bilateral row twice: redundant, v = -e, lambda_1 + lambda_2 = -m e - b */
    sg_problem p = {0};
    double m = 2.0, b = 5.0, e = 1.0, v, lam[2], res;
    CHECK_OK(sg_problem_add_subsystem(&p, 1, &m, &b, 0, NULL));
    int sub = 0;
    const double *J[1] = {&one};
    for (int k = 0; k < 2; ++k) CHECK_OK(sg_problem_add_constraint(&p, SG_CON_BILATERAL, &e, 0, 0, 0, 1, &sub, J, NULL));
    solve(solver, &p, &v, lam, 1, 2);
    printf("%s redundant bilateral rows: v %.12g, lambda %.12g + %.12g (sum exact %.12g)\n", solver, v, lam[0], lam[1], -m * e - b);
    CHECK_NEAR(v, -e, 1e-9);
    CHECK_NEAR(lam[0] + lam[1], -m * e - b, 1e-9);
    CHECK_OK(sg_contact_residual(&p, lam, &res));
    CHECK(res < 1e-9);
    sg_problem_destroy(&p);
  }
  /* a point mass on a contact, A = m I, J = I: lambda_n = -m e_n - b_n; stick lambda_t = -b_t when
   * |b_t| <= mu lambda_n, else lambda_t = -mu lambda_n b_t / |b_t| */
  for (int sliding = 0; sliding < 2; ++sliding) {
    sg_problem p = {0};
    double m = 2.0, mu = 0.5, A[9] = {m, 0, 0, 0, m, 0, 0, 0, m}, I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double b[3] = {-3.0, sliding ? 1.5 : 0.3, sliding ? -2.0 : 0.4}, e[3] = {0.2, 0, 0}, v[3], lam[3], res;
    CHECK_OK(sg_problem_add_subsystem(&p, 3, A, b, 0, NULL));
    int sub = 0;
    const double *J[1] = {I3};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_CONTACT, e, mu, 0, 0, 1, &sub, J, NULL));
    solve(solver, &p, v, lam, 3, 3);
    double ln = -m * e[0] - b[0], bt = hypot(b[1], b[2]), s = bt <= mu * ln ? 1.0 : mu * ln / bt;
    printf("%s contact (%s): lambda (%.12g, %.12g, %.12g), exact (%.12g, %.12g, %.12g)\n", solver, sliding ? "sliding" : "sticking",
           lam[0], lam[1], lam[2], ln, -s * b[1], -s * b[2]);
    CHECK_NEAR(lam[0], ln, 1e-9);
    CHECK_NEAR(lam[1], -s * b[1], 1e-9);
    CHECK_NEAR(lam[2], -s * b[2], 1e-9);
    CHECK_OK(sg_contact_residual(&p, lam, &res));
    CHECK(res < 1e-12);
    sg_problem_destroy(&p);
  }
  { /* unequal tangential masses and a coupled A: W_tt is no multiple of I; the residual must vanish */
    sg_problem p = {0};
    double A[9] = {2, 0.3, 0, 0.3, 1, 0.2, 0, 0.2, 8}, I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double b[3] = {-3.0, 4.0, -5.0}, e[3] = {0.1, 0, 0}, v[3], lam[3], res;
    CHECK_OK(sg_problem_add_subsystem(&p, 3, A, b, 0, NULL));
    int sub = 0;
    const double *J[1] = {I3};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_CONTACT, e, 0.3, 0, 0, 1, &sub, J, NULL));
    solve(solver, &p, v, lam, 3, 3);
    CHECK_OK(sg_contact_residual(&p, lam, &res));
    double lt = hypot(lam[1], lam[2]);
    printf("%s anisotropic sliding contact: lambda (%.9g, %.9g, %.9g), |lambda_t| / (mu lambda_n) %.12f, residual %.2e\n",
           solver, lam[0], lam[1], lam[2], lt / (0.3 * lam[0]), res);
    CHECK(lam[0] > 0);
    CHECK_NEAR(lt, 0.3 * lam[0], 1e-9); /* it slides */
    CHECK(res < 1e-12);
    sg_problem_destroy(&p);
  }
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  const char *solvers[] = {"subadmm", "pgs", "canal", "nsn"};
  for (int k = 0; k < 4; ++k) run_cases(solvers[k]);
  return sim_finish();
}
