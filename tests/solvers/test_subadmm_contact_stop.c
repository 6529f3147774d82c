/* SubADMM's stopping test on the contact residual of paper 002 Sec. VII (-subadmm_contact_tol).
 * A pile of 200 spheres (the `generate pile` scene, mu = 0.3) settles for 1.5 s with the default
 * 100 iterations per step; its last steps all run to that cap (theta_p + theta_d stall above
 * -solver_tol on a frictional pile: docs/SOLVERS.md). Then the same pile, with the test at TOL and
 * the theta test off (-solver_tol 0), for 24 steps:
 *  - a step the test ended (fewer iterations than the cap, no re-solve) reports a contact residual
 *    (the stepper's metric, src/step/metric.c, the mean sqrt(sum) / n) whose RMS per constraint,
 *    metric x sqrt(n), is below TOL: the test sums the same terms of the same lambda, so the bound
 *    holds to round-off; 1e-9 relative covers it (v = A^{-1}(b + J^T lambda) summed in another
 *    order, a few ulps of the terms, and the reproducible sum, exact to n 2^-62);
 *  - at least 20 of the 24 steps stop before the cap;
 *  - an evaluation that does not stop the solve leaves the iteration as it was: 30 iterations on the
 *    last step's problem, evaluating every iteration at a tolerance never met, give the plain
 *    solver's v and lambda bit for bit (so a stopped solve returns the plain iterate of that count). */
#include "sim_util.h"
#include "signorini/generate.h"

#define TOL 3e-4
#define CAP 100

typedef struct { int steps, stopped, capped, resolved; double worst; } stop_stats;

static void record_stop(sg_stepper *st, const sg_scene *s, const sg_step_stats *stats, void *ctx) {
  (void)st; (void)s;
  stop_stats *ss = ctx;
  const double rms = stats->contact_residual * sqrt((double)stats->n_contacts);
  ss->steps++;
  if (stats->resolves) { ss->resolved++; return; }
  if (stats->iterations >= CAP) { ss->capped++; return; }
  ss->stopped++;
  ss->worst = fmax(ss->worst, rms / TOL);
  printf("  step %d: %d iterations, %d contacts, RMS residual %.4e (%.6f x TOL)\n", ss->steps, stats->iterations,
         stats->n_contacts, rms, rms / TOL);
}

static void record_capped(sg_stepper *st, const sg_scene *s, const sg_step_stats *stats, void *ctx) {
  (void)st; (void)s;
  int *capped = ctx;
  *capped += stats->iterations >= CAP;
}

/* Solve p from v = 0, lambda = 0 with solver s at a cap of 30 iterations and no theta test. */
static void solve_cold_30(sg_solver *s, const sg_problem *p, double *v, double *lam, sg_solve_info *info) {
  memset(v, 0, sizeof(double) * sg_problem_n_v(p));
  memset(lam, 0, sizeof(double) * sg_problem_n_rows(p));
  s->tol = 0;
  s->max_it = 30;
  CHECK_OK(sg_solver_solve(s, p, v, lam, info));
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  PetscOptionsSetValue(NULL, "-n", "200");
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 210, 1));
  CHECK_OK(sg_generate_pile(&s));
  CHECK_OK(sg_scene_update_mass(&s));
  double r = 0;
  for (int i = 0; i < s.n; ++i)
    if (s.shape[i] == SG_SHAPE_SPHERE) r = s.size[3 * i];
  sg_step_params prm = sim_params(1.0 / 240.0, 0.2 * r);
  sg_solver *plain = sim_solver("subadmm", 1e-6, CAP);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, plain, &st));
  CHECK(sim_run(st, &s, 336, NULL, NULL) == 0);
  int capped = 0;
  CHECK(sim_run(st, &s, 24, record_capped, &capped) == 0);
  printf("settled pile, without the test: %d of 24 steps at the cap of %d iterations\n", capped, CAP);
  sg_stepper_destroy(&st);

  char tol[32];
  snprintf(tol, sizeof tol, "%.17g", TOL);
  PetscOptionsSetValue(NULL, "-subadmm_contact_tol", tol);
  PetscOptionsSetValue(NULL, "-subadmm_contact_every", "5");
  sg_solver *tested = sim_solver("subadmm", 0.0, CAP);
  PetscOptionsClearValue(NULL, "-subadmm_contact_tol");
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, tested, &st));
  CHECK(sim_run(st, &s, 4, NULL, NULL) == 0); /* the new stepper starts cold: its warm start first */
  stop_stats ss = {0};
  CHECK(sim_run(st, &s, 24, record_stop, &ss) == 0);
  printf("with -subadmm_contact_tol %g: %d steps stopped by the test (largest RMS %.9f x TOL), %d at the cap, %d re-solved\n",
         TOL, ss.stopped, ss.worst, ss.capped, ss.resolved);
  CHECK(ss.worst <= 1.0 + 1e-9);
  CHECK(ss.stopped >= 20);

  PetscOptionsSetValue(NULL, "-subadmm_contact_tol", "1e-300");
  PetscOptionsSetValue(NULL, "-subadmm_contact_every", "1");
  sg_solver *never = sim_solver("subadmm", 0.0, 30);
  PetscOptionsClearValue(NULL, "-subadmm_contact_tol");
  PetscOptionsClearValue(NULL, "-subadmm_contact_every");
  const sg_problem *p = sg_stepper_problem(st);
  const int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  double *v[2], *lam[2];
  sg_solve_info info[2];
  for (int k = 0; k < 2; ++k) {
    v[k] = malloc(sizeof(double) * nv);
    lam[k] = malloc(sizeof(double) * nr);
    solve_cold_30(k ? never : plain, p, v[k], lam[k], &info[k]);
  }
  printf("30 iterations with an evaluation each and without: v %s, lambda %s\n",
         memcmp(v[0], v[1], sizeof(double) * nv) ? "differ" : "identical", memcmp(lam[0], lam[1], sizeof(double) * nr) ? "differ" : "identical");
  CHECK(info[0].iterations == 30 && info[1].iterations == 30);
  CHECK(!memcmp(v[0], v[1], sizeof(double) * nv) && !memcmp(lam[0], lam[1], sizeof(double) * nr));
  for (int k = 0; k < 2; ++k) { free(v[k]); free(lam[k]); }
  sg_solver_destroy(&never);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&tested);
  sg_solver_destroy(&plain);
  sg_scene_destroy(&s);
  return sim_finish();
}
