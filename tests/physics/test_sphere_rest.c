/* A sphere resting on a plane: with theta = 0, A vhat = b + J^T lambda and vhat = v_k = 0 give a
 * normal impulse of exactly m g dt per step (checked to 1e-6 relative, the solver tolerance being
 * 1e-12); the resting penetration stays below 1e-4 of the radius. A compliant solver (SAP) first
 * sinks into its regularized contact and rings down: its impulse is checked once settled, after
 * 0.1 s (24 steps; its near-rigid spring has a period of a few steps, paper 000 Sec. V-B). */
#include "sim_util.h"

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = 0.5;
  const double zero[3] = {0, 0, 0}, size[3] = {0.1, 0, 0}, pos[3] = {0.3, -0.2, 0.1};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  double dt = 1.0 / 240.0, m = s.mass[1], g = 9.81;
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-12, 1000);
  sg_step_params prm = sim_params(dt, 0.02);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  double worst_rel = 0, worst_pen = 0;
  int settle = sim_solver_is_compliant(sim_solver_name()) ? 24 : 0;
  for (int k = 0; k < 240; ++k) {
    sg_step_stats stats;
    CHECK_OK(sg_stepper_step(st, &stats));
    const sg_contacts *c = sg_stepper_contacts(st);
    CHECK(c->n == 1);
    if (c->n != 1) break;
    double ln = sg_stepper_lambda(st)[0];
    if (k >= settle) worst_rel = fmax(worst_rel, fabs(ln - m * g * dt) / (m * g * dt));
    worst_pen = fmax(worst_pen, s.size[3] - s.state.pos[3 * 1 + 2]);
  }
  printf("impulse error %.3e (relative), penetration %.3e r\n", worst_rel, worst_pen / 0.1);
  CHECK(worst_rel <= 1e-6);
  CHECK(worst_pen <= 1e-4 * 0.1);
  CHECK_NEAR(s.state.pos[3], 0.3, 1e-9); /* no creep */
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
