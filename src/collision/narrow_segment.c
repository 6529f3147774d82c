/* Closest points between segments, used by every capsule pair and by the box edge tests. */
#include "narrow_internal.h"

static double clamp01(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }

double sg_narrow_segment_param(const double *p0, const double *p1, const double *x) {
  double d[3], r[3];
  v3_sub(d, p1, p0);
  v3_sub(r, x, p0);
  double dd = v3_dot(d, d);
  return dd > 0 ? clamp01(v3_dot(r, d) / dd) : 0.0;
}

void sg_narrow_segment_closest(const double *p0, const double *p1, const double *q0,
                               const double *q1, double *s, double *t) {
  double d1[3], d2[3], r[3];
  v3_sub(d1, p1, p0);
  v3_sub(d2, q1, q0);
  v3_sub(r, p0, q0);
  double a = v3_dot(d1, d1), e = v3_dot(d2, d2), f = v3_dot(d2, r);
  if (a <= 0 && e <= 0) { *s = 0; *t = 0; return; }
  if (a <= 0) { *s = 0; *t = clamp01(f / e); return; }
  double c = v3_dot(d1, r);
  if (e <= 0) { *t = 0; *s = clamp01(-c / a); return; }
  double b = v3_dot(d1, d2);
  double denom = a * e - b * b; /* = |d1 x d2|^2 >= 0 */
  /* Parallel segments: any s works for the infinite lines; start from s = 0 and let the clamping
   * below find a closest pair of the finite segments. */
  double s_val = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0.0;
  double t_val = (b * s_val + f) / e;
  /* t outside [0, 1]: clamp it and recompute s for that end of the second segment. */
  if (t_val < 0) { t_val = 0; s_val = clamp01(-c / a); }
  else if (t_val > 1) { t_val = 1; s_val = clamp01((b - c) / a); }
  *s = s_val;
  *t = t_val;
}
