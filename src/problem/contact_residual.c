/* The solver-independent accuracy metric of paper 002 Sec. VII. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/cone.h"
#include "signorini/la.h"
#include "signorini/problem.h"

sg_err sg_contact_residual(const sg_problem *p, const double *lambda, double *residual) {
  *residual = 0;
  if (p->n_con == 0) return SG_OK;
  int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p), maxd = 0;
  for (int j = 0; j < p->n_sub; ++j) if (p->sub_dof[j] > maxd) maxd = p->sub_dof[j];
  double *v = NULL, *Jv = NULL, *L = NULL;
  sg_err err = SG_OK;
  v = sg_calloc((size_t)nv, sizeof *v, "metric velocity");
  Jv = sg_calloc((size_t)nr, sizeof *Jv, "metric J v");
  L = sg_calloc((size_t)maxd * maxd, sizeof *L, "metric factor");
  if (!v || !Jv || !L) { err = SG_ERR_MEM; goto done; }
  /* vhat = A^{-1}(b + J^T lambda): the dynamics residual becomes exactly zero */
  memcpy(v, p->b, (size_t)nv * sizeof *v);
  sg_problem_apply_JT_add(p, lambda, v);
  for (int j = 0; j < p->n_sub; ++j) {
    int d = p->sub_dof[j];
    if ((err = chol_factor(d, p->A + p->sub_aoff[j], L))) goto done;
    chol_solve(d, L, v + p->sub_off[j], v + p->sub_off[j]);
  }
  sg_problem_apply_J(p, v, Jv);
  /* ||J vhat - z|| = ||lambda - T(lambda*)|| with beta = 1 and u = -lambda (paper 002 (14)-(18)) */
  double sum = 0;
  for (int i = 0; i < p->n_con; ++i) {
    const double *li = lambda + p->con_row[i], *ji = Jv + p->con_row[i], *ei = p->e + p->con_row[i];
    switch (p->kind[i]) {
      case SG_CON_HARD: {
        double t = li[0] - (ji[0] + ei[0]);
        double r = li[0] - (t > 0 ? t : 0);
        sum += r * r;
        break;
      }
      case SG_CON_SOFT: {
        double t = -(p->damp[i] * (ji[0] - li[0]) + p->stiff[i] * ei[0]) / (p->damp[i] + 1.0);
        sum += (li[0] - t) * (li[0] - t);
        break;
      }
      default: {
        double ls[3], t[3];
        for (int r = 0; r < 3; ++r) ls[r] = li[r] - (ji[r] + ei[r]);
        sg_cone_project_strict(p->mu[i], ls, t);
        for (int r = 0; r < 3; ++r) sum += (li[r] - t[r]) * (li[r] - t[r]);
      }
    }
  }
  *residual = sqrt(sum) / p->n_con;
done:
  free(v); free(Jv); free(L);
  return err;
}
