/* A local FCLIB problem (u = W r + q) as an equivalent global one, so that every solver, which
 * takes the global form A v = b + J^T lambda, solves it too:
 *   W + eps I = L L^T (Cholesky; W symmetrized, eps the regularization),  M = I,  H = L^T,  f = 0,  w = q
 * gives v = H r and u = H^T v + w = L L^T r + q = (W + eps I) r + q. A W that is not symmetric is
 * replaced by its symmetric part (the only kind H^T H can be; Capsules' W is asymmetric by 1.3e-3 of
 * its largest entry, which then limits the residual of the original problem). W is only positive
 * semidefinite in general (more contact rows than a body's freedoms), hence eps: it starts at
 * rel_eps * max_k W_kk and grows tenfold until the factorization succeeds; the answer then solves
 * the local problem up to eps |r| in u, which the residuals measured on the original problem show. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/fclib.h"
#include "signorini/la.h"

static sg_err dense_matrix(sg_fclib_matrix *A, int n, const double *D, int upper_of_transpose) {
  /* upper_of_transpose: store D^T's nonzeros (D lower triangular, so D^T is upper) as triplets */
  long nz = 0;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c <= r; ++c) nz += D[(size_t)r * n + c] != 0.0;
  A->m = A->n = n;
  A->nnz = (int)nz;
  A->row = malloc((size_t)(nz + 1) * sizeof(int));
  A->col = malloc((size_t)(nz + 1) * sizeof(int));
  A->x = malloc((size_t)(nz + 1) * sizeof(double));
  if (!A->row || !A->col || !A->x) return sg_error_set(SG_ERR_MEM, "out of memory (local FCLIB problem, %ld entries)", nz);
  long k = 0;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c <= r; ++c) {
      double x = D[(size_t)r * n + c];
      if (x == 0.0) continue;
      A->row[k] = upper_of_transpose ? c : r;
      A->col[k] = upper_of_transpose ? r : c;
      A->x[k++] = x;
    }
  return SG_OK;
}

sg_err sg_fclib_local_to_global(const sg_fclib_problem *loc, double rel_eps, sg_fclib_problem *glob, double *eps_used,
                                double *asymmetry) {
  memset(glob, 0, sizeof *glob);
  if (!loc->local) return sg_error_set(SG_ERR_ARG, "sg_fclib_local_to_global: not a local problem");
  int m = loc->m;
  double *W = calloc((size_t)m * m + 1, sizeof *W), *L = calloc((size_t)m * m + 1, sizeof *L);
  if (!W || !L) {
    free(W); free(L);
    return sg_error_set(SG_ERR_MEM, "out of memory (a dense %d x %d W)", m, m);
  }
  for (int k = 0; k < loc->W.nnz; ++k) W[(size_t)loc->W.row[k] * m + loc->W.col[k]] += loc->W.x[k];
  double dmax = 0, amax = 0, wmax = 0;
  for (int r = 0; r < m; ++r) {
    for (int c = r + 1; c < m; ++c) { /* the symmetric part: A = M = I and H^T H can only give that */
      amax = fmax(amax, fabs(W[(size_t)r * m + c] - W[(size_t)c * m + r]));
      wmax = fmax(wmax, fmax(fabs(W[(size_t)r * m + c]), fabs(W[(size_t)c * m + r])));
      double s = 0.5 * (W[(size_t)r * m + c] + W[(size_t)c * m + r]);
      W[(size_t)r * m + c] = W[(size_t)c * m + r] = s;
    }
    dmax = fmax(dmax, W[(size_t)r * m + r]);
  }
  *asymmetry = amax / fmax(fmax(wmax, dmax), 1e-300);
  double eps = rel_eps * (dmax > 0 ? dmax : 1.0);
  sg_err err = SG_ERR_NUMERIC;
  for (int attempt = 0; attempt < 12 && err; ++attempt, eps *= 10) {
    for (int r = 0; r < m; ++r) W[(size_t)r * m + r] += eps;
    err = chol_factor(m, W, L);
    for (int r = 0; r < m; ++r) W[(size_t)r * m + r] -= eps;
    if (!err) break;
    sg_error_clear();
  }
  free(W);
  if (err) {
    free(L);
    return sg_error_set(SG_ERR_NUMERIC, "matrix /fclib_local/W: W + eps I is not positive definite even for eps = %g", eps);
  }
  *eps_used = eps;
  glob->local = 0;
  glob->n = m;
  glob->m = m;
  glob->nc = loc->nc;
  snprintf(glob->title, sizeof glob->title, "%s", loc->title);
  /* M = I */
  glob->M.m = glob->M.n = m;
  glob->M.nnz = m;
  glob->M.row = malloc((size_t)(m + 1) * sizeof(int));
  glob->M.col = malloc((size_t)(m + 1) * sizeof(int));
  glob->M.x = malloc((size_t)(m + 1) * sizeof(double));
  glob->f = calloc((size_t)m + 1, sizeof(double));
  glob->w = malloc((size_t)(m + 1) * sizeof(double));
  glob->mu = malloc((size_t)(loc->nc + 1) * sizeof(double));
  if (!glob->M.row || !glob->M.col || !glob->M.x || !glob->f || !glob->w || !glob->mu) {
    free(L);
    sg_fclib_free(glob);
    return sg_error_set(SG_ERR_MEM, "out of memory (local FCLIB problem)");
  }
  for (int k = 0; k < m; ++k) {
    glob->M.row[k] = glob->M.col[k] = k;
    glob->M.x[k] = 1.0;
  }
  memcpy(glob->w, loc->q, (size_t)m * sizeof(double));
  memcpy(glob->mu, loc->mu, (size_t)loc->nc * sizeof(double));
  err = dense_matrix(&glob->H, m, L, 1); /* H = L^T */
  free(L);
  if (err) sg_fclib_free(glob);
  return err;
}
