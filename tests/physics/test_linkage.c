/* A loop closure (tree.h, sg_closure): the parallelogram four-bar linkage of `generate linkage`
 * (cranks of L = 1 m from pivots 1 m apart, a coupler between their ends, a bob of m, r = 1 cm at
 * each link's end, revolute joints about y), released at theta0 = 0.1 rad with theta = 0.5,
 * dt = 1/1000, for three periods, with the loop closed both ways (crank 2's tip held at its pivot,
 * or crank 2 a second root whose bob is held at the coupler's end). The coupler of a parallelogram
 * translates, so with n_t bobs moving on circles of L and n_r links turning with the cranks the
 * linkage is a pendulum of T = 2 pi sqrt((n_t L^2 + n_r I / m) / (n_t g L)) (1 + theta0^2 / 16),
 * I = 0.4 m r^2 (world: n_t = 2, n_r = 2; links: 3, 2). Checked: that period within 1e-4 (as
 * physics/test_pendulum: the step's error is about (omega dt)^2 / 24 = 4e-7, the crossings' O(dt^2));
 * the closure's gap below 1e-6 m and the coupler's angle below 1e-6 rad at every step (left open,
 * the coupler turns by tenths of a radian within a period); energy within 1e-3 of its start (the
 * theta = 1/2 step conserves it to O(dt^2), the drift correction of the closure removes at most
 * erp of a gap of 1e-6). SAP's rows are compliant (paper 000 (29)): its gap bound is its own. */
#include "sim_util.h"
#include "signorini/generate.h"
#include "signorini/tree.h"

typedef struct {
  const sg_tree *t;
  sim_crossings c;
  double gap, coupler, e0, drift;
} watch;

static double energy(const sg_tree *t, const double g[3]) {
  double kin, pot;
  sg_tree_energy(t, t->q, t->v, g, &kin, &pot);
  return kin + pot;
}

static void record(sg_stepper *st, const sg_scene *s, const sg_step_stats *stats, void *ctx) {
  (void)st;
  watch *w = ctx;
  sim_crossings_add(&w->c, stats->time, w->t->q[0]);
  sg_tree_kin k;
  double xa[3], xb[3];
  sg_tree_kinematics(w->t, w->t->q, &k);
  sg_tree_closure_points(w->t, &k, 0, xa, xb);
  w->gap = fmax(w->gap, hypot(hypot(xa[0] - xb[0], xa[1] - xb[1]), xa[2] - xb[2]));
  w->coupler = fmax(w->coupler, fabs(w->t->q[0] + w->t->q[1]));
  w->drift = fmax(w->drift, fabs(energy(w->t, s->gravity) - w->e0));
}

static void swing(int close_at_world) {
  const double L = 1.0, g = 9.81, r = 0.01, theta0 = 0.1, dt = 1e-3;
  const char *name = sim_solver_name();
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 1, 1));
  sg_linkage lk = {.length = L, .span = 1.0, .mass = 1.0, .radius = r, .theta0 = theta0, .pivot = {0, 0, 2},
                   .close_at_world = close_at_world};
  int i = -1;
  CHECK_OK(sg_linkage_add(&s, &lk, &i));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_solver *solver = sim_solver(name, 1e-12, 1000);
  sg_step_params prm = sim_params(dt, 0.01);
  prm.theta = 0.5;
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  const sg_tree *t = sg_scene_tree_by_gid(&s, s.gid[i]);
  watch w = {.t = t, .c = {.prev = theta0}, .e0 = energy(t, s.gravity)};
  CHECK(sim_run(st, &s, 6800, record, &w) == 0);
  CHECK(w.c.n >= 4);
  const double n_t = close_at_world ? 2 : 3, n_r = 2, Ibob = 0.4 * r * r;
  const double expected = 2 * M_PI * sqrt((n_t * L * L + n_r * Ibob) / (n_t * g * L)) * (1 + theta0 * theta0 / 16);
  const double T = sim_crossings_period(&w.c);
  const double swing_energy = 2 * g * L * (1 - cos(theta0)); /* m = 1, the two or three bobs that rise: at least two */
  printf("%s, closed at the %s: period %.8f s (expected %.8f, rel %.2e), largest gap %.2e m, coupler angle %.2e rad, energy "
         "drift %.2e of the swing's\n", name, close_at_world ? "world" : "links", T, expected, T / expected - 1, w.gap, w.coupler,
         w.drift / swing_energy);
  CHECK(fabs(T / expected - 1) < 1e-4);
  const double gap_bound = sim_solver_is_compliant(name) ? 1e-4 : 1e-6;
  CHECK(w.gap < gap_bound);
  CHECK(w.coupler < gap_bound);
  CHECK(w.drift < 1e-3 * swing_energy);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  swing(1);
  swing(0);
  return sim_finish();
}
