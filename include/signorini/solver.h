/* Solvers behind one ops table and a registry, in the manner of PETSc's KSPRegister. Each solver
 * consumes an sg_problem and returns vhat (v) and lambda, both used as warm starts on entry. */
#ifndef SIGNORINI_SOLVER_H
#define SIGNORINI_SOLVER_H
#include <mpi.h>
#include <stdio.h>
#include "signorini/problem.h"

/* Why a solve stopped (in the manner of KSPConvergedReason): > 0 converged, < 0 not. */
typedef enum {
  SG_SOLVE_ITERATING = 0,
  SG_CONVERGED_TOL = 1,        /* theta_p + theta_d < -solver_tol (sg_solver_converged_default) */
  SG_CONVERGED_TRIVIAL = 2,    /* nothing to iterate on: no moving subsystem or no constraint */
  SG_CONVERGED_CONTACT = 3,    /* the contact residual met a solver's own tolerance (-subadmm_contact_tol) */
  SG_DIVERGED_ITS = -1,        /* -solver_max_it reached */
  SG_DIVERGED_STAGNATION = -2, /* no progress left in floating point above the tolerance */
  SG_DIVERGED_NAN = -3,        /* a residual is not finite */
  SG_DIVERGED_BREAKDOWN = -4   /* the iteration blew up with no restart left (the best iterate is returned) */
} sg_converged_reason;
const char *sg_converged_reason_name(sg_converged_reason r);

typedef struct {
  int iterations;
  int converged;          /* 1 when the tolerance was met (reason > 0) */
  sg_converged_reason reason;
  /* The one measure every solver reports and -solver_tol bounds (docs/SOLVERS.md, "Stopping"), both
   * dimensionless (problem units): */
  double residual_primal; /* theta_p: largest violation of a constraint law, in velocity (L/T) */
  double residual_dual;   /* theta_d: largest momentum residual max_j ||A_j v_j - b_j - sum_i J_ij^T lambda_i|| (M L/T) */
  double beta;            /* final penalty (AL solvers) */
  int refactorizations;
  int recoveries;         /* restarts from a saved iterate, penalties taken back, or a better earlier
                           * iterate returned in place of the last one (SubADMM) */
} sg_solve_info;

typedef struct sg_solver sg_solver;

/* What a solver needs of a problem distributed over ranks (the stepper gives it that):
 *  SG_SOLVER_WHOLE: the whole problem on every rank, gathered by the stepper's adapter, its
 *    sub_owner saying which rank does the work of which rows (NSN distributes its linear algebra
 *    so; PGS, serial by nature, repeats the same sweeps on every rank);
 *  SG_SOLVER_LOCAL: a rank's part: its subsystems, the constraints touching them and the ghost
 *    subsystems owned elsewhere; the solver exchanges the halo itself (SubADMM) or reduces over
 *    ranks and takes the ghosts' entries from its distributed linear solve (CANAL, SAP). */
typedef enum { SG_SOLVER_WHOLE = 0, SG_SOLVER_LOCAL = 1 } sg_solver_layout;

/* The life cycle of a solver, as KSP's: create, set_from_options (reads -<prefix><name>_* options),
 * then per problem setup (the work that depends on the problem's structure and matrices:
 * numbering, factorizations, preallocation) and solve (the iterations); reset frees what setup
 * made, view prints the configuration. setup, reset and view may be NULL. */
typedef struct {
  const char *name;
  const char *description;
  sg_err (*create)(sg_solver *s);
  sg_err (*set_from_options)(sg_solver *s);
  sg_err (*setup)(sg_solver *s, const sg_problem *p);
  sg_err (*solve)(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info);
  void (*reset)(sg_solver *s);
  void (*view)(const sg_solver *s, FILE *f);
  void (*destroy)(sg_solver *s);
  sg_solver_layout layout;
} sg_solver_ops;

/* Decides after each iteration whether a solve goes on (KSPSetConvergenceTest). */
typedef sg_converged_reason (*sg_convergence_test)(const sg_solver *s, int it, double theta_p, double theta_d,
                                                   void *ctx);
/* Prints one iteration's residuals (KSPMonitorSet); extra is the solver's own detail (may be ""). */
typedef void (*sg_monitor_fn)(const sg_solver *s, int it, double theta_p, double theta_d, const char *extra,
                              void *ctx);

struct sg_solver {
  const sg_solver_ops *ops;
  void *data;
  MPI_Comm comm;
  char prefix[32]; /* options prefix of this instance ("" or e.g. "ref_": -ref_solver_tol, -ref_subadmm_beta) */
  int max_it;      /* -solver_max_it (0 = no cap) */
  double tol;      /* -solver_tol */
  int monitor;     /* -solver_monitor given: the default monitor, and the solvers' own detail lines */
  int view;        /* -solver_view: print the configuration once set from options */
  sg_convergence_test converged;
  void *converged_ctx;
  sg_monitor_fn monitor_fn; /* NULL: no monitor */
  void *monitor_ctx;
  const sg_problem *setup_for; /* the problem setup was done for, until the solve that consumes it */
  double warm_penalty; /* > 0: the penalty the last solve ended with, for an AL solver to start from
                        * (sg_solver_set_warm_penalty); 0: the solver's own initial rule */
};

sg_err sg_solver_register(const sg_solver_ops *ops);
void sg_solver_list(char *buf, int len);         /* '|'-separated registered names */
sg_err sg_solver_create(MPI_Comm comm, const char *name, sg_solver **out);
/* The registered solvers that get the whole problem gathered (SG_SOLVER_WHOLE), comma-separated. */
void sg_solver_list_whole(char *buf, int len);
/* Prefix of this instance's options (before sg_solver_set_from_options), as KSPSetOptionsPrefix. */
sg_err sg_solver_set_options_prefix(sg_solver *s, const char *prefix);
sg_err sg_solver_set_from_options(sg_solver *s);  /* reads -solver_max_it, -solver_tol, ... */
/* Optional: the per-problem work ahead of sg_solver_solve (which does it when not done for p). */
sg_err sg_solver_setup(sg_solver *s, const sg_problem *p);
sg_err sg_solver_solve(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info);
void sg_solver_reset(sg_solver *s);
/* The penalty to start the next setup from (a time stepper passes the last step's sg_solve_info.beta,
 * as it passes lambda): consecutive steps' problems are alike, so the penalty the adaptive rule
 * reached is a better start than the cold rule. 0 forgets it. Solvers without a penalty ignore it. */
void sg_solver_set_warm_penalty(sg_solver *s, double beta);
void sg_solver_view(const sg_solver *s, FILE *f);
void sg_solver_destroy(sg_solver **s);

/* The shared stopping rule and monitor. Solvers call sg_solver_test after each iteration with their
 * theta_p, theta_d (it counts finished iterations); it runs the monitor, then the convergence test. */
sg_converged_reason sg_solver_converged_default(const sg_solver *s, int it, double theta_p, double theta_d, void *ctx);
void sg_solver_monitor_default(const sg_solver *s, int it, double theta_p, double theta_d, const char *extra, void *ctx);
void sg_solver_set_convergence_test(sg_solver *s, sg_convergence_test test, void *ctx);
void sg_solver_set_monitor(sg_solver *s, sg_monitor_fn monitor, void *ctx);
sg_converged_reason sg_solver_test(const sg_solver *s, int it, double theta_p, double theta_d, const char *extra);
/* "<prefix><name>" (e.g. a KSP's prefix "ref_canal_") and "-<prefix><name>" (an option of this
 * instance, name without its dash), in buf. */
const char *sg_solver_prefixed(const sg_solver *s, const char *name, char *buf, size_t len);
const char *sg_solver_option(const sg_solver *s, const char *name, char *buf, size_t len);

/* Built-in implementations. */
extern const sg_solver_ops sg_solver_subadmm_ops;
extern const sg_solver_ops sg_solver_pgs_ops;
extern const sg_solver_ops sg_solver_canal_ops;
extern const sg_solver_ops sg_solver_sap_ops;
extern const sg_solver_ops sg_solver_nsn_ops;

#endif
