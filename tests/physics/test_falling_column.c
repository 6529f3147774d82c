/* A column of five spheres (r = 1 cm, gaps of 0.02 r) falling together at 1 m/s onto a plane
 * 0.02 r below: in one step of 1/240 s they would fall 0.42 r. The spheres do not move relative to
 * one another at the start of the step, so none is a speculative contact of another; the solve
 * stops the lowest at the plane, and the others would sink into it. The contacts of the solved
 * motion (recheck.c) catch them one per added solve; a search that also follows each sphere while
 * its neighbour stands still (-contact_sweep_stops, the default) has them all in the first problem
 * and adds none. The exact answer (theta = 0, inelastic): every
 * gap closes within the step, sphere k (from 1 at the bottom) moving by k gaps, at the speed
 * k gap / dt. Checked: every gap >= -1e-6 r after the step, and each speed to 1e-6 relative (the
 * solver tolerance is 1e-10), both ways. Without either (-contact_recheck 0
 * -contact_sweep_stops 0) the upper spheres overlap by more than 0.1 r, which shows what is checked. A compliant solver (SAP) sinks into its
 * regularized contacts: its gaps are bounded by 2e-3 r and its speeds are not checked. */
#include "sim_util.h"

enum { N_SPHERES = 5 };

static double step_column(int recheck, int stops, double *speed_error, int *resolves) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, N_SPHERES + 1, 1));
  s.friction[0] = 0.5;
  const double zero[3] = {0, 0, 0}, r = 0.01, gap = 0.02 * r, size[3] = {r, 0, 0};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  for (int k = 0; k < N_SPHERES; ++k) {
    const double pos[3] = {0, 0, r + gap + k * (2 * r + gap)}, vel[6] = {0, 0, -1.0, 0, 0, 0};
    CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, vel, NULL));
  }
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 2000);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.01 * r); /* below the gaps */
  prm.recheck = recheck;
  prm.sweep_stops = stops;
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  sg_step_stats stats;
  CHECK_OK(sg_stepper_step(st, &stats));
  double least_gap = s.state.pos[3 * 1 + 2] - r; /* the lowest sphere on the plane */
  *speed_error = 0;
  for (int k = 1; k <= N_SPHERES; ++k) {
    if (k > 1) least_gap = fmin(least_gap, s.state.pos[3 * k + 2] - s.state.pos[3 * (k - 1) + 2] - 2 * r);
    double exact = k * gap / prm.dt;
    *speed_error = fmax(*speed_error, fabs(-s.state.vel[6 * k + 2] - exact) / exact);
  }
  printf("  -contact_recheck %d -contact_sweep_stops %d: least gap %+.3e r, speeds against k gap/dt: %.3e relative, "
         "solves added %d\n", recheck, stops, least_gap / r, *speed_error, stats.resolves);
  *resolves = stats.resolves;
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return least_gap / r;
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  int compliant = sim_solver_is_compliant(sim_solver_name());
  double error_off, error_on, error_stops;
  int added_off, added_on, added_stops;
  double gap_off = step_column(0, 0, &error_off, &added_off), gap_on = step_column(8, 0, &error_on, &added_on);
  double gap_stops = step_column(8, 1, &error_stops, &added_stops);
  CHECK(gap_off < -0.1);                        /* the case the added solves are for */
  CHECK(gap_on >= (compliant ? -2e-3 : -1e-6)); /* no sphere sinks into another */
  CHECK(added_on == N_SPHERES - 1);             /* one per sphere above the lowest */
  CHECK(gap_stops >= (compliant ? -2e-3 : -1e-6) && added_stops == 0);
  if (!compliant) CHECK(error_on <= 1e-6 && error_stops <= 1e-6);
  return sim_finish();
}
