/* NCP functions of paper 001 (Macklin et al., non-smooth Newton) used by the NSN solver, inline so
 * that the unit tests check exactly the code the solver runs.
 *   Fischer-Burmeister with complementarity scale r (23)-(27), App. A.1 (93)-(95):
 *     phi(c, lambda) = c + r lambda - sqrt(c^2 + r^2 lambda^2),
 *     dphi/dc = alpha = 1 - c / R,  dphi/dlambda = beta = r (1 - r lambda / R),  R = sqrt(c^2 + r^2 lambda^2),
 *     and at (0, 0) the paper's choice (26)-(27): alpha = 0, beta = r (beta = 1 before scaling by r).
 *   Smooth isotropic friction, App. A.2 (103)-(104): with v = |u_t| (tangential velocity), s = mu lambda_n - |lambda_t|,
 *     R = sqrt(v^2 + r^2 s^2):  W_FB = r (R - r s) / (v + r mu lambda_n - R)
 *     (the printed (104) has v^2 in the denominator; v is right: W_FB = |u_t|^{n+1} / |lambda_t|^{n+1} of (99)-(102)).
 *   The min-map version (105): W_min = 0 if v <= r s, else (v - r s) / (mu lambda_n).
 * A fixed point u_t + W lambda_t = 0 with W = W_FB(u_t, lambda) satisfies Coulomb's law: writing
 * psi = v + r s - R (the FB function of (v, s)), W = r (v - psi) / (psi + r |lambda_t|), and W |lambda_t| = v
 * forces psi (v + r |lambda_t|) = 0. */
#ifndef SIGNORINI_NCP_H
#define SIGNORINI_NCP_H
#include <math.h>

/* phi_FB(c, r lambda) and its partial derivatives (alpha wrt c, beta wrt lambda, the latter including r). */
static inline double sg_fb(double c, double lambda, double r, double *alpha, double *beta) {
  double rl = r * lambda, R = sqrt(c * c + rl * rl);
  if (R == 0) { /* (26)-(27) */
    if (alpha) *alpha = 0;
    if (beta) *beta = r;
    return 0;
  }
  if (alpha) *alpha = 1 - c / R;
  if (beta) *beta = r * (1 - rl / R);
  return c + rl - R;
}

/* W_FB (104, corrected) for tangential speed v >= 0, mu lambda_n = mul > 0, |lambda_t| = lt, scale r > 0.
 * Returns the raw value (may be negative or not finite far outside the cone; callers guard it). The
 * removable 0/0 at v = 0, lambda_t = 0 (sticking, nothing to project) returns 0, the limit v -> 0. */
static inline double sg_friction_w_fb(double v, double mul, double lt, double r) {
  double s = mul - lt, R = sqrt(v * v + r * r * s * s);
  /* q = R - r s without cancellation inside the disc; v + r mu lambda_n - R = v + r lt - q */
  double q = s > 0 ? v * v / (R + r * s) : R - r * s;
  if (q == 0) return 0; /* v = 0 inside the disc: sticking */
  return r * q / (v + r * lt - q);
}

/* W_FB and its partial derivatives wrt v (Wv), mu lambda_n (Wm) and |lambda_t| (Wl), for the exact
 * generalized Jacobian of phi_f = u_t + W lambda_t (ours; the paper holds W constant (37)). With
 * q = R - r s and den = v + r |lambda_t| - q, W = r q / den:
 *   dW/dq = r (v + r lt) / den^2,  dq/dv = v / R,  dq/ds = -r q / R  (s = mul - lt),
 *   Wv = dW/dq v / R - r q / den^2,  Wm = -dW/dq r q / R,  Wl = dW/dq r q / R - r^2 q / den^2.
 * On the cone while sliding (s = 0, W = v / lt) Wv = 1 / lt. At q = 0 (sticking, v = 0) all are 0.
 * Returns W (not finite / negative where sg_friction_w_fb is; the derivatives are then meaningless). */
static inline double sg_friction_w_fb_grad(double v, double mul, double lt, double r, double *Wv, double *Wm, double *Wl) {
  double s = mul - lt, R = sqrt(v * v + r * r * s * s);
  double q = s > 0 ? v * v / (R + r * s) : R - r * s;
  *Wv = *Wm = *Wl = 0;
  if (q == 0) return 0;
  double den = v + r * lt - q, W = r * q / den;
  double dq = r * (v + r * lt) / (den * den), ex = r * q / (den * den);
  *Wv = dq * v / R - ex;
  *Wm = -dq * r * q / R;
  *Wl = dq * r * q / R - r * ex;
  return W;
}

/* W_min (105) and its partial derivatives (as sg_friction_w_fb_grad): W = (v + r lt) / mul - r outside the disc. */
static inline double sg_friction_w_min_grad(double v, double mul, double lt, double r, double *Wv, double *Wm, double *Wl) {
  double s = mul - lt;
  *Wv = *Wm = *Wl = 0;
  if (v <= r * s) return 0;
  *Wv = 1 / mul;
  *Wl = r / mul;
  *Wm = -(v + r * lt) / (mul * mul);
  return (v - r * s) / mul;
}

/* W_min (105). */
static inline double sg_friction_w_min(double v, double mul, double lt, double r) {
  double s = mul - lt;
  return v <= r * s ? 0.0 : (v - r * s) / mul;
}

#endif
