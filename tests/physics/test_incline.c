/* Box released from rest on a 15 degree incline, g = 9.81, dt = 1/240, 1 s: the distance slid
 * matches 0.5 g (sin 15 - mu cos 15) t^2 within 2% or 2 mm for mu = 0, 0.125, 0.25 (theta = 0 is
 * first order: x_n = a dt^2 n (n+1) / 2, a 0.4% excess at n = 240); for mu = 0.375 > tan 15 the
 * box sticks and moves less than 1e-4 m. */
#include "sim_util.h"
#include "signorini/generate.h"

static double slide(double mu) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = mu;
  double a = 15.0 * M_PI / 180.0, axis[3] = {0, 1, 0}, q[4], half = 0.1;
  quat_from_axis_angle(q, axis, a);
  const double zero[3] = {0, 0, 0}, size[3] = {half, half, half};
  double n[3] = {sin(a), 0, cos(a)}, down[3] = {cos(a), 0, -sin(a)}, p[3];
  for (int k = 0; k < 3; ++k) p[k] = half * n[k];
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, q, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, size, 0, 0, 1000.0, p, q, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 2000);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.02);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK(sim_run(st, &s, 240, NULL, NULL) == 0);
  double d[3];
  v3_sub(d, s.state.pos + 3, p);
  double along = v3_dot(d, down);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return along;
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  const double mus[4] = {0.0, 0.125, 0.25, 0.375}, g = 9.81, a = 15.0 * M_PI / 180.0;
  for (int k = 0; k < 4; ++k) {
    double d = slide(mus[k]);
    double expect = fmax(0.0, 0.5 * g * (sin(a) - mus[k] * cos(a)));
    printf("mu = %.3f: slid %.5f m, analytic %.5f m\n", mus[k], d, expect);
    if (expect > 0) CHECK(fabs(d - expect) <= fmax(0.02 * expect, 0.002));
    else CHECK(fabs(d) < 1e-4);
  }
  return sim_finish();
}
