/* Anderson acceleration (type II) on a linear fixed-point map x = M x + c: with memory m >= n it is
 * equivalent to GMRES (Walker & Ni 2011), so it reaches the fixed point in at most n + 1 steps in
 * exact arithmetic (checked: residual < 1e-10 after n + 2 steps), where the plain iteration with
 * spectral radius 0.99 still has a residual near 0.99^(n+2). */
#include "signorini/anderson.h"
#include "test_util.h"

#define N 6

static void apply(const double *M, const double *c, const double *x, double *g) {
  for (int i = 0; i < N; ++i) {
    g[i] = c[i];
    for (int j = 0; j < N; ++j) g[i] += M[i * N + j] * x[j];
  }
}

int main(void) {
  /* symmetric M with eigenvalues in [-0.99, 0.99]: M = Q diag Q^T with a Householder Q */
  double u[N], M[N * N], c[N], lam[N] = {0.99, -0.9, 0.5, 0.97, -0.3, 0.1};
  unsigned long long seed = 3;
  double un = 0;
  for (int i = 0; i < N; ++i) { u[i] = sg_test_rand(&seed, -1, 1); un += u[i] * u[i]; c[i] = sg_test_rand(&seed, -1, 1); }
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < N; ++k) {
        double qik = (i == k) - 2 * u[i] * u[k] / un, qjk = (j == k) - 2 * u[j] * u[k] / un;
        s += qik * lam[k] * qjk;
      }
      M[i * N + j] = s;
    }
  sg_anderson aa;
  CHECK_OK(sg_anderson_init(&aa, N, N));
  double x[N] = {0}, g[N], xp[N] = {0}, gp[N];
  double res = 0, res_plain = 0;
  for (int it = 0; it < N + 2; ++it) {
    apply(M, c, x, g);
    res = 0;
    for (int i = 0; i < N; ++i) res += (g[i] - x[i]) * (g[i] - x[i]);
    CHECK_OK(sg_anderson_step(&aa, x, g));
    for (int i = 0; i < N; ++i) x[i] = g[i];
    apply(M, c, xp, gp);
    res_plain = 0;
    for (int i = 0; i < N; ++i) { res_plain += (gp[i] - xp[i]) * (gp[i] - xp[i]); xp[i] = gp[i]; }
  }
  apply(M, c, x, g);
  res = 0;
  for (int i = 0; i < N; ++i) res += (g[i] - x[i]) * (g[i] - x[i]);
  printf("after %d steps: Anderson residual %.3e, plain %.3e\n", N + 2, sqrt(res), sqrt(res_plain));
  CHECK(sqrt(res) < 1e-10);
  CHECK(sqrt(res_plain) > 1e-3);
  sg_anderson_destroy(&aa);
  return sg_test_exit();
}
