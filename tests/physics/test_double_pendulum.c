/* A double pendulum (`generate chain -n 2`: two bobs on massless rods of 1 m, revolute joints)
 * released straight at 90 degrees from the vertical, theta = 0.5, dt = 1/1000, 10 s through the
 * stepper, a chaotic motion with fast swings of the lower link: the energy stays within 1% of the
 * energy available to the motion (E(0) minus the energy at rest hanging straight down), the issue's
 * bound. Without forces beyond gravity the step's only error is discretization: position Verlet
 * (tree.h) keeps the energy error bounded, O((omega dt)^2), with no drift, where forces taken at the
 * start of the step alone (first order) drift past the bound over this run. */
#include "sim_util.h"
#include "signorini/generate.h"
#include "signorini/tree.h"

typedef struct {
  const sg_tree *t;
  double g[3], e0, worst;
} watch;

static double energy(const watch *w) {
  double kin, pot;
  sg_tree_energy(w->t, w->t->q, w->t->v, w->g, &kin, &pot);
  return kin + pot;
}

static void record(sg_stepper *st, const sg_scene *s, const sg_step_stats *stats, void *ctx) {
  (void)st;
  (void)s;
  (void)stats;
  watch *w = ctx;
  w->worst = fmax(w->worst, fabs(energy(w) - w->e0));
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  const double L = 1.0, m = 1.0, dt = 1e-3, pivot_z = 3.0;
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 1, 1));
  sg_chain c = {.n = 2, .length = L, .mass = m, .radius = 0.02, .theta0 = M_PI / 2, .pivot = {0, 0, pivot_z},
                .limit = {-INFINITY, INFINITY}};
  int i = -1;
  CHECK_OK(sg_chain_add(&s, &c, &i));
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 100);
  sg_step_params prm = sim_params(dt, 0.01);
  prm.theta = 0.5;
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  watch w = {sg_scene_tree_by_gid(&s, s.gid[i]), {s.gravity[0], s.gravity[1], s.gravity[2]}, 0, 0};
  w.e0 = energy(&w);
  const double e_rest = m * 9.81 * ((pivot_z - L) + (pivot_z - 2 * L)); /* both bobs straight below the pivot */
  CHECK(sim_run(st, &s, 10000, record, &w) == 0);
  const double available = w.e0 - e_rest;
  printf("double pendulum, 10 s: E(0) - E_rest = %.6f J, max |E - E(0)| = %.3g J (%.3g%%); angles at the end %.4f, %.4f rad\n",
         available, w.worst, 100 * w.worst / available, w.t->q[0], w.t->q[1]);
  CHECK(w.worst <= 0.01 * available);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
