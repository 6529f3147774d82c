/* The PGS baseline (-solver pgs) against SubADMM on random problems: 2-6 rigid bodies (6 DOF,
 * random SPD A), at most as many contacts as bodies (3 rows each, so at most half as many rows as
 * unknowns) with random Jacobians, hence W = J A^{-1} J^T is positive definite and the frictionless
 * solution is unique (a strictly convex QP); with friction mu in [0, 1] uniqueness is not guaranteed
 * in general, so those cases are kept well conditioned (A_j = B B^T + 2 I, J entries in [-1, 1],
 * cond(W) checked below 1e3) and both solvers must also reach the residual below 1e-8 -- lambda
 * agrees within 1e-6 relative (to max |lambda|). The analytic cases run for every solver in
 * test_constraint_kinds.c, the physics tests for every solver through tests/CMakeLists.txt. */
#include "sim_util.h"

static void solve_with(const char *name, sg_problem *p, double *v, double *lam, int nv, int nr, double tol,
                       int max_it, sg_solve_info *info) {
  sg_solver *s = sim_solver(name, tol, max_it);
  memset(v, 0, sizeof(double) * nv);
  memset(lam, 0, sizeof(double) * nr);
  CHECK_OK(sg_solver_solve(s, p, v, lam, info));
  sg_solver_destroy(&s);
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

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  random_agreement();
  return sim_finish();
}
