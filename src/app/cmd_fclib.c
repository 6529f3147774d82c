/* signorini fclib problem.hdf5 -solver subadmm [-solver_tol T -solver_max_it N] [-write_solution]
 * Solve an FCLIB problem from a cold start (v = 0, r = 0) and print Siconos's accuracy measures
 * (nat, dyn, nat + dyn) beside the paper 002 metric. The work is serial: every rank reads the file
 * and solves on MPI_COMM_SELF; rank 0 prints and writes. -write_solution writes /solution/{v,u,r}
 * into a copy of the input, by default <basename of the input>.solution.hdf5 in the current
 * directory (-solution_file PATH to choose); the input is never modified. */
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

/* Solve the global problem fp; measure (and write) the answer against `measure` (fp itself, or the
 * local problem fp was made from). */
static sg_err solve_global(MPI_Comm comm, const char *path, const fclib_options *o, const sg_fclib_problem *fp,
                           const sg_fclib_problem *measure) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  sg_problem p = {0};
  sg_fclib_map map = {0};
  sg_solver *solver = NULL;
  double *v = NULL, *lam = NULL, *vf = NULL, *u = NULL;
  sg_solve_info info = {0};
  sg_err err = sg_fclib_to_problem(fp, &p, &map);
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
    u = sg_calloc((size_t)fp->m + 1, sizeof *u, "relative velocities");
    if (!v || !vf || !lam || !u) err = SG_ERR_MEM;
  }
  double t = 0;
  if (!err) {
    double t0 = MPI_Wtime();
    err = sg_solver_solve(solver, &p, v, lam, &info);
    t = MPI_Wtime() - t0;
    if (err) {
      char msg[512];
      snprintf(msg, sizeof msg, "%s", sg_error_message());
      sg_error_clear();
      err = sg_error_set(err, "%s: %s", path, msg);
    }
  }
  double nat = 0, dyn = 0, metric = 0;
  if (!err) {
    sg_fclib_map_to_fclib(&map, v, vf);
    err = sg_fclib_residuals(measure, vf, lam, &nat, &dyn, u);
  }
  if (!err) err = sg_contact_residual(&p, lam, &metric);
  /* the same impulses with the velocities recomputed from the dynamics (dyn ~ 0 by construction) */
  double nat2 = 0, dyn2 = 0;
  double *v2 = NULL, *vf2 = NULL;
  if (!err) {
    v2 = sg_calloc((size_t)fp->n + 1, sizeof *v2, "velocities");
    vf2 = sg_calloc((size_t)fp->n + 1, sizeof *vf2, "velocities");
    if (!v2 || !vf2) err = SG_ERR_MEM;
  }
  if (!err) err = velocities_from_impulses(&p, lam, v2);
  if (!err) {
    sg_fclib_map_to_fclib(&map, v2, vf2);
    err = sg_fclib_residuals(measure, vf2, lam, &nat2, &dyn2, NULL);
  }
  free(v2); free(vf2);
  if (!err && rank == 0 && measure->local) {
    printf("  solver       %s, tol %g, max_it %d\n", o->solver, solver->tol, solver->max_it);
    printf("  iterations   %d (%s)\n", info.iterations, sg_converged_reason_name(info.reason));
    printf("  time         %.4f s\n", t);
    printf("  nat          %.3e (of the local problem u = W r + q)\n", nat);
  } else if (!err && rank == 0) {
    printf("  solver       %s, tol %g, max_it %d\n", o->solver, solver->tol, solver->max_it);
    printf("  iterations   %d (%s)\n", info.iterations, sg_converged_reason_name(info.reason));
    printf("  time         %.4f s\n", t);
    printf("  nat          %.3e\n  dyn          %.3e\n  nat + dyn    %.3e\n", nat, dyn, nat + dyn);
    printf("  paper metric %.3e (paper 002 Sec. VII)\n", metric);
    printf("  with v = M^-1 (f + H r): nat %.3e, dyn %.3e, nat + dyn %.3e\n", nat2, dyn2, nat2 + dyn2);
  }
  if (!err && o->write && rank == 0) {
    err = sg_fclib_write_solution(path, o->out, measure, measure->local ? NULL : vf, u, lam);
    if (!err) printf("  solution     written to %s (/solution/{v,u,r})\n", o->out);
  }
  sg_solver_destroy(&solver);
  sg_problem_destroy(&p);
  sg_fclib_map_free(&map);
  free(v); free(vf); free(lam); free(u);
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
    err = sg_fclib_local_to_global(&fp, o.local_eps, &glob, &eps, &asym);
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
