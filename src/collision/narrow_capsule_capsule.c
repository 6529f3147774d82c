/* Capsule against capsule: closest points of the two segments. Parallel capsules touch along a
 * line, so they get a point at each end of the overlap of the segments (stable side by side). */
#include "narrow_internal.h"

static double point_distance(const double *x, const double *y) {
  double d[3];
  v3_sub(d, x, y);
  return v3_norm(d);
}

int sg_collide_capsule_capsule(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  double a0[3], a1[3], ua[3], b0[3], b1[3], ub[3];
  sg_narrow_capsule_segment(a, a0, a1, ua);
  sg_narrow_capsule_segment(b, b0, b1, ub);
  double ra = a->size[0], rb = b->size[0];

  /* Fallback normal for touching axes: the common perpendicular (parallel axes: any perpendicular),
   * turned toward a's centre so that it does not flip with the argument order. */
  double fallback[3], centres[3];
  v3_cross(fallback, ua, ub);
  double sin_angle = v3_norm(fallback);
  if (sin_angle > SG_NARROW_PARALLEL_SIN) v3_scale(fallback, fallback, 1.0 / sin_angle);
  else sg_narrow_perpendicular(fallback, ua);
  v3_sub(centres, a->pos, b->pos);
  if (v3_dot(fallback, centres) < 0) v3_scale(fallback, fallback, -1.0);

  double s, t, pa[3], pb[3];
  sg_narrow_segment_closest(a0, a1, b0, b1, &s, &t);
  v3_copy(pa, a0);
  v3_axpy(pa, 2.0 * a->size[1] * s, ua);
  v3_copy(pb, b0);
  v3_axpy(pb, 2.0 * b->size[1] * t, ub);

  if (sin_angle <= SG_NARROW_PARALLEL_SIN && a->size[1] > 0 && b->size[1] > 0) {
    /* Overlap of b's segment projected on a's axis, as arc length from a0. */
    double d0[3], d1[3];
    v3_sub(d0, b0, a0);
    v3_sub(d1, b1, a0);
    double t0 = v3_dot(d0, ua), t1 = v3_dot(d1, ua);
    double lo = fmax(0.0, fmin(t0, t1)), hi = fmin(2.0 * a->size[1], fmax(t0, t1));
    /* Ends closer than this add no support against rolling: one point is enough. */
    if (hi - lo > 1e-3 * (ra + rb)) {
      double end_dist[2];
      for (uint32_t end = 0; end < 2; ++end) {
        double xa[3], xb[3];
        v3_copy(xa, a0);
        v3_axpy(xa, end ? hi : lo, ua);
        double tb = sg_narrow_segment_param(b0, b1, xa);
        v3_copy(xb, b0);
        v3_axpy(xb, 2.0 * b->size[1] * tb, ub);
        end_dist[end] = point_distance(xa, xb);
        sg_narrow_sphere_pair(xa, ra, xb, rb, fallback, margin, 16 + end, out);
      }
      /* The distance along the overlap is convex; when nearly parallel axes cross inside it, the
       * deepest pair lies between the ends and is reported as well. */
      double closest = point_distance(pa, pb);
      if (closest < fmin(end_dist[0], end_dist[1]) - 1e-9 * (ra + rb))
        sg_narrow_sphere_pair(pa, ra, pb, rb, fallback, margin, 18, out);
      return out->n;
    }
  }
  sg_narrow_sphere_pair(pa, ra, pb, rb, fallback, margin, 0, out);
  return out->n;
}
