/* Benchmark: a Newton solver (SAP by default) stepping a settled pile on P ranks — peak memory per
 * rank and time per step, to compare P = 1 and P = 2 (docs/PERFORMANCE.md, "SAP on each rank's part").
 *
 *   mpiexec -n P sap_ranks -load settled.h5 [-steps 10] [-warmup 2] [-bench_solver sap] [run options]
 *
 * settled.h5 is a scene file, e.g. the pile settled by `subadmm_pile -n N -save settled.h5`. Each rank
 * reads its block of the scene (as `signorini run` does), the stepper partitions it, -warmup steps
 * run untimed (the first partition, the first factorizations), then -steps steps are timed with the
 * stepper's own wall clock. Printed on rank 0: ms per step (mean and median), mean solver
 * iterations per step, the subsystems of the last step's problem on each rank (owned + ghosts:
 * what the solver was handed), and the peak resident memory (getrusage ru_maxrss) of the ranks,
 * max and mean, also above the baseline measured right after PetscInitialize. */
#include <math.h>
#include <petscsys.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"
#include "signorini/signorini.h"

#define MAX_STEPS 10000

typedef struct {
  long steps, warmup;
  char load[4096], solver[32];
  int do_load, solver_set;
} bench_options;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *x, int n) {
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static sg_err read_options(bench_options *o) {
  SG_CHECK(sg_opt_string("-load", "", "settled scene file to step (required)", o->load, sizeof o->load, &o->do_load));
  SG_CHECK(sg_opt_int("-steps", 10, 1, MAX_STEPS, "timed steps", &o->steps));
  SG_CHECK(sg_opt_int("-warmup", 2, 0, 1000000, "untimed steps first", &o->warmup));
  SG_CHECK(sg_opt_string("-bench_solver", "sap", "solver to step with", o->solver, sizeof o->solver, &o->solver_set));
  return SG_OK;
}

/* max and mean over ranks of x */
static void max_mean(MPI_Comm comm, double x, double *mx, double *mean) {
  int size;
  MPI_Comm_size(comm, &size);
  MPI_Allreduce(&x, mx, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&x, mean, 1, MPI_DOUBLE, MPI_SUM, comm);
  *mean /= size;
}

static sg_err run_steps(sg_stepper *st, const bench_options *o, double *t_step, double *mean_it) {
  sg_step_stats stats = {0};
  for (long k = 0; k < o->warmup; ++k) SG_CHECK(sg_stepper_step(st, &stats));
  long it = 0;
  for (long k = 0; k < o->steps; ++k) {
    SG_CHECK(sg_stepper_step(st, &stats));
    t_step[k] = stats.wall_seconds;
    it += stats.iterations;
  }
  *mean_it = (double)it / (double)o->steps;
  return SG_OK;
}

static sg_err bench(MPI_Comm comm, long rss_base_kb) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  bench_options o = {0};
  SG_CHECK(read_options(&o));
  if (sg_opt_help_requested()) {
    sg_opt_print_help(stdout, "sap_ranks -load settled.h5 [options]");
    return SG_OK;
  }
  if (!o.do_load || !o.load[0]) return sg_error_set(SG_ERR_ARG, "give -load settled.h5 (e.g. from subadmm_pile -save)");
  sg_scene s = {0};
  sg_step_params prm = {0};
  sg_solver *solver = NULL;
  sg_stepper *st = NULL;
  double *t_step = sg_calloc((size_t)o.steps, sizeof *t_step, "step times");
  if (!t_step) return SG_ERR_MEM;
  long long n_moving = 0;
  double mean_it = 0;
  sg_err err = sg_scene_read_block(comm, o.load, &s);
  if (!err) err = sg_step_params_from_options(comm, &s, &prm);
  if (!err) err = sg_solver_create(comm, o.solver, &solver);
  if (!err) err = sg_solver_set_from_options(solver);
  if (!err) err = sg_opt_check_unused();
  for (int i = 0; !err && i < s.n; ++i) n_moving += !s.fixed[i];
  if (!err) MPI_Allreduce(MPI_IN_PLACE, &n_moving, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (!err) err = sg_stepper_create(comm, &s, &prm, solver, &st);
  if (!err) err = run_steps(st, &o, t_step, &mean_it);
  if (!err) {
    double mean = 0, sub_max, sub_mean, rss_max, rss_mean, above_max, above_mean;
    for (long k = 0; k < o.steps; ++k) mean += t_step[k];
    mean /= (double)o.steps;
    long rss = bench_maxrss_kb();
    max_mean(comm, (double)sg_stepper_problem(st)->n_sub, &sub_max, &sub_mean);
    max_mean(comm, (double)rss / 1024.0, &rss_max, &rss_mean);
    max_mean(comm, (double)(rss - rss_base_kb) / 1024.0, &above_max, &above_mean);
    if (rank == 0) {
      printf("sap_ranks: solver %s, %lld moving bodies, %d rank(s), %s\n", o.solver, n_moving, size, o.load);
      printf("  time per step: %.1f ms mean, %.1f ms median over %ld steps (after %ld untimed); %.2f solver iterations per step\n",
             1e3 * mean, 1e3 * median(t_step, (int)o.steps), o.steps, o.warmup, mean_it);
      printf("  subsystems handed to the solver per rank (last step): max %.0f, mean %.0f\n", sub_max, sub_mean);
      printf("  peak memory per rank (ru_maxrss): max %.1f MB, mean %.1f MB; above the baseline after PetscInitialize: max %.1f MB, mean %.1f MB\n",
             rss_max, rss_mean, above_max, above_mean);
    }
  }
  free(t_step);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return err;
}

int main(int argc, char **argv) {
  if (PetscInitialize(&argc, &argv, NULL, NULL)) {
    fprintf(stderr, "sap_ranks: cannot initialize PETSc/MPI\n");
    return 1;
  }
  long rss_base = bench_maxrss_kb();
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  sg_err err = sg_error_collective(PETSC_COMM_WORLD, bench(PETSC_COMM_WORLD, rss_base));
  if (err) fprintf(stderr, "sap_ranks: error: %s\n", sg_error_message());
  PetscPopErrorHandler();
  PetscFinalize();
  return err ? 1 : 0;
}
