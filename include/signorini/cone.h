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

#endif
