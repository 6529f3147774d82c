/* A solid sphere launched sliding at v0 without spin on a plane (mu = 0.3) ends rolling at 5/7 v0:
 * friction mu m g decelerates it and spins it up until v = w r; angular momentum about the
 * contact point, m v0 r = m v r + (2/5) m r^2 (v / r), gives v = 5/7 v0 (checked to 1%). */
#include "sim_util.h"

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = 0.3;
  const double zero[3] = {0, 0, 0}, size[3] = {0.1, 0, 0}, pos[3] = {0, 0, 0.1};
  const double v0 = 2.0, vel[6] = {v0, 0, 0, 0, 0, 0};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, vel, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 1000);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.02);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK(sim_run(st, &s, 240, NULL, NULL) == 0); /* rolling starts at 2 v0 / (7 mu g) = 0.19 s */
  double v = s.state.vel[6 + 0], w = s.state.vel[6 + 4];
  printf("final v = %.5f m/s (5/7 v0 = %.5f), w r = %.5f m/s\n", v, 5.0 / 7.0 * v0, w * 0.1);
  CHECK(fabs(v - 5.0 / 7.0 * v0) <= 0.01 * 5.0 / 7.0 * v0);
  CHECK(fabs(w * 0.1 - v) <= 0.01 * v); /* rolling without slipping: w r = v (w about +y) */
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
