/* Anderson acceleration, type II (Walker & Ni 2011 formulation): with residuals f_k = G(x_k) - x_k,
 * gamma = argmin ||f_k - dF gamma|| over the last m differences, x_{k+1} = G(x_k) - dG gamma.
 * The small least-squares problem is solved through its normal equations with a tiny Tikhonov
 * term, which keeps it well posed when the history is nearly collinear. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/anderson.h"
#include "signorini/exchange.h"
#include "signorini/la.h"

sg_err sg_anderson_init(sg_anderson *a, int m, int n) {
  memset(a, 0, sizeof *a);
  a->m = m;
  a->n = n;
  if (m <= 0 || n <= 0) return SG_OK;
  SG_ALLOC(a->dF, (size_t)m * n);
  SG_ALLOC(a->dG, (size_t)m * n);
  SG_ALLOC(a->f_prev, n);
  SG_ALLOC(a->g_prev, n);
  return SG_OK;
}

void sg_anderson_set_reduction(sg_anderson *a, MPI_Comm comm, const unsigned char *mask) {
  a->reduce = 1;
  a->comm = comm;
  a->mask = mask;
}

void sg_anderson_reset(sg_anderson *a) {
  a->count = 0;
  a->head = 0;
  a->have_prev = 0;
}

void sg_anderson_destroy(sg_anderson *a) {
  free(a->dF); free(a->dG); free(a->f_prev); free(a->g_prev);
  memset(a, 0, sizeof *a);
}

sg_err sg_anderson_step(sg_anderson *a, const double *x, double *g) {
  const int n = a->n, m = a->m;
  if (m <= 0) return SG_OK;
  /* record the new differences */
  if (a->have_prev) {
    double *df = a->dF + (size_t)a->head * n, *dg = a->dG + (size_t)a->head * n;
    for (int k = 0; k < n; ++k) {
      double f = g[k] - x[k];
      df[k] = f - a->f_prev[k];
      dg[k] = g[k] - a->g_prev[k];
    }
    a->head = (a->head + 1) % m;
    if (a->count < m) a->count++;
  }
  for (int k = 0; k < n; ++k) {
    a->f_prev[k] = g[k] - x[k];
    a->g_prev[k] = g[k];
  }
  a->have_prev = 1;
  int c = a->count;
  if (c == 0) return SG_OK;
  /* normal equations (dF^T dF + eps I) gamma = dF^T f */
  double M[64 * 64], L[64 * 64], rhs[64], gam[64], tr = 0;
  if (a->reduce) { /* every product at once, summed over the ranks */
    const double *xs[64 * 65 / 2 + 64], *ys[64 * 65 / 2 + 64];
    double out[64 * 65 / 2 + 64];
    int D = 0;
    for (int i = 0; i < c; ++i) {
      for (int j = 0; j <= i; ++j) { xs[D] = a->dF + (size_t)i * n; ys[D++] = a->dF + (size_t)j * n; }
      xs[D] = a->dF + (size_t)i * n;
      ys[D++] = a->f_prev;
    }
    sg_dots_reproducible(a->comm, D, xs, ys, n, a->mask, out);
    D = 0;
    for (int i = 0; i < c; ++i) {
      for (int j = 0; j <= i; ++j) M[i * c + j] = M[j * c + i] = out[D++];
      rhs[i] = out[D++];
      tr += M[i * c + i];
    }
  } else {
    for (int i = 0; i < c; ++i) {
      const double *fi = a->dF + (size_t)i * n;
      for (int j = 0; j <= i; ++j) {
        const double *fj = a->dF + (size_t)j * n;
        double s = 0;
        for (int k = 0; k < n; ++k) s += fi[k] * fj[k];
        M[i * c + j] = M[j * c + i] = s;
      }
      double s = 0;
      for (int k = 0; k < n; ++k) s += fi[k] * a->f_prev[k];
      rhs[i] = s;
      tr += M[i * c + i];
    }
  }
  if (!(tr > 0)) return SG_OK;
  for (int i = 0; i < c; ++i) M[i * c + i] += 1e-12 * tr;
  if (chol_factor(c, M, L)) { /* degenerate history: take the plain step and start over */
    sg_error_clear();
    sg_anderson_reset(a);
    return SG_OK;
  }
  chol_solve(c, L, rhs, gam);
  for (int i = 0; i < c; ++i) {
    const double *dg = a->dG + (size_t)i * n;
    for (int k = 0; k < n; ++k) g[k] -= gam[i] * dg[k];
  }
  return SG_OK;
}
