/* Paper 002 Prop. 2: with lambda = Pi_strict(lambda*) (17) and beta z = lambda - lambda* ((13)
 * with u = 0, e = 0, lambda* = -beta J v), the pair (z, lambda) satisfies the Signorini-Coulomb
 * conditions (5) exactly: 0 <= lambda_n _|_ z_n >= 0, ||lambda_t|| <= mu lambda_n, and
 * stick (z_t = 0) or slip (z_t = -delta lambda_t / (mu lambda_n), delta >= 0). Checked to 1e-12
 * (relative to the input size) on random inputs drawn in each regime. */
#include "signorini/cone.h"
#include "test_util.h"

static int check_scc(double mu, double beta, const double *lstar, int expect_regime) {
  double l[3], z[3];
  sg_cone_project_strict(mu, lstar, l);
  for (int r = 0; r < 3; ++r) z[r] = (l[r] - lstar[r]) / beta;
  double scale = fabs(lstar[0]) + fabs(lstar[1]) + fabs(lstar[2]) + 1.0, tol = 1e-12 * scale;
  int fails = 0;
  double nt = sqrt(l[1] * l[1] + l[2] * l[2]), nz = sqrt(z[1] * z[1] + z[2] * z[2]);
  if (!(l[0] >= 0)) fails++;
  if (!(z[0] >= -tol)) fails++;
  if (!(fabs(l[0] * z[0]) <= tol * scale)) fails++;
  if (!(nt <= mu * l[0] + tol)) fails++;
  int regime = l[0] == 0 ? 0 : (nt < mu * l[0] - tol ? 1 : 2); /* open, stick, slip */
  if (regime == 1 && !(nz <= tol)) fails++;
  if (regime == 2) {
    /* z_t anti-parallel to lambda_t: z_t = -delta lambda_t / (mu lambda_n) with delta >= 0 */
    double cross = l[1] * z[2] - l[2] * z[1], dot = l[1] * z[1] + l[2] * z[2];
    if (!(fabs(cross) <= tol * scale)) fails++;
    if (!(dot <= tol * scale)) fails++;
  }
  if (regime != expect_regime) fails++;
  if (fails)
    fprintf(stderr, "regime %d (expected %d): lstar (%g %g %g) -> lambda (%g %g %g), z (%g %g %g)\n", regime,
            expect_regime, lstar[0], lstar[1], lstar[2], l[0], l[1], l[2], z[0], z[1], z[2]);
  return fails;
}

int main(void) {
  unsigned long long seed = 12345;
  for (int k = 0; k < 20000; ++k) {
    double mu = sg_test_rand(&seed, 0.0, 2.0), beta = pow(10.0, sg_test_rand(&seed, -3, 6));
    double mag = pow(10.0, sg_test_rand(&seed, -6, 6)), phi = sg_test_rand(&seed, 0, 2 * M_PI);
    double ls[3];
    int regime = k % 3;
    if (regime == 0) { /* open: negative normal */
      ls[0] = -mag * sg_test_rand(&seed, 0.01, 1);
      ls[1] = mag * cos(phi); ls[2] = mag * sin(phi);
    } else if (regime == 1) { /* stick: strictly inside the cone */
      ls[0] = mag;
      double rt = mu * mag * sg_test_rand(&seed, 0.0, 0.99);
      ls[1] = rt * cos(phi); ls[2] = rt * sin(phi);
    } else { /* slip: outside the disc */
      ls[0] = mag;
      double rt = mu * mag * sg_test_rand(&seed, 1.01, 10.0) + mag * 1e-3;
      ls[1] = rt * cos(phi); ls[2] = rt * sin(phi);
    }
    if (check_scc(mu, beta, ls, regime)) ++sg_test_failures;
    if (sg_test_failures > 10) break;
  }
  /* frictionless slip: any tangential input is dropped */
  double ls[3] = {1, 0.5, -0.2}, l[3];
  sg_cone_project_strict(0.0, ls, l);
  CHECK(l[0] == 1 && l[1] == 0 && l[2] == 0);
  /* the strict operator is not the Euclidean cone projection: lambda_n is never changed by the
   * tangential part (paper 002 Fig. 3) */
  double ls2[3] = {1, 5, 0};
  sg_cone_project_strict(0.5, ls2, l);
  CHECK_NEAR(l[0], 1.0, 0);
  CHECK_NEAR(l[1], 0.5, 1e-15);
  return sg_test_exit();
}
