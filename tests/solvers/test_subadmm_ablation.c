/* The ablation variants of SubADMM (paper 002 Table III, bench/table3.c) are the same iteration:
 * on the step of two quadrupeds of `generate quadruped` standing on the ground beside a resting
 * sphere (trees with dense Jacobian blocks and joint rows, a rigid body with compact contacts),
 * 60 iterations at one fixed penalty (no adaptation: its test (42) takes a largest residual over
 * subsystems) with the subsystem split (-subadmm_split subsystems), without it (none: the problem
 * merged into one subsystem, sg_problem_merge_subsystems, a dense block over all unknowns) and
 * with the trees factorized densely (-subadmm_factor dense) give the same vhat and lambda within
 * 1e-12 of their largest entries: the factorizations round differently (a few ulps per solve,
 * not amplified while no projection switches regime), nothing else differs. The merged problem
 * keeps the unknowns' and rows' layout, with each constraint's block the sum of its pairs' blocks. */
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/generate.h"
#include "sim_util.h"

static double rel_diff(const double *x, const double *y, int n) {
  double d = 0, m = 0;
  for (int k = 0; k < n; ++k) {
    d = fmax(d, fabs(x[k] - y[k]));
    m = fmax(m, fabs(y[k]));
  }
  return d / m;
}

/* SubADMM with option name=value under a prefix of its own, at penalty 2, 60 iterations from rest. */
static void solve(const sg_problem *p, const char *prefix, const char *name, const char *value, double *v, double *lambda) {
  char key[96];
  snprintf(key, sizeof key, "-%ssubadmm_beta", prefix);
  PetscOptionsSetValue(NULL, key, "2");
  snprintf(key, sizeof key, "-%ssubadmm_adapt", prefix);
  PetscOptionsSetValue(NULL, key, "0");
  snprintf(key, sizeof key, "-%s%s", prefix, name);
  PetscOptionsSetValue(NULL, key, value);
  sg_solver *s;
  CHECK_OK(sg_solver_create(PETSC_COMM_WORLD, "subadmm", &s));
  CHECK_OK(sg_solver_set_options_prefix(s, prefix));
  CHECK_OK(sg_solver_set_from_options(s));
  s->tol = 0;
  s->max_it = 60;
  memset(v, 0, sizeof(double) * (size_t)sg_problem_n_v(p));
  memset(lambda, 0, sizeof(double) * (size_t)sg_problem_n_rows(p));
  sg_solve_info info;
  CHECK_OK(sg_solver_solve(s, p, v, lambda, &info));
  CHECK(info.iterations == 60);
  sg_solver_destroy(&s);
}

/* The merged problem: one subsystem of all unknowns, every constraint one block over them. */
static void check_merged(const sg_problem *p) {
  sg_problem one;
  memset(&one, 0, sizeof one);
  CHECK_OK(sg_problem_merge_subsystems(p, &one));
  const int n = sg_problem_n_v(p);
  CHECK(one.n_sub == 1 && one.sub_dof[0] == n && one.n_con == p->n_con);
  CHECK(sg_problem_n_rows(&one) == sg_problem_n_rows(p));
  double *x = malloc(sizeof(double) * (size_t)n), *y1 = malloc(sizeof(double) * (size_t)sg_problem_n_rows(p)),
         *y2 = malloc(sizeof(double) * (size_t)sg_problem_n_rows(p));
  for (int k = 0; k < n; ++k) x[k] = sin(1.0 + k);
  sg_problem_apply_J(p, x, y1);
  sg_problem_apply_J(&one, x, y2);
  printf("merged problem: %d unknowns, %d constraints, J x differs by %.2e\n", n, one.n_con, rel_diff(y2, y1, sg_problem_n_rows(p)));
  CHECK(rel_diff(y2, y1, sg_problem_n_rows(p)) <= 1e-15);
  free(x); free(y1); free(y2);
  sg_problem_destroy(&one);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  sim_ground_scene(&s, 4, 0.8);
  sg_quadruped q = {.kp = 400, .kd = 8, .crouch = 0.7};
  for (int k = 0; k < 2; ++k) {
    q.pos[0] = 1.2 * k;
    CHECK_OK(sg_quadruped_add(&s, &q, NULL));
  }
  const double r[3] = {0.1, 0, 0}, at[3] = {0.6, 1.0, 0.1};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, r, 0, 0, 1000.0, at, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  s.next_gid = s.n;
  sg_step_params prm = sim_params(1.0 / 240.0, 0.01);
  sg_solver *solver = sim_solver("subadmm", 1e-8, 1000);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK(sim_run(st, &s, 25, NULL, NULL) == 0);
  const sg_problem *p = sg_stepper_problem(st);
  const int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  CHECK(p->n_sub == 3 && nv == 2 * 18 + 6);
  check_merged(p);
  double *v[3], *l[3];
  for (int k = 0; k < 3; ++k) {
    v[k] = malloc(sizeof(double) * (size_t)nv);
    l[k] = malloc(sizeof(double) * (size_t)nr);
  }
  solve(p, "a_", "subadmm_split", "subsystems", v[0], l[0]);
  solve(p, "b_", "subadmm_split", "none", v[1], l[1]);
  solve(p, "c_", "subadmm_factor", "dense", v[2], l[2]);
  for (int k = 1; k < 3; ++k) {
    const double dv = rel_diff(v[k], v[0], nv), dl = rel_diff(l[k], l[0], nr);
    printf("%s: max |dv| / max |v| = %.2e, max |dlambda| / max |lambda| = %.2e (%d constraints)\n",
           k == 1 ? "no subsystem split" : "trees factorized densely", dv, dl, p->n_con);
    CHECK(dv <= 1e-12 && dl <= 1e-12);
  }
  for (int k = 0; k < 3; ++k) { free(v[k]); free(l[k]); }
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
