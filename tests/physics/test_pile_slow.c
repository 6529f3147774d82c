/* Pile of 1,000 spheres poured into a box (the `generate pile` scene), 3 s at dt = 1/240:
 *  - the kinetic energy ends below 1e-3 of its peak (the pile has come to rest),
 *  - penetration below 1% of the radius, and no sphere outside the box;
 * then, on one step of the settled pile, the paper-002 contact residual of the solver (SubADMM unless
 * SG_TEST_SOLVER says otherwise; tests/CMakeLists.txt runs it with every solver) falls as the
 * iteration budget grows (10, 50, 250 iterations from the same warm start; a solver that stops
 * itself within a budget must give the same residual under the larger ones). With this pile's
 * mu = 0.3 SubADMM does not reach theta_p + theta_d < 1e-8 (it stalls near 1e-6..1e-5, as the
 * paper reports for dish piling); full convergence on a settled frictional pile (mu = 0.1) is
 * asserted in tests/solvers/test_subadmm_pile_slow.c, on the stack in test_stack.c. */
#include "sim_util.h"
#include "signorini/generate.h"

typedef struct { double ke_peak, ke_last, pen_last; long iters, steps; } pile_stats;

static void record(sg_stepper *st, const sg_scene *s, const sg_step_stats *stats, void *ctx) {
  (void)st;
  pile_stats *ps = ctx;
  double ke = sg_scene_kinetic_energy(s);
  ps->ke_peak = fmax(ps->ke_peak, ke);
  ps->ke_last = ke;
  ps->pen_last = stats->max_penetration;
  ps->iters += stats->iterations;
  ps->steps++;
  if (ps->steps % 120 == 0)
    printf("  t = %.2f s: kinetic energy %.3e J, %d contacts, %d iterations, max penetration %.2e m\n", stats->time, ke,
           stats->n_contacts, stats->iterations, stats->max_penetration);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  PetscOptionsSetValue(NULL, "-n", "1000");
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 1010, 1));
  CHECK_OK(sg_generate_pile(&s));
  CHECK_OK(sg_scene_update_mass(&s));
  double r = 0, half = 0;
  for (int i = 0; i < s.n; ++i) {
    if (s.shape[i] == SG_SHAPE_SPHERE) r = s.size[3 * i];
    if (s.shape[i] == SG_SHAPE_BOX && s.state.pos[3 * i] > half) half = s.state.pos[3 * i] - s.size[3 * i]; /* inner face of +x wall */
  }
  const char *name = sim_solver_name();
  sg_solver *solver = sim_pile_solver(name);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.2 * r);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  pile_stats ps = {0};
  CHECK(sim_run(st, &s, 720, record, &ps) == 0);
  int outside = 0;
  for (int i = 0; i < s.n; ++i) {
    if (s.fixed[i]) continue;
    const double *x = s.state.pos + 3 * i;
    if (fabs(x[0]) > half || fabs(x[1]) > half || x[2] < 0) outside++;
  }
  printf("kinetic energy %.3e of peak %.3e (ratio %.2e); penetration %.3e r; %d outside; mean iterations %.1f\n",
         ps.ke_last, ps.ke_peak, ps.ke_last / ps.ke_peak, ps.pen_last / r, outside, (double)ps.iters / ps.steps);
  CHECK(ps.ke_last < 1e-3 * ps.ke_peak);
  CHECK(ps.pen_last < 0.01 * r);
  CHECK(outside == 0);

  /* one more step of the settled pile; then its problem again from the same warm start with
   * growing iteration budgets: the contact residual falls */
  sg_step_stats stats;
  CHECK_OK(sg_stepper_step(st, &stats));
  const sg_problem *p = sg_stepper_problem(st);
  int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  double *v = malloc(sizeof(double) * nv), *lam = malloc(sizeof(double) * nr), prev = INFINITY;
  int prev_stopped = 0;
  const int budgets[3] = {10, 50, 250};
  solver->tol = 0;
  for (int b = 0; b < 3; ++b) {
    memset(v, 0, sizeof(double) * nv);
    memset(lam, 0, sizeof(double) * nr);
    solver->max_it = budgets[b];
    sg_solve_info info;
    CHECK_OK(sg_solver_solve(solver, p, v, lam, &info));
    double res;
    CHECK_OK(sg_contact_residual(p, lam, &res));
    printf("  %4d iterations: contact residual %.3e, theta_p + theta_d %.3e%s\n", info.iterations, res,
           info.residual_primal + info.residual_dual, info.iterations < budgets[b] ? " (stopped itself)" : "");
    /* a solver that stopped itself within the smaller budget (SAP at its round-off floor after ~20
     * Newton steps; the tolerance is 0) stops at the same iterate under a larger one: the residual
     * may then stay, bit for bit, but not grow. CANAL is left out of this check: it does not
     * converge on this pile, and with its inner loops capped its residual wanders between its AL
     * loops (its tests of convergence are the stacks and the FCLIB problems; docs/SOLVERS.md) */
    if (strcmp(name, "canal") != 0) CHECK(res < prev || (prev_stopped && res <= prev));
    prev = res;
    prev_stopped = info.iterations < budgets[b];
  }
  free(v);
  free(lam);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
