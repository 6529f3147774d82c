/* Friction-cone operators. Contact vectors are ordered (normal, tangent 1, tangent 2). */
#ifndef SIGNORINI_CONE_H
#define SIGNORINI_CONE_H
#include <math.h>

/* Strict operator, paper 002 (17): lambda_n = max(lstar_n, 0), then lambda_t is the projection of
 * lstar_t onto the disc of radius mu lambda_n (a nested projection, not the Euclidean one). */
static inline void sg_cone_project_strict(double mu, const double *lstar, double *out) {
  double ln = lstar[0] > 0 ? lstar[0] : 0.0;
  double t1 = lstar[1], t2 = lstar[2];
  double r = mu * ln, nt = sqrt(t1 * t1 + t2 * t2);
  if (nt > r) {
    double s = nt > 0 ? r / nt : 0.0;
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
  if (nt <= mu * n) {
    out[0] = n; out[1] = x[1]; out[2] = x[2];
  } else if (mu * nt <= -n) {
    out[0] = out[1] = out[2] = 0.0;
  } else {
    double ln = (n + mu * nt) / (1.0 + mu * mu), s = nt > 0 ? mu * ln / nt : 0.0;
    out[0] = ln; out[1] = x[1] * s; out[2] = x[2] * s;
  }
}

#endif
