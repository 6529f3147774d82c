/* Solver registry and the generic create / options / solve / destroy, in the manner of KSPRegister. */
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
  sg_err err = ops->create ? ops->create(s) : SG_OK;
  if (err) { free(s); return err; }
  *out = s;
  return SG_OK;
}

sg_err sg_solver_set_from_options(sg_solver *s) {
  long it;
  SG_CHECK(sg_opt_int("-solver_max_it", s->max_it, 0, 100000000, "iteration cap per step (0: no cap)", &it));
  s->max_it = (int)it;
  SG_CHECK(sg_opt_real("-solver_tol", s->tol, 0, 1e30, "convergence tolerance, dimensionless (docs/SOLVERS.md, Units) (subadmm, canal, nsn: primal + dual residual of paper 002 (42); sap: relative momentum residual of paper 000 (26); pgs: largest velocity change in a sweep)", &s->tol));
  SG_CHECK(sg_opt_bool("-solver_monitor", 0, "print residuals at every iteration", &s->monitor));
  if (s->max_it == 0 && s->tol <= 0)
    return sg_error_set(SG_ERR_ARG, "-solver_max_it 0 (no cap) needs a positive -solver_tol");
  return s->ops->set_from_options ? s->ops->set_from_options(s) : SG_OK;
}

sg_err sg_solver_solve(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info) {
  memset(info, 0, sizeof *info);
  /* every solver gets finite, well-formed input; each rank checks its part, all stop if one fails */
  SG_CHECK(sg_error_collective(s->comm, sg_problem_validate(p)));
  return s->ops->solve(s, p, v, lambda, info);
}

void sg_solver_destroy(sg_solver **s) {
  if (!*s) return;
  if ((*s)->ops->destroy) (*s)->ops->destroy(*s);
  free(*s);
  *s = NULL;
}
