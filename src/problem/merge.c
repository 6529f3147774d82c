/* One subsystem out of all of a problem's: the "No Sub" variant of paper 002's ablation (Table III),
 * ADMM without the subsystem split, whose v-update solves the whole system's equation (28) at once.
 * The merged block A is block-diagonal in the original subsystems (dense, zeros between them, with no
 * tree sparsity: the whole-system factorization the paper charges No Sub for), and each constraint
 * keeps its rows with one Jacobian block as wide as the whole system, the sum of its pairs' blocks
 * placed at their subsystems' columns. The unknowns and the rows keep their layout, so a solution of
 * the merged problem is one of the original, entry for entry. */
#include <stdlib.h>
#include <string.h>
#include "signorini/problem.h"

/* Constraint i of p as one block over all n unknowns (rows x n, row-major) in J. */
static void merged_block(const sg_problem *p, int i, int n, double *J) {
  const int rows = sg_con_rows(p->kind[i]);
  double buf[SG_COMPACT_BLOCK];
  memset(J, 0, (size_t)rows * (size_t)n * sizeof *J);
  for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
    const int j = p->pair_sub[q], dof = p->sub_dof[j], off = p->sub_off[j];
    const double *B = sg_problem_pair_block(p, i, q, buf);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < dof; ++c) J[r * n + off + c] += B[r * dof + c];
  }
}

/* The block-diagonal matrix of p's subsystems (n x n). */
static void merged_matrix(const sg_problem *p, int n, double *A) {
  memset(A, 0, (size_t)n * (size_t)n * sizeof *A);
  for (int j = 0; j < p->n_sub; ++j) {
    const int dof = p->sub_dof[j], off = p->sub_off[j];
    const double *Aj = p->A + p->sub_aoff[j];
    for (int a = 0; a < dof; ++a) memcpy(A + (size_t)(off + a) * n + off, Aj + a * dof, (size_t)dof * sizeof *A);
  }
}

sg_err sg_problem_merge_subsystems(const sg_problem *p, sg_problem *one) {
  sg_problem_reset(one);
  one->units = p->units;
  one->dt = p->dt;
  if (p->n_sub == 0) return SG_OK;
  const int n = sg_problem_n_v(p);
  double *A = malloc((size_t)n * (size_t)n * sizeof *A), *J = malloc(3 * (size_t)n * sizeof *J);
  sg_err err = A && J ? SG_OK : sg_error_set(SG_ERR_MEM, "out of memory (merging %d unknowns into one subsystem)", n);
  if (!err) {
    merged_matrix(p, n, A);
    err = sg_problem_add_subsystem(one, n, A, p->b, p->sub_gid[0], NULL);
  }
  const int sub = 0;
  for (int i = 0; i < p->n_con && !err; ++i) {
    const double *Js[1] = {J};
    merged_block(p, i, n, J);
    err = sg_problem_add_constraint(one, p->kind[i], p->e + p->con_row[i], p->mu[i], p->stiff[i], p->damp[i], 1, &sub, Js,
                                    NULL);
  }
  free(A);
  free(J);
  return err;
}
