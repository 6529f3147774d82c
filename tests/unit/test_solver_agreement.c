/* All registered solvers (subadmm, pgs, canal, sap, nsn, ...) agree: on the small random problems
 * of tests/random_problem.h (unique solutions: frictionless, or frictional with cond(W) <= 1e3),
 * each solver runs from zero to tolerance 1e-10, and every pair of solvers must give the same
 * impulses within 1e-6 relative: ||lambda_a - lambda_b|| / max(||lambda_a||, ||lambda_b||, 1e-4 ||b||)
 * (the floor: where every contact is inactive, lambda = 0 exactly, and a solver stopping at 1e-11
 * would otherwise differ by 100%; 1e-4 ||b|| keeps the check relative wherever impulses matter).
 * SAP solves a regularized model: it runs with a small regularization (-sap_beta 1e-3 -sap_sigma
 * 2.5e-8, so R <= 2.5e-8 w_i; smaller R meets the round-off floor 1e-16 / R of its gradient) and a
 * direct solve, and it is compared only on problems whose hard-contact answer (PGS's) also solves
 * the relaxed model: in the R -> 0 limit SAP's friction is the convex (Anitescu) relaxation, where
 * a sliding contact lifts off at J_n v + e_n = mu ||J_t v|| -- a different model wherever a contact
 * has a tangential velocity (checked for its own conditions in test_sap_agreement). "No cap" is a cap of 1e6 iterations, so that a stalling solver fails the test
 * instead of hanging it. A solver that returns an error fails every comparison it is part of. */
#include "random_problem.h"
#include "sim_util.h"

#define MAX_SOLVERS 16
#define TRIALS 40

static double norm2(int n, const double *x) {
  double s = 0;
  for (int k = 0; k < n; ++k) s += x[k] * x[k];
  return sqrt(s);
}

/* Does the hard-contact answer (v, lambda) also solve the relaxed (Anitescu) model SAP tends to?
 * Only if no contact has a tangential velocity while it is active (sliding) or while its normal
 * velocity is below mu ||J_t v|| (open in the hard model, closed in the relaxed one). */
static int models_differ(const sg_problem *p, const double *v, const double *lam) {
  int nr = sg_problem_n_rows(p), differ = 0;
  double *u = calloc((size_t)nr, sizeof(double)), vscale = 0;
  sg_problem_apply_J(p, v, u);
  for (int r = 0; r < nr; ++r) vscale = fmax(vscale, fabs(u[r]));
  for (int i = 0; i < p->n_con; ++i) {
    const double *l = lam + p->con_row[i], *w = u + p->con_row[i];
    double ut = hypot(w[1], w[2]), gap_rate = w[0] + p->e[p->con_row[i]];
    if (p->mu[i] > 0 && ut > 1e-6 * vscale) differ |= l[0] > 0 || gap_rate < p->mu[i] * ut;
  }
  free(u);
  return differ;
}

/* Set an option unless the command line gave it (to try other values by hand). */
static void default_option(const char *name, const char *value) {
  PetscBool given = PETSC_FALSE;
  PetscOptionsHasName(NULL, NULL, name, &given);
  if (!given) PetscOptionsSetValue(NULL, name, value);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  default_option("-sap_beta", "1e-3");
  default_option("-sap_sigma", "2.5e-8");
  default_option("-sap_ksp_type", "preonly");
  default_option("-sap_pc_type", "cholesky");
  char list[256], *names[MAX_SOLVERS];
  int ns = 0;
  sg_solver_list(list, sizeof list);
  for (char *tok = strtok(list, "|"); tok && ns < MAX_SOLVERS; tok = strtok(NULL, "|")) names[ns++] = tok;
  double worst[MAX_SOLVERS][MAX_SOLVERS] = {{0}};
  int failures[MAX_SOLVERS] = {0}, unconverged[MAX_SOLVERS] = {0}, compared = 0, sap_skipped = 0;
  char first_error[MAX_SOLVERS][160] = {{0}};
  unsigned long long seed = 0x13198a2e03707344ULL;
  for (int trial = 0; trial < TRIALS; ++trial) {
    sg_problem p = {0};
    random_problem_info ri;
    if (!random_problem_make(&seed, trial, &p, &ri)) { sg_problem_destroy(&p); continue; }
    int nv = sg_problem_n_v(&p), nr = sg_problem_n_rows(&p), ok[MAX_SOLVERS];
    double res[MAX_SOLVERS]; /* paper 002 metric of each answer: tells which of two disagreeing solvers is off */
    double *lam[MAX_SOLVERS], *vs[MAX_SOLVERS];
    int slides = 0; /* the hard-contact answer (PGS's) is not the relaxed model's: SAP left out */
    for (int a = 0; a < ns; ++a) {
      lam[a] = calloc((size_t)nr, sizeof(double));
      double *v = vs[a] = calloc((size_t)nv, sizeof(double));
      sg_solver *s = NULL;
      sg_solve_info info = {0};
      sg_err err = sg_solver_create(PETSC_COMM_WORLD, names[a], &s);
      if (!err) err = sg_solver_set_from_options(s);
      if (!err) {
        s->tol = sim_solver_is_compliant(names[a]) ? 1e-7 : 1e-10; /* SAP: relative e_m (26), floor ~1e-16 / R */
        s->max_it = 1000000;
        err = sg_solver_solve(s, &p, v, lam[a], &info);
      }
      sg_solver_destroy(&s);
      ok[a] = !err && isfinite(norm2(nr, lam[a]));
      res[a] = NAN;
      if (ok[a]) sg_contact_residual(&p, lam[a], &res[a]);
      if (err && !first_error[a][0]) snprintf(first_error[a], sizeof first_error[a], "%s", sg_error_message());
      sg_error_clear();
      failures[a] += !ok[a];
      unconverged[a] += ok[a] && !info.converged;
      if (ok[a] && !strcmp(names[a], "pgs")) slides = models_differ(&p, v, lam[a]);
    }
    sap_skipped += slides;
    for (int a = 0; a < ns; ++a)
      for (int b = a + 1; b < ns; ++b) {
        if (slides && (sim_solver_is_compliant(names[a]) || sim_solver_is_compliant(names[b]))) continue;
        if (!ok[a] || !ok[b]) { worst[a][b] = INFINITY; continue; }
        double d = 0;
        for (int r = 0; r < nr; ++r) d += (lam[a][r] - lam[b][r]) * (lam[a][r] - lam[b][r]);
        double scale = fmax(fmax(norm2(nr, lam[a]), norm2(nr, lam[b])), 1e-4 * norm2(nv, p.b));
        double rel = scale > 0 ? sqrt(d) / scale : sqrt(d);
        if (!(rel < 1e-6))
          printf("  trial %d (%d bodies, %d contacts, %s): %s vs %s differ by %.2e relative (||lambda|| %.3e vs %.3e, "
                 "residual %.1e vs %.1e)\n", trial, ri.n_bodies, ri.n_contacts, ri.frictionless ? "frictionless" : "friction",
                 names[a], names[b], rel, norm2(nr, lam[a]), norm2(nr, lam[b]), res[a], res[b]);
        worst[a][b] = fmax(worst[a][b], rel);
      }
    compared++;
    for (int a = 0; a < ns; ++a) { free(lam[a]); free(vs[a]); }
    sg_problem_destroy(&p);
  }
  printf("%d random problems, %d solvers (SAP left out on %d where the relaxed model differs)\n", compared, ns, sap_skipped);
  for (int a = 0; a < ns; ++a)
    printf("  %-8s failed on %d, not converged on %d%s%s\n", names[a], failures[a], unconverged[a],
           first_error[a][0] ? ": " : "", first_error[a]);
  printf("worst ||dlambda|| / ||lambda|| per pair:\n");
  for (int a = 0; a < ns; ++a)
    for (int b = a + 1; b < ns; ++b) {
      printf("  %-8s %-8s %.2e%s\n", names[a], names[b], worst[a][b], worst[a][b] < 1e-6 ? "" : "   <-- above 1e-6");
      CHECK(worst[a][b] < 1e-6);
    }
  CHECK(compared >= 25);
  return sim_finish();
}
