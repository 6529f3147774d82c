/* SAP's resting penetration (paper 000 Sec. V-B and (29)): a solid sphere (r = 0.1 m, 1000 kg/m^3)
 * resting on a plane, dt = 1/240, with the contact correction erp = 1 (so our bias e_n = phi0 / dt is
 * the paper's vhat_n = -phi0 / dt exactly). At rest gamma_n = m g dt and v_n = 0, so (23) gives
 * -phi0 / dt = Rn m g dt, i.e. a penetration
 *   near-rigid: Rn = beta^2 / (4 pi^2) w,  w = ||W_ii||_F / 3 = c / m with c = ||diag(1, 3.5, 3.5)||_F / 3
 *               = 1.6833 for a solid sphere (tangential rows 1/m + r^2 / I = 3.5 / m), so
 *               -phi0 = beta^2 / (4 pi^2) c g dt^2, the digest's beta^2 / (4 pi^2) g dt^2 times c;
 *   soft:       Rn = 1 / (dt^2 k) (-sap_stiffness k, tau_d = 0) when that exceeds the near-rigid value,
 *               so -phi0 = m g / k.
 * Checked: the measured penetration after 2 s equals the exact prediction within 1% (it is a fixed
 * point of the step, reached up to the solver tolerance) and the digest's order of magnitude within
 * the stated factor c (between 1 and 2 times beta^2 g dt^2 / (4 pi^2)); the soft one equals m g / k
 * within 1%; and the normal impulse at rest is m g dt within 1e-6 relative. */
#include "sim_util.h"

static double rest(double k, double *impulse_rel) {
  char buf[64];
  if (k > 0) {
    snprintf(buf, sizeof buf, "%.17g", k);
    PetscOptionsSetValue(NULL, "-sap_stiffness", buf);
    snprintf(buf, sizeof buf, "%.17g", 1.0 / 240.0);
    PetscOptionsSetValue(NULL, "-sap_dt", buf);
  } else {
    PetscOptionsClearValue(NULL, "-sap_stiffness");
    PetscOptionsClearValue(NULL, "-sap_dt");
  }
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = 0.5;
  const double zero[3] = {0, 0, 0}, size[3] = {0.1, 0, 0}, pos[3] = {0.3, -0.2, 0.1};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  double dt = 1.0 / 240.0, m = s.mass[1], g = 9.81;
  PetscOptionsSetValue(NULL, "-sap_beta", "1"); /* the paper's near-rigid default (sim_solver would pick 0.1) */
  sg_solver *solver = sim_solver("sap", 1e-12, 100);
  sg_step_params prm = sim_params(dt, 0.02);
  prm.erp = 1.0;
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK(sim_run(st, &s, 480, NULL, NULL) == 0);
  double pen = s.size[3] - s.state.pos[3 * 1 + 2];
  *impulse_rel = fabs(sg_stepper_lambda(st)[0] - m * g * dt) / (m * g * dt);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return pen;
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  const double dt = 1.0 / 240.0, g = 9.81, two_pi = 6.283185307179586, m = 1000.0 * 4.0 / 3.0 * M_PI * 1e-3;
  const double c = sqrt(1.0 + 2 * 3.5 * 3.5) / 3.0, digest = g * dt * dt / (two_pi * two_pi);
  double rel;
  double pen = rest(0, &rel);
  printf("near-rigid (beta 1): penetration %.4e m, predicted c beta^2 g dt^2 / (4 pi^2) = %.4e m (c = %.4f; digest's "
         "beta^2 g dt^2 / (4 pi^2) = %.4e m, ratio %.3f); impulse error %.1e\n", pen, c * digest, c, digest, pen / digest, rel);
  CHECK(fabs(pen - c * digest) <= 0.01 * c * digest);
  CHECK(pen >= digest && pen <= 2 * digest);
  CHECK(rel <= 1e-6);
  const double k = 1e5;
  pen = rest(k, &rel);
  printf("soft (k = %.0e N/m): penetration %.4e m, predicted m g / k = %.4e m; impulse error %.1e\n", k, pen, m * g / k, rel);
  CHECK(fabs(pen - m * g / k) <= 0.01 * m * g / k);
  CHECK(rel <= 1e-6);
  return sim_finish();
}
