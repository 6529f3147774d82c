/* Newton's impact law per material pair (/materials/restitution, assemble_contacts.c).
 *  - Drop: a frictionless sphere released at rest with its lowest point h = 0.5 m above a plane
 *    rebounds to e^2 h, for e = 0.3, 0.6, 0.9, within 1%. The velocity-level law bounces the sphere
 *    in the step whose start leaves a gap G < dt |u| (u ~ 3.1 m/s at impact): it leaves from G above
 *    the plane, after one step at e |u|, so its apex is e^2 h + G (1 - e^2) + dt e |u| up to
 *    O(dt g / |u|): at most 1.25 dt |u| = 0.4 mm above e^2 h, 0.87% of e^2 h = 45 mm for e = 0.3
 *    (dt = 1e-4 s). Measured: the highest point after the first bounce, against e^2 h.
 *  - Newton's cradle: five equal frictionless spheres in a row, 1 mm apart, no gravity, the first
 *    at 1 m/s, e = 1: each two-body impact exchanges the velocities, so the last sphere leaves at
 *    1 m/s and the other four stop (1e-6 m/s, solver tolerance 1e-10); momentum and kinetic energy
 *    are kept to 1e-6. SAP solves a regularized model whose normal compliance Rn = beta^2/(4 pi^2) w
 *    (paper 000 (29)) leaves each impact off by about that fraction: 1.7e-3 after the four impacts at
 *    the physics tests' beta = 0.1 (measured), so the cradle runs it at beta = 1e-3 (-sap_sigma
 *    2.5e-8, as tests/unit/test_solver_agreement.c), where that is below 1e-7.
 *  - e = 0 (no table entry): the sphere stays on the plane after the impact (the theta = 0 method). */
#include "sim_util.h"

static void make_plane(sg_scene *s) {
  const double zero[3] = {0, 0, 0};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
}

/* Highest point of the sphere's lowest point after its first bounce, dropped from h. */
static double rebound_height(double e, double h) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.restitution[0] = e;
  const double r = 0.01, dt = 1e-4, size[3] = {r, 0, 0}, pos[3] = {0, 0, r + h};
  make_plane(&s);
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 2000);
  sg_step_params prm = sim_params(dt, 0.002);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  double apex = -1;
  int bounced = 0;
  for (int k = 0; k < 20000; ++k) {
    sg_step_stats stats;
    if (sg_stepper_step(st, &stats)) {
      fprintf(stderr, "step %d failed: %s\n", k, sg_error_message());
      CHECK(0);
      break;
    }
    double z = s.state.pos[5] - r, vz = s.state.vel[8];
    if (!bounced && vz > 0) bounced = 1;
    if (bounced) apex = fmax(apex, z);
    if (bounced && vz < 0) break; /* past the apex */
  }
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return bounced ? apex : 0.0;
}

static void drop_tests(void) {
  const double h = 0.5, es[3] = {0.3, 0.6, 0.9};
  for (int k = 0; k < 3; ++k) {
    double apex = rebound_height(es[k], h), want = es[k] * es[k] * h;
    printf("e = %.1f: rebound to %.5f m, e^2 h = %.5f m (%+.3f%%)\n", es[k], apex, want, 100 * (apex - want) / want);
    CHECK(fabs(apex - want) <= 0.01 * want);
  }
  double apex0 = rebound_height(0.0, h);
  printf("e = 0: highest point after the impact %.2e m\n", apex0);
  CHECK(apex0 <= 1e-6);
}

static void cradle(void) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 5, 1));
  s.restitution[0] = 1.0;
  s.gravity[2] = 0.0;
  const int n = 5;
  const double r = 0.01, gap = 0.001, size[3] = {r, 0, 0};
  for (int i = 0; i < n; ++i) {
    double pos[3] = {i * (2 * r + gap), 0, 0}, vel[6] = {i == 0 ? 1.0 : 0.0, 0, 0, 0, 0, 0};
    CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, vel, NULL));
  }
  CHECK_OK(sg_scene_update_mass(&s));
  if (sim_solver_is_compliant(sim_solver_name())) {
    PetscOptionsSetValue(NULL, "-sap_beta", "1e-3");
    PetscOptionsSetValue(NULL, "-sap_sigma", "2.5e-8");
  }
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 2000);
  sg_step_params prm = sim_params(1e-4, 0.002);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK(sim_run(st, &s, 100, NULL, NULL) == 0);
  double p = 0, ke = 0, worst = 0;
  for (int i = 0; i < n; ++i) {
    const double *v = s.state.vel + 6 * i;
    p += v[0];
    ke += v[0] * v[0];
    worst = fmax(worst, fabs(v[0] - (i == n - 1 ? 1.0 : 0.0)));
    worst = fmax(worst, fmax(fabs(v[1]), fabs(v[2])));
  }
  printf("cradle after 10 ms: velocities %.6f %.6f %.6f %.6f %.6f m/s; largest error %.2e; momentum %.8f, energy %.8f (of 1)\n",
         s.state.vel[0], s.state.vel[6], s.state.vel[12], s.state.vel[18], s.state.vel[24], worst, p, ke);
  CHECK(worst <= 1e-6);
  CHECK(fabs(p - 1.0) <= 1e-6 && fabs(ke - 1.0) <= 1e-6);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  drop_tests();
  cradle();
  return sim_finish();
}
