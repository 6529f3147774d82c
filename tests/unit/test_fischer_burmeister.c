/* NCP functions of paper 001 (include/signorini/ncp.h) and the NSN solver on one-constraint problems:
 *  1. Fischer-Burmeister with scale r (93)-(95): alpha and beta against central differences (relative
 *     error < 1e-6 at random points away from the kink), the zero set (complementary pairs give 0,
 *     others do not), and the choice (26)-(27) at (0, 0);
 *  2. W_FB (104, with v in the denominator) equals |u|^{n+1} / |lambda|^{n+1} of the fixed-point
 *     iteration (99)-(102) built from phi_FB itself, and a point with W_FB |lambda_t| = v is a zero of
 *     phi_FB(v, r (mu lambda_n - |lambda_t|)) (Coulomb: sliding on the cone, or sticking);
 *  2b. the partial derivatives of W_FB and W_min (sg_friction_w_fb_grad / _min_grad, used by the exact
 *     friction Jacobian of the NSN solver) against central differences, and W_v = 1 / |lambda_t| on the cone;
 *  3. the scalar example of Fig. 9: c = lambda / 4 - 1/8 >= 0 _|_ lambda >= 0 (solution lambda = 1/2):
 *     the min-map with r = 1/4 (the slope) is solved by one Newton step from any start, and
 *     Newton on phi_FB with r = 1/4 converges to 1/2;
 *  4. the 1-D sliding particle of Fig. 6 (u0 = 0.5 m/s, lambda_n = 10 N s, mu = 0.5, m = 20 kg) solved
 *     by the NSN solver as a contact problem: friction impulse 5 N s against the motion (|err| < 1e-6),
 *     final velocity 0.5 - 5/20 = 0.25 m/s. */
#include "sim_util.h"
#include "signorini/ncp.h"

static void check_fb_derivatives(void) {
  unsigned long long seed = 12345;
  double worst = 0;
  for (int k = 0; k < 2000; ++k) {
    double c = sg_test_rand(&seed, -2, 2), l = sg_test_rand(&seed, -2, 2), r = pow(10.0, sg_test_rand(&seed, -4, 2));
    if (sqrt(c * c + r * r * l * l) < 1e-3 * fmax(1.0, r)) continue; /* away from the kink */
    double a, b, h = 1e-6;
    sg_fb(c, l, r, &a, &b);
    double hc = h * fmax(1.0, fabs(c)), hl = h * fmax(1.0 / r, fabs(l));
    double fa = (sg_fb(c + hc, l, r, NULL, NULL) - sg_fb(c - hc, l, r, NULL, NULL)) / (2 * hc);
    double fb = (sg_fb(c, l + hl, r, NULL, NULL) - sg_fb(c, l - hl, r, NULL, NULL)) / (2 * hl);
    worst = fmax(worst, fabs(fa - a) / fmax(1.0, fabs(a)));
    worst = fmax(worst, fabs(fb - b) / fmax(r, fabs(b)));
  }
  printf("FB derivatives vs central differences: worst relative error %.2e\n", worst);
  CHECK(worst < 1e-6);
  double a, b;
  CHECK_NEAR(sg_fb(0, 0, 3.0, &a, &b), 0, 0);
  CHECK_NEAR(a, 0, 0);   /* (26) */
  CHECK_NEAR(b, 3.0, 0); /* (27), times r */
  CHECK_NEAR(sg_fb(0, 2.0, 0.5, NULL, NULL), 0, 1e-15);  /* active: c = 0, lambda > 0 */
  CHECK_NEAR(sg_fb(0.7, 0, 0.5, NULL, NULL), 0, 1e-15);  /* separated: c > 0, lambda = 0 */
  CHECK(sg_fb(-0.1, 0, 0.5, NULL, NULL) < 0);            /* penetrating without force */
  CHECK(sg_fb(0.1, 1.0, 0.5, NULL, NULL) > 0);           /* force at a gap */
  CHECK(sg_fb(0, -1.0, 0.5, NULL, NULL) < 0);            /* pulling */
}

static void check_w_fb(void) {
  unsigned long long seed = 777;
  double worst = 0, worst_fp = 0;
  int n = 0;
  for (int k = 0; k < 2000; ++k) {
    double v = sg_test_rand(&seed, 0, 2), mul = sg_test_rand(&seed, 0.01, 2), lt = sg_test_rand(&seed, 0.001, 3);
    double r = pow(10.0, sg_test_rand(&seed, -3, 1));
    double psi = sg_fb(v, mul - lt, r, NULL, NULL);  /* (32) with FB and scale r */
    double v1 = v - psi, l1 = lt + psi / r;          /* (99), (101) */
    double W = sg_friction_w_fb(v, mul, lt, r);
    if (!(l1 > 1e-9)) continue;                      /* (103) undefined: the guard's case */
    worst = fmax(worst, fabs(W - v1 / l1) / fmax(1e-12, fabs(v1 / l1)));
    ++n;
  }
  printf("W_FB vs (99)-(103) on %d points: worst relative difference %.2e\n", n, worst);
  CHECK(worst < 1e-9);
  /* fixed points of u_t + W lambda_t = 0: sliding with |lambda_t| = mu lambda_n, and sticking inside */
  for (int k = 0; k < 200; ++k) {
    double v = sg_test_rand(&seed, 1e-3, 2), mul = sg_test_rand(&seed, 0.01, 2), r = pow(10.0, sg_test_rand(&seed, -3, 1));
    double W = sg_friction_w_fb(v, mul, mul, r);   /* on the cone, sliding at speed v */
    worst_fp = fmax(worst_fp, fabs(W * mul - v) / v); /* W |lambda_t| = v: the fixed point holds */
    double lt = sg_test_rand(&seed, 0, 0.99) * mul; /* sticking inside the cone: W = 0, u_t = 0 */
    CHECK_NEAR(sg_friction_w_fb(0, mul, lt, r), 0, 0);
  }
  printf("W_FB on the cone: worst |W mu lambda_n - v| / v = %.2e\n", worst_fp);
  CHECK(worst_fp < 1e-10); /* rounding of R - r s near v << r mu lambda_n */
  /* a fixed point off the cone is not a fixed point: inside the cone while sliding gives W |lambda| < v */
  CHECK(sg_friction_w_fb(0.5, 5.0, 2.0, 0.05) * 2.0 < 0.5);
  /* W_min (105) */
  CHECK_NEAR(sg_friction_w_min(0.5, 5.0, 5.0, 0.05), 0.1, 1e-15);
  CHECK_NEAR(sg_friction_w_min(0.0, 5.0, 2.0, 0.05), 0.0, 0);
}

static void check_scalar_example(void) {
  const double r = 0.25;
  for (int s = 0; s < 5; ++s) { /* min-map, r = slope: one step from anywhere */
    double l = -1.0 + s, c = l / 4 - 0.125;
    double phi = fmin(c, r * l), dphi = c <= r * l ? 0.25 : r;
    l -= phi / dphi;
    CHECK_NEAR(l, 0.5, 1e-14);
  }
  double l = 3.0;
  int it = 0;
  for (; it < 50; ++it) {
    double a, b, phi = sg_fb(l / 4 - 0.125, l, r, &a, &b);
    if (fabs(phi) < 1e-14) break;
    l -= phi / (a * 0.25 + b);
  }
  printf("scalar example c = lambda/4 - 1/8: FB Newton reaches lambda = %.15f in %d steps\n", l, it);
  CHECK_NEAR(l, 0.5, 1e-12);
}

static void check_sliding_particle(void) {
  sg_problem p;
  memset(&p, 0, sizeof p);
  const double m = 20.0, u0 = 0.5, ln = 10.0, mu = 0.5;
  /* a point mass: A = m I, b = m v_free with v_free = (u0, 0, -ln/m): the plane removes exactly ln */
  double A[9] = {m, 0, 0, 0, m, 0, 0, 0, m}, b[3] = {m * u0, 0, -ln};
  int sub, con;
  CHECK_OK(sg_problem_add_subsystem(&p, 3, A, b, 0, &sub));
  double J[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0}, e[3] = {0, 0, 0}; /* rows: normal z, tangents x, y */
  const double *Js[1] = {J};
  CHECK_OK(sg_problem_add_constraint(&p, SG_CON_CONTACT, e, mu, 0, 0, 1, &sub, Js, &con));
  sg_solver *s = sim_solver("nsn", 1e-12, 200);
  double v[3] = {0, 0, 0}, lam[3] = {0, 0, 0};
  sg_solve_info info;
  CHECK_OK(sg_solver_solve(s, &p, v, lam, &info));
  printf("sliding particle: lambda = (%.9f, %.9f, %.9f) N s, v = (%.9f, %.9f, %.9f) m/s, %d Newton steps\n", lam[0], lam[1],
         lam[2], v[0], v[1], v[2], info.iterations);
  CHECK(info.converged);
  CHECK_NEAR(lam[0], ln, 1e-6);
  CHECK_NEAR(lam[1], -mu * ln, 1e-6); /* 5 N s against the motion */
  CHECK_NEAR(lam[2], 0, 1e-9);
  CHECK_NEAR(v[0], u0 - mu * ln / m, 1e-7);
  CHECK_NEAR(v[2], 0, 1e-7);
  sg_solver_destroy(&s);
  sg_problem_destroy(&p);
}

static void check_w_grad(void) {
  unsigned long long seed = 4242;
  double worst = 0;
  for (int k = 0; k < 4000; ++k) {
    int wmin = k & 1;
    double v = sg_test_rand(&seed, 0.01, 2), mul = sg_test_rand(&seed, 0.05, 2), lt = sg_test_rand(&seed, 0.01, 3);
    double r = pow(10.0, sg_test_rand(&seed, -2, 1)), g[3], x[3] = {v, mul, lt};
    double W = wmin ? sg_friction_w_min_grad(v, mul, lt, r, g, g + 1, g + 2) : sg_friction_w_fb_grad(v, mul, lt, r, g, g + 1, g + 2);
    double W0 = wmin ? sg_friction_w_min(v, mul, lt, r) : sg_friction_w_fb(v, mul, lt, r);
    CHECK_NEAR(W, W0, 1e-12 * fmax(1.0, fabs(W0)));
    if (!(W > 0) || !isfinite(W) || W > 1e6) continue;
    if (wmin && fabs(v - r * (mul - lt)) < 1e-3) continue; /* the kink of (105) */
    for (int a = 0; a < 3; ++a) {
      double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, h = 1e-6 * fmax(1e-2, x[a]);
      xp[a] += h; xm[a] -= h;
      double fp = wmin ? sg_friction_w_min(xp[0], xp[1], xp[2], r) : sg_friction_w_fb(xp[0], xp[1], xp[2], r);
      double fm = wmin ? sg_friction_w_min(xm[0], xm[1], xm[2], r) : sg_friction_w_fb(xm[0], xm[1], xm[2], r);
      if (!(fp > 0) || !(fm > 0)) continue;
      double fd = (fp - fm) / (2 * h);
      worst = fmax(worst, fabs(fd - g[a]) / fmax(1.0, fabs(g[a])));
    }
  }
  printf("W_FB / W_min derivatives vs central differences: worst relative error %.2e\n", worst);
  CHECK(worst < 1e-5);
  double g[3];
  sg_friction_w_fb_grad(0.3, 2.0, 2.0, 0.7, g, g + 1, g + 2); /* sliding on the cone: W_v |lambda_t| = 1 */
  CHECK_NEAR(g[0] * 2.0, 1.0, 1e-12);
  CHECK_NEAR(sg_friction_w_fb_grad(0, 2.0, 1.0, 0.7, g, g + 1, g + 2), 0, 0); /* sticking: W = 0, no slope */
  CHECK_NEAR(g[0], 0, 0);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  check_fb_derivatives();
  check_w_fb();
  check_w_grad();
  check_scalar_example();
  check_sliding_particle();
  return sim_finish();
}
