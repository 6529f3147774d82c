/* Benchmark: every registered solver on FCLIB global problems, residual against wall time (in the
 * manner of paper 002 Fig. 7 and of Acary, Bremond, Huber 2018, who compare at 1e-4 and 1e-8).
 *
 *   solvers [PATH ...] [-solvers subadmm,pgs,canal,sap,nsn] [-csv curves.csv] [-budget 20]
 *           [-growth 2] [-cap 1048576] [-target 1e-10] [solver options, e.g. -sap_beta 1e-6]
 *
 * PATH: a folder (every *.hdf5 in it; default ../shared/fclib beside the source tree) or a
 * problem file (for example one written by `signorini run -fclib_dump_step K`); local problems
 * are listed as skipped. For each (problem, solver) the solver is run from a zero start (v = 0,
 * lambda = 0) with tolerance 0 and an iteration cap of 1, then growing geometrically (-growth),
 * each run a fresh solve timed on its own, setup included: the point (time, residual) is what a
 * user asking for that many iterations gets. The residual is Siconos's nat + dyn
 * (sg_fclib_residuals, with the solver's own v). A curve stops at -target, when the solver stops
 * by itself before its cap, at -cap, or when the next run (predicted: last time x growth) would
 * take the curve's runs beyond -budget seconds. Runs under 10 ms are repeated (5 times, the
 * minimum kept) and the first solve of a curve is an untimed warm-up (one-off setup costs). A
 * solver that refuses a problem or fails (an error code, or non-finite numbers) is reported as
 * such and the benchmark goes on; a solver that crashes the process is not caught.
 * Table on stdout (times to 1e-4 and 1e-8: the fastest run reaching them, so they are accurate to
 * one growth step in iterations); -csv writes every point, for scripts/plot_solvers.py.
 * Serial: run it on one rank. */
#include <dirent.h>
#include <math.h>
#include <petscsys.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "signorini/fclib.h"
#include "signorini/options.h"
#include "bench_util.h"
#include "signorini/signorini.h"

#ifndef SG_SOURCE_DIR
#define SG_SOURCE_DIR "."
#endif
#define MAX_SOLVERS 16
#define MAX_PROBLEMS 256

typedef struct {
  char solvers[256], csv[4096];
  double budget, growth, target;
  long cap;
  int csv_set;
} bench_options;

typedef struct {
  int status_ok;
  char status[256];   /* "ok", "stopped (converged)", or why it failed */
  double t4, t8;      /* first time at or below 1e-4 / 1e-8 (-1: never) */
  double final_res;
  int final_it, points;
} curve_summary;

static sg_err read_options(bench_options *o) {
  char names[256];
  sg_solver_list(names, sizeof names); /* "a|b|c" */
  for (char *c = names; *c; ++c) if (*c == '|') *c = ',';
  SG_CHECK(sg_opt_string("-solvers", names, "comma-separated solvers to run", o->solvers, sizeof o->solvers, NULL));
  SG_CHECK(sg_opt_string("-csv", "", "write every (problem, solver, cap) point here", o->csv, sizeof o->csv, &o->csv_set));
  SG_CHECK(sg_opt_real("-budget", 20.0, 0.0, 1e9, "seconds of solving per (problem, solver) curve", &o->budget));
  SG_CHECK(sg_opt_real("-growth", 2.0, 1.01, 100.0, "factor between successive iteration caps", &o->growth));
  SG_CHECK(sg_opt_real("-target", 1e-10, 0.0, 1.0, "stop a curve once nat + dyn is at or below this", &o->target));
  SG_CHECK(sg_opt_int("-cap", 1L << 20, 1, 1000000000, "largest iteration cap", &o->cap));
  return SG_OK;
}

static int has_suffix(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Append PATH (a file, or the *.hdf5 of a folder in name order) to the list. */
static void collect(const char *path, char **list, int *n) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "solvers: %s: no such file or folder (skipped)\n", path);
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    if (*n < MAX_PROBLEMS) list[(*n)++] = strdup(path);
    return;
  }
  DIR *d = opendir(path);
  int first = *n;
  for (struct dirent *e; d && (e = readdir(d));)
    if (has_suffix(e->d_name, ".hdf5") && *n < MAX_PROBLEMS) {
      size_t len = strlen(path) + strlen(e->d_name) + 2;
      list[*n] = malloc(len);
      snprintf(list[*n], len, "%s/%s", path, e->d_name);
      ++*n;
    }
  if (d) closedir(d);
  qsort(list + first, (size_t)(*n - first), sizeof *list, cmp_str);
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* The error message, without commas and newlines (it goes into a CSV field). */
static void take_error(char *buf, size_t len, const char *prefix) {
  snprintf(buf, len, "%s%s", prefix, sg_error_message());
  for (char *c = buf; *c; ++c) if (*c == ',' || *c == '\n') *c = ';';
  sg_error_clear();
}

static void csv_row(FILE *csv, const char *problem, const char *solver, long cap, int it, double t, double nat,
                    double dyn, const char *status) {
  if (!csv) return;
  fprintf(csv, "%s,%s,%ld,%d,%.6e,%.6e,%.6e,%.6e,%s\n", problem, solver, cap, it, t, nat, dyn, nat + dyn, status);
}

/* One curve: solver `name` on the problem (p, map, fp), caps growing until a stop rule holds. */
static void run_curve(const bench_options *o, const char *problem, const char *name, const sg_fclib_problem *fp,
                      const sg_problem *p, const sg_fclib_map *map, FILE *csv, curve_summary *cs) {
  memset(cs, 0, sizeof *cs);
  cs->t4 = cs->t8 = -1;
  cs->final_res = NAN;
  sg_solver *s = NULL;
  if (sg_solver_create(MPI_COMM_SELF, name, &s) || sg_solver_set_from_options(s)) {
    take_error(cs->status, sizeof cs->status, "cannot create: ");
    csv_row(csv, problem, name, 0, 0, NAN, NAN, NAN, cs->status);
    sg_solver_destroy(&s);
    return;
  }
  int n = fp->n, m = fp->m;
  double *v = calloc((size_t)n + 1, sizeof *v), *vf = calloc((size_t)n + 1, sizeof *vf);
  double *lam = calloc((size_t)m + 1, sizeof *lam);
  double spent = 0;
  snprintf(cs->status, sizeof cs->status, "cap or budget reached");
  cs->status_ok = 1;
  for (long cap = 1;; cap = (long)fmax((double)cap + 1, ceil((double)cap * o->growth))) {
    if (cap > o->cap) { snprintf(cs->status, sizeof cs->status, "cap %ld reached", o->cap); break; }
    s->max_it = (int)cap;
    s->tol = 0;
    sg_solve_info info = {0};
    double t = INFINITY;
    sg_err err = SG_OK;
    for (int rep = 0; !err && rep < (cap == 1 ? 2 : 1) + 4 * (t < 0.01); ++rep) {
      /* a fresh solve from zero each time; short runs are repeated (minimum kept) against timer
       * noise, and the very first one (cap 1) is a warm-up for one-off costs (PETSc's first KSP) */
      memset(v, 0, sizeof(double) * (size_t)n);
      memset(lam, 0, sizeof(double) * (size_t)m);
      double t0 = bench_now();
      err = sg_solver_solve(s, p, v, lam, &info);
      double dt = bench_now() - t0;
      spent += dt;
      if (!(cap == 1 && rep == 0)) t = fmin(t, dt);
    }
    if (!isfinite(t)) t = 0;
    if (err) {
      take_error(cs->status, sizeof cs->status, "failed: ");
      cs->status_ok = 0;
      csv_row(csv, problem, name, cap, info.iterations, t, NAN, NAN, cs->status);
      break;
    }
    double nat = NAN, dyn = NAN;
    sg_fclib_map_to_fclib(map, v, vf);
    sg_fclib_residuals(fp, vf, lam, &nat, &dyn, NULL);
    if (!isfinite(nat + dyn)) {
      snprintf(cs->status, sizeof cs->status, "failed: non-finite result after %d iterations", info.iterations);
      cs->status_ok = 0;
      csv_row(csv, problem, name, cap, info.iterations, t, nat, dyn, cs->status);
      break;
    }
    double res = nat + dyn;
    csv_row(csv, problem, name, cap, info.iterations, t, nat, dyn, "ok");
    cs->points++;
    cs->final_res = res;
    cs->final_it = info.iterations;
    if (res <= 1e-4 && (cs->t4 < 0 || t < cs->t4)) cs->t4 = t;
    if (res <= 1e-8 && (cs->t8 < 0 || t < cs->t8)) cs->t8 = t;
    if (res <= o->target) { snprintf(cs->status, sizeof cs->status, "target %.0e reached", o->target); break; }
    if (info.iterations < cap) {
      snprintf(cs->status, sizeof cs->status, "solver stopped itself (%s)", info.converged ? "converged" : "not converged");
      break;
    }
    if (spent + t * o->growth > o->budget) { /* the next run would overrun the budget */
      snprintf(cs->status, sizeof cs->status, "budget %g s (next run would exceed it)", o->budget);
      break;
    }
  }
  free(v); free(vf); free(lam);
  sg_solver_destroy(&s);
}

static void fmt_time(double t, char *buf, size_t len) {
  if (t < 0) snprintf(buf, len, "-");
  else snprintf(buf, len, "%.3g s", t);
}

static sg_err bench_problem(const bench_options *o, const char *path, char **solvers, int ns, FILE *csv) {
  sg_fclib_problem fp;
  const char *problem = base_name(path);
  if (sg_fclib_read(path, &fp)) {
    printf("%s: cannot read (%s)\n", problem, sg_error_message());
    sg_error_clear();
    return SG_OK;
  }
  if (fp.local) {
    printf("%s: local problem (%d contacts), skipped: the solvers take the global form\n", problem, fp.nc);
    sg_fclib_free(&fp);
    return SG_OK;
  }
  sg_problem p = {0};
  sg_fclib_map map = {0};
  if (sg_fclib_to_problem(&fp, &p, &map)) {
    printf("%s: cannot convert (%s)\n", problem, sg_error_message());
    sg_error_clear();
    sg_fclib_free(&fp);
    return SG_OK;
  }
  printf("\n%s: n = %d, %d contacts, %d subsystems\n", problem, fp.n, fp.nc, p.n_sub);
  printf("  %-10s %12s %10s %10s %10s  %s\n", "solver", "nat+dyn", "iter", "t(1e-4)", "t(1e-8)", "status");
  for (int k = 0; k < ns; ++k) {
    curve_summary cs;
    run_curve(o, problem, solvers[k], &fp, &p, &map, csv, &cs);
    if (csv) fflush(csv);
    char t4[32], t8[32];
    fmt_time(cs.t4, t4, sizeof t4);
    fmt_time(cs.t8, t8, sizeof t8);
    if (cs.points)
      printf("  %-10s %12.3e %10d %10s %10s  %s\n", solvers[k], cs.final_res, cs.final_it, t4, t8, cs.status);
    else
      printf("  %-10s %12s %10s %10s %10s  %s\n", solvers[k], "-", "-", "-", "-", cs.status);
    fflush(stdout);
  }
  sg_problem_destroy(&p);
  sg_fclib_map_free(&map);
  sg_fclib_free(&fp);
  return SG_OK;
}

/* Options of a solver's PETSc objects (-NAME_ksp_*, -NAME_pc_*, -NAME_mat_*, -NAME_snes_*) are read
 * when the object is made, at solve time: mark them used so that sg_opt_check_unused lets them by. */
static void accept_petsc_object_options(char **solvers, int ns) {
  PetscInt n = 0;
  char **names = NULL, **values = NULL;
  if (PetscOptionsLeftGet(NULL, &n, &names, &values)) return;
  static const char *objects[] = {"ksp_", "pc_", "mat_", "snes_"};
  for (PetscInt i = 0; i < n; ++i)
    for (int k = 0; k < ns; ++k) {
      size_t len = strlen(solvers[k]);
      if (strncmp(names[i], solvers[k], len) || names[i][len] != '_') continue;
      for (size_t o = 0; o < sizeof objects / sizeof objects[0]; ++o)
        if (!strncmp(names[i] + len + 1, objects[o], strlen(objects[o]))) {
          char opt[256];
          PetscBool has;
          snprintf(opt, sizeof opt, "-%s", names[i]);
          PetscOptionsHasName(NULL, NULL, opt, &has); /* a lookup marks the option used */
        }
    }
  PetscOptionsLeftRestore(NULL, &n, &names, &values);
}

static sg_err bench(char **paths, int npaths) {
  bench_options o;
  memset(&o, 0, sizeof o);
  SG_CHECK(read_options(&o));
  /* every solver's own options are read now, so that -help lists them and a typo is an error */
  char *solvers[MAX_SOLVERS], list[256];
  int ns = 0;
  snprintf(list, sizeof list, "%s", o.solvers);
  for (char *tok = strtok(list, ",|"); tok && ns < MAX_SOLVERS; tok = strtok(NULL, ",|")) {
    sg_solver *s = NULL;
    SG_CHECK(sg_solver_create(MPI_COMM_SELF, tok, &s));
    sg_err err = sg_solver_set_from_options(s);
    sg_solver_destroy(&s);
    SG_CHECK(err);
    solvers[ns++] = tok;
  }
  if (sg_opt_help_requested()) {
    sg_opt_print_help(stdout, "solvers [folder or problem.hdf5 ...] [options]");
    return SG_OK;
  }
  accept_petsc_object_options(solvers, ns);
  SG_CHECK(sg_opt_check_unused());
  char *problems[MAX_PROBLEMS];
  int np = 0;
  if (npaths == 0) collect(SG_SOURCE_DIR "/../shared/fclib", problems, &np);
  for (int k = 0; k < npaths; ++k) collect(paths[k], problems, &np);
  if (np == 0) return sg_error_set(SG_ERR_ARG, "no problem to run (give a folder of FCLIB .hdf5 files or files)");
  FILE *csv = NULL;
  if (o.csv_set) {
    csv = fopen(o.csv, "w");
    if (!csv) return sg_error_set(SG_ERR_IO, "cannot write %s", o.csv);
    fprintf(csv, "problem,solver,max_it,iterations,seconds,nat,dyn,residual,status\n");
  }
  printf("solvers: %d problems x %d solvers, zero start, tol 0, caps 1 x %.3g ... <= %ld, %.0f s per curve, stop at %.0e\n",
         np, ns, o.growth, o.cap, o.budget, o.target);
  for (int k = 0; k < np; ++k) {
    bench_problem(&o, problems[k], solvers, ns, csv);
    free(problems[k]);
  }
  if (csv) {
    fclose(csv);
    printf("\ncurves written to %s (plot: python3 scripts/plot_solvers.py %s)\n", o.csv, o.csv);
  }
  return SG_OK;
}

int main(int argc, char **argv) {
  /* leading words (not options) are folders or problem files; the rest goes to PETSc */
  char *paths[argc + 1];
  int npaths = 0, k = 1;
  for (; k < argc && argv[k][0] != '-'; ++k) paths[npaths++] = argv[k];
  argv[k - 1] = argv[0];
  int pargc = argc - (k - 1);
  char **pargv = argv + (k - 1);
  if (PetscInitialize(&pargc, &pargv, NULL, NULL)) {
    fprintf(stderr, "solvers: cannot initialize PETSc\n");
    return 1;
  }
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  sg_err err = bench(paths, npaths);
  if (err) fprintf(stderr, "solvers: error: %s\n", sg_error_message());
  PetscPopErrorHandler();
  PetscFinalize();
  return err ? 1 : 0;
}
