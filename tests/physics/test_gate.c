/* A wall on a schedule: a kinematic box at rest until t = 0.1 s, then sliding along +x at 0.5 m/s
 * until t = 0.4 s, then at rest again (a translation with the window [0.1, 0.4), scene.h). A free
 * box (no friction) lies on the floor 1 cm in front of it. Exact answer with hard contact and
 * theta = 0: the box stays put until the wall reaches it (t = 0.12 s), is then pushed at the wall's
 * speed with its face on the wall's, and after 0.4 s slides on alone at 0.5 m/s. Checked at 0.6 s:
 * the box's speed and position to 1e-6 (hard contact; a compliant model, SAP, to 1e-3 m/s and
 * 1e-4 m: its regularization lets the wall sink into the box by a small amount while pushing), the
 * wall's pose bit for bit the schedule's (it does not depend on the steps taken), and the box
 * still before the wall arrives: within 1e-9 m (a resting solve is exact to the solver tolerance,
 * 1e-10 in velocity units, over at most 60 steps of 2 ms), against the 1 cm gap. */
#include "sim_util.h"

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 3, 1));
  s.friction[0] = 0.0;
  const double v = 0.5, t_on = 0.1, t_off = 0.4, gap = 0.01, dt = 1.0 / 500;
  const double zero[3] = {0, 0, 0}, wall_half[3] = {0.02, 0.2, 0.1}, wall_pos[3] = {-0.02, 0, 0.1};
  const double box_half[3] = {0.05, 0.05, 0.05}, box_pos[3] = {gap + 0.05, 0, 0.05}, wv[3] = {v, 0, 0};
  int wall;
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, wall_half, 0, 1, 0, wall_pos, NULL, NULL, &wall));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, box_half, 0, 0, 1000.0, box_pos, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_motion(&s, wall, SG_MOTION_TRANSLATE, wv, NULL, t_on, t_off));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 2000);
  sg_step_params prm = sim_params(dt, 0.005);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  double moved_early = 0;
  for (int k = 1; k <= 300; ++k) {
    sg_step_stats stats;
    CHECK_OK(sg_stepper_step(st, &stats));
    if (k * dt < t_on + gap / v - dt) moved_early = fmax(moved_early, fabs(s.state.pos[6] - box_pos[0]));
  }
  /* the wall's x at t = 0.6 from its schedule, and the box pushed face to face, then gliding */
  double wall_x = wall_pos[0] + v * (t_off - t_on);
  double box_x = wall_x + wall_half[0] + box_half[0] + v * (s.state.time - t_off);
  double dx = fabs(s.state.pos[6] - box_x), dv = fabs(s.state.vel[12] - v);
  printf("t = %.3f s: box at %.9f m (exact %.9f, off by %.2e), speed %.9f m/s (off by %.2e); moved before the "
         "wall arrived %.2e m; wall at %.17g (schedule %.17g)\n", s.state.time, s.state.pos[6], box_x, dx, s.state.vel[12], dv,
         moved_early, s.state.pos[3], wall_x);
  int compliant = sim_solver_is_compliant(sim_solver_name());
  CHECK(dx <= (compliant ? 1e-4 : 1e-6));
  CHECK(dv <= (compliant ? 1e-3 : 1e-6));
  CHECK(moved_early <= 1e-9);
  CHECK(s.state.pos[3] == wall_x && s.state.pos[4] == 0 && s.state.pos[5] == wall_pos[2]);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
