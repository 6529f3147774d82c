/* A box (mu = 0.5) at radius r = 0.5 m on a turntable: a kinematic box rotating about z at omega
 * (scene.h, sg_motion). The box starts moving with the table. Friction can hold it on its circle
 * only while the centripetal acceleration omega^2 r stays below mu g: it turns with the table at
 * omega^2 r = 0.9 mu g and slides outward at omega^2 r = 1.1 mu g. Checked at 0.9: over 2 s
 * (about one turn) its angle stays within 1% of the table's, and its radius within 1e-6 r of the
 * radius of a body that sticks under this time stepping: positions move with the end-of-step
 * velocity (paper 002 eq. (2)), which sticking makes omega x x_k, so x_k+1 = x_k + dt omega x x_k and
 * the radius grows by sqrt(1 + (omega dt)^2) per step (0.9% over the 2,000 steps; first order in dt).
 * At 1.1: within 1 s its radius grows by more than 5% of r. Also checked: the table's pose is the exact
 * rotation of its start (its top stays at z = 0, its angle is omega t to 1e-12). SAP's contact model
 * has no moving surfaces: it must refuse the step with a clear error. */
#include "sim_util.h"

typedef struct { double radius_dev, angle_dev, final_radius, table_angle_err, table_z_err; int refused; } spin;

static spin run(double ratio) {
  const double mu = 0.5, g = 9.81, r0 = 0.5, dt = 1e-3;
  const double omega = sqrt(ratio * mu * g / r0), t_end = ratio < 1 ? 2.0 : 1.0;
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = mu;
  const double table_half[3] = {1.0, 1.0, 0.05}, table_pos[3] = {0, 0, -0.05};
  const double half[3] = {0.02, 0.02, 0.02}, pos[3] = {r0, 0, 0.02}, vel[6] = {0, omega * r0, 0, 0, 0, omega};
  const double w[3] = {0, 0, omega}, axis_point[3] = {0, 0, 0};
  int table;
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, table_half, 0, 1, 0, table_pos, NULL, NULL, &table));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, half, 0, 0, 1000.0, pos, NULL, vel, NULL));
  CHECK_OK(sg_scene_add_motion(&s, table, SG_MOTION_ROTATE, w, axis_point, 0.0, INFINITY));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-9, 2000);
  sg_step_params prm = sim_params(dt, 0.004);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  spin out = {0};
  long n = lround(t_end / dt);
  for (long k = 1; k <= n; ++k) {
    sg_step_stats stats;
    sg_err err = sg_stepper_step(st, &stats);
    if (err && sim_solver_is_compliant(sim_solver_name())) {
      printf("SAP: %s\n", sg_error_message());
      out.refused = err == SG_ERR_ARG && strstr(sg_error_message(), "moving surfaces") && s.state.step == 0;
      break;
    }
    CHECK_OK(err);
    const double *x = s.state.pos + 3, *q = s.state.quat;
    double t = k * dt, radius = hypot(x[0], x[1]), angle = atan2(x[1], x[0]);
    double sticking = r0 * pow(1 + omega * dt * omega * dt, 0.5 * k);
    double expected = remainder(omega * t, 2 * M_PI), table_angle = 2 * atan2(q[3], q[0]);
    out.radius_dev = fmax(out.radius_dev, fabs(radius - sticking) / r0);
    out.angle_dev = fmax(out.angle_dev, fabs(remainder(angle - expected, 2 * M_PI)) / (omega * t));
    out.table_angle_err = fmax(out.table_angle_err, fabs(remainder(table_angle - omega * t, 2 * M_PI)));
    out.table_z_err = fmax(out.table_z_err, fabs(s.state.pos[2] + 0.05));
    out.final_radius = radius;
  }
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return out;
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  spin below = run(0.9);
  if (sim_solver_is_compliant(sim_solver_name())) {
    CHECK(below.refused);
    return sim_finish();
  }
  spin above = run(1.1);
  printf("omega^2 r = 0.9 mu g: radius within %.2e r of sticking, angle within %.2e of the table's\n", below.radius_dev,
         below.angle_dev);
  printf("omega^2 r = 1.1 mu g: radius after 1 s %.4f m (r = 0.5 m, %+.1f%%)\n", above.final_radius,
         100 * (above.final_radius - 0.5) / 0.5);
  printf("table: angle error %.2e rad, top height error %.2e m\n", fmax(below.table_angle_err, above.table_angle_err),
         fmax(below.table_z_err, above.table_z_err));
  CHECK(below.radius_dev <= 1e-6 && below.angle_dev <= 0.01);
  CHECK(above.final_radius >= 1.05 * 0.5);
  CHECK(fmax(below.table_angle_err, above.table_angle_err) <= 1e-12);
  CHECK(fmax(below.table_z_err, above.table_z_err) <= 1e-15);
  return sim_finish();
}
