/* Sphere size distributions (size_dist.h), sampled on a midpoint grid u_k = (k + 1/2)/N, N = 200,000,
 * which makes every average a midpoint-rule integral of the quantile function over (0, 1):
 *  - uniform [lo, hi]: the mean is (lo + hi)/2 to round-off (the quantile is linear);
 *  - lognormal: the quantile inverts the distribution function: F(r(u)) = F(lo) + u (F(hi) - F(lo))
 *    to 1e-12 at every point; with the truncation at +-8 sigma, the mean and standard deviation of
 *    ln r are mu and sigma to 1e-4 (the midpoint rule errs by O(1/N^2) away from the tails and
 *    O(1/N) in the last cell: 1e-4 holds with a margin); truncated at +-1 sigma, every radius lies in
 *    [lo, hi] and the mean radius is the closed form of the truncated lognormal
 *    exp(mu + s^2/2) (Phi(b - s) - Phi(a - s)) / (Phi(b) - Phi(a)) to 1e-6 relative;
 *  - mixture: each class takes its number fraction of the grid to 1/N;
 *  - sg_size_check refuses the malformed ones (zero or negative radii, lo > hi, sigma <= 0,
 *    fractions not summing to 1, a class outside the support);
 *  - generate pile with a mixture: the class counts of 2,000 spheres within 4 standard deviations
 *    of the binomial, and no two spheres overlapping at the start (the lattice is spaced for the
 *    largest radius). */
#include <math.h>
#include <petscsys.h>
#include "signorini/generate.h"
#include "signorini/size_dist.h"
#include "test_util.h"

#define N 200000

static double phi(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

static void uniform(void) {
  sg_size_dist d = {.kind = SG_SIZE_UNIFORM, .lo = 0.5, .hi = 1.5};
  double sum = 0;
  for (int k = 0; k < N; ++k) sum += sg_size_sample(&d, (k + 0.5) / N);
  printf("uniform: mean %.15f (exact 1)\n", sum / N);
  CHECK(fabs(sum / N - 1.0) <= 1e-12);
}

static void lognormal(void) {
  const double med = 0.002, s = 0.3, mu = log(med);
  sg_size_dist d = {.kind = SG_SIZE_LOGNORMAL, .median = med, .sigma = s, .lo = med * exp(-8 * s), .hi = med * exp(8 * s)};
  double m1 = 0, m2 = 0, worst_cdf = 0;
  const double a = phi(-8.0), b = phi(8.0);
  for (int k = 0; k < N; ++k) {
    double u = (k + 0.5) / N, r = sg_size_sample(&d, u), x = log(r);
    worst_cdf = fmax(worst_cdf, fabs(phi((x - mu) / s) - (a + u * (b - a))));
    m1 += x;
    m2 += x * x;
  }
  m1 /= N;
  double sd = sqrt(m2 / N - m1 * m1);
  printf("lognormal: |F(r(u)) - target| <= %.2e; mean ln r %.6f (mu %.6f), sd %.6f (sigma %.6f)\n", worst_cdf, m1, mu, sd, s);
  CHECK(worst_cdf <= 1e-12);
  CHECK(fabs(m1 - mu) <= 1e-4 && fabs(sd - s) <= 1e-4);
  /* truncated to one sigma: all inside, mean as the closed form */
  d.lo = med * exp(-s);
  d.hi = med * exp(s);
  double sum = 0, lo = INFINITY, hi = 0;
  for (int k = 0; k < N; ++k) {
    double r = sg_size_sample(&d, (k + 0.5) / N);
    sum += r;
    lo = fmin(lo, r);
    hi = fmax(hi, r);
  }
  double exact = exp(mu + 0.5 * s * s) * (phi(1 - s) - phi(-1 - s)) / (phi(1) - phi(-1));
  printf("truncated lognormal: radii in [%.6g, %.6g] (support [%.6g, %.6g]); mean %.9g (closed form %.9g)\n", lo, hi, d.lo,
         d.hi, sum / N, exact);
  CHECK(lo >= d.lo && hi <= d.hi);
  CHECK(fabs(sum / N - exact) <= 1e-6 * exact);
}

static void mixture(void) {
  sg_size_dist d = {.kind = SG_SIZE_MIXTURE, .lo = 0.001, .hi = 0.003, .n_classes = 3,
                    .radius = {0.001, 0.002, 0.003}, .fraction = {0.2, 0.5, 0.3}};
  CHECK_OK(sg_size_check(&d, "test"));
  int count[3] = {0, 0, 0};
  for (int k = 0; k < N; ++k) {
    double r = sg_size_sample(&d, (k + 0.5) / N);
    for (int c = 0; c < 3; ++c) count[c] += r == d.radius[c];
  }
  printf("mixture: fractions %.6f %.6f %.6f (0.2 0.5 0.3)\n", (double)count[0] / N, (double)count[1] / N, (double)count[2] / N);
  CHECK(count[0] + count[1] + count[2] == N);
  for (int c = 0; c < 3; ++c) CHECK(fabs((double)count[c] / N - d.fraction[c]) <= 1.0 / N);
}

static void refused(void) {
  sg_size_dist bad[5] = {
      {.kind = SG_SIZE_UNIFORM, .lo = 0, .hi = 1},
      {.kind = SG_SIZE_UNIFORM, .lo = 2, .hi = 1},
      {.kind = SG_SIZE_LOGNORMAL, .lo = 1, .hi = 2, .median = 1.5, .sigma = 0},
      {.kind = SG_SIZE_MIXTURE, .lo = 1, .hi = 2, .n_classes = 2, .radius = {1, 2}, .fraction = {0.5, 0.6}},
      {.kind = SG_SIZE_MIXTURE, .lo = 1, .hi = 2, .n_classes = 2, .radius = {1, 3}, .fraction = {0.5, 0.5}},
  };
  for (int k = 0; k < 5; ++k) {
    sg_error_clear();
    sg_err err = sg_size_check(&bad[k], "test");
    printf("refused %d: %s\n", k, err ? sg_error_message() : "(accepted)");
    CHECK(err == SG_ERR_FORMAT);
  }
}

static void generated_pile(void) {
  PetscOptionsSetValue(NULL, "-n", "2000");
  PetscOptionsSetValue(NULL, "-size_dist", "mixture");
  PetscOptionsSetValue(NULL, "-mixture", "0.005:0.25,0.01:0.75");
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 16, 1));
  CHECK_OK(sg_generate_pile(&s));
  int small = 0, n = 0;
  double worst = INFINITY;
  for (int i = 0; i < s.n; ++i) {
    if (s.fixed[i]) continue;
    n++;
    small += s.size[3 * i] == 0.005;
    for (int j = i + 1; j < s.n; ++j) {
      if (s.fixed[j]) continue;
      const double *p = s.state.pos + 3 * i, *q = s.state.pos + 3 * j;
      double dist = sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
      worst = fmin(worst, dist - s.size[3 * i] - s.size[3 * j]);
    }
  }
  double frac = (double)small / n, sd = sqrt(0.25 * 0.75 / n);
  printf("generate pile -size_dist mixture: %d spheres, %.4f small (0.25 +- %.4f); smallest gap %.3e m\n", n, frac, 4 * sd, worst);
  CHECK(n == 2000 && fabs(frac - 0.25) <= 4 * sd);
  CHECK(worst > 0);
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  PetscInitialize(&argc, &argv, NULL, NULL);
  uniform();
  lognormal();
  mixture();
  refused();
  generated_pile();
  PetscFinalize();
  return sg_test_exit();
}
