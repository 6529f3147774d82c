/* The sparse LTL factorization of a matrix with a kinematic tree's sparsity (la.h, ltl_factor and
 * ltl_solve; Featherstone 2008, Tables 6.3-6.4) against the dense Cholesky factorization: random
 * branching trees of 1 to 40 unknowns (parent[k] drawn among the earlier unknowns or -1), H = D +
 * sum over random paths to the root of w w^T (w non-zero on the path alone: the sparsity of a
 * contact's J^T J on a tree) with D diagonal positive, so H is SPD with exactly that sparsity. The
 * solution of H x = b by both agrees to 1e-12 relative and has a residual ||H x - b|| below 1e-12
 * ||H|| ||x|| (a backward-stable factorization's; a dropped or misplaced entry is off by O(1)); the
 * entries off the paths are left untouched. A matrix that is not positive definite is refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/la.h"
#include "test_util.h"

static unsigned long long rng = 0x2545f4914f6cdd1dULL;
static double rnd(double lo, double hi) { return sg_test_rand(&rng, lo, hi); }

/* H with the sparsity of parent[] (n x n), sentinel 7 off the paths. */
static void random_matrix(int n, const int *parent, double *H) {
  for (int k = 0; k < n * n; ++k) H[k] = 0;
  for (int k = 0; k < n; ++k) H[k * n + k] = rnd(0.1, 1.0);
  for (int m = 0; m < 2 * n; ++m) {
    double w[64] = {0};
    int k = (int)floor(rnd(0, n));
    for (k = k < n ? k : n - 1; k >= 0; k = parent[k]) w[k] = rnd(-2, 2);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) H[a * n + b] += w[a] * w[b];
  }
}

int main(void) {
  double worst_diff = 0, worst_res = 0;
  int untouched = 1;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + trial % 40;
    int parent[64];
    for (int k = 0; k < n; ++k) { /* -1 (a new root) or an earlier unknown, by a fair draw */
      const int up = (int)floor(rnd(0, k + 1)) - 1;
      parent[k] = rnd(0, 1) < 0.15 || up >= k ? -1 : up;
    }
    double H[64 * 64], L[64 * 64], Ld[64 * 64], b[64], x[64], xd[64];
    random_matrix(n, parent, H);
    memcpy(L, H, sizeof(double) * (size_t)(n * n));
    uint64_t path[64];
    for (int k = 0; k < n; ++k) path[k] = (parent[k] >= 0 ? path[parent[k]] : 0) | (uint64_t)1 << k;
    for (int a = 0; a < n; ++a)
      for (int c = 0; c < a; ++c)
        if (!(path[a] >> c & 1)) L[a * n + c] = 7; /* off the paths: must stay */
    CHECK_OK(ltl_factor(n, parent, L));
    CHECK_OK(chol_factor(n, H, Ld));
    for (int k = 0; k < n; ++k) b[k] = rnd(-1, 1);
    memcpy(x, b, sizeof(double) * (size_t)n);
    ltl_solve(n, parent, L, x);
    chol_solve(n, Ld, b, xd);
    double xn = 0, hn = 0, dn = 0, rn = 0;
    for (int a = 0; a < n; ++a) {
      double r = -b[a];
      for (int c = 0; c < n; ++c) r += H[a * n + c] * x[c], hn = fmax(hn, fabs(H[a * n + c]));
      for (int c = 0; c < a; ++c) untouched &= (path[a] >> c & 1) || L[a * n + c] == 7;
      rn = fmax(rn, fabs(r));
      xn = fmax(xn, fabs(x[a]));
      dn = fmax(dn, fabs(x[a] - xd[a]));
    }
    worst_diff = fmax(worst_diff, dn / xn);
    worst_res = fmax(worst_res, rn / (hn * xn));
  }
  printf("200 random trees of 1-40 unknowns: max |x_ltl - x_chol| / max |x| = %.2e, max |H x - b| / (max|H| max|x|) = %.2e, "
         "entries off the paths %s\n", worst_diff, worst_res, untouched ? "untouched" : "CHANGED");
  CHECK(worst_diff < 1e-12);
  CHECK(worst_res < 1e-12);
  CHECK(untouched);
  double bad[4] = {1, 2, 2, 1}; /* eigenvalues 3 and -1 */
  const int chain[2] = {-1, 0};
  CHECK(ltl_factor(2, chain, bad) == SG_ERR_NUMERIC);
  sg_error_clear();
  return sg_test_exit();
}
