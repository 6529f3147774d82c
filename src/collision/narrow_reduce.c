/* Reduction of a contact polygon to at most 4 points. Four well-spread points support a resting
 * box as well as the full polygon while keeping the contact problem small. */
#include "narrow_internal.h"

/* Twice the signed area of triangle (a, b, c) seen from the side normal points to. */
static double signed_area2(const double *a, const double *b, const double *c, const double *normal) {
  double ab[3], ac[3], x[3];
  v3_sub(ab, b, a);
  v3_sub(ac, c, a);
  v3_cross(x, ab, ac);
  return v3_dot(x, normal);
}

void sg_narrow_reduce(const sg_contact_point *cand, int n, const double *normal, sg_manifold *out) {
  if (n <= 4) {
    for (int i = 0; i < n; ++i)
      sg_narrow_add(out, cand[i].point, cand[i].normal, cand[i].gap, cand[i].feature);
    return;
  }
  int keep[4];
  /* The deepest point carries the largest force; keep it first. */
  keep[0] = 0;
  for (int i = 1; i < n; ++i)
    if (cand[i].gap < cand[keep[0]].gap) keep[0] = i;
  /* Then the farthest from it, measured in the contact plane. */
  keep[1] = keep[0] == 0 ? 1 : 0;
  double best = -1;
  for (int i = 0; i < n; ++i) {
    if (i == keep[0]) continue;
    double d[3];
    v3_sub(d, cand[i].point, cand[keep[0]].point);
    v3_axpy(d, -v3_dot(d, normal), normal);
    double d2 = v3_dot(d, d);
    if (d2 > best) { best = d2; keep[1] = i; }
  }
  /* Third: the largest triangle with the first two, on either side. */
  keep[2] = -1;
  best = -1;
  for (int i = 0; i < n; ++i) {
    if (i == keep[0] || i == keep[1]) continue;
    double area = fabs(signed_area2(cand[keep[0]].point, cand[keep[1]].point, cand[i].point, normal));
    if (area > best) { best = area; keep[2] = i; }
  }
  /* Orient the triangle counter-clockwise about the normal so that "outside an edge" is a
   * negative area; the fourth point adds the most area to the triangle's hull. */
  int tri[3] = {keep[0], keep[1], keep[2]};
  if (signed_area2(cand[tri[0]].point, cand[tri[1]].point, cand[tri[2]].point, normal) < 0) {
    tri[1] = keep[2];
    tri[2] = keep[1];
  }
  keep[3] = -1;
  best = -1;
  for (int i = 0; i < n; ++i) {
    if (i == keep[0] || i == keep[1] || i == keep[2]) continue;
    double gain = 0;
    for (int e = 0; e < 3; ++e) {
      double area = signed_area2(cand[tri[e]].point, cand[tri[(e + 1) % 3]].point, cand[i].point, normal);
      if (area < 0) gain -= area;
    }
    if (gain > best) { best = gain; keep[3] = i; }
  }
  for (int k = 0; k < 4; ++k) {
    const sg_contact_point *c = &cand[keep[k]];
    sg_narrow_add(out, c->point, c->normal, c->gap, c->feature);
  }
}
