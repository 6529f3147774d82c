/* Sparse factorization of a matrix with a kinematic tree's sparsity (Featherstone 2008, Sec. 6.5,
 * Tables 6.3 and 6.4): H_ij may be non-zero only where velocity i is velocity j, an ancestor or a
 * descendant of it (parent[k] < k, -1 for a root). The joint-space mass matrix of the
 * composite-rigid-body algorithm has this sparsity, and so has paper 002's A_j + beta sum J^T J of a
 * tree whose constraints each act along one path to the root (40)-(41). The LTL factorization
 * H = L^T L, L lower triangular, runs from the last velocity to the first and creates no fill-in:
 * its cost is n d^2 with d the depth of the tree, not n^3 / 6. */
#include <math.h>
#include "signorini/la.h"

sg_err ltl_factor(int n, const int *parent, double *H) {
  for (int k = n - 1; k >= 0; --k) {
    if (!(H[k * n + k] > 0)) return sg_error_set(SG_ERR_NUMERIC, "matrix not positive definite (pivot %d = %g)", k, H[k * n + k]);
    const double d = sqrt(H[k * n + k]);
    H[k * n + k] = d;
    for (int i = parent[k]; i >= 0; i = parent[i]) H[k * n + i] /= d;
    for (int i = parent[k]; i >= 0; i = parent[i])
      for (int j = i; j >= 0; j = parent[j]) H[i * n + j] -= H[k * n + i] * H[k * n + j];
  }
  return SG_OK;
}

/* L^T y = x from the last velocity up (each y_i then leaves its ancestors' equations), then
 * L x = y from the first down. */
void ltl_solve(int n, const int *parent, const double *L, double *x) {
  for (int i = n - 1; i >= 0; --i) {
    x[i] /= L[i * n + i];
    for (int j = parent[i]; j >= 0; j = parent[j]) x[j] -= L[i * n + j] * x[i];
  }
  for (int i = 0; i < n; ++i) {
    for (int j = parent[i]; j >= 0; j = parent[j]) x[i] -= L[i * n + j] * x[j];
    x[i] /= L[i * n + i];
  }
}
