/* Paper 001 (NSN) heavy stack, Fig. 14: 5 boxes (0.2 m cubes) with masses 8, 64, 512, 4096 and
 * 32768 kg, the heaviest on top (4096:1 top to bottom), mu = 0.5, dt = 1/240, 2 s, solved by NSN
 * (-solver_tol 1e-9, at most 200 Newton steps per time step).
 * Tolerances: the stack must stand, i.e. no box drifts by more than 1 mm (0.5% of the box size) and
 * the penetration stays below 1 mm. The contact model is velocity-level with Baumgarte feedback
 * (erp 0.2), so a converged solution keeps the gap at the margin; 1 mm is a tenth of what is
 * "visible" at this box size and three orders above what a converged solve leaves, so it catches a
 * solver that lets the 32 t box sink through the 8 kg one (each unconverged step of theta ~ 1e-3 m/s
 * sinks about 4e-6 m) without depending on the last digits of the Newton iteration. The mean Newton
 * iteration count is printed. Then the problem of one step of the standing stack is solved from a
 * cold start (v = 0, lambda = 0) with no iteration cap: theta_p + theta_d < 1e-8 must be reached. */
#include "sim_util.h"
#include "signorini/generate.h"

typedef struct { double max_pen; long iters, steps; int unconverged; } heavy_stats;

static void record(sg_stepper *st, const sg_scene *s, const sg_step_stats *stats, void *ctx) {
  (void)st; (void)s;
  heavy_stats *hs = ctx;
  hs->max_pen = fmax(hs->max_pen, stats->max_penetration);
  hs->iters += stats->iterations;
  hs->steps++;
  hs->unconverged += !stats->converged;
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  const int n = 5;
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, n + 1, 1));
  s.friction[0] = 0.5;
  CHECK_OK(sg_add_ground(&s, 0));
  const double half = 0.1, size[3] = {half, half, half};
  for (int k = 0; k < n; ++k) { /* masses 8 * 8^k kg: density 1000 * 8^k for a 0.2 m cube */
    double p[3] = {0, 0, half * (2 * k + 1)};
    CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, size, 0, 0, 1000.0 * pow(8.0, k), p, NULL, NULL, NULL));
  }
  CHECK_OK(sg_scene_update_mass(&s));
  double *p0 = malloc(sizeof(double) * 3 * s.n);
  memcpy(p0, s.pos, sizeof(double) * 3 * s.n);
  sg_solver *solver = sim_solver("nsn", 1e-9, 200);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.02);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  heavy_stats hs = {0};
  CHECK(sim_run(st, &s, 480, record, &hs) == 0);
  /* the standing stack's problem from a cold start (v = 0, lambda = 0): NSN must converge on the
   * 4096:1 mass ratio by itself, not only thanks to the warm start */
  sg_step_stats stats;
  CHECK_OK(sg_stepper_step(st, &stats));
  const sg_problem *p = sg_stepper_problem(st);
  double *v = calloc((size_t)sg_problem_n_v(p), sizeof(double)), *lam = calloc((size_t)sg_problem_n_rows(p), sizeof(double));
  solver->tol = 1e-8;
  solver->max_it = 0;
  sg_solve_info info;
  double cres = -1;
  CHECK_OK(sg_solver_solve(solver, p, v, lam, &info));
  CHECK_OK(sg_contact_residual(p, lam, &cres));
  printf("cold start: %d Newton iterations, theta_p %.3e, theta_d %.3e, contact residual %.3e\n", info.iterations,
         info.residual_primal, info.residual_dual, cres);
  CHECK(info.converged);
  free(v);
  free(lam);
  double drift = 0;
  for (int i = 1; i < s.n; ++i) {
    double d[3];
    v3_sub(d, s.pos + 3 * i, p0 + 3 * i);
    drift = fmax(drift, v3_norm(d));
  }
  printf("heavy stack 4096:1 (NSN): drift %.3e m, max penetration %.3e m, mean Newton iterations %.2f, %d of %ld steps unconverged\n",
         drift, hs.max_pen, (double)hs.iters / hs.steps, hs.unconverged, hs.steps);
  CHECK(drift < 1e-3);
  CHECK(hs.max_pen < 1e-3);
  free(p0);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
