/* A box (mu = 0.4) set at rest on a belt: a fixed plane whose surface moves at 1 m/s along x (a
 * fixed body's velocity is the velocity of its surface). Friction accelerates the box at mu g
 * until it reaches the belt speed at t* = v / (mu g), then it moves with the belt. With theta = 0
 * the discrete answer is exact: after step k the box moves at min(k mu g dt, v). Checked: every
 * step's speed to 1e-6 of v (solver tolerance 1e-10); the first time the box moves at the belt
 * speed within 1e-6, against t* within 1% (dt = 1/1000 s: the step rounds it by at most 0.4%); no
 * motion across the belt or off it. SAP's contact model has no moving surfaces: it must refuse
 * the step with a clear error and leave the box as it was. */
#include "sim_util.h"

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  const double mu = 0.4, g = 9.81, belt = 1.0, dt = 1e-3;
  s.friction[0] = mu;
  const double zero[3] = {0, 0, 0}, belt_vel[6] = {belt, 0, 0, 0, 0, 0};
  const double half[3] = {0.05, 0.05, 0.02}, pos[3] = {0, 0, 0.02};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, belt_vel, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, half, 0, 0, 1000.0, pos, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 2000);
  sg_step_params prm = sim_params(dt, 0.004);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  if (sim_solver_is_compliant(sim_solver_name())) {
    sg_step_stats stats;
    sg_err err = sg_stepper_step(st, &stats);
    printf("SAP: %s\n", sg_error_message());
    CHECK(err == SG_ERR_ARG && strstr(sg_error_message(), "moving surfaces"));
    CHECK(s.state.vel[6] == 0 && s.state.pos[5] == 0.02 && s.state.step == 0);
    sg_stepper_destroy(&st);
    sg_solver_destroy(&solver);
    sg_scene_destroy(&s);
    return sim_finish();
  }
  const double tol = 1e-6;
  double worst = 0, t_reach = -1, across = 0;
  for (int k = 1; k <= 400; ++k) {
    sg_step_stats stats;
    CHECK_OK(sg_stepper_step(st, &stats));
    const double *v = s.state.vel + 6;
    double exact = fmin(k * mu * g * dt, belt);
    worst = fmax(worst, fabs(v[0] - exact) / belt);
    across = fmax(across, fmax(fabs(v[1]), fabs(v[2])));
    if (t_reach < 0 && fabs(v[0] - belt) <= 1e-6 * belt) t_reach = k * dt;
  }
  double t_star = belt / (mu * g);
  printf("speed against min(k mu g dt, v): %.3e of v; belt speed reached at %.4f s (v/(mu g) = %.4f s, %+.2f%%); "
         "largest speed across %.2e m/s\n", worst, t_reach, t_star, 100 * (t_reach - t_star) / t_star, across);
  CHECK(worst <= tol);
  CHECK(t_reach > 0 && fabs(t_reach - t_star) <= 0.01 * t_star);
  CHECK(across <= tol * belt);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
