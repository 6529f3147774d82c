/* The PGS baseline (-solver pgs):
 *  1. analytic cases (1-DOF subsystems, A = m): soft on one body and between two, hard active and
 *     inactive, a hard row between two bodies -- to 1e-9; a 3-DOF point contact (A = m I, J = I)
 *     sticking and sliding, whose impulses are closed-form; the same point with unequal tangential
 *     masses (W_tt not a multiple of I), where the paper-002 residual must vanish (a Euclidean
 *     projection of the block step would leave it non-zero);
 *  2. agreement with SubADMM on random problems: 2-6 rigid bodies (6 DOF, random SPD A), at most as
 *     many contacts as bodies (3 rows each, so at most half as many rows as unknowns) with random
 *     Jacobians, hence W = J A^{-1} J^T is positive definite and the frictionless solution is unique
 *     (a strictly convex QP); with friction mu in [0, 1] uniqueness is not guaranteed in general, so
 *     those cases are kept well conditioned (A_j = B B^T + 2 I, J entries in [-1, 1], cond(W)
 *     checked below 1e3) and both solvers must also reach the residual below 1e-8 -- lambda agrees
 *     within 1e-6 relative (to max |lambda|);
 *  3. the stepper with -solver pgs: a sphere resting on a plane (normal impulse m g dt within 1e-6
 *     relative) and a box on a 15 degree incline with mu = 0.25 (slides 0.5 g (sin - mu cos) t^2 in
 *     1 s within 2%). */
#include "sim_util.h"

static void solve_with(const char *name, sg_problem *p, double *v, double *lam, int nv, int nr, double tol,
                       int max_it, sg_solve_info *info) {
  sg_solver *s = sim_solver(name, tol, max_it);
  memset(v, 0, sizeof(double) * nv);
  memset(lam, 0, sizeof(double) * nr);
  CHECK_OK(sg_solver_solve(s, p, v, lam, info));
  sg_solver_destroy(&s);
}

static void solve(sg_problem *p, double *v, double *lam, int nv, int nr) {
  sg_solve_info info;
  solve_with("pgs", p, v, lam, nv, nr, 1e-13, 100000, &info);
  CHECK(info.converged);
  CHECK(info.residual_dual == 0);
}

static void analytic(void) {
  const double one = 1.0, minus = -1.0;
  { /* soft, one body */
    sg_problem p = {0};
    double m = 2.0, b = 3.0, k = 50.0, c = 4.0, e = 0.1, v, lam, res;
    CHECK_OK(sg_problem_add_subsystem(&p, 1, &m, &b, 0, NULL));
    int sub = 0;
    const double *J[1] = {&one};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_SOFT, &e, 0, k, c, 1, &sub, J, NULL));
    solve(&p, &v, &lam, 1, 1);
    double v_exact = (b - k * e) / (m + c), l_exact = -k * e - c * v_exact;
    printf("soft: v %.12g (exact %.12g), lambda %.12g (exact %.12g)\n", v, v_exact, lam, l_exact);
    CHECK_NEAR(v, v_exact, 1e-9 * fabs(v_exact));
    CHECK_NEAR(lam, l_exact, 1e-9 * fabs(l_exact));
    CHECK_OK(sg_contact_residual(&p, &lam, &res));
    CHECK(res < 1e-9);
    sg_problem_destroy(&p);
  }
  { /* soft between two bodies */
    sg_problem p = {0};
    double m[2] = {1.0, 3.0}, b[2] = {2.0, -1.0}, k = 20.0, c = 2.0, e = -0.05, v[2], lam;
    for (int j = 0; j < 2; ++j) CHECK_OK(sg_problem_add_subsystem(&p, 1, &m[j], &b[j], j, NULL));
    int subs[2] = {0, 1};
    const double *J[2] = {&one, &minus};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_SOFT, &e, 0, k, c, 2, subs, J, NULL));
    solve(&p, v, &lam, 2, 1);
    double w = 1 / m[0] + 1 / m[1], rel = (b[0] / m[0] - b[1] / m[1] - k * e * w) / (1 + c * w);
    printf("soft pair: v1 - v2 %.12g (exact %.12g)\n", v[0] - v[1], rel);
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
    solve(&p, &v, &lam, 1, 1);
    double v_exact = active ? -e : b / m, l_exact = active ? m * v_exact - b : 0.0;
    printf("hard (%s): v %.12g (exact %.12g), lambda %.12g (exact %.12g)\n", active ? "active" : "inactive", v,
           v_exact, lam, l_exact);
    CHECK_NEAR(v, v_exact, 1e-9);
    CHECK_NEAR(lam, l_exact, 1e-9);
    sg_problem_destroy(&p);
  }
  { /* hard between two bodies approaching each other */
    sg_problem p = {0};
    double m[2] = {1.0, 1.0}, b[2] = {-2.0, 2.0}, e = 0.5, v[2], lam;
    for (int j = 0; j < 2; ++j) CHECK_OK(sg_problem_add_subsystem(&p, 1, &m[j], &b[j], j, NULL));
    int subs[2] = {0, 1};
    const double *J[2] = {&one, &minus};
    CHECK_OK(sg_problem_add_constraint(&p, SG_CON_HARD, &e, 0, 0, 0, 2, subs, J, NULL));
    solve(&p, v, &lam, 2, 1);
    CHECK_NEAR(v[0], -0.25, 1e-9);
    CHECK_NEAR(v[1], 0.25, 1e-9);
    CHECK_NEAR(lam, 1.75, 1e-9);
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
    solve(&p, v, lam, 3, 3);
    double ln = -m * e[0] - b[0], bt = hypot(b[1], b[2]), s = bt <= mu * ln ? 1.0 : mu * ln / bt;
    printf("contact (%s): lambda (%.12g, %.12g, %.12g), exact (%.12g, %.12g, %.12g)\n", sliding ? "sliding" : "sticking",
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
    solve(&p, v, lam, 3, 3);
    CHECK_OK(sg_contact_residual(&p, lam, &res));
    double lt = hypot(lam[1], lam[2]);
    printf("anisotropic sliding contact: lambda (%.9g, %.9g, %.9g), |lambda_t| / (mu lambda_n) %.12f, residual %.2e\n",
           lam[0], lam[1], lam[2], lt / (0.3 * lam[0]), res);
    CHECK(lam[0] > 0);
    CHECK_NEAR(lt, 0.3 * lam[0], 1e-9); /* it slides */
    CHECK(res < 1e-12);
    sg_problem_destroy(&p);
  }
}

/* Largest / smallest eigenvalue of the SPD W = J A^{-1} J^T by power iterations (small n). */
static double cond_W(const sg_problem *p) {
  int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  double *W = calloc((size_t)nr * nr, sizeof *W), *x = calloc((size_t)nv, sizeof *x), *y = calloc((size_t)nr, sizeof *y);
  double *lam = calloc((size_t)nr, sizeof *lam), L[36];
  for (int c = 0; c < nr; ++c) { /* column c: J A^{-1} J^T e_c */
    memset(lam, 0, sizeof(double) * nr);
    lam[c] = 1;
    memset(x, 0, sizeof(double) * nv);
    sg_problem_apply_JT_add(p, lam, x);
    for (int j = 0; j < p->n_sub; ++j) {
      chol_factor(6, p->A + p->sub_aoff[j], L);
      chol_solve(6, L, x + p->sub_off[j], x + p->sub_off[j]);
    }
    sg_problem_apply_J(p, x, y);
    for (int r = 0; r < nr; ++r) W[r * nr + c] = y[r];
  }
  double emax = 0, emin = 0, *z = calloc((size_t)nr, sizeof *z), *t = calloc((size_t)nr, sizeof *t);
  for (int pass = 0; pass < 2; ++pass) { /* pass 1 on emax I - W gives emax - emin */
    for (int r = 0; r < nr; ++r) z[r] = 1.0 + 0.1 * r;
    double ev = 0;
    for (int it = 0; it < 5000; ++it) {
      double n = 0;
      for (int r = 0; r < nr; ++r) {
        double acc = pass ? emax * z[r] : 0;
        for (int c = 0; c < nr; ++c) acc += (pass ? -1 : 1) * W[r * nr + c] * z[c];
        t[r] = acc;
        n += acc * acc;
      }
      n = sqrt(n);
      ev = n;
      for (int r = 0; r < nr; ++r) z[r] = t[r] / n;
    }
    if (pass) emin = emax - ev;
    else emax = ev;
  }
  free(W); free(x); free(y); free(lam); free(z); free(t);
  return emin > 0 ? emax / emin : INFINITY;
}

static void random_agreement(void) {
  unsigned long long seed = 0x9e3779b97f4a7c15ULL;
  int compared = 0, active_total = 0, with_active = 0;
  double worst_rel = 0, worst_res = 0;
  for (int trial = 0; trial < 40; ++trial) {
    sg_problem p = {0};
    int nb = 2 + trial % 5, nc = 1 + (int)sg_test_rand(&seed, 0, nb); /* 1..nb contacts */
    int frictionless = trial % 2 == 0;
    for (int j = 0; j < nb; ++j) {
      double B[36], A[36], b[6];
      for (int k = 0; k < 36; ++k) B[k] = sg_test_rand(&seed, -1, 1);
      for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c) {
          double acc = r == c ? 2.0 : 0.0;
          for (int k = 0; k < 6; ++k) acc += B[r * 6 + k] * B[c * 6 + k];
          A[r * 6 + c] = acc;
        }
      for (int k = 0; k < 6; ++k) b[k] = sg_test_rand(&seed, -2, 2);
      CHECK_OK(sg_problem_add_subsystem(&p, 6, A, b, j, NULL));
    }
    for (int i = 0; i < nc; ++i) {
      double J1[18], J2[18], e[3] = {sg_test_rand(&seed, -2.0, 0.1), 0, 0};
      for (int k = 0; k < 18; ++k) { J1[k] = sg_test_rand(&seed, -1, 1); J2[k] = sg_test_rand(&seed, -1, 1); }
      int s0 = (int)sg_test_rand(&seed, 0, nb), s1 = (s0 + 1 + (int)sg_test_rand(&seed, 0, nb - 1)) % nb;
      int two = sg_test_rand(&seed, 0, 1) < 0.6, subs[2] = {s0, s1};
      const double *Js[2] = {J1, J2};
      double mu = frictionless ? 0.0 : sg_test_rand(&seed, 0, 1);
      CHECK_OK(sg_problem_add_constraint(&p, SG_CON_CONTACT, e, mu, 0, 0, two ? 2 : 1, subs, Js, NULL));
    }
    int nv = sg_problem_n_v(&p), nr = sg_problem_n_rows(&p);
    double cond = cond_W(&p);
    if (!frictionless && cond > 1e3) { sg_problem_destroy(&p); continue; }
    double *v1 = malloc(sizeof(double) * nv), *v2 = malloc(sizeof(double) * nv);
    double *l1 = malloc(sizeof(double) * nr), *l2 = malloc(sizeof(double) * nr), r1, r2;
    sg_solve_info i1, i2;
    solve_with("pgs", &p, v1, l1, nv, nr, 1e-12, 1000000, &i1);
    solve_with("subadmm", &p, v2, l2, nv, nr, 1e-12, 1000000, &i2);
    CHECK_OK(sg_contact_residual(&p, l1, &r1));
    CHECK_OK(sg_contact_residual(&p, l2, &r2));
    double lmax = 0, diff = 0;
    int n_active = 0;
    for (int r = 0; r < nr; ++r) { lmax = fmax(lmax, fabs(l2[r])); diff = fmax(diff, fabs(l1[r] - l2[r])); }
    for (int i = 0; i < nc; ++i) n_active += l2[3 * i] > 0;
    active_total += n_active;
    with_active += n_active > 0;
    double rel = lmax > 0 ? diff / lmax : diff;
    printf("  %d bodies, %d contacts (%d active), %s, cond(W) %.1f: pgs %d sweeps (res %.1e), subadmm %d its (res %.1e), "
           "|dlambda| / max|lambda| %.1e\n",  nb, nc, n_active, frictionless ? "frictionless" : "friction", cond, i1.iterations, r1,
           i2.iterations, r2, rel);
    CHECK(i1.converged && i2.converged);
    CHECK(r1 < 1e-8 && r2 < 1e-8);
    CHECK(rel < 1e-6);
    worst_rel = fmax(worst_rel, rel);
    worst_res = fmax(worst_res, fmax(r1, r2));
    compared++;
    free(v1); free(v2); free(l1); free(l2);
    sg_problem_destroy(&p);
  }
  printf("random problems: %d compared (%d with active contacts, %d active contacts), worst relative lambda difference %.2e, worst residual %.2e\n", compared,
         with_active, active_total, worst_rel, worst_res);
  CHECK(compared >= 25);
  CHECK(with_active >= compared - 5); /* the comparisons are (nearly all) not of trivial zero impulses */
}

static void sphere_rest(void) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = 0.5;
  const double zero[3] = {0, 0, 0}, size[3] = {0.1, 0, 0}, pos[3] = {0.3, -0.2, 0.1};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  double dt = 1.0 / 240.0, m = s.mass[1], g = 9.81;
  sg_solver *solver = sim_solver("pgs", 1e-12, 1000);
  sg_step_params prm = sim_params(dt, 0.02);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  double worst_rel = 0;
  for (int k = 0; k < 240; ++k) {
    sg_step_stats stats;
    CHECK_OK(sg_stepper_step(st, &stats));
    const sg_contacts *c = sg_stepper_contacts(st);
    CHECK(c->n == 1);
    if (c->n != 1) break;
    double ln = sg_stepper_lambda(st)[0];
    worst_rel = fmax(worst_rel, fabs(ln - m * g * dt) / (m * g * dt));
  }
  printf("sphere at rest (pgs): impulse error %.3e (relative)\n", worst_rel);
  CHECK(worst_rel <= 1e-6);
  CHECK_NEAR(s.pos[3], 0.3, 1e-9);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
}

static void incline(void) {
  const double mu = 0.25, a = 15.0 * M_PI / 180.0, g = 9.81, half = 0.1;
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = mu;
  double axis[3] = {0, 1, 0}, q[4];
  quat_from_axis_angle(q, axis, a);
  const double zero[3] = {0, 0, 0}, size[3] = {half, half, half};
  double n[3] = {sin(a), 0, cos(a)}, down[3] = {cos(a), 0, -sin(a)}, p[3];
  for (int k = 0; k < 3; ++k) p[k] = half * n[k];
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, q, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, size, 0, 0, 1000.0, p, q, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver("pgs", 1e-10, 2000);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.02);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK(sim_run(st, &s, 240, NULL, NULL) == 0);
  double d[3];
  v3_sub(d, s.pos + 3, p);
  double along = v3_dot(d, down), expect = 0.5 * g * (sin(a) - mu * cos(a));
  printf("incline (pgs), mu = %.3f: slid %.5f m, analytic %.5f m\n", mu, along, expect);
  CHECK(fabs(along - expect) <= 0.02 * expect);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  analytic();
  random_agreement();
  sphere_rest();
  incline();
  return sim_finish();
}
