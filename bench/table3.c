/* Benchmark: the ablation of paper 002's Table III. SubADMM on one step of n quadrupeds standing on
 * the ground (`generate quadruped -n`, each robot one kinematic tree of 18 velocities) against
 *   no sub:  the same iteration with all the trees as one subsystem (-subadmm_split none: the whole
 *            system's block, dense, factorized and solved at once; sg_problem_merge_subsystems),
 *   no body: the trees as subsystems, each H_j factorized as a dense block rather than by (40)-(41)
 *            (-subadmm_factor dense).
 *
 *   table3 [-robots 8] [-settle_time 0.25] [-iterations 100] [-repeats 15] [step options]
 *
 * The robots settle on their feet with the stepper (default solver settings), one more step is
 * taken, and that step's problem is solved by each variant with a fixed iteration count (tol 0)
 * from a cold start (v = 0, lambda = 0), at one fixed penalty: the pseudo-density rule's for the
 * split problem, without the adaptive rule (43), whose test (42) takes the largest residual over
 * subsystems and so would take other decisions for one merged subsystem. The three iterations are
 * then one method: their answers agree to round-off, which the program checks and prints. Each
 * repeat times the three variants in turn (interleaved, so that the machine's noise falls on all of
 * them), the setup (the factorizations (40)-(41), and for no sub the merge) and the iterations
 * apart; medians over the repeats, wall and CPU time. Meant for one rank. */
#include <math.h>
#include <petscsys.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/generate.h"
#include "bench_util.h"
#include "signorini/signorini.h"

#define MAX_REPEATS 1000
enum { N_VARIANTS = 3 };
static const char *variant_name[N_VARIANTS] = {"subadmm", "no sub", "no body"};
static const char *variant_prefix[N_VARIANTS] = {"t3sub_", "t3nosub_", "t3nobody_"};

typedef struct {
  long robots, iterations, repeats;
  double settle_time;
} bench_options;

typedef struct {
  double setup[MAX_REPEATS], solve[MAX_REPEATS], cpu[MAX_REPEATS]; /* s: setup, iterations; CPU: both */
  double *v, *lambda, residual, theta;
} variant_run;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(const double *x, int n) {
  double c[MAX_REPEATS];
  memcpy(c, x, sizeof(double) * (size_t)n);
  qsort(c, (size_t)n, sizeof(double), cmp_double);
  return n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
}

static sg_err read_options(bench_options *o) {
  SG_CHECK(sg_opt_int("-robots", 8, 1, 10000, "quadrupeds, in a square grid", &o->robots));
  SG_CHECK(sg_opt_real("-settle_time", 0.25, 0.0, 1e3, "simulated time the robots stand before the measured step (s)", &o->settle_time));
  SG_CHECK(sg_opt_int("-iterations", 100, 1, 100000000, "SubADMM iterations per timed solve", &o->iterations));
  SG_CHECK(sg_opt_int("-repeats", 15, 1, MAX_REPEATS, "timed repeats of each variant (medians reported)", &o->repeats));
  return SG_OK;
}

/* Set an option of the database by name and value (the variants' solvers read theirs by prefix). */
static void set_option(const char *prefix, const char *name, const char *value) {
  char key[128];
  snprintf(key, sizeof key, "-%s%s", prefix, name);
  PetscOptionsSetValue(NULL, key, value);
}

/* The variants' solvers: SubADMM at the fixed penalty beta, no adaptation, with each ablation. */
static sg_err create_variants(MPI_Comm comm, double beta, const bench_options *o, sg_solver **sv) {
  char val[64];
  snprintf(val, sizeof val, "%.17g", beta);
  for (int k = 0; k < N_VARIANTS; ++k) {
    set_option(variant_prefix[k], "subadmm_beta", val);
    set_option(variant_prefix[k], "subadmm_adapt", "0");
  }
  set_option(variant_prefix[1], "subadmm_split", "none");
  set_option(variant_prefix[2], "subadmm_factor", "dense");
  for (int k = 0; k < N_VARIANTS; ++k) {
    SG_CHECK(sg_solver_create(comm, "subadmm", &sv[k]));
    SG_CHECK(sg_solver_set_options_prefix(sv[k], variant_prefix[k]));
    SG_CHECK(sg_solver_set_from_options(sv[k]));
    sv[k]->max_it = (int)o->iterations;
    sv[k]->tol = 0; /* never stops early */
  }
  return SG_OK;
}

/* The penalty of the pseudo-density rule for p (SubADMM's initial beta, adaptation off). */
static sg_err rule_penalty(MPI_Comm comm, const sg_problem *p, double *beta) {
  PetscOptionsSetValue(NULL, "-t3probe_subadmm_adapt", "0");
  sg_solver *probe;
  SG_CHECK(sg_solver_create(comm, "subadmm", &probe));
  SG_CHECK(sg_solver_set_options_prefix(probe, "t3probe_"));
  SG_CHECK(sg_solver_set_from_options(probe));
  probe->max_it = 1;
  probe->tol = 0;
  const int nv = sg_problem_n_v(p), nrow = sg_problem_n_rows(p);
  double *v = calloc((size_t)nv, sizeof *v), *l = calloc((size_t)nrow, sizeof *l);
  sg_solve_info info = {0};
  sg_err err = v && l ? sg_solver_solve(probe, p, v, l, &info) : SG_ERR_MEM;
  *beta = info.beta;
  free(v);
  free(l);
  sg_solver_destroy(&probe);
  return err;
}

/* One timed solve of variant r from the cold start: setup, then the fixed iterations. */
static sg_err timed_solve(sg_solver *sv, const sg_problem *p, const bench_options *o, variant_run *r, long k) {
  const int nv = sg_problem_n_v(p), nrow = sg_problem_n_rows(p);
  memset(r->v, 0, sizeof(double) * (size_t)nv);
  memset(r->lambda, 0, sizeof(double) * (size_t)nrow);
  sg_solve_info info = {0};
  const double c0 = bench_cpu_now(), t0 = bench_now();
  SG_CHECK(sg_solver_setup(sv, p));
  const double t1 = bench_now();
  SG_CHECK(sg_solver_solve(sv, p, r->v, r->lambda, &info));
  const double t2 = bench_now(), c2 = bench_cpu_now();
  if (info.iterations != o->iterations)
    return sg_error_set(SG_ERR_NUMERIC, "a timed solve took %d iterations, not %ld", info.iterations, o->iterations);
  r->theta = info.residual_primal + info.residual_dual;
  if (k < 0) return SG_OK; /* the warm-up */
  r->setup[k] = t1 - t0;
  r->solve[k] = t2 - t1;
  r->cpu[k] = c2 - c0;
  return SG_OK;
}

/* Largest |a - b| over n entries, relative to the largest |a|. */
static double rel_diff(const double *a, const double *b, int n) {
  double d = 0, m = 0;
  for (int k = 0; k < n; ++k) {
    d = fmax(d, fabs(a[k] - b[k]));
    m = fmax(m, fabs(a[k]));
  }
  return m > 0 ? d / m : d;
}

/* The step's contacts: between a robot and the ground, between two links of one robot; and the
 * active ones (a positive normal impulse in lambda, contacts first in the problem's rows). */
static void count_contacts(const sg_contacts *c, const sg_scene *s, const double *lambda, int *ground, int *self, int *active) {
  *ground = *self = *active = 0;
  for (int k = 0; k < c->n; ++k) {
    *ground += s->fixed[c->c[k].a] || s->fixed[c->c[k].b];
    *self += c->c[k].a == c->c[k].b;
    *active += lambda[3 * k] > 0;
  }
}

static void report(const sg_problem *p, const bench_options *o, const variant_run *run, double beta, double t_settle) {
  int n_contacts = 0;
  for (int i = 0; i < p->n_con; ++i) n_contacts += p->kind[i] == SG_CON_CONTACT;
  const int nv = sg_problem_n_v(p), nrow = sg_problem_n_rows(p), R = (int)o->repeats;
  const double it = (double)o->iterations;
  double total[N_VARIANTS], cpu[N_VARIANTS];
  printf("table3: %ld quadrupeds, %d unknowns, %d contacts and %d other rows (joint PD, limits), %ld iterations, %ld repeats\n",
         o->robots, nv, n_contacts, nrow - 3 * n_contacts, o->iterations, o->repeats);
  printf("  (settled %.3g s; fixed penalty %.4g, the pseudo-density rule's; cold start)\n", t_settle, beta);
  printf("  %-8s %10s %10s %10s %10s %12s %12s %10s %10s %12s\n", "variant", "step ms", "setup ms", "iter ms", "CPU ms",
         "ns/cont-it", "ns/dof-it", "vs SubADMM", "(CPU)", "residual");
  for (int k = 0; k < N_VARIANTS; ++k) {
    double sum[MAX_REPEATS];
    for (int r = 0; r < R; ++r) sum[r] = run[k].setup[r] + run[k].solve[r];
    total[k] = median(sum, R);
    cpu[k] = median(run[k].cpu, R);
    printf("  %-8s %10.4f %10.4f %10.4f %10.4f %12.1f %12.2f %9.2fx %9.2fx %12.3e\n", variant_name[k], 1e3 * total[k],
           1e3 * median(run[k].setup, R), 1e3 * median(run[k].solve, R), 1e3 * cpu[k], 1e9 * total[k] / (n_contacts * it),
           1e9 * total[k] / (nv * it), total[k] / total[0], cpu[k] / cpu[0], run[k].residual);
  }
  for (int k = 1; k < N_VARIANTS; ++k)
    printf("  %s against SubADMM: v differs by %.2e, lambda by %.2e (relative to the largest entry); theta_p + theta_d %.3e vs %.3e\n",
           variant_name[k], rel_diff(run[0].v, run[k].v, nv), rel_diff(run[0].lambda, run[k].lambda, nrow), run[k].theta,
           run[0].theta);
}

static sg_err settle(MPI_Comm comm, sg_scene *s, const bench_options *o, sg_stepper **st, sg_solver **solver) {
  char nbuf[32];
  snprintf(nbuf, sizeof nbuf, "%ld", o->robots);
  PetscOptionsSetValue(NULL, "-n", nbuf); /* sg_generate_quadruped reads -n with its own default */
  SG_CHECK(sg_scene_create(s, (int)o->robots + 2, 1));
  SG_CHECK(sg_generate_quadruped(s));
  sg_step_params prm = {0};
  SG_CHECK(sg_step_params_from_options(comm, s, &prm));
  SG_CHECK(sg_solver_create(comm, "subadmm", solver));
  SG_CHECK(sg_solver_set_from_options(*solver));
  SG_CHECK(sg_stepper_create(comm, s, &prm, *solver, st));
  sg_step_stats stats;
  const long steps = llround(o->settle_time / prm.dt) + 1; /* the last one is the measured step */
  for (long k = 0; k < steps; ++k) SG_CHECK(sg_stepper_step(*st, &stats));
  return SG_OK;
}

static sg_err bench(MPI_Comm comm) {
  bench_options o;
  SG_CHECK(read_options(&o));
  if (sg_opt_help_requested()) {
    sg_opt_print_help(stdout, "table3 [options]");
    return SG_OK;
  }
  sg_scene s = {0};
  sg_solver *solver = NULL, *sv[N_VARIANTS] = {NULL};
  sg_stepper *st = NULL;
  variant_run *run = calloc(N_VARIANTS, sizeof *run);
  if (!run) return SG_ERR_MEM;
  sg_err err = settle(comm, &s, &o, &st, &solver);
  const sg_problem *p = err ? NULL : sg_stepper_problem(st);
  double beta = 0;
  if (!err) err = rule_penalty(comm, p, &beta);
  if (!err) err = create_variants(comm, beta, &o, sv);
  if (!err) err = sg_opt_check_unused();
  for (int k = 0; k < N_VARIANTS && !err; ++k) {
    run[k].v = calloc((size_t)sg_problem_n_v(p), sizeof(double));
    run[k].lambda = calloc((size_t)sg_problem_n_rows(p) + 1, sizeof(double));
    if (!run[k].v || !run[k].lambda) err = SG_ERR_MEM;
  }
  for (long r = -1; r < o.repeats && !err; ++r) /* r = -1: an untimed warm-up of each */
    for (int k = 0; k < N_VARIANTS && !err; ++k) err = timed_solve(sv[k], p, &o, &run[k], r);
  for (int k = 0; k < N_VARIANTS && !err; ++k) err = sg_contact_residual(p, run[k].lambda, &run[k].residual);
  if (!err) report(p, &o, run, beta, s.state.time);
  if (!err) {
    int ground, self, active;
    count_contacts(sg_stepper_contacts(st), &s, run[0].lambda, &ground, &self, &active);
    printf("  contacts: %d robot-ground, %d between links of one robot, %d others; %d active (lambda_n > 0) at the answer\n",
           ground, self, sg_stepper_contacts(st)->n - ground - self, active);
  }
  for (int k = 0; k < N_VARIANTS; ++k) {
    free(run[k].v);
    free(run[k].lambda);
    sg_solver_destroy(&sv[k]);
  }
  free(run);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return err;
}

int main(int argc, char **argv) {
  if (PetscInitialize(&argc, &argv, NULL, NULL)) {
    fprintf(stderr, "table3: cannot initialize PETSc/MPI\n");
    return 1;
  }
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  sg_err err = sg_error_collective(PETSC_COMM_WORLD, bench(PETSC_COMM_WORLD));
  if (err) fprintf(stderr, "signorini: error: %s (table3)\n", sg_error_message());
  PetscPopErrorHandler();
  PetscFinalize();
  return err ? 1 : 0;
}
