/* Stress moments W_i = sum over body i's contacts of f (x) (x_c - x_i) (src/step/stress.c).
 * 1. Two spheres (radius r, mass m) stacked on a plane, at rest: the top one is held by m g at its
 *    lowest point, W_zz = -m g r; the bottom one by 2 m g from the plane and m g pressing on its
 *    top, W_zz = -3 m g r; every other entry 0 (to 1e-6 of m g r; SAP 3e-5, its compliant contacts
 *    overlapping).
 * 2. A column of 40 spheres falling apart on a plane, any step: with F_i = m_i (v_k+1 - v_k) / dt - m_i g
 *    the sum of body i's contact forces (from the motion), W_i = sum_c f_c (x) x_c - F_i (x) x_i;
 *    summed over the bodies the contacts between spheres cancel (both bodies see the same point),
 *    but for f (x) meet where the contact is taken where two spheres meet within the step (A's
 *    point is offset by meet across the normal, collision.h), leaving the floor's:
 *    sum_i W_i[a][z] = sum_floor f_a z_c + sum_pairs f_a meet_z - sum_i F_i[a] x_i[z] for a = x, y, z
 *    (z_c is not 0 for a contact that closes within the step), to 1e-6 of M g r (the solver's
 *    tolerance on the motion). */
#include <string.h>
#include "sim_util.h"
#include "signorini/assemble.h"

static const double r = 0.05, rho = 1000.0, g = 9.81, dt = 1.0 / 240.0;

static void make_scene(sg_scene *s, int n) {
  CHECK_OK(sg_scene_create(s, n + 1, 1));
  s->friction[0] = 0.5;
  const double zero[3] = {0, 0, 0};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
}

static void add_sphere(sg_scene *s, double x, double y, double z) {
  const double size[3] = {r, 0, 0}, pos[3] = {x, y, z};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, rho, pos, NULL, NULL, NULL));
}

static void check_stack(sg_solver *solver) {
  sg_scene s;
  make_scene(&s, 2);
  add_sphere(&s, 0, 0, r);
  add_sphere(&s, 0, 0, 3 * r);
  CHECK_OK(sg_scene_update_mass(&s));
  sg_step_params prm = sim_params(dt, 0.2 * r);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  sg_stepper_keep_stress(st, 1);
  CHECK(sim_run(st, &s, 240, NULL, NULL) == 0);
  const int64_t *gid;
  const double *W;
  CHECK(sg_stepper_stress(st, &gid, &W) == 2);
  const double mgr = s.mass[1] * g * r, expect[2] = {-3 * mgr, -mgr};
  /* SAP: its compliant contacts overlap by 1.4e-5 r at rest, which shortens the lever arms (the
   * contact point is mid-overlap) by half that: 2e-5 of m g r on the bottom sphere */
  const double tol = sim_solver_is_compliant(sim_solver_name()) ? 3e-5 : 1e-6;
  for (int b = 0; b < 2; ++b) {
    double off = 0;
    for (int k = 0; k < 8; ++k) off = fmax(off, fabs(W[9 * b + k]));
    printf("stacked sphere %d (gid %lld): W_zz = %.9f N m (expected %.9f), largest other entry %.2e\n", b, (long long)gid[b],
           W[9 * b + 8], expect[b], off);
    CHECK(fabs(W[9 * b + 8] - expect[b]) <= tol * mgr && off <= tol * mgr);
  }
  sg_stepper_destroy(&st);
  sg_scene_destroy(&s);
}

static void check_pile_identity(sg_solver *solver) {
  sg_scene s;
  make_scene(&s, 40);
  unsigned long long seed = 3;
  for (int k = 0; k < 40; ++k)
    add_sphere(&s, (k % 4) * 2.1 * r + sg_test_rand(&seed, -0.05, 0.05) * r, (k / 4 % 2) * 2.1 * r, r * (1.1 + 2.2 * (k / 8)));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_step_params prm = sim_params(dt, 0.2 * r);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  sg_stepper_keep_stress(st, 1);
  CHECK(sim_run(st, &s, 120, NULL, NULL) == 0); /* 0.5 s: the column is falling apart */
  double x0[3 * 41], v0[6 * 41];
  memcpy(x0, s.state.pos, sizeof x0);
  memcpy(v0, s.state.vel, sizeof v0);
  sg_step_stats last;
  CHECK_OK(sg_stepper_step(st, &last));
  const int64_t *gid;
  const double *W;
  const int n = sg_stepper_stress(st, &gid, &W);
  /* sum_i W_i[a][z] = -sum_i F_i[a] x_i[z], F_i = m (v_k+1 - v_k) / dt - m g the contact force on i */
  double sum[3] = {0, 0, 0}, expected[3] = {0, 0, 0}, scale = 0;
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) sum[a] += W[9 * i + 3 * a + 2];
  for (int i = 1; i < s.n; ++i) {
    scale += s.mass[i] * g * r;
    for (int a = 0; a < 3; ++a) {
      const double F = s.mass[i] * ((s.state.vel[6 * i + a] - v0[6 * i + a]) / dt - s.gravity[a]);
      expected[a] -= F * x0[3 * i + 2];
    }
  }
  /* the floor's contacts: force -f on the sphere (B; the plane is A) at the contact point; a pair of
   * spheres: f on A at point + meet, -f on B at point */
  const sg_contacts *c = sg_stepper_contacts(st);
  const double *lambda = sg_stepper_lambda(st);
  for (int k = 0; k < c->n; ++k) {
    const int floor = s.shape[c->c[k].a] == SG_SHAPE_PLANE;
    double frame[9];
    memcpy(frame, c->c[k].cp.normal, 3 * sizeof(double));
    sg_contact_frame(frame, frame + 3, frame + 6);
    for (int a = 0; a < 3; ++a) {
      const double f = (lambda[3 * k] * frame[a] + lambda[3 * k + 1] * frame[3 + a] + lambda[3 * k + 2] * frame[6 + a]) / dt;
      expected[a] += floor ? -f * c->c[k].cp.point[2] : f * c->c[k].meet[2];
    }
  }
  double worst = 0;
  for (int a = 0; a < 3; ++a) worst = fmax(worst, fabs(sum[a] - expected[a]));
  printf("pile of %d at 0.5 s: sum W[.][z] = (%.6f, %.6f, %.6f) N m, -sum F (x) x_z = (%.6f, %.6f, %.6f) N m: largest difference %.2e of M g r (%.4f N m); largest penetration %.2e r\n",
         n, sum[0], sum[1], sum[2], expected[0], expected[1], expected[2], worst / scale, scale, last.max_penetration / r);
  CHECK(n == 40);
  CHECK(fabs(expected[2]) > 0.5 * scale); /* the pile presses on the floor */
  CHECK(worst <= 1e-6 * scale);
  sg_stepper_destroy(&st);
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 1000);
  check_stack(solver);
  check_pile_identity(solver);
  sg_solver_destroy(&solver);
  return sim_finish();
}
