/* A link geom resting on the ground (issue 16): a one-link pendulum (a 1 kg bob at 1 m on a massless
 * rod, revolute about y) carries a capsule of radius 5 cm from its joint to its bob (tree.h,
 * sg_link_geom), and its pivot is at the height where, leaning 60 degrees from the vertical, the
 * capsule's tip rests on a frictionless plane. The contact's point is directly below the bob, so
 * its normal force has the lever of the bob's weight about the pivot: the torque balance gives a
 * normal impulse of exactly m g dt per step, and with theta = 0 a step from rest at rest ends at
 * rest (A vhat = b + J^T lambda with vhat = v_k = 0; the contact's rows come through the tree, paper
 * 002 (29)-(31)). Checked to 1e-6 relative with the solver tolerance at 1e-12 (as
 * physics/test_sphere_rest), the penetration below 1e-4 of the radius, and the angle after 1 s to
 * 1e-9 rad plus what the tip sank (pen / (L sin phi)). Without friction the impulse is unique: the
 * joint has one velocity, and a tangential row would be a second row on it, leaving the split
 * between normal and friction force free. A compliant solver (SAP) first sinks into its regularized
 * contact: its impulse is checked after 0.1 s. */
#include "sim_util.h"
#include "signorini/generate.h"
#include "signorini/tree.h"

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  const double L = 1.0, r = 0.05, m = 1.0, g = 9.81, dt = 1.0 / 240.0, phi = M_PI / 3, zero[3] = {0, 0, 0};
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  s.friction[0] = 0.0;
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, SG_FIXED, 0.0, zero, NULL, NULL, NULL));
  sg_chain c = {.n = 1, .length = L, .mass = m, .radius = r, .theta0 = phi, .pivot = {0, 0, r + L * cos(phi)},
                .limit = {-INFINITY, INFINITY}, .geom = SG_CHAIN_GEOM_CAPSULE};
  int i;
  CHECK_OK(sg_chain_add(&s, &c, &i));
  s.next_gid = s.n;
  const sg_tree *t = sg_scene_tree_by_gid(&s, s.gid[i]);
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-12, 1000);
  sg_step_params prm = sim_params(dt, 0.02);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  double worst_rel = 0, worst_pen = 0;
  const int settle = sim_solver_is_compliant(sim_solver_name()) ? 24 : 0;
  for (int k = 0; k < 240; ++k) {
    sg_step_stats stats;
    CHECK_OK(sg_stepper_step(st, &stats));
    const sg_contacts *cs = sg_stepper_contacts(st);
    CHECK(cs->n == 1 && cs->c[0].link_b == 0 && cs->c[0].b == i);
    if (cs->n != 1) break;
    const double ln = sg_stepper_lambda(st)[0];
    if (k >= settle) worst_rel = fmax(worst_rel, fabs(ln - m * g * dt) / (m * g * dt));
    worst_pen = fmax(worst_pen, -cs->c[0].cp.gap);
  }
  printf("normal impulse error %.3e (relative to m g dt), angle %.12f rad (leaning at %.12f), penetration %.3e r\n", worst_rel,
         t->q[0], phi, worst_pen / r);
  CHECK(worst_rel <= 1e-6);
  CHECK(worst_pen <= 1e-4 * r);
  /* no creep: the angle moves only as far as the tip sinks (pen / (L sin phi), a compliant solver's) */
  CHECK_NEAR(t->q[0], phi, 1e-9 + worst_pen / (L * sin(phi)));
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
