/* A sphere deflected past another within the step: the contacts of the solved motion (recheck.c)
 * must measure two spheres' overlap along their motion, not to first order. Sphere A (r = 1 cm, no
 * gravity) moves at 10 r / dt along +x towards a frictionless fixed plane at 45 degrees, 2 r away,
 * which turns it within the step: its solved velocity is v + lambda n with n . v_new = -2 r / dt
 * (the open gap closes exactly), so it moves by d = (6.41, 3.59, 0) r. Sphere B, at rest, lies
 * beside that path, half a margin clear of A at the closest approach, and 3.9 r from A's start-of-step
 * path, beyond the start's contact search. The recheck's search meets the pair; the exact least gap
 * (+0.5 margin) adds no solve, where the first-order gap along the start's centre line
 * (gap + d . n0 = -3.8 r) would add one, and the added contact, linearized there, would push B
 * aside. Checked: no solve added, B still exactly at rest, A's velocity the exact one to 1e-6
 * relative (solver tolerance 1e-10; a compliant solver (SAP) is not checked on it). */
#include "sim_util.h"

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  const double r = 0.01, margin = 0.1 * r, dt = 1.0 / 240.0, gap_plane = 2 * r, speed = 10 * r / dt;
  const double s2 = sqrt(0.5), n[3] = {-s2, s2, 0}, size[3] = {r, 0, 0}, zero[3] = {0, 0, 0};
  /* the plane's local z axis turned onto n: a quarter turn about (-1, -1, 0) / sqrt(2) */
  const double plane_quat[4] = {s2, -0.5, -0.5, 0}, plane_point[3] = {-(r + gap_plane) * n[0], -(r + gap_plane) * n[1], 0};
  /* A's solved velocity and displacement, and B beside the displacement's 0.6 point */
  const double lambda = speed * s2 - gap_plane / dt, v_new[3] = {speed + lambda * n[0], lambda * n[1], 0};
  double d[3], b[3], across[3] = {-v_new[1], v_new[0], 0};
  v3_scale(d, v_new, dt);
  v3_normalize(across);
  for (int k = 0; k < 3; ++k) b[k] = 0.6 * d[k] + (2 * r + 0.5 * margin) * across[k];
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 3, 1));
  s.friction[0] = 0;
  s.gravity[2] = 0;
  const double vel_a[6] = {speed, 0, 0, 0, 0, 0};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, plane_point, plane_quat, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, zero, NULL, vel_a, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, b, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  CHECK(b[1] > 2 * r + margin + 1.5 * r); /* beyond the start's search along +x */
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 2000);
  sg_step_params prm = sim_params(dt, margin);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  sg_step_stats stats;
  CHECK_OK(sg_stepper_step(st, &stats));
  const double *va = s.state.vel + 6, *vb = s.state.vel + 12;
  double err[3];
  v3_sub(err, va, v_new);
  printf("solves added %d; B's speed %.3e m/s; A's velocity error %.3e relative\n", stats.resolves, v3_norm(vb),
         v3_norm(err) / v3_norm(v_new));
  CHECK(stats.resolves == 0);
  CHECK(vb[0] == 0 && vb[1] == 0 && vb[2] == 0);
  if (!sim_solver_is_compliant(sim_solver_name())) CHECK(v3_norm(err) <= 1e-6 * v3_norm(v_new));
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
