/* The solver-independent accuracy metric of paper 002 Sec. VII, whole or in parts (a distributed
 * scene computes vhat of its own subsystems, fetches those of its ghosts, and sums the terms of
 * the constraints it keeps). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/compact.h"
#include "signorini/cone.h"
#include "signorini/la.h"
#include "signorini/problem.h"

/* x += J^T lambda (sg_problem_apply_JT_add) with the compact pairs by their own formula. */
static void metric_jt_add(const sg_problem *p, const double *lambda, double *x) {
  for (int i = 0; i < p->n_con; ++i) {
    const int rows = sg_con_rows(p->kind[i]);
    const double *li = lambda + p->con_row[i];
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      const int j = p->pair_sub[q], d = p->sub_dof[j];
      double buf[SG_COMPACT_BLOCK];
      if (sg_problem_pair_is_compact(p, q)) sg_compact_jt(p->frame + 9 * i, p->lever + 4 * q, li, x + p->sub_off[j]);
      else if (sg_problem_pair_anchor(p, q) >= 0) sg_problem_tree_jt_add(p, i, q, li, x);
      else {
        const double *Jq = sg_problem_pair_block(p, i, q, buf);
        for (int r = 0; r < rows; ++r)
          for (int c = 0; c < d; ++c) x[p->sub_off[j] + c] += Jq[r * d + c] * li[r];
      }
    }
  }
}

sg_err sg_metric_velocity(const sg_problem *p, const double *lambda, double *v) {
  int nv = sg_problem_n_v(p), maxd = 6;
  for (int j = 0; j < p->n_sub; ++j) if (p->sub_dof[j] > maxd) maxd = p->sub_dof[j];
  double *L = sg_calloc((size_t)maxd * maxd, sizeof *L, "metric factor");
  if (!L) return SG_ERR_MEM;
  /* vhat = A^{-1}(b + J^T lambda): the dynamics residual becomes exactly zero */
  if (nv) memcpy(v, p->b, (size_t)nv * sizeof *v); /* a rank without subsystems has no b */
  if (p->n_con) metric_jt_add(p, lambda, v);
  sg_err err = SG_OK;
  for (int j = 0; j < p->n_sub && !err; ++j) {
    int d = p->sub_dof[j];
    double *vj = v + p->sub_off[j];
    if (d == 6) { /* a rigid body: the unrolled 6 x 6 factorization */
      if (!(err = chol6_factor(p->A + p->sub_aoff[j], L))) chol6_solve(L, vj, vj);
    } else if (!(err = chol_factor(d, p->A + p->sub_aoff[j], L))) {
      chol_solve(d, L, vj, vj);
    }
  }
  free(L);
  return err;
}

double sg_metric_constraint_sq(const sg_problem *p, int i, const double *lambda, const double *v) {
  int rows = sg_con_rows(p->kind[i]);
  double ji[3] = {0, 0, 0}, buf[SG_COMPACT_BLOCK];
  for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
    int j = p->pair_sub[q], d = p->sub_dof[j];
    if (sg_problem_pair_is_compact(p, q)) {
      double jv[3];
      sg_compact_jv(p->frame + 9 * i, p->lever + 4 * q, v + p->sub_off[j], jv);
      for (int r = 0; r < 3; ++r) ji[r] += jv[r];
      continue;
    }
    if (sg_problem_pair_anchor(p, q) >= 0) { /* a compact tree pair: along its chain, not a 3 x dof block */
      double t[3];
      sg_problem_tree_jv(p, i, q, v, t);
      for (int r = 0; r < 3; ++r) ji[r] += t[r];
      continue;
    }
    const double *Jq = sg_problem_pair_block(p, i, q, buf), *vj = v + p->sub_off[j];
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < d; ++c) ji[r] += Jq[r * d + c] * vj[c];
  }
  return sg_metric_law_sq(p, i, lambda, ji);
}

double sg_metric_law_sq(const sg_problem *p, int i, const double *lambda, const double *ji) {
  /* ||J vhat - z|| = ||lambda - T(lambda*)|| with beta = 1 and u = -lambda (paper 002 (14)-(18)) */
  const double *li = lambda + p->con_row[i], *ei = p->e + p->con_row[i];
  switch (p->kind[i]) {
    case SG_CON_HARD: {
      double t = li[0] - (ji[0] + ei[0]);
      double r = li[0] - (t > 0 ? t : 0);
      return r * r;
    }
    case SG_CON_BILATERAL: /* T the identity: ||J vhat + e|| */
      return (ji[0] + ei[0]) * (ji[0] + ei[0]);
    case SG_CON_SOFT: {
      double t = -(p->damp[i] * (ji[0] - li[0]) + p->stiff[i] * ei[0]) / (p->damp[i] + 1.0);
      return (li[0] - t) * (li[0] - t);
    }
    default: {
      double ls[3], t[3], sum = 0;
      for (int r = 0; r < 3; ++r) ls[r] = li[r] - (ji[r] + ei[r]);
      sg_cone_project_strict(p->mu[i], ls, t);
      for (int r = 0; r < 3; ++r) sum += (li[r] - t[r]) * (li[r] - t[r]);
      return sum;
    }
  }
}

sg_err sg_contact_residual(const sg_problem *p, const double *lambda, double *residual) {
  *residual = 0;
  if (p->n_con == 0) return SG_OK;
  double *v = sg_calloc((size_t)sg_problem_n_v(p) + 1, sizeof *v, "metric velocity");
  if (!v) return SG_ERR_MEM;
  sg_err err = sg_metric_velocity(p, lambda, v);
  double sum = 0;
  for (int i = 0; i < p->n_con && !err; ++i) sum += sg_metric_constraint_sq(p, i, lambda, v);
  if (!err) *residual = sqrt(sum) / p->n_con;
  free(v);
  return err;
}
