/* Soft rows of one subsystem folded into its block (soft_fold.h): A'_j = A_j + sum b_i J_i^T J_i and
 * b'_j = b_j - sum k_i e_i J_i^T over the folded rows i of subsystem j, from (4). */
#include <stdlib.h>
#include <string.h>
#include "soft_fold.h"

static int foldable(const sg_problem *p, const unsigned char *sub_mine, int i) {
  const int q = p->con_pair[i];
  return p->kind[i] == SG_CON_SOFT && p->con_pair[i + 1] - q == 1 && sub_mine[p->pair_sub[q]];
}

/* Mark the folded rows and give each subsystem they touch its place in A and b. */
static sg_err find_rows(sg_soft_fold *f, const sg_problem *p, const unsigned char *sub_mine, int *na, int *nb) {
  SG_CHECK(sg_grow((void **)&f->folded, &f->cap_folded, p->n_con, 1, "folded soft rows"));
  SG_CHECK(sg_grow((void **)&f->at, &f->cap_at, p->n_sub, sizeof(int), "folded soft rows"));
  SG_CHECK(sg_grow((void **)&f->bat, &f->cap_bat, p->n_sub, sizeof(int), "folded soft rows"));
  for (int j = 0; j < p->n_sub; ++j) f->at[j] = f->bat[j] = -1;
  f->n = 0;
  *na = *nb = 0;
  for (int i = 0; i < p->n_con; ++i) {
    f->folded[i] = (unsigned char)foldable(p, sub_mine, i);
    if (!f->folded[i]) continue;
    SG_CHECK(sg_grow((void **)&f->cons, &f->cap, f->n + 1, sizeof(int), "folded soft rows"));
    f->cons[f->n++] = i;
    const int j = p->pair_sub[p->con_pair[i]], dof = p->sub_dof[j];
    if (f->at[j] >= 0) continue;
    f->at[j] = *na;
    f->bat[j] = *nb;
    *na += dof * dof;
    *nb += dof;
  }
  return SG_OK;
}

sg_err sg_soft_fold_build(sg_soft_fold *f, const sg_problem *p, const unsigned char *sub_mine, int enabled) {
  f->n = 0;
  if (!enabled || !p->n_con) return SG_OK;
  int na, nb;
  SG_CHECK(find_rows(f, p, sub_mine, &na, &nb));
  if (!f->n) return SG_OK;
  SG_CHECK(sg_grow((void **)&f->A, &f->cap_a, na, sizeof(double), "folded soft rows"));
  SG_CHECK(sg_grow((void **)&f->b, &f->cap_b, nb, sizeof(double), "folded soft rows"));
  for (int j = 0; j < p->n_sub; ++j) {
    if (f->at[j] < 0) continue;
    const int dof = p->sub_dof[j];
    memcpy(f->A + f->at[j], p->A + p->sub_aoff[j], (size_t)dof * dof * sizeof(double));
    memcpy(f->b + f->bat[j], p->b + p->sub_off[j], (size_t)dof * sizeof(double));
  }
  for (int m = 0; m < f->n; ++m) {
    const int i = f->cons[m], q = p->con_pair[i], j = p->pair_sub[q], dof = p->sub_dof[j];
    double buf[SG_COMPACT_BLOCK];
    const double *J = sg_problem_pair_block(p, i, q, buf); /* one row */
    const double k_e = p->stiff[i] * p->e[p->con_row[i]], damp = p->damp[i];
    double *A = f->A + f->at[j], *b = f->b + f->bat[j];
    for (int a = 0; a < dof; ++a) {
      if (J[a] == 0) continue;
      b[a] -= k_e * J[a];
      for (int c = 0; c < dof; ++c) A[a * dof + c] += damp * J[a] * J[c];
    }
  }
  return SG_OK;
}

void sg_soft_fold_multipliers(const sg_soft_fold *f, const sg_problem *p, const double *v, double *lambda) {
  for (int m = 0; m < f->n; ++m) {
    const int i = f->cons[m], q = p->con_pair[i], j = p->pair_sub[q], dof = p->sub_dof[j];
    double buf[SG_COMPACT_BLOCK];
    const double *J = sg_problem_pair_block(p, i, q, buf), *vj = v + p->sub_off[j];
    double jv = 0;
    for (int c = 0; c < dof; ++c) jv += J[c] * vj[c];
    lambda[p->con_row[i]] = -p->stiff[i] * p->e[p->con_row[i]] - p->damp[i] * jv; /* (4) */
  }
}

void sg_soft_fold_destroy(sg_soft_fold *f) {
  free(f->cons);
  free(f->folded);
  free(f->at);
  free(f->bat);
  free(f->A);
  free(f->b);
  memset(f, 0, sizeof *f);
}
