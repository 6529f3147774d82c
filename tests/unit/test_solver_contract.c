/* The solver contract (solver.h), for every registered solver:
 *  - one stopping measure: after a converged solve, theta_d recomputed here from the returned
 *    (v, lambda), max_j ||A_j v_j - b_j - sum_i J_ij^T lambda_i||, is below -solver_tol, and the
 *    reported residuals are the ones the last monitor call saw;
 *  - a user convergence test decides: one that stops at iteration 3 gives exactly 3 iterations
 *    and its reason;
 *  - setup then solve gives the same bits as solve alone (setup is the part of solve that depends
 *    only on the problem), and a second solve of the same problem, or one after a reset, repeats them;
 *  - per-instance prefixes: two instances read -solver_tol and -solver_max_it under their own
 *    prefixes, and view names the prefix and the tolerance.
 * Problems: the random ones of tests/random_problem.h (frictionless and frictional contacts). */
#include "random_problem.h"
#include "sim_util.h"

#define TRIALS 12

/* CHECK with a message saying what was measured */
#define CHECKF(cond, ...)                                                              \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fprintf(stderr, "%s:%d: CHECK failed: ", __FILE__, __LINE__);                    \
      fprintf(stderr, __VA_ARGS__);                                                    \
      fputc('\n', stderr);                                                             \
      ++sg_test_failures;                                                              \
    }                                                                                  \
  } while (0)

typedef struct {
  int calls;
  double theta_p, theta_d;
} monitor_log;

static void log_monitor(const sg_solver *s, int it, double theta_p, double theta_d, const char *extra, void *ctx) {
  (void)s; (void)it; (void)extra;
  monitor_log *m = ctx;
  m->calls++;
  m->theta_p = theta_p;
  m->theta_d = theta_d;
}

static sg_converged_reason stop_at_three(const sg_solver *s, int it, double theta_p, double theta_d, void *ctx) {
  (void)s; (void)theta_p; (void)theta_d; (void)ctx;
  return it >= 3 ? SG_DIVERGED_ITS : SG_SOLVE_ITERATING;
}

/* max_j ||A_j v_j - b_j - sum_i J_ij^T lambda_i||, computed without any solver code. */
static double momentum_residual(const sg_problem *p, const double *v, const double *lambda) {
  int nv = sg_problem_n_v(p);
  double *r = calloc((size_t)nv + 1, sizeof(double)), worst = 0;
  for (int j = 0; j < p->n_sub; ++j) {
    int dof = p->sub_dof[j], o = p->sub_off[j];
    const double *A = p->A + p->sub_aoff[j];
    for (int a = 0; a < dof; ++a) {
      double acc = -p->b[o + a];
      for (int c = 0; c < dof; ++c) acc += A[a * dof + c] * v[o + c];
      r[o + a] = acc;
    }
  }
  for (int i = 0; i < p->n_con; ++i)
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      int j = p->pair_sub[q], dof = p->sub_dof[j], rows = sg_con_rows(p->kind[i]);
      double buf[SG_COMPACT_BLOCK];
      const double *J = sg_problem_pair_block(p, i, q, buf);
      for (int k = 0; k < rows; ++k)
        for (int c = 0; c < dof; ++c) r[p->sub_off[j] + c] -= J[k * dof + c] * lambda[p->con_row[i] + k];
    }
  for (int j = 0; j < p->n_sub; ++j) {
    double s2 = 0;
    for (int k = p->sub_off[j]; k < p->sub_off[j + 1]; ++k) s2 += r[k] * r[k];
    worst = fmax(worst, sqrt(s2));
  }
  free(r);
  return worst;
}

static sg_solver *make(const char *name, const char *prefix) {
  sg_solver *s = NULL;
  if (sg_solver_create(MPI_COMM_SELF, name, &s) || (prefix && sg_solver_set_options_prefix(s, prefix)) ||
      sg_solver_set_from_options(s)) {
    fprintf(stderr, "solver %s: %s\n", name, sg_error_message());
    exit(1);
  }
  return s;
}

typedef struct {
  double *v, *lambda;
  sg_solve_info info;
} answer;

static void solve(sg_solver *s, const sg_problem *p, int setup_first, answer *a) {
  int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  a->v = calloc((size_t)nv + 1, sizeof(double));
  a->lambda = calloc((size_t)nr + 1, sizeof(double));
  sg_err err = setup_first ? sg_solver_setup(s, p) : SG_OK;
  if (!err) err = sg_solver_solve(s, p, a->v, a->lambda, &a->info);
  if (err) {
    fprintf(stderr, "%s: %s\n", s->ops->name, sg_error_message());
    sg_error_clear();
    a->info.reason = SG_DIVERGED_NAN;
  }
}

static int same_bits(const answer *x, const answer *y, const sg_problem *p) {
  return !memcmp(x->v, y->v, (size_t)sg_problem_n_v(p) * sizeof(double)) &&
         !memcmp(x->lambda, y->lambda, (size_t)sg_problem_n_rows(p) * sizeof(double)) &&
         x->info.iterations == y->info.iterations;
}

static void free_answer(answer *a) { free(a->v); free(a->lambda); }

/* One solver on one problem: the shared measure, the monitor, the user test, setup + solve. */
static void check_solver(const char *name, const sg_problem *p, int trial) {
  const double tol = 1e-8;
  sg_solver *s = make(name, NULL);
  s->tol = tol;
  s->max_it = 100000;
  monitor_log m = {0};
  sg_solver_set_monitor(s, log_monitor, &m);
  answer a, b, c;
  solve(s, p, 0, &a);
  double td = momentum_residual(p, a.v, a.lambda);
  /* the recomputed residual may differ from the solver's by the round-off of A v - b - J^T lambda */
  double scale = 0;
  for (int k = 0; k < sg_problem_n_v(p); ++k) scale = fmax(scale, fabs(p->b[k]));
  CHECKF(a.info.reason > 0, "%s trial %d: %s after %d iterations", name, trial, sg_converged_reason_name(a.info.reason),
         a.info.iterations);
  CHECKF(a.info.residual_primal + a.info.residual_dual < tol, "%s trial %d: reported %g + %g", name, trial,
         a.info.residual_primal, a.info.residual_dual);
  CHECKF(td < tol + 1e-13 * scale, "%s trial %d: recomputed theta_d %.3e above -solver_tol %.0e", name, trial, td, tol);
  if (a.info.reason == SG_CONVERGED_TOL)
    CHECKF(m.calls > 0 && m.theta_p == a.info.residual_primal && m.theta_d == a.info.residual_dual,
           "%s trial %d: the monitor saw (%g, %g), the info says (%g, %g)", name, trial, m.theta_p, m.theta_d,
           a.info.residual_primal, a.info.residual_dual);
  solve(s, p, 1, &b);
  CHECKF(same_bits(&a, &b, p), "%s trial %d: setup + solve differs from solve", name, trial);
  solve(s, p, 0, &c);
  CHECKF(same_bits(&a, &c, p), "%s trial %d: a second solve of the same problem differs", name, trial);
  free_answer(&c);
  sg_solver_reset(s);
  solve(s, p, 0, &c);
  CHECKF(same_bits(&a, &c, p), "%s trial %d: a solve after a reset differs", name, trial);
  free_answer(&b);
  free_answer(&c);
  if (a.info.reason == SG_CONVERGED_TOL && a.info.iterations > 3) {
    sg_solver_set_convergence_test(s, stop_at_three, NULL);
    sg_solver_set_monitor(s, NULL, NULL);
    solve(s, p, 0, &b);
    CHECKF(b.info.iterations == 3 && b.info.reason == SG_DIVERGED_ITS && !b.info.converged,
           "%s trial %d: a user test stopping at 3 gave %d iterations (%s)", name, trial, b.info.iterations,
           sg_converged_reason_name(b.info.reason));
    free_answer(&b);
  }
  free_answer(&a);
  sg_solver_destroy(&s);
}

static void check_prefixes(void) {
  PetscOptionsSetValue(NULL, "-ref_solver_tol", "1e-3");
  PetscOptionsSetValue(NULL, "-ref_solver_max_it", "7");
  PetscOptionsSetValue(NULL, "-ref_subadmm_gamma", "3");
  PetscOptionsSetValue(NULL, "-solver_tol", "1e-9");
  sg_solver *plain = make("subadmm", NULL), *ref = make("subadmm", "ref_");
  CHECKF(plain->tol == 1e-9 && plain->max_it == 100, "unprefixed: tol %g, max_it %d", plain->tol, plain->max_it);
  CHECKF(ref->tol == 1e-3 && ref->max_it == 7, "prefix ref_: tol %g, max_it %d", ref->tol, ref->max_it);
  char text[4096] = "";
  FILE *f = tmpfile();
  sg_solver_view(ref, f);
  rewind(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  CHECKF(strstr(text, "options prefix: ref_") && strstr(text, "< 0.001") && strstr(text, "gamma 3"),
         "view of the prefixed instance:\n%s", text);
  sg_solver *bad = NULL;
  CHECK(sg_solver_create(MPI_COMM_SELF, "pgs", &bad) == SG_OK);
  CHECK(sg_solver_set_options_prefix(bad, "has space") != SG_OK);
  sg_error_clear();
  sg_solver_destroy(&bad);
  sg_solver_destroy(&plain);
  sg_solver_destroy(&ref);
  PetscOptionsClearValue(NULL, "-solver_tol");
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  /* SAP's regularization small enough that its answers are near the others' (not asserted here) */
  PetscOptionsSetValue(NULL, "-sap_ksp_type", "preonly");
  PetscOptionsSetValue(NULL, "-sap_pc_type", "cholesky");
  check_prefixes();
  char list[256];
  sg_solver_list(list, sizeof list);
  unsigned long long seed = 20261125ULL;
  for (int trial = 0; trial < TRIALS; ++trial) {
    sg_problem p = {0};
    random_problem_info ri;
    if (!random_problem_make(&seed, trial, &p, &ri)) { sg_problem_destroy(&p); continue; }
    char names[256];
    snprintf(names, sizeof names, "%s", list);
    for (char *tok = strtok(names, "|"); tok; tok = strtok(NULL, "|")) check_solver(tok, &p, trial);
    sg_problem_destroy(&p);
  }
  return sim_finish();
}
