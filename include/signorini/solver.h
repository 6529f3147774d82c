/* Solvers behind one ops table and a registry, in the manner of PETSc's KSPRegister. Each solver
 * consumes an sg_problem and returns vhat (v) and lambda, both used as warm starts on entry. */
#ifndef SIGNORINI_SOLVER_H
#define SIGNORINI_SOLVER_H
#include <mpi.h>
#include "signorini/problem.h"

typedef struct {
  int iterations;
  int converged;          /* 1 when the tolerance was met */
  double residual_primal; /* paper 002 (42) theta_p (or the solver's own primal measure) */
  double residual_dual;   /* paper 002 (42) theta_d */
  double beta;            /* final penalty (AL solvers) */
  int refactorizations;
  int recoveries;         /* restarts from a saved iterate, penalties taken back, or a better earlier
                           * iterate returned in place of the last one (SubADMM) */
} sg_solve_info;

typedef struct sg_solver sg_solver;

/* What a solver needs of a problem distributed over ranks (the stepper gives it that):
 *  SG_SOLVER_WHOLE: the whole problem on every rank, gathered by the stepper's adapter, its
 *    sub_owner saying which rank does the work of which rows (the Newton solvers distribute their
 *    linear algebra so; PGS, serial by nature, repeats the same sweeps on every rank);
 *  SG_SOLVER_LOCAL: a rank's part: its subsystems, the constraints touching them and the ghost
 *    subsystems owned elsewhere; the solver exchanges the halo itself (SubADMM). */
typedef enum { SG_SOLVER_WHOLE = 0, SG_SOLVER_LOCAL = 1 } sg_solver_layout;

typedef struct {
  const char *name;
  const char *description;
  sg_err (*create)(sg_solver *s);
  sg_err (*set_from_options)(sg_solver *s);
  sg_err (*solve)(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info);
  void (*destroy)(sg_solver *s);
  sg_solver_layout layout;
} sg_solver_ops;

struct sg_solver {
  const sg_solver_ops *ops;
  void *data;
  MPI_Comm comm;
  int max_it;      /* -solver_max_it (0 = no cap) */
  double tol;      /* -solver_tol */
  int monitor;     /* -solver_monitor: print residuals per iteration */
};

sg_err sg_solver_register(const sg_solver_ops *ops);
void sg_solver_list(char *buf, int len);         /* comma-separated registered names */
sg_err sg_solver_create(MPI_Comm comm, const char *name, sg_solver **out);
/* The registered solvers that get the whole problem gathered (SG_SOLVER_WHOLE), comma-separated. */
void sg_solver_list_whole(char *buf, int len);
sg_err sg_solver_set_from_options(sg_solver *s);  /* reads -solver_max_it, -solver_tol, ... */
sg_err sg_solver_solve(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info);
void sg_solver_destroy(sg_solver **s);

/* Built-in implementations. */
extern const sg_solver_ops sg_solver_subadmm_ops;
extern const sg_solver_ops sg_solver_pgs_ops;
extern const sg_solver_ops sg_solver_canal_ops;
extern const sg_solver_ops sg_solver_sap_ops;
extern const sg_solver_ops sg_solver_nsn_ops;

#endif
