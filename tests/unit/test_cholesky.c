/* Dense Cholesky (general and the 6x6 fast path with its inverted diagonal) against a reference:
 * L L^T reproduces A and A x = b holds, to 1e-12 relative for well-conditioned random SPD matrices
 * (cond <= ~1e4, so round-off stays near 1e-16 * cond); the 6x6 inverse is exactly symmetric and
 * A A^{-1} = I to the same bound, also for a rigid body's scales (mass 1e-2, inertia 1e-6);
 * a non-SPD matrix is rejected. */
#include "signorini/la.h"
#include "test_util.h"

static void random_spd(int n, double *A, unsigned long long *seed) {
  double B[64 * 64];
  for (int i = 0; i < n * n; ++i) B[i] = sg_test_rand(seed, -1, 1);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = i == j ? n : 0.0;
      for (int k = 0; k < n; ++k) s += B[i * n + k] * B[j * n + k];
      A[i * n + j] = s;
    }
}

/* spd6_inverse: exactly symmetric, and the largest entry of A A^{-1} - I relative to cond-free
 * scaling, D^{-1/2} A D^{-1/2} being well conditioned for D = diag(A). */
static void check_inverse6(const double *A) {
  double X[36], err = 0;
  CHECK_OK(spd6_inverse(A, X));
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      CHECK(X[6 * i + j] == X[6 * j + i]);
      double s = 0;
      for (int k = 0; k < 6; ++k) s += A[6 * i + k] * X[6 * k + j];
      err = fmax(err, fabs(s - (i == j)) * sqrt(A[7 * j] / A[7 * i]));
    }
  CHECK(err <= 1e-12);
}

int main(void) {
  unsigned long long seed = 7;
  for (int trial = 0; trial < 200; ++trial) {
    int n = trial % 2 ? 6 : 1 + trial % 13;
    double A[64 * 64], L[64 * 64], b[64], x[64];
    random_spd(n, A, &seed);
    for (int i = 0; i < n; ++i) b[i] = sg_test_rand(&seed, -1, 1);
    CHECK_OK(chol_factor(n, A, L));
    /* reference: L L^T == A */
    double err = 0, nrm = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int k = 0; k < n; ++k) s += L[i * n + k] * L[j * n + k];
        err = fmax(err, fabs(s - A[i * n + j]));
        nrm = fmax(nrm, fabs(A[i * n + j]));
      }
    CHECK(err <= 1e-12 * nrm);
    chol_solve(n, L, b, x);
    double res = 0;
    for (int i = 0; i < n; ++i) {
      double s = -b[i];
      for (int j = 0; j < n; ++j) s += A[i * n + j] * x[j];
      res = fmax(res, fabs(s));
    }
    CHECK(res <= 1e-12 * nrm);
    if (n == 6) {
      double L6[36], x6[6];
      CHECK_OK(chol6_factor(A, L6));
      chol6_solve(L6, b, x6);
      for (int i = 0; i < 6; ++i) CHECK_NEAR(x6[i], x[i], 1e-12 * (1 + fabs(x[i])));
      check_inverse6(A);
      for (int i = 0; i < 6; ++i) /* the scales of a 2 mm glass bead: m I and I_world */
        for (int j = 0; j < 6; ++j) A[6 * i + j] *= (i < 3 ? 1e-1 : 1e-3) * (j < 3 ? 1e-1 : 1e-3);
      check_inverse6(A);
    }
  }
  double bad[36] = {0};
  for (int i = 0; i < 6; ++i) bad[7 * i] = 1;
  bad[7 * 3] = -1;
  double L6[36];
  CHECK(chol6_factor(bad, L6) == SG_ERR_NUMERIC);
  sg_error_clear();
  return sg_test_exit();
}
