/* Rolling resistance (src/step/rolling.c). A solid sphere rolling without slipping at v0 on a plane
 * with rolling-friction coefficient mu_r feels a torque mu_r r m g against its rolling; angular
 * momentum about the contact point, (7/5) m r v, then falls at mu_r r m g, so v falls at
 * a = 5/7 mu_r g and the sphere stops after d = v0^2 / (2 a) = 7 v0^2 / (10 mu_r g) (checked to 1%,
 * for two coefficients). The theta-0 step moves the sphere by v_{k+1} dt with v falling by a dt per
 * step, which sums to d - v0 dt / 2 (checked to 0.1%: the last steps, where the bound that stops
 * the rolling takes over, are all that is left). Without rolling resistance the sphere rolls on at
 * v0 (to 1e-6; SAP 1e-5: its regularized friction lets the rolling contact creep). */
#include "sim_util.h"

static const double radius = 0.1, v0 = 1.0, g = 9.81, dt = 1.0 / 240.0;

/* The sphere resting on the plane for one step (so that the contact has its normal impulse), then
 * set rolling along +x (w about +y, w r = v). */
static void setup(sg_scene *s, double mu_r, sg_solver *solver, sg_stepper **st) {
  CHECK_OK(sg_scene_create(s, 2, 1));
  s->friction[0] = 0.5;
  s->rolling[0] = mu_r;
  const double zero[3] = {0, 0, 0}, size[3] = {radius, 0, 0}, pos[3] = {0, 0, radius};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(s));
  CHECK_OK(sg_scene_validate(s, "test"));
  sg_step_params prm = sim_params(dt, 0.02);
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, s, &prm, solver, st));
  CHECK(sim_run(*st, s, 1, NULL, NULL) == 0);
  s->state.vel[6 + 0] = v0;
  s->state.vel[6 + 4] = v0 / radius;
}

/* Steps until the sphere's speed has fallen to 1e-9 (at most `cap` steps); the distance rolled. */
static double roll_out(sg_stepper *st, sg_scene *s, long cap) {
  const double x0 = s->state.pos[3];
  for (long k = 0; k < cap && fabs(s->state.vel[6]) > 1e-9; ++k) CHECK(sim_run(st, s, 1, NULL, NULL) == 0);
  return s->state.pos[3] - x0;
}

static void check_stopping_distance(sg_solver *solver, double mu_r) {
  sg_scene s;
  sg_stepper *st;
  setup(&s, mu_r, solver, &st);
  const double expected = 7.0 * v0 * v0 / (10.0 * mu_r * g), stepped = expected - 0.5 * v0 * dt;
  const long cap = (long)(3.0 * v0 / (5.0 / 7.0 * mu_r * g) / dt);
  const double d = roll_out(st, &s, cap);
  printf("mu_r = %.3f: stopped after %.5f m (7 v0^2 / (10 mu_r g) = %.5f m, %+.3f%%; less v0 dt / 2: %+.4f%%), final v %.2e m/s, w r %.2e m/s\n",
         mu_r, d, expected, 100.0 * (d - expected) / expected, 100.0 * (d - stepped) / stepped, s.state.vel[6],
         s.state.vel[6 + 4] * radius);
  CHECK(fabs(d - expected) <= 0.01 * expected);
  CHECK(fabs(d - stepped) <= 0.001 * stepped);
  CHECK(fabs(s.state.vel[6]) <= 1e-6 && fabs(s.state.vel[6 + 4] * radius) <= 1e-6); /* at rest, not rolling back */
  sg_stepper_destroy(&st);
  sg_scene_destroy(&s);
}

static void check_free_rolling(sg_solver *solver) {
  sg_scene s;
  sg_stepper *st;
  setup(&s, 0.0, solver, &st);
  CHECK(sim_run(st, &s, 240, NULL, NULL) == 0);
  const double v = s.state.vel[6], w = s.state.vel[6 + 4];
  printf("mu_r = 0: after 1 s v = %.9f m/s, w r = %.9f m/s (v0 = %.1f)\n", v, w * radius, v0);
  const double tol = sim_solver_is_compliant(sim_solver_name()) ? 1e-5 : 1e-6;
  CHECK(fabs(v - v0) <= tol * v0 && fabs(w * radius - v0) <= tol * v0);
  sg_stepper_destroy(&st);
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 1000);
  check_free_rolling(solver);
  check_stopping_distance(solver, 0.05);
  check_stopping_distance(solver, 0.2);
  sg_solver_destroy(&solver);
  return sim_finish();
}
