/* Periodic boundaries along x and y (src/collision/periodic.c), a cell of 0.5 m x 0.5 m on a plane.
 * 1. A pile of 48 spheres that straddles the corner of the cell (its spheres on both sides of
 *    x = 0 and of y = 0) settles as the same pile shifted to the middle of the cell: the same
 *    positions modulo the period after 0.5 s, to 1e-9 m (the two differ by the round-off of
 *    positions written relative to another origin; the solver tolerance is 1e-10), the same
 *    number of contacts at every step, and no sphere falls through another.
 * 2. Two spheres that approach each other head-on through the boundary (v = +-1 m/s) collide as in
 *    the middle of the cell (velocities and gap to 1e-9): with theta = 0 the impact is inelastic,
 *    both stop (momentum 0 kept to 1e-12; SAP's compliant contacts leave 1e-4 m/s of rebound).
 * 3. A sphere that slides along x without friction for 1.1 s at 1 m/s crosses the boundary twice
 *    and ends at x0 + 1.1 m modulo 0.5 m (to 1e-9 m: each step's vhat is exact to the solver
 *    tolerance, 1e-10, over 1.1 s). */
#include "sim_util.h"

static const double cell = 0.5, r = 0.02, dt = 1.0 / 240.0;

static void make_cell(sg_scene *s, int n, double mu) {
  CHECK_OK(sg_scene_create(s, n + 1, 1));
  s->friction[0] = mu;
  s->period_hi[0] = s->period_hi[1] = cell;
  const double zero[3] = {0, 0, 0};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
}

static double wrap(double x) { return x - cell * floor(x / cell); }

static void add_sphere(sg_scene *s, double x, double y, double z, double vx) {
  const double size[3] = {r, 0, 0}, pos[3] = {wrap(x), wrap(y), z}, vel[6] = {vx, 0, 0, 0, 0, 0};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, 2500.0, pos, NULL, vel, NULL));
}

/* A loose 4 x 4 x 3 lattice of spheres centred at (cx, cy), jittered by a fixed sequence. */
static void make_pile(sg_scene *s, double cx, double cy) {
  make_cell(s, 48, 0.5);
  unsigned long long seed = 7;
  for (int k = 0; k < 48; ++k) {
    const double jx = sg_test_rand(&seed, -0.1, 0.1) * r, jy = sg_test_rand(&seed, -0.1, 0.1) * r;
    add_sphere(s, cx + (k % 4 - 1.5) * 2.2 * r + jx, cy + (k / 4 % 4 - 1.5) * 2.2 * r + jy, r * (1.05 + 2.2 * (k / 16)), 0);
  }
  CHECK_OK(sg_scene_update_mass(s));
  CHECK_OK(sg_scene_validate(s, "test"));
}

static void check_straddling_pile(sg_solver *solver) {
  sg_scene a, b;
  make_pile(&a, 0.0, 0.0);          /* straddles the corner */
  make_pile(&b, 0.5 * cell, 0.5 * cell); /* the middle */
  int straddles = 0;
  for (int i = 1; i < a.n; ++i) straddles |= (a.state.pos[3 * i] > 0.8 * cell) << 0 | (a.state.pos[3 * i] < 0.2 * cell) << 1;
  CHECK(straddles == 3);
  sg_step_params prm = sim_params(dt, 0.2 * r);
  sg_stepper *sa, *sb;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &a, &prm, solver, &sa));
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &b, &prm, solver, &sb));
  int same_contacts = 1;
  for (int step = 0; step < 120; ++step) {
    sg_step_stats ta, tb;
    CHECK_OK(sg_stepper_step(sa, &ta));
    CHECK_OK(sg_stepper_step(sb, &tb));
    same_contacts &= ta.n_contacts == tb.n_contacts;
  }
  double worst = 0, lowest = INFINITY;
  for (int i = 1; i < a.n; ++i) {
    for (int d = 0; d < 2; ++d) {
      double diff = wrap(a.state.pos[3 * i + d] + 0.5 * cell) - b.state.pos[3 * i + d];
      worst = fmax(worst, fmin(fabs(diff), cell - fabs(diff)));
    }
    worst = fmax(worst, fabs(a.state.pos[3 * i + 2] - b.state.pos[3 * i + 2]));
    lowest = fmin(lowest, a.state.pos[3 * i + 2]);
  }
  printf("straddling pile vs the same pile in the middle after 0.5 s: largest position difference %.2e m, same contact count every step: %d, lowest centre %.4f m (r = %.3f)\n",
         worst, same_contacts, lowest, r);
  CHECK(worst <= 1e-9);
  CHECK(same_contacts);
  CHECK(lowest > 0.9 * r);
  sg_stepper_destroy(&sa);
  sg_stepper_destroy(&sb);
  sg_scene_destroy(&a);
  sg_scene_destroy(&b);
}

/* Two spheres 4 r apart (centre to centre) approaching at +-v: through the boundary when
 * `across`, else in the middle. Returns their final velocities and gap. */
static void head_on(sg_solver *solver, int across, double *v1, double *v2, double *gap) {
  sg_scene s;
  make_cell(&s, 2, 0.0);
  const double c = across ? 0.0 : 0.5 * cell;
  add_sphere(&s, c - 2 * r, 0.25, r, 1.0);
  add_sphere(&s, c + 2 * r, 0.25, r, -1.0);
  CHECK_OK(sg_scene_update_mass(&s));
  sg_step_params prm = sim_params(dt, 0.2 * r);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK(sim_run(st, &s, 24, NULL, NULL) == 0);
  *v1 = s.state.vel[6];
  *v2 = s.state.vel[12];
  double d = fabs(s.state.pos[3] - s.state.pos[6]);
  *gap = fmin(d, cell - d) - 2 * r;
  sg_stepper_destroy(&st);
  sg_scene_destroy(&s);
}

static void check_head_on(sg_solver *solver) {
  double v1, v2, gap, w1, w2, gap_mid;
  head_on(solver, 1, &v1, &v2, &gap);
  head_on(solver, 0, &w1, &w2, &gap_mid);
  printf("head-on through the boundary: v = %.3e, %.3e m/s, gap %.3e m; in the middle: v = %.3e, %.3e m/s, gap %.3e m\n", v1, v2,
         gap, w1, w2, gap_mid);
  const double stopped = sim_solver_is_compliant(sim_solver_name()) ? 1e-3 : 1e-6; /* SAP's contacts are stiff springs */
  CHECK(fabs(v1 + v2) <= 1e-12 && fabs(v1) <= stopped && fabs(v1 - w1) <= 1e-9);
  CHECK(fabs(gap) <= 0.2 * r && fabs(gap - gap_mid) <= 1e-9);
}

static void check_crossing(sg_solver *solver) {
  sg_scene s;
  make_cell(&s, 1, 0.0);
  add_sphere(&s, 0.1, 0.25, r, 1.0);
  CHECK_OK(sg_scene_update_mass(&s));
  sg_step_params prm = sim_params(dt, 0.2 * r);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK(sim_run(st, &s, 264, NULL, NULL) == 0); /* 1.1 s */
  const double expected = wrap(0.1 + 264 * dt * 1.0);
  printf("sliding sphere after 1.1 s: x = %.12f m (expected %.12f m), z = %.12f m\n", s.state.pos[3], expected, s.state.pos[5]);
  CHECK(fabs(s.state.pos[3] - expected) <= 1e-9 && s.state.pos[3] >= 0 && s.state.pos[3] < cell);
  sg_stepper_destroy(&st);
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 1000);
  check_crossing(solver);
  check_head_on(solver);
  check_straddling_pile(solver);
  sg_solver_destroy(&solver);
  return sim_finish();
}
