/* Friction-cone operators. Contact vectors are ordered (normal, tangent 1, tangent 2). */
#ifndef SIGNORINI_CONE_H
#define SIGNORINI_CONE_H
#include <math.h>

/* Strict operator, paper 002 (17): lambda_n = max(lstar_n, 0), then lambda_t is the projection of
 * lstar_t onto the disc of radius mu lambda_n (a nested projection, not the Euclidean one). */
static inline void sg_cone_project_strict(double mu, const double *lstar, double *out) {
  double ln = lstar[0] > 0 ? lstar[0] : 0.0;
  double t1 = lstar[1], t2 = lstar[2];
  double r = mu * ln, nt2 = t1 * t1 + t2 * t2;
  if (nt2 > r * r) { /* squares compared: a sticking contact takes no square root or division */
    double nt = sqrt(nt2), s = nt > 0 ? r / nt : 0.0;
    t1 *= s;
    t2 *= s;
  }
  out[0] = ln; out[1] = t1; out[2] = t2;
}

/* Euclidean projection onto the Coulomb cone C = {||x_t|| <= mu x_n} (the proximal operator of its
 * indicator, paper 002 (21)): inside -> x; in the polar cone {mu ||x_t|| <= -x_n} -> 0; otherwise
 * onto the cone's surface along the generator in the direction of x_t. */
static inline void sg_cone_project_euclid(double mu, const double *x, double *out) {
  double n = x[0], nt = sqrt(x[1] * x[1] + x[2] * x[2]);
  if (n >= 0 && nt <= mu * n) { /* n >= 0: with mu = 0 and x_t = 0, nt <= mu n reads 0 <= -0 for n < 0 */
    out[0] = n; out[1] = x[1]; out[2] = x[2];
  } else if (mu * nt <= -n) {
    out[0] = out[1] = out[2] = 0.0;
  } else {
    double ln = (n + mu * nt) / (1.0 + mu * mu), s = nt > 0 ? mu * ln / nt : 0.0;
    out[0] = ln; out[1] = x[1] * s; out[2] = x[2] * s;
  }
}

/* The Euclidean projection and its derivative D = d out / d x (3x3 row-major), paper 002 (23):
 * open (polar cone) 0; stick (inside) I; slip (onto the surface), with s = ||x_t||, t = x_t / s and
 * P = I2 - t t^T:  D = 1/(1 + mu^2) [[1, mu t^T], [mu t, mu^2 I2 + mu x_n / s P]]  (normal first),
 * symmetric and positive semidefinite (eigenvalues 1, 0 and mu out_n / s in (0, 1]). The regime is
 * decided by the same tests as sg_cone_project_euclid. Returns 0 open, 1 stick, 2 slip. */
static inline int sg_cone_project_euclid_jac(double mu, const double *x, double *out, double *D) {
  double n = x[0], nt = sqrt(x[1] * x[1] + x[2] * x[2]);
  for (int k = 0; k < 9; ++k) D[k] = 0.0;
  if (n >= 0 && nt <= mu * n) {
    out[0] = n; out[1] = x[1]; out[2] = x[2];
    D[0] = D[4] = D[8] = 1.0;
    return 1;
  }
  if (mu * nt <= -n) {
    out[0] = out[1] = out[2] = 0.0;
    return 0;
  }
  /* slip: nt > 0 here (nt = 0 would need n < 0 and n > 0) */
  double c = 1.0 / (1.0 + mu * mu), ln = (n + mu * nt) / (1.0 + mu * mu), t1 = x[1] / nt, t2 = x[2] / nt;
  double q = mu * n / nt;
  double sc = mu * ln / nt; /* the same arithmetic as sg_cone_project_euclid */
  out[0] = ln; out[1] = x[1] * sc; out[2] = x[2] * sc;
  D[0] = c;
  D[1] = D[3] = c * mu * t1;
  D[2] = D[6] = c * mu * t2;
  D[4] = c * (mu * mu + q * (1.0 - t1 * t1));
  D[8] = c * (mu * mu + q * (1.0 - t2 * t2));
  D[5] = D[7] = c * (-q * t1 * t2);
  return 2;
}

#endif
