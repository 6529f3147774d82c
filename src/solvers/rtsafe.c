/* Safeguarded Newton-Raphson root finding on a bracket: the exact line search of CANAL (paper 002
 * (26)) and SAP (paper 000 Alg. 2) both find the unique root of a monotone derivative this way. */
#include <math.h>
#include "signorini/newton.h"

sg_err sg_rtsafe(sg_rtsafe_fn fdf, void *ctx, double lo, double hi, double xtol, int max_it, double *root) {
  double dlo, dhi, df;
  double flo = fdf(lo, &dlo, ctx), fhi = fdf(hi, &dhi, ctx);
  if (!isfinite(flo) || !isfinite(fhi))
    return sg_error_set(SG_ERR_NUMERIC, "line search: non-finite derivative on the bracket [%g, %g]", lo, hi);
  if (flo == 0) { *root = lo; return SG_OK; }
  if (fhi == 0) { *root = hi; return SG_OK; }
  if ((flo > 0) == (fhi > 0))
    return sg_error_set(SG_ERR_NUMERIC, "line search: [%g, %g] does not bracket a root (f = %g, %g)", lo, hi, flo, fhi);
  /* orient so that f(xl) < 0 < f(xh) */
  double xl = flo < 0 ? lo : hi, xh = flo < 0 ? hi : lo;
  double x = 0.5 * (lo + hi), dx_old = fabs(hi - lo), dx = dx_old;
  double f = fdf(x, &df, ctx);
  for (int it = 0; it < max_it; ++it) {
    int newton_leaves = ((x - xh) * df - f) * ((x - xl) * df - f) > 0;
    int newton_slow = fabs(2 * f) > fabs(dx_old * df);
    dx_old = dx;
    if (newton_leaves || newton_slow || df == 0) {
      dx = 0.5 * (xh - xl);
      x = xl + dx;
    } else {
      dx = f / df;
      double prev = x;
      x -= dx;
      if (x == prev) break;
    }
    if (fabs(dx) <= xtol * fmax(fabs(x), 1e-300) || fabs(xh - xl) <= xtol * fmax(fabs(x), 1e-300)) break;
    f = fdf(x, &df, ctx);
    if (!isfinite(f)) return sg_error_set(SG_ERR_NUMERIC, "line search: non-finite derivative at %g", x);
    if (f == 0) break;
    if (f < 0) xl = x;
    else xh = x;
  }
  *root = x;
  return SG_OK;
}
