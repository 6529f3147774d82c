/* The derivative (23) of the Euclidean projection onto the Coulomb cone (paper 002, CANAL's Newton
 * matrix (24)) against central finite differences, on random inputs in each regime (open: the polar
 * cone, stick: inside, slip: projected onto the surface) and for mu in [0.05, 2]. Points closer than
 * 1e-3 (relative) to a regime boundary are redrawn, so the stencil (h = 1e-6 relative) stays inside one
 * smooth piece. Central differences err by O(h^2 |f'''|) ~ 1e-12 / s^2 (the slip piece curves like
 * 1/s, s = ||x_t|| >= 1e-3 here) plus O(eps / h) ~ 1e-10 round-off: the tolerance 1e-6 (relative to
 * max(1, |x|)) leaves four orders of margin and still catches any wrong entry of (23). Also checks that
 * D is symmetric and positive semidefinite (x^T D x >= 0), that the value agrees with
 * sg_cone_project_euclid, and that the open/stick pieces are exactly 0 and I. Then the degenerate
 * cone mu = 0 (frictionless: the ray x_t = 0, x_n >= 0), where the projection is (max(x_n, 0), 0, 0)
 * exactly, with x_t = 0 included (a negative normal with no tangential part is open, not inside). */
#include <string.h>
#include "signorini/cone.h"
#include "test_util.h"

static int regime_of(double mu, const double *x) {
  double n = x[0], s = sqrt(x[1] * x[1] + x[2] * x[2]);
  return n >= 0 && s <= mu * n ? 1 : (mu * s <= -n ? 0 : 2);
}

/* relative distance to the two boundary surfaces s = mu n and mu s = -n */
static double boundary_distance(double mu, const double *x) {
  double n = x[0], s = sqrt(x[1] * x[1] + x[2] * x[2]), sc = sqrt(1 + mu * mu);
  double d1 = fabs(s - mu * n) / sc, d2 = fabs(mu * s + n) / sc, nx = sqrt(n * n + s * s);
  return fmin(d1, d2) / fmax(nx, 1e-300);
}

int main(void) {
  unsigned long long seed = 0x9e3779b97f4a7c15ULL;
  int count[3] = {0, 0, 0};
  double worst = 0;
  for (int trial = 0; trial < 30000 && (count[0] < 300 || count[1] < 300 || count[2] < 300); ++trial) {
    double mu = sg_test_rand(&seed, 0.05, 2.0), scale = pow(10.0, sg_test_rand(&seed, -3, 3)), x[3];
    for (int k = 0; k < 3; ++k) x[k] = scale * sg_test_rand(&seed, -1, 1);
    if (boundary_distance(mu, x) < 1e-3 || sqrt(x[1] * x[1] + x[2] * x[2]) < 1e-3 * scale) continue;
    int reg = regime_of(mu, x);
    double out[3], ref[3], D[9];
    int got = sg_cone_project_euclid_jac(mu, x, out, D);
    CHECK(got == reg);
    sg_cone_project_euclid(mu, x, ref);
    for (int k = 0; k < 3; ++k) CHECK(out[k] == ref[k]);
    double nx = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]), h = 1e-6 * nx, err = 0;
    for (int c = 0; c < 3; ++c) {
      double xp[3], xm[3], fp[3], fm[3];
      memcpy(xp, x, sizeof xp);
      memcpy(xm, x, sizeof xm);
      xp[c] += h;
      xm[c] -= h;
      sg_cone_project_euclid(mu, xp, fp);
      sg_cone_project_euclid(mu, xm, fm);
      for (int r = 0; r < 3; ++r) err = fmax(err, fabs((fp[r] - fm[r]) / (2 * h) - D[3 * r + c]));
    }
    worst = fmax(worst, err);
    CHECK(err <= 1e-6);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) CHECK(D[3 * r + c] == D[3 * c + r]);
    for (int k = 0; k < 5; ++k) { /* positive semidefinite */
      double y[3], q = 0;
      for (int r = 0; r < 3; ++r) y[r] = sg_test_rand(&seed, -1, 1);
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) q += y[r] * D[3 * r + c] * y[c];
      CHECK(q >= -1e-14);
    }
    if (reg != 2)
      for (int k = 0; k < 9; ++k) CHECK(D[k] == (reg == 1 && k % 4 == 0 ? 1.0 : 0.0));
    count[reg]++;
  }
  printf("cone derivative: %d open, %d stick, %d slip points; largest |D - central difference| = %.3e (tolerance 1e-6)\n",
         count[0], count[1], count[2], worst);
  CHECK(count[0] >= 300 && count[1] >= 300 && count[2] >= 300);
  const double frictionless[][3] = {{-1, 0, 0}, {-1, 0.5, -0.25}, {2, 0, 0}, {2, 0.5, 1}, {0, 0, 0}, {0, 1, 0}};
  for (int k = 0; k < 6; ++k) {
    const double *x = frictionless[k];
    double out[3], D[9];
    sg_cone_project_euclid(0.0, x, out);
    CHECK(out[0] == fmax(x[0], 0.0) && out[1] == 0.0 && out[2] == 0.0);
    sg_cone_project_euclid_jac(0.0, x, out, D);
    CHECK(out[0] == fmax(x[0], 0.0) && out[1] == 0.0 && out[2] == 0.0);
    if (x[0] != 0) CHECK(D[0] == (x[0] > 0 ? 1.0 : 0.0)); /* d out_n / d x_n (either at the kink x_n = 0) */
  }
  return sg_test_exit();
}
