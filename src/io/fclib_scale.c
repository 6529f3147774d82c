/* A global FCLIB problem brought to entries of order one before a solver sees it. The form
 *   M v = H r + f,  u = H^T v + w,  uhat = u + [mu ||u_T||, 0, 0],  C*_mu ∋ uhat ⊥ r ∈ C_mu
 * keeps its solutions under v = a v', r = b r', u = c u' and the dynamics multiplied by d when
 * b = a^2 / (c d) (the cones are invariant under positive scaling of u and r each):
 *   M' = d M,  H' = (a / c) H,  f' = (d / a) f,  w' = w / c.
 * d makes M's largest entry about 1, a f's, c H's (or, with f = 0, w's); every factor is a power
 * of two, so the scaled entries are exact. The solvers' tolerances and regularizations are
 * absolute in places, so a problem whose entries lie far from one stops them at their cold start
 * (its residuals look tiny) or overflows them. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/fclib.h"

#define SAFE_EXPONENT 30 /* largest entries within 2^-30 .. 2^30 are left as they are */

#define NONE INT_MIN /* the exponent of an all-zero array */

/* The binary exponent of the largest |x|, or NONE. */
static int max_exponent(int n, const double *x) {
  double m = 0;
  for (int k = 0; k < n; ++k) m = fmax(m, fabs(x[k]));
  return m > 0 && isfinite(m) ? ilogb(m) : NONE;
}

static sg_err scaled_copy(int n, const double *x, int e, double **out) {
  *out = malloc((size_t)(n ? n : 1) * sizeof **out);
  if (!*out) return sg_error_set(SG_ERR_MEM, "out of memory scaling an FCLIB problem (%d values)", n);
  for (int k = 0; k < n; ++k) (*out)[k] = ldexp(x[k], e);
  return SG_OK;
}

static sg_err matrix_copy(const sg_fclib_matrix *A, int e, sg_fclib_matrix *B) {
  *B = *A;
  B->row = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *B->row);
  B->col = malloc((size_t)(A->nnz ? A->nnz : 1) * sizeof *B->col);
  B->x = NULL;
  if (!B->row || !B->col) return sg_error_set(SG_ERR_MEM, "out of memory scaling an FCLIB problem (%d entries)", A->nnz);
  memcpy(B->row, A->row, (size_t)A->nnz * sizeof *B->row);
  memcpy(B->col, A->col, (size_t)A->nnz * sizeof *B->col);
  return scaled_copy(A->nnz, A->x, e, &B->x);
}

/* The copy of fp with its entries scaled by 2^em (M), 2^eh (H), 2^ef (f), 2^ew (w). */
static sg_err scaled_problem(const sg_fclib_problem *fp, int em, int eh, int ef, int ew, sg_fclib_problem *out) {
  out->n = fp->n;
  out->m = fp->m;
  out->nc = fp->nc;
  memcpy(out->title, fp->title, sizeof out->title);
  sg_err err = matrix_copy(&fp->M, em, &out->M);
  if (!err) err = matrix_copy(&fp->H, eh, &out->H);
  if (!err) err = scaled_copy(fp->n, fp->f, ef, &out->f);
  if (!err) err = scaled_copy(fp->m, fp->w, ew, &out->w);
  if (!err) err = scaled_copy(fp->nc, fp->mu, 0, &out->mu);
  if (err) sg_fclib_free(out);
  return err;
}

sg_err sg_fclib_normalize(const sg_fclib_problem *fp, sg_fclib_problem *out, sg_fclib_scaling *sc) {
  memset(out, 0, sizeof *out);
  *sc = (sg_fclib_scaling){1, 1, 1, 0};
  if (fp->local) return sg_error_set(SG_ERR_ARG, "sg_fclib_normalize: a local problem (make it global first)");
  int e[4] = {max_exponent(fp->M.nnz, fp->M.x), max_exponent(fp->H.nnz, fp->H.x), max_exponent(fp->n, fp->f),
              max_exponent(fp->m, fp->w)};
  int far = 0;
  for (int k = 0; k < 4; ++k) far |= e[k] != NONE && abs(e[k]) > SAFE_EXPONENT;
  if (!far) return SG_OK;
  int em = e[0] == NONE ? 0 : e[0], eh = e[1] == NONE ? 0 : e[1], ea, ec;
  if (e[2] != NONE) { /* a from f, c from H */
    ea = e[2] - em;
    ec = ea + eh;
  } else if (e[3] != NONE) { /* no f: c from w, a from H */
    ec = e[3];
    ea = ec - eh;
  } else { /* f = w = 0: the answer is 0 whatever the factors */
    ea = -em;
    ec = ea + eh;
  }
  SG_CHECK(scaled_problem(fp, -em, ea - ec, -em - ea, -ec, out));
  *sc = (sg_fclib_scaling){ldexp(1, ea), ldexp(1, 2 * ea - ec + em), ldexp(1, ec), 1}; /* b = a^2 / (c d) */
  return SG_OK;
}
