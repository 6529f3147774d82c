/* A single pendulum (`generate chain -n 1`: a bob of radius r on a massless rod of length L, a
 * revolute joint at a fixed pivot) released at theta0 = 0.05 rad with theta = 0.5, dt = 1/1000, run
 * through the stepper: its period is 2 pi sqrt(L / g) within 0.5% (the bound), and within
 * 1e-4 of the period of this physical pendulum at this amplitude, T0 sqrt(1 + I / (m L^2))
 * (1 + theta0^2 / 16), which the theta = 1/2 step (position Verlet, tree.h) reaches up to
 * (omega dt)^2 / 24, about 4e-7. The period is the mean spacing of the downward zero crossings of
 * the angle (each found by linear interpolation, off by O(dt^2)) over three periods. */
#include "sim_util.h"
#include "signorini/generate.h"
#include "signorini/tree.h"

typedef struct {
  const sg_tree *t;
  sim_crossings c;
} watch;

static void record(sg_stepper *st, const sg_scene *s, const sg_step_stats *stats, void *ctx) {
  (void)st;
  (void)s;
  watch *w = ctx;
  sim_crossings_add(&w->c, stats->time, w->t->q[0]);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  const double L = 1.0, g = 9.81, r = 0.01, theta0 = 0.05, dt = 1e-3;
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 1, 1));
  sg_chain c = {.n = 1, .length = L, .mass = 1.0, .radius = r, .theta0 = theta0, .pivot = {0, 0, 2},
               .limit = {-INFINITY, INFINITY}};
  int i = -1;
  CHECK_OK(sg_chain_add(&s, &c, &i));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 100);
  sg_step_params prm = sim_params(dt, 0.01);
  prm.theta = 0.5;
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  watch w = {sg_scene_tree_by_gid(&s, s.gid[i]), {.prev = theta0}};
  CHECK(sim_run(st, &s, 6800, record, &w) == 0);
  CHECK(w.c.n >= 4);
  const double T0 = 2 * M_PI * sqrt(L / g), Ibob = 0.4 * r * r;
  const double expected = T0 * sqrt(1 + Ibob / (L * L)) * (1 + theta0 * theta0 / 16);
  const double T = sim_crossings_period(&w.c);
  printf("period %.8f s over %d crossings: 2 pi sqrt(L/g) = %.8f (rel %.3g), this pendulum %.8f (rel %.3g)\n", T,
         w.c.n, T0, T / T0 - 1, expected, T / expected - 1);
  CHECK(fabs(T / T0 - 1) < 5e-3);
  CHECK(fabs(T / expected - 1) < 1e-4);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
