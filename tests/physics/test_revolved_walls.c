/* Spheres against walls of revolution in a simulation:
 * - a sphere resting on a silo floor (a disk with an orifice) beside the orifice takes a normal
 *   impulse of m g dt per step (as on a plane: test_sphere_rest), to 1e-6 relative;
 * - a frictionless sphere sliding round the inside of a cylinder without gravity follows the
 *   wall: each step's normal impulse is the centripetal one, m |v|^2 / rho dt, to 1% (rho the
 *   radius of the centre's circle; the discrete turn differs from the smooth one by O(w dt) of a
 *   step, w dt = 0.009 here) once the first step's drift is taken back, and the centre stays out
 *   by the steady offset of the stabilized constraint, (v dt)^2 / (2 rho erp), to 2%;
 * - a sphere dropped above the orifice falls through it, one dropped beside it stays on the floor. */
#include "sim_util.h"

static sg_stepper *make_stepper(sg_scene *s, sg_solver *solver, double dt) {
  CHECK_OK(sg_scene_update_mass(s));
  sg_step_params prm = sim_params(dt, 0.02);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, s, &prm, solver, &st));
  return st;
}

static void test_rest_on_floor(sg_solver *solver) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = 0.5;
  const double floor_size[3] = {0.1, 0.5, 0}, zero[3] = {0, 0, 0}, size[3] = {0.05, 0, 0}, pos[3] = {0.2, 0.1, 0.05};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_DISK, floor_size, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, NULL, NULL));
  const double dt = 1.0 / 240.0;
  sg_stepper *st = make_stepper(&s, solver, dt);
  double m = s.mass[1], worst = 0;
  int settle = sim_solver_is_compliant(sim_solver_name()) ? 24 : 0;
  for (int k = 0; k < 120; ++k) {
    sg_step_stats stats;
    CHECK_OK(sg_stepper_step(st, &stats));
    CHECK(sg_stepper_contacts(st)->n == 1);
    if (k >= settle) worst = fmax(worst, fabs(sg_stepper_lambda(st)[0] - m * 9.81 * dt) / (m * 9.81 * dt));
  }
  printf("floor: impulse error %.3e relative, height %.6f\n", worst, s.state.pos[5]);
  CHECK(worst <= 1e-6);
  CHECK_NEAR(s.state.pos[5], 0.05, 1e-5);
  sg_stepper_destroy(&st);
  sg_scene_destroy(&s);
}

static void test_slide_round_shell(sg_solver *solver) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = 0;
  s.gravity[2] = 0;
  const double R = 0.5, r = 0.05, rho = R - r, shell[3] = {R, 0.5, 0}, zero[3] = {0, 0, 0}, size[3] = {r, 0, 0};
  const double pos[3] = {rho, 0, 0}, vel[6] = {0, 1.0, 0, 0, 0, 0};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_CYLINDER, shell, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, vel, NULL));
  const double dt = 1.0 / 240.0;
  sg_stepper *st = make_stepper(&s, solver, dt);
  double m = s.mass[1], worst_impulse = 0;
  const int settle = 50; /* the first step's drift decays by (1 - erp) per step */
  for (int k = 0; k < 340; ++k) { /* about one turn */
    const double *v = s.state.vel + 6;
    double speed2 = v3_dot(v, v);
    sg_step_stats stats;
    CHECK_OK(sg_stepper_step(st, &stats));
    if (sg_stepper_contacts(st)->n != 1) { CHECK(0); break; }
    double expect = m * speed2 / rho * dt;
    if (k >= settle) worst_impulse = fmax(worst_impulse, fabs(sg_stepper_lambda(st)[0] - expect) / expect);
  }
  /* Each step moves the centre along the tangent, v dt, off the circle by (v dt)^2 / (2 rho); the
   * velocity-level constraint takes back erp of the penetration a step: the steady offset. */
  const double erp = 0.2, v0 = 1.0, off = hypot(s.state.pos[3], s.state.pos[4]) - rho;
  const double steady = v0 * dt * v0 * dt / (2 * rho * erp);
  double speed = v3_norm(s.state.vel + 6);
  printf("shell: centripetal impulse error %.3e relative, off the circle %.4e m (steady state %.4e), speed after a turn %.4f m/s\n",
         worst_impulse, off, steady, speed);
  CHECK(worst_impulse <= 0.01);
  CHECK_NEAR(off, steady, 0.02 * steady);
  CHECK_NEAR(speed, v0, 1e-3); /* the wall is frictionless and the impulses normal to the motion */
  sg_stepper_destroy(&st);
  sg_scene_destroy(&s);
}

static void test_orifice(sg_solver *solver) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 3, 1));
  s.friction[0] = 0.5;
  const double floor_size[3] = {0.1, 0.5, 0}, zero[3] = {0, 0, 0}, size[3] = {0.05, 0, 0};
  const double over[3] = {0.02, -0.01, 0.2}, beside[3] = {-0.3, 0, 0.2};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_DISK, floor_size, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, over, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, beside, NULL, NULL, NULL));
  sg_stepper *st = make_stepper(&s, solver, 1.0 / 240.0);
  CHECK(sim_run(st, &s, 120, NULL, NULL) == 0);
  printf("orifice: heights after 0.5 s %.4f (over the orifice), %.4f (beside it)\n", s.state.pos[5], s.state.pos[8]);
  CHECK(s.state.pos[5] < -0.5);           /* fell freely through: z = 0.2 - g t^2 / 2 = -1.03 */
  CHECK_NEAR(s.state.pos[8], 0.05, 1e-4); /* landed and rests */
  sg_stepper_destroy(&st);
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-12, 1000);
  test_rest_on_floor(solver);
  test_slide_round_shell(solver);
  test_orifice(solver);
  sg_solver_destroy(&solver);
  return sim_finish();
}
