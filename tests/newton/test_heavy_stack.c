/* The paper-001 heavy stack (Fig. 14) with CANAL and NSN: 5 boxes of 0.2 m on the ground, masses 8,
 * 64, 512, 4096 and 32768 kg (ratio 8 per level, heaviest on top, 4096:1 top to bottom), mu = 0.5,
 * dt = 1/240, 2 s, -solver_tol 1e-9 and at most 200 iterations (AL loops / Newton steps) per step.
 * The boxes start 1 mm apart (and 1 mm above the ground), fall and land on one another: the light
 * bottom boxes take the impact of the heavy ones. Checked for each solver:
 *  - every step converges (the solver's own residual below the tolerance);
 *  - the largest penetration stays below 1 mm (0.5% of the box size): the contact error is
 *    Baumgarte-corrected (erp 0.2) and a converged step leaves a normal velocity error of about
 *    1e-9 m/s, so anything near 1 mm means the solver let the heavy top crush the light bottom box;
 *  - every box ends within 1 mm of its exact resting height, with no lateral drift: with friction 0.5
 *    and a vertical load there is no tangential force, so creep, sinking or bouncing away is solver
 *    error;
 *  - the standing stack's problem, from a cold start (v = 0, lambda = 0) and with no iteration cap,
 *    converges to 1e-8: the solver handles the 4096:1 ratio by itself, not only thanks to the warm
 *    start. */
#include "sim_util.h"
#include "signorini/generate.h"

static void heavy_stack(const char *solver_name) {
  const int n = 5;
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, n + 1, 1));
  s.friction[0] = 0.5;
  CHECK_OK(sg_add_ground(&s, 0));
  const double half = 0.1, size[3] = {half, half, half};
  for (int k = 0; k < n; ++k) { /* density 1000 * 8^k: mass 8 * 8^k kg */
    double p[3] = {0, 0, half * (2 * k + 1) + 1e-3 * (k + 1)}; /* 1 mm gaps: the boxes land on each other */
    CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, size, 0, 0, 1000.0 * pow(8.0, k), p, NULL, NULL, NULL));
  }
  CHECK_OK(sg_scene_update_mass(&s));
  double *p0 = malloc(sizeof(double) * 3 * s.n);
  memcpy(p0, s.state.pos, sizeof(double) * 3 * s.n);
  for (int k = 0; k < n; ++k) p0[3 * (k + 1) + 2] = half * (2 * k + 1); /* where each box should come to rest */
  sg_solver *solver = sim_solver(solver_name, 1e-9, 200);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.02);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  sim_stack_stats ss;
  memset(&ss, 0, sizeof ss);
  double t0 = MPI_Wtime();
  CHECK(sim_run(st, &s, 480, sim_record_stack, &ss) == 0);
  double secs = MPI_Wtime() - t0, drift = 0;
  for (int i = 1; i < s.n; ++i) {
    double d[3];
    v3_sub(d, s.state.pos + 3 * i, p0 + 3 * i);
    drift = fmax(drift, v3_norm(d));
  }
  printf("%s, heavy 5-box stack (4096:1, masses %.0f..%.0f kg), 2 s: drift %.3e m, max penetration %.3e m, "
         "mean iterations %.2f, %d steps unconverged, %.2f s\n", solver_name, s.mass[1], s.mass[n], drift, ss.max_pen,
         (double)ss.iters / ss.steps, ss.unconverged, secs);
  CHECK(ss.steps == 480);
  CHECK(ss.unconverged == 0);
  CHECK(ss.max_pen < 1e-3);
  CHECK(drift < 1e-3);
  /* the standing stack's problem from a cold start, no iteration cap */
  sg_step_stats stats;
  CHECK_OK(sg_stepper_step(st, &stats));
  const sg_problem *p = sg_stepper_problem(st);
  double *v = calloc((size_t)sg_problem_n_v(p), sizeof(double)), *lam = calloc((size_t)sg_problem_n_rows(p), sizeof(double));
  sg_solve_info info;
  double cres = -1;
  sim_solve_cold(solver_name, p, v, lam, 1e-8, 0, &info);
  CHECK_OK(sg_contact_residual(p, lam, &cres));
  printf("%s, cold start: %d iterations, theta_p %.3e, theta_d %.3e, contact residual %.3e\n", solver_name,
         info.iterations, info.residual_primal, info.residual_dual, cres);
  CHECK(info.converged);
  free(v); free(lam); free(p0);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  heavy_stack("canal");
  heavy_stack("nsn");
  return sim_finish();
}
