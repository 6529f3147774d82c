/* Solver registry and the generic create / options / solve / destroy, in the manner of KSPRegister. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/options.h"
#include "signorini/solver.h"

#define SG_MAX_SOLVERS 16
static const sg_solver_ops *g_registry[SG_MAX_SOLVERS];
static int g_nreg;

static void register_builtins(void) {
  if (g_nreg) return;
  g_registry[g_nreg++] = &sg_solver_subadmm_ops;
  g_registry[g_nreg++] = &sg_solver_pgs_ops;
  g_registry[g_nreg++] = &sg_solver_canal_ops;
  g_registry[g_nreg++] = &sg_solver_sap_ops;
  g_registry[g_nreg++] = &sg_solver_nsn_ops;
}

sg_err sg_solver_register(const sg_solver_ops *ops) {
  register_builtins();
  for (int k = 0; k < g_nreg; ++k)
    if (!strcmp(g_registry[k]->name, ops->name)) return SG_OK;
  if (g_nreg == SG_MAX_SOLVERS) return sg_error_set(SG_ERR_ARG, "too many solvers registered");
  g_registry[g_nreg++] = ops;
  return SG_OK;
}

void sg_solver_list(char *buf, int len) {
  register_builtins();
  buf[0] = 0;
  for (int k = 0; k < g_nreg; ++k) {
    size_t used = strlen(buf);
    snprintf(buf + used, (size_t)len - used, "%s%s", k ? "|" : "", g_registry[k]->name);
  }
}

void sg_solver_list_whole(char *buf, int len) {
  register_builtins();
  buf[0] = 0;
  for (int k = 0; k < g_nreg; ++k) {
    if (g_registry[k]->layout != SG_SOLVER_WHOLE) continue;
    size_t used = strlen(buf);
    snprintf(buf + used, (size_t)len - used, "%s%s", used ? ", " : "", g_registry[k]->name);
  }
}

sg_err sg_solver_create(MPI_Comm comm, const char *name, sg_solver **out) {
  register_builtins();
  const sg_solver_ops *ops = NULL;
  for (int k = 0; k < g_nreg; ++k)
    if (!strcmp(g_registry[k]->name, name)) ops = g_registry[k];
  if (!ops) {
    char names[256];
    sg_solver_list(names, sizeof names);
    return sg_error_set(SG_ERR_ARG, "unknown solver '%s' (choose from %s)", name, names);
  }
  sg_solver *s = sg_calloc(1, sizeof *s, "solver");
  if (!s) return SG_ERR_MEM;
  s->ops = ops;
  s->comm = comm;
  s->max_it = 100;
  s->tol = 1e-6;
  s->converged = sg_solver_converged_default;
  sg_err err = ops->create ? ops->create(s) : SG_OK;
  if (err) { free(s); return err; }
  *out = s;
  return SG_OK;
}

sg_err sg_solver_set_options_prefix(sg_solver *s, const char *prefix) {
  if (strlen(prefix) >= sizeof s->prefix) return sg_error_set(SG_ERR_ARG, "solver options prefix '%s' is too long", prefix);
  for (const char *c = prefix; *c; ++c)
    if (!(isalnum((unsigned char)*c) || *c == '_'))
      return sg_error_set(SG_ERR_ARG, "solver options prefix '%s': only letters, digits and '_'", prefix);
  snprintf(s->prefix, sizeof s->prefix, "%s", prefix);
  return SG_OK;
}

const char *sg_solver_prefixed(const sg_solver *s, const char *name, char *buf, size_t len) {
  snprintf(buf, len, "%s%s", s->prefix, name);
  return buf;
}

const char *sg_solver_option(const sg_solver *s, const char *name, char *buf, size_t len) {
  snprintf(buf, len, "-%s%s", s->prefix, name);
  return buf;
}

static sg_err read_options(sg_solver *s) {
  long it;
  SG_CHECK(sg_opt_int("-solver_max_it", s->max_it, 0, 100000000, "iteration cap per step (0: no cap)", &it));
  s->max_it = (int)it;
  SG_CHECK(sg_opt_real("-solver_tol", s->tol, 0, 1e30,
                       "stop when theta_p + theta_d < tol: the largest constraint-law violation (velocity) plus the largest "
                       "momentum residual, dimensionless, the same measure for every solver (docs/SOLVERS.md, Stopping)",
                       &s->tol));
  SG_CHECK(sg_opt_bool("-solver_monitor", 0, "print theta_p, theta_d at every iteration (rank 0)", &s->monitor));
  SG_CHECK(sg_opt_bool("-solver_view", 0, "print the solver's configuration before the run (rank 0)", &s->view));
  if (s->monitor && !s->monitor_fn) s->monitor_fn = sg_solver_monitor_default;
  if (s->max_it == 0 && s->tol <= 0)
    return sg_error_set(SG_ERR_ARG, "-%ssolver_max_it 0 (no cap) needs a positive -%ssolver_tol", s->prefix, s->prefix);
  return s->ops->set_from_options ? s->ops->set_from_options(s) : SG_OK;
}

sg_err sg_solver_set_from_options(sg_solver *s) {
  SG_CHECK(sg_opt_push_prefix(s->prefix));
  sg_err err = read_options(s);
  sg_opt_pop_prefix();
  return err;
}

sg_err sg_solver_setup(sg_solver *s, const sg_problem *p) {
  /* every solver gets finite, well-formed input; each rank checks its part, all stop if one fails */
  SG_CHECK(sg_error_collective(s->comm, sg_problem_validate(p)));
  if (s->ops->setup) SG_CHECK(s->ops->setup(s, p));
  s->setup_for = p;
  return SG_OK;
}

sg_err sg_solver_solve(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info) {
  memset(info, 0, sizeof *info);
  if (s->setup_for != p) SG_CHECK(sg_solver_setup(s, p));
  s->setup_for = NULL; /* the next solve is of a new (or changed) problem */
  sg_err err = s->ops->solve(s, p, v, lambda, info);
  if (info->reason == SG_SOLVE_ITERATING) info->reason = info->converged ? SG_CONVERGED_TOL : SG_DIVERGED_ITS;
  info->converged = info->reason > 0;
  return err;
}

void sg_solver_set_warm_penalty(sg_solver *s, double beta) { s->warm_penalty = isfinite(beta) && beta > 0 ? beta : 0; }

void sg_solver_reset(sg_solver *s) {
  if (s->ops->reset) s->ops->reset(s);
  s->setup_for = NULL;
}

void sg_solver_view(const sg_solver *s, FILE *f) {
  fprintf(f, "solver: %s (%s)\n", s->ops->name, s->ops->description);
  fprintf(f, "  options prefix: %s\n", s->prefix[0] ? s->prefix : "(none)");
  fprintf(f, "  problem layout: %s\n", s->ops->layout == SG_SOLVER_LOCAL ? "each rank's part with its ghosts"
                                                                          : "whole problem gathered on every rank");
  if (s->max_it) fprintf(f, "  stopping: theta_p + theta_d < %g, at most %d iterations\n", s->tol, s->max_it);
  else fprintf(f, "  stopping: theta_p + theta_d < %g, no iteration cap\n", s->tol);
  fprintf(f, "  convergence test: %s, monitor: %s\n",
          s->converged == sg_solver_converged_default ? "default" : "user",
          !s->monitor_fn ? "off" : s->monitor_fn == sg_solver_monitor_default ? "default" : "user");
  if (s->ops->view) s->ops->view(s, f);
}

void sg_solver_destroy(sg_solver **s) {
  if (!*s) return;
  if ((*s)->ops->reset) (*s)->ops->reset(*s);
  if ((*s)->ops->destroy) (*s)->ops->destroy(*s);
  free(*s);
  *s = NULL;
}

const char *sg_converged_reason_name(sg_converged_reason r) {
  switch (r) {
  case SG_CONVERGED_TOL: return "converged (tolerance)";
  case SG_CONVERGED_TRIVIAL: return "converged (nothing to iterate)";
  case SG_CONVERGED_CONTACT: return "converged (contact residual)";
  case SG_DIVERGED_ITS: return "iteration cap";
  case SG_DIVERGED_STAGNATION: return "stagnated at round-off";
  case SG_DIVERGED_NAN: return "non-finite residual";
  case SG_DIVERGED_BREAKDOWN: return "blew up";
  default: return "iterating";
  }
}

sg_converged_reason sg_solver_converged_default(const sg_solver *s, int it, double theta_p, double theta_d, void *ctx) {
  (void)ctx;
  if (!isfinite(theta_p) || !isfinite(theta_d)) return SG_DIVERGED_NAN;
  if (theta_p + theta_d < s->tol) return SG_CONVERGED_TOL;
  if (s->max_it > 0 && it >= s->max_it) return SG_DIVERGED_ITS;
  return SG_SOLVE_ITERATING;
}

void sg_solver_monitor_default(const sg_solver *s, int it, double theta_p, double theta_d, const char *extra, void *ctx) {
  (void)ctx;
  int rank = 0;
  MPI_Comm_rank(s->comm, &rank);
  if (rank) return;
  printf("  %s%s %4d  theta_p %.3e  theta_d %.3e%s%s\n", s->prefix, s->ops->name, it, theta_p, theta_d,
         extra && extra[0] ? "  " : "", extra ? extra : "");
}

void sg_solver_set_convergence_test(sg_solver *s, sg_convergence_test test, void *ctx) {
  s->converged = test ? test : sg_solver_converged_default;
  s->converged_ctx = ctx;
}

void sg_solver_set_monitor(sg_solver *s, sg_monitor_fn monitor, void *ctx) {
  s->monitor_fn = monitor;
  s->monitor_ctx = ctx;
}

sg_converged_reason sg_solver_test(const sg_solver *s, int it, double theta_p, double theta_d, const char *extra) {
  if (s->monitor_fn) s->monitor_fn(s, it, theta_p, theta_d, extra, s->monitor_ctx);
  return s->converged(s, it, theta_p, theta_d, s->converged_ctx);
}
