/* A sphere sliding without friction off a fixed sphere (the particle on a dome). Started at rest at
 * the angle theta0 from the top, its centre follows the circle of radius R = r1 + r2 until the
 * contact force vanishes, at cos theta = (2/3) cos theta0 (energy: v^2 = 2 g R (cos theta0 - cos
 * theta); departure: g cos theta = v^2 / R).
 * - Departure: at dt = 1/7680 s the last step with a normal impulse is within two steps' turn
 *   (2 v dt / R = 0.015 rad) of that angle.
 * - Energy: each step moves the centre along a straight line, off the circle (the start's tangent),
 *   and the next step's contact (gap > 0) lets it fall back exactly onto it; no impact velocity is
 *   destroyed, so the path round the dome keeps its energy. The measure is the energy the step
 *   (q_{k+1} = q_k + dt v_{k+1}) keeps in free fall, 1/2 |v|^2 + g z - g dt v_z / 2 (its energy
 *   1/2 |v|^2 + g z drifts by -g^2 dt t / 2); it is kept to second order in dt on the dome: below
 *   5e-3 m g R at dt = 1/240 s (the step turns the centre by up to 0.23 rad there), falling by more
 *   than 2.8 times each time dt halves (3.0 from 1/240 to 1/480 s, then 3.5 to 3.9: second order).
 *   A first-order loss of the contact (a normal velocity destroyed on each fall back) would halve
 *   it only. */
#include "sim_util.h"

typedef struct {
  double theta_off, energy_lost; /* the angle of the last step with a normal impulse; (E0 - E) / (g R) there */
} dome_result;

static dome_result slide(double dt, double theta0) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = 0.0;
  const double r = 0.001, R = 2 * r, g = 9.81;
  const double size[3] = {r, 0, 0}, top[3] = {0, 0, 0}, start[3] = {R * sin(theta0), 0, R * cos(theta0)};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 1, 2500.0, top, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 2500.0, start, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-12, 1000);
  sg_step_params prm = sim_params(dt, 0.2 * r);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  const double e0 = g * start[2]; /* per unit mass, from rest */
  dome_result res = {0, 0};
  for (int k = 0; k < (int)(0.2 / dt); ++k) {
    sg_step_stats stats;
    CHECK_OK(sg_stepper_step(st, &stats));
    const double *x = s.state.pos + 3, *v = s.state.vel + 6, theta = atan2(x[0], x[2]);
    /* a regularizing solver (NSN) leaves impulses of round-off size once the sphere has left */
    if (sg_stepper_contacts(st)->n == 1 && sg_stepper_lambda(st)[0] > 1e-9 * s.mass[1] * g * dt) {
      res.theta_off = theta;
      res.energy_lost = (e0 - (0.5 * v3_dot(v, v) + g * x[2] - 0.5 * g * dt * v[2])) / (g * R);
    }
    if (theta > 1.5) break;
  }
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return res;
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  const double theta0 = 0.2, exact = acos(2.0 / 3.0 * cos(theta0));
  double lost[6];
  dome_result last = {0, 0};
  for (int m = 0; m < 6; ++m) {
    const int n = 240 << m;
    last = slide(1.0 / n, theta0);
    lost[m] = fabs(last.energy_lost);
    printf("dt 1/%d: leaves at %.4f rad (exact %.4f), energy lost %+.3e m g R\n", n, last.theta_off, exact, last.energy_lost);
  }
  CHECK(fabs(last.theta_off - exact) <= 0.015);
  CHECK(lost[0] <= 5e-3);
  for (int m = 1; m < 6; ++m) CHECK(lost[m] * 2.8 <= lost[m - 1]);
  return sim_finish();
}
