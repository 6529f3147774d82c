/* Sphere size distributions (size_dist.h): sampling by the inverse distribution function, checks
 * and the generators' options. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/options.h"
#include "signorini/size_dist.h"

sg_size_dist sg_size_mono(double r) {
  sg_size_dist d = {.kind = SG_SIZE_UNIFORM, .lo = r, .hi = r};
  return d;
}

static double normal_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* x with normal_cdf(x) = p, p in (0, 1): bisection on erfc, 200 halvings of [-40, 40] reach the
 * spacing of doubles (the cost is per inserted body, not per step of the solver). */
static double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int k = 0; k < 200 && hi - lo > 0; ++k) {
    double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    if (normal_cdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

double sg_size_sample(const sg_size_dist *d, double u) {
  switch (d->kind) {
    case SG_SIZE_LOGNORMAL: { /* truncated: the quantile of u mapped into [F(lo), F(hi)] */
      double mu = log(d->median), a = normal_cdf((log(d->lo) - mu) / d->sigma), b = normal_cdf((log(d->hi) - mu) / d->sigma);
      double p = a + u * (b - a);
      double r = p <= 0 ? d->lo : p >= 1 ? d->hi : exp(mu + d->sigma * normal_quantile(p));
      return fmin(fmax(r, d->lo), d->hi);
    }
    case SG_SIZE_MIXTURE: {
      double acc = 0;
      for (int c = 0; c < d->n_classes - 1; ++c) {
        acc += d->fraction[c];
        if (u < acc) return d->radius[c];
      }
      return d->radius[d->n_classes - 1];
    }
    default: return d->lo + (d->hi - d->lo) * u;
  }
}

static int positive(double x) { return isfinite(x) && x > 0; }

sg_err sg_size_check(const sg_size_dist *d, const char *where) {
  if (d->kind < 0 || d->kind >= SG_SIZE_KINDS) return sg_error_set(SG_ERR_FORMAT, "unknown size distribution %d (%s)", d->kind, where);
  if (!positive(d->lo) || !positive(d->hi) || d->hi < d->lo)
    return sg_error_set(SG_ERR_FORMAT, "sphere radii [%g, %g] must be positive and finite, the smallest first (%s)", d->lo, d->hi, where);
  if (d->kind == SG_SIZE_LOGNORMAL && (!positive(d->median) || !positive(d->sigma)))
    return sg_error_set(SG_ERR_FORMAT, "lognormal sizes: median %g and sigma %g must be positive and finite (%s)", d->median,
                        d->sigma, where);
  if (d->kind != SG_SIZE_MIXTURE) return SG_OK;
  if (d->n_classes < 1 || d->n_classes > SG_SIZE_CLASSES)
    return sg_error_set(SG_ERR_FORMAT, "a size mixture has 1 to %d classes, not %d (%s)", SG_SIZE_CLASSES, d->n_classes, where);
  double sum = 0;
  for (int c = 0; c < d->n_classes; ++c) {
    if (!positive(d->radius[c]) || !positive(d->fraction[c]) || d->radius[c] < d->lo || d->radius[c] > d->hi)
      return sg_error_set(SG_ERR_FORMAT, "size class %d: radius %g and fraction %g must be positive, the radius in [%g, %g] (%s)", c,
                          d->radius[c], d->fraction[c], d->lo, d->hi, where);
    sum += d->fraction[c];
  }
  if (fabs(sum - 1) > 1e-9) return sg_error_set(SG_ERR_FORMAT, "size class fractions sum to %.12g, not 1 (%s)", sum, where);
  return SG_OK;
}

/* "r1:f1,r2:f2,...": radii and number fractions; the support is their range. */
static sg_err parse_mixture(const char *text, sg_size_dist *d) {
  d->kind = SG_SIZE_MIXTURE;
  d->n_classes = 0;
  const char *p = text;
  while (*p) {
    if (d->n_classes == SG_SIZE_CLASSES)
      return sg_error_set(SG_ERR_ARG, "-mixture: at most %d classes (option -mixture %s)", SG_SIZE_CLASSES, text);
    char *end;
    double r = strtod(p, &end), f;
    if (end == p || *end != ':') return sg_error_set(SG_ERR_ARG, "-mixture: expected radius:fraction pairs, comma-separated (option -mixture %s)", text);
    p = end + 1;
    f = strtod(p, &end);
    if (end == p || (*end && *end != ',')) return sg_error_set(SG_ERR_ARG, "-mixture: expected radius:fraction pairs, comma-separated (option -mixture %s)", text);
    d->radius[d->n_classes] = r;
    d->fraction[d->n_classes++] = f;
    p = *end ? end + 1 : end;
  }
  if (!d->n_classes) return sg_error_set(SG_ERR_ARG, "-mixture: no class given (option -mixture)");
  d->lo = d->hi = d->radius[0];
  for (int c = 1; c < d->n_classes; ++c) {
    d->lo = fmin(d->lo, d->radius[c]);
    d->hi = fmax(d->hi, d->radius[c]);
  }
  return SG_OK;
}

sg_err sg_size_from_options(double radius_default, sg_size_dist *d) {
  char kind[16], mixture[256];
  double r, sigma, lo, hi;
  SG_CHECK(sg_opt_choice("-size_dist", "mono", "mono|uniform|lognormal|mixture",
                         "sphere sizes (docs/FORMATS.md, \"Sizes\"): one -radius; uniform in [-radius_min, -radius_max]; lognormal; a -mixture",
                         kind, sizeof kind));
  SG_CHECK(sg_opt_real("-radius", radius_default, 1e-9, 1e9, "sphere radius (m); the median of lognormal sizes", &r));
  SG_CHECK(sg_opt_real("-radius_sigma", 0.2, 1e-6, 10.0, "lognormal sizes: standard deviation of ln r", &sigma));
  SG_CHECK(sg_opt_real("-radius_min", 0.0, 0.0, 1e9, "smallest radius (m; uniform: required; lognormal: default median exp(-3 sigma))", &lo));
  SG_CHECK(sg_opt_real("-radius_max", 0.0, 0.0, 1e9, "largest radius (m; uniform: required; lognormal: default median exp(3 sigma))", &hi));
  SG_CHECK(sg_opt_string("-mixture", "", "size classes radius:fraction,... (m, number fractions summing to 1), for -size_dist mixture", mixture,
                         sizeof mixture, NULL));
  if (!strcmp(kind, "mono")) *d = sg_size_mono(r);
  else if (!strcmp(kind, "uniform")) *d = (sg_size_dist){.kind = SG_SIZE_UNIFORM, .lo = lo, .hi = hi};
  else if (!strcmp(kind, "lognormal"))
    *d = (sg_size_dist){.kind = SG_SIZE_LOGNORMAL, .median = r, .sigma = sigma, .lo = lo > 0 ? lo : r * exp(-3 * sigma),
                        .hi = hi > 0 ? hi : r * exp(3 * sigma)};
  else SG_CHECK(parse_mixture(mixture, d));
  return sg_size_check(d, "options -size_dist, -radius*, -mixture");
}
