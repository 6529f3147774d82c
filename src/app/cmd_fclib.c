/* signorini fclib problem.hdf5 -solver subadmm [-solver_tol T -solver_max_it N] [-write_solution]
 * Solve an FCLIB problem from a cold start (v = 0, r = 0) and print Siconos's accuracy measures
 * (nat, dyn, nat + dyn) beside the paper 002 metric. The work is serial: every rank reads the file
 * and solves on MPI_COMM_SELF; rank 0 prints and writes. -write_solution writes /solution/{v,u,r}
 * into a copy of the input, by default <basename of the input>.solution.hdf5 in the current
 * directory (-solution_file PATH to choose); the input is never modified. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "signorini/fclib.h"
#include "signorini/la.h"
#include "signorini/options.h"
#include "signorini/solver.h"

typedef struct {
  char solver[64], out[4096];
  int write, out_set;
  double local_eps;
} fclib_options;

static sg_err read_options(fclib_options *o, const char *path) {
  char names[256];
  sg_solver_list(names, sizeof names);
  SG_CHECK(sg_opt_choice("-solver", "subadmm", names, "contact solver", o->solver, sizeof o->solver));
  SG_CHECK(sg_opt_bool("-write_solution", 0, "write /solution/{v,u,r} into a copy of the input (see -solution_file)", &o->write));
  SG_CHECK(sg_opt_string("-solution_file", "<input basename>.solution.hdf5", "where -write_solution puts the copy (current directory by default)",
                         o->out, sizeof o->out, &o->out_set));
  SG_CHECK(sg_opt_real("-fclib_local_eps", 1e-12, 0, 1, "local problems: regularization of W = L L^T, relative to max W_kk (grown tenfold until W + eps I factors)",
                       &o->local_eps));
  if (!o->out_set && path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(o->out, sizeof o->out, "%s.solution.hdf5", base);
  }
  return SG_OK;
}

/* v = A^{-1} (b + J^T lambda) per subsystem (problem order): the velocities that satisfy the
 * dynamics exactly for the solver's impulses. */
static sg_err velocities_from_impulses(const sg_problem *p, const double *lam, double *v) {
  int nv = sg_problem_n_v(p), maxd = 1;
  for (int j = 0; j < p->n_sub; ++j) if (p->sub_dof[j] > maxd) maxd = p->sub_dof[j];
  double *L = sg_calloc((size_t)maxd * maxd, sizeof *L, "Cholesky factor");
  if (!L) return SG_ERR_MEM;
  memcpy(v, p->b, (size_t)nv * sizeof *v);
  sg_problem_apply_JT_add(p, lam, v);
  sg_err err = SG_OK;
  for (int j = 0; j < p->n_sub && !err; ++j) {
    int d = p->sub_dof[j];
    err = chol_factor(d, p->A + p->sub_aoff[j], L);
    if (!err) chol_solve(d, L, v + p->sub_off[j], v + p->sub_off[j]);
  }
  free(L);
  return err;
}

/* err with the file in front of its message: the conversion, the solvers and the measures know
 * the problem, not the file it came from, and every error about a problem names its file. */
static sg_err in_file(sg_err err, const char *path) {
  if (!err) return err;
  char msg[1024];
  size_t n = strlen(path);
  snprintf(msg, sizeof msg, "%s", sg_error_message());
  if (!strncmp(msg, path, n) && msg[n] == ':') return err;
  sg_error_clear();
  return sg_error_set(err, "%s: %s", path, msg[0] ? msg : "error without a message");
}

static void scale(int n, double *x, double factor) {
  for (int k = 0; k < n; ++k) x[k] *= factor;
}

static double max_abs(int n, const double *x) {
  double m = 0;
  for (int k = 0; k < n; ++k) m = fmax(m, fabs(x[k]));
  return m;
}

/* x (n values, `what`), scaled back from an answer whose largest entry was `solved`: refused when
 * it overflowed, or when its largest entry lies so low (under DBL_MIN / DBL_EPSILON, 1e-292) that
 * its entries 16 digits smaller, and the terms of its residuals, are subnormal doubles with fewer
 * digits (a problem whose f and w are scaled far below its M and H has such an answer however well
 * it is solved: its residuals measure rounding, not the answer). */
static sg_err check_representable(int n, const double *x, double solved, const char *what) {
  double got = max_abs(n, x), low = DBL_MIN / DBL_EPSILON;
  if (solved > 0 && !isfinite(got))
    return sg_error_set(SG_ERR_NUMERIC, "the answer's %s overflow doubles (the problem's f and w are scaled too far "
                        "above its M and H)", what);
  if (solved > 0 && got < low)
    return sg_error_set(SG_ERR_NUMERIC, "the answer's %s reach at most %.3g, under %.3g: their smaller entries and "
                        "the residuals' terms are subnormal doubles, so the answer can be neither written nor measured "
                        "(the problem's f and w are scaled too far below its M and H)", what, got, low);
  return SG_OK;
}

static void print_result(const fclib_options *o, const sg_solver *solver, const sg_solve_info *info, double t,
                         const double res[6], double metric, int local, int scaled) {
  printf("  solver       %s, tol %g, max_it %d\n", o->solver, solver->tol, solver->max_it);
  printf("  iterations   %d (%s)\n", info->iterations, sg_converged_reason_name(info->reason));
  printf("  time         %.4f s\n", t);
  if (scaled) printf("  scaled nat   %.3e, dyn %.3e (of the scaled problem the solver saw)\n", res[4], res[5]);
  if (local) {
    printf("  nat          %.3e (of the local problem u = W r + q)\n", res[0]);
    return;
  }
  printf("  nat          %.3e\n  dyn          %.3e\n  nat + dyn    %.3e\n", res[0], res[1], res[0] + res[1]);
  printf("  paper metric %.3e (paper 002 Sec. VII)\n", metric);
  printf("  with v = M^-1 (f + H r): nat %.3e, dyn %.3e, nat + dyn %.3e\n", res[2], res[3], res[2] + res[3]);
}

/* The answer (v, lam) of p, made from fp (scaled by sc from the file's), in `measure`'s units and
 * order: vf, r and u; vf2 from the dynamics (v = M^-1 (f + H r): dyn ~ 0 by construction); res =
 * nat, dyn of (vf, r) and of (vf2, r) on `measure`, then of (v, lam) on fp; metric the paper's on p. */
static sg_err measure_answer(const sg_problem *p, const sg_fclib_map *map, const sg_fclib_problem *fp,
                             const sg_fclib_scaling *sc, const sg_fclib_problem *measure, const double *v,
                             const double *lam, double *vf, double *r, double *u, double res[6], double *metric) {
  int n = map->n, m = measure->m;
  double *v2 = sg_calloc((size_t)n + 1, sizeof *v2, "velocities");
  double *vf2 = sg_calloc((size_t)n + 1, sizeof *vf2, "velocities");
  sg_err err = v2 && vf2 ? sg_contact_residual(p, lam, metric) : SG_ERR_MEM;
  if (!err) err = velocities_from_impulses(p, lam, v2);
  if (!err) {
    sg_fclib_map_to_fclib(map, v, vf);
    sg_fclib_map_to_fclib(map, v2, vf2);
    err = sg_fclib_residuals(fp, vf, lam, &res[4], &res[5], NULL);
  }
  if (!err) {
    double vmax = max_abs(n, vf), rmax = max_abs(m, lam);
    scale(n, vf, sc->v);
    scale(n, vf2, sc->v);
    memcpy(r, lam, (size_t)m * sizeof *r);
    scale(m, r, sc->r);
    /* an answer of a problem with entries near one that is tiny is 0 up to rounding, not lost */
    if (sc->applied) err = check_representable(m, r, rmax, "impulses r");
    if (!err && sc->applied && !measure->local) err = check_representable(n, vf, vmax, "velocities v");
  }
  if (!err) err = sg_fclib_residuals(measure, vf, r, &res[0], &res[1], u);
  if (!err) err = sg_fclib_residuals(measure, vf2, r, &res[2], &res[3], NULL);
  free(v2); free(vf2);
  return err;
}

/* Solve the global problem fp (scaled by sc from the file's); measure (and write) the answer
 * against `measure` (the file's problem: the unscaled fp, or the local problem fp was made from). */
static sg_err solve_problem(MPI_Comm comm, const char *path, const fclib_options *o, const sg_fclib_problem *fp,
                            const sg_fclib_scaling *sc, const sg_fclib_problem *measure) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  sg_problem p = {0};
  sg_fclib_map map = {0};
  sg_solver *solver = NULL;
  double *v = NULL, *lam = NULL, *vf = NULL, *u = NULL, *r = NULL;
  sg_solve_info info = {0};
  sg_err err = in_file(sg_fclib_to_problem(fp, &p, &map), path);
  int maxd = 0;
  for (int j = 0; !err && j < p.n_sub; ++j) if (p.sub_dof[j] > maxd) maxd = p.sub_dof[j];
  if (!err && rank == 0)
    printf("  subsystems   %d (largest %d unknowns)\n", p.n_sub, maxd);
  if (!err) err = sg_solver_create(MPI_COMM_SELF, o->solver, &solver);
  if (!err) err = sg_solver_set_from_options(solver);
  if (!err) err = sg_opt_check_unused(); /* before the solve: a mistyped option costs nothing */
  if (!err && solver->view && rank == 0) sg_solver_view(solver, stdout);
  if (!err) {
    v = sg_calloc((size_t)fp->n + 1, sizeof *v, "velocities");
    vf = sg_calloc((size_t)fp->n + 1, sizeof *vf, "velocities");
    lam = sg_calloc((size_t)fp->m + 1, sizeof *lam, "impulses");
    r = sg_calloc((size_t)fp->m + 1, sizeof *r, "impulses");
    u = sg_calloc((size_t)fp->m + 1, sizeof *u, "relative velocities");
    if (!v || !vf || !lam || !r || !u) err = in_file(SG_ERR_MEM, path);
  }
  double t = 0, res[6] = {0}, metric = 0;
  if (!err) {
    double t0 = MPI_Wtime();
    err = in_file(sg_solver_solve(solver, &p, v, lam, &info), path);
    t = MPI_Wtime() - t0;
  }
  if (!err) err = in_file(measure_answer(&p, &map, fp, sc, measure, v, lam, vf, r, u, res, &metric), path);
  if (!err && rank == 0) print_result(o, solver, &info, t, res, metric, measure->local, sc->applied);
  if (!err && o->write && rank == 0) {
    err = sg_fclib_write_solution(path, o->out, measure, measure->local ? NULL : vf, u, r);
    if (!err) printf("  solution     written to %s (/solution/{v,u,r})\n", o->out);
  }
  sg_solver_destroy(&solver);
  sg_problem_destroy(&p);
  sg_fclib_map_free(&map);
  free(v); free(vf); free(lam); free(r); free(u);
  return err;
}

/* Solve the global problem fp, scaled first when its entries lie far from one (the solvers'
 * tolerances are partly absolute: src/io/fclib_scale.c), and measured on `measure`. */
static sg_err solve_global(MPI_Comm comm, const char *path, const fclib_options *o, const sg_fclib_problem *fp,
                           const sg_fclib_problem *measure) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  sg_fclib_problem scaled;
  sg_fclib_scaling sc;
  SG_CHECK(in_file(sg_fclib_normalize(fp, &scaled, &sc), path));
  if (sc.applied && rank == 0)
    printf("  scaled       v = %.3g v', r = %.3g r', u = %.3g u': solved with entries of M, H, f, w of order 1\n", sc.v,
           sc.r, sc.u);
  sg_err err = solve_problem(comm, path, o, sc.applied ? &scaled : fp, &sc, measure);
  sg_fclib_free(&scaled);
  return err;
}

sg_err sg_cmd_fclib(MPI_Comm comm, const char *path) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  fclib_options o;
  memset(&o, 0, sizeof o);
  if (sg_opt_help_requested()) {
    SG_CHECK(read_options(&o, path));
    sg_solver *s = NULL;
    sg_err err = sg_solver_create(MPI_COMM_SELF, o.solver, &s);
    if (!err) err = sg_solver_set_from_options(s);
    sg_solver_destroy(&s);
    if (rank == 0) sg_opt_print_help(stdout, "signorini fclib problem.hdf5 [options]");
    return err;
  }
  if (!path) return sg_error_set(SG_ERR_ARG, "fclib: missing file name (an FCLIB .hdf5 problem)");
  SG_CHECK(read_options(&o, path));
  sg_fclib_problem fp;
  SG_CHECK(sg_fclib_read(path, &fp));
  sg_err err = SG_OK;
  if (rank == 0) {
    printf("signorini fclib %s\n", path);
    printf("  title        %s\n", fp.title[0] ? fp.title : "(none)");
    printf("  form         %s\n", fp.local ? "local (u = W r + q)" : "global (M v = H r + f, u = H^T v + w)");
    if (!fp.local) printf("  n            %d\n", fp.n);
    printf("  m            %d\n  contacts     %d\n", fp.m, fp.nc);
  }
  if (fp.local) {
    /* solved through an equivalent global problem (src/io/fclib_local.c), measured on the original */
    sg_fclib_problem glob;
    double eps = 0, asym = 0;
    err = in_file(sg_fclib_local_to_global(&fp, o.local_eps, &glob, &eps, &asym), path);
    if (!err && rank == 0)
      printf("  as global    M = I, H = L^T with sym(W) + eps I = L L^T, eps = %.3g (W asymmetric by %.2g of max |W|)\n",
             eps, asym);
    if (!err) err = solve_global(comm, path, &o, &glob, &fp);
    if (!err || glob.n) sg_fclib_free(&glob);
  } else {
    err = solve_global(comm, path, &o, &fp, &fp);
  }
  sg_fclib_free(&fp);
  return err;
}
