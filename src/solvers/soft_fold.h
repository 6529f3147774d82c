/* Soft rows folded into their subsystem (SubADMM, src/solvers/subadmm.c); not a public interface.
 *
 * A soft row (4), lambda_i = -k_i e_i - b_i J_i v_j, that touches one subsystem j only (a PD joint
 * controller or a joint spring of a tree) is linear in v_j: substituted into A_j v_j = b_j + sum_i
 * J_ij^T lambda_i it gives
 *   (A_j + b_i J_i^T J_i) v_j = b_j - k_i e_i J_i^T + (the other rows' terms),
 * the same fixed point with one row fewer to split. SubADMM then iterates on (A'_j, b'_j) and the
 * other rows only, and lambda_i follows from the final v_j. Splitting such a row instead couples
 * its damping b_i with the one penalty beta shared by every row: a stiffly controlled tree touching
 * a light body then needs a beta near b_i for its controller and near the body's mass for the
 * contact, and the iteration crawls (docs/SOLVERS.md, "Soft rows of one subsystem"). */
#ifndef SG_SOFT_FOLD_H
#define SG_SOFT_FOLD_H
#include "signorini/problem.h"

typedef struct {
  int *cons, n, cap;     /* the folded rows (soft, one pair, an own subsystem), in constraint order */
  unsigned char *folded; /* per constraint */
  int cap_folded;
  int *at;               /* per subsystem: where its A'_j starts in A (-1: no folded row, p's A_j and b_j) */
  int *bat;              /* the same for b'_j in b */
  int cap_at, cap_bat;
  double *A, *b;         /* A'_j and b'_j of the subsystems with folded rows, one after the other */
  int cap_a, cap_b;
} sg_soft_fold;

/* Find the rows to fold among the constraints of the subsystems with sub_mine[j] set (none unless
 * enabled) and build A'_j, b'_j of the subsystems they touch. Rank-local. */
sg_err sg_soft_fold_build(sg_soft_fold *f, const sg_problem *p, const unsigned char *sub_mine, int enabled);
/* A'_j (dof x dof) and b'_j of subsystem j: p's own where no row was folded into it. */
static inline const double *sg_soft_fold_A(const sg_soft_fold *f, const sg_problem *p, int j) {
  return f->n && f->at[j] >= 0 ? f->A + f->at[j] : p->A + p->sub_aoff[j];
}
static inline const double *sg_soft_fold_b(const sg_soft_fold *f, const sg_problem *p, int j) {
  return f->n && f->bat[j] >= 0 ? f->b + f->bat[j] : p->b + p->sub_off[j];
}
static inline int sg_soft_fold_has(const sg_soft_fold *f, int i) { return f->n && f->folded[i]; }
/* lambda_i = -k_i e_i - b_i J_i v_j of every folded row (4), from the solve's final v. */
void sg_soft_fold_multipliers(const sg_soft_fold *f, const sg_problem *p, const double *v, double *lambda);
void sg_soft_fold_destroy(sg_soft_fold *f);

#endif
