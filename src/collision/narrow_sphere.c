/* Sphere against every shape: each reduces to the closest point of the other shape to the
 * sphere's centre, so one point per pair (feature 0). */
#include "narrow_internal.h"

int sg_narrow_sphere_pair(const double *ca, double ra, const double *cb, double rb,
                          const double *fallback_normal, double margin, uint32_t feature,
                          sg_manifold *out) {
  double n[3];
  v3_sub(n, ca, cb);
  double dist = v3_norm(n);
  double gap = dist - ra - rb;
  if (!(gap < margin)) return 0;
  /* Below a relative 1e-12 the direction is rounding noise: use the fixed fallback instead. */
  if (dist > 0 && dist > 1e-12 * (ra + rb)) v3_scale(n, n, 1.0 / dist);
  else v3_copy(n, fallback_normal);
  double surface_b[3];
  v3_copy(surface_b, cb);
  v3_axpy(surface_b, rb, n);
  sg_narrow_add_from_b(out, surface_b, n, gap, feature);
  return 1;
}

int sg_collide_sphere_centres(const double *ca, double ra, const double *cb, double rb, double margin, sg_manifold *out) {
  static const double up[3] = {0, 0, 1};
  out->n = 0;
  sg_narrow_sphere_pair(ca, ra, cb, rb, up, margin, 0, out);
  return out->n;
}

int sg_collide_sphere_sphere(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  return sg_collide_sphere_centres(a->pos, a->size[0], b->pos, b->size[0], margin, out);
}

int sg_collide_sphere_capsule(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  double q0[3], q1[3], axis[3], perp[3], closest[3];
  sg_narrow_capsule_segment(b, q0, q1, axis);
  double t = sg_narrow_segment_param(q0, q1, a->pos);
  v3_copy(closest, q0);
  v3_axpy(closest, 2.0 * b->size[1] * t, axis);
  /* A centre on the axis: push out sideways, the direction in which the capsule is thinnest. */
  sg_narrow_perpendicular(perp, axis);
  sg_narrow_sphere_pair(a->pos, a->size[0], closest, b->size[0], perp, margin, 0, out);
  return out->n;
}

int sg_collide_sphere_plane(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  double n[3], d[3];
  m3_col(n, b->R, 2);
  v3_sub(d, a->pos, b->pos);
  double height = v3_dot(d, n);
  double gap = height - a->size[0];
  if (!(gap < margin)) return 0;
  double foot[3]; /* projection of the centre on the plane: B's surface point */
  v3_copy(foot, a->pos);
  v3_axpy(foot, -height, n);
  sg_narrow_add_from_b(out, foot, n, gap, 0);
  return out->n;
}

int sg_collide_sphere_box(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  const double *h = b->size;
  double r = a->size[0];
  double rel[3], c[3], q[3], diff[3];
  v3_sub(rel, a->pos, b->pos);
  m3t_mul_v(c, b->R, rel); /* centre in the box frame */
  for (int i = 0; i < 3; ++i) q[i] = c[i] < -h[i] ? -h[i] : (c[i] > h[i] ? h[i] : c[i]);
  v3_sub(diff, c, q);
  double dist2 = v3_dot(diff, diff);
  double n[3], surface_b[3], gap;
  if (dist2 > 0) {
    /* Outside: the clamped point is the closest; the difference is exact along unclamped axes. */
    double dist = sqrt(dist2);
    gap = dist - r;
    if (!(gap < margin)) return 0;
    v3_scale(diff, diff, 1.0 / dist);
    m3_mul_v(n, b->R, diff);
    m3_mul_v(surface_b, b->R, q);
  } else {
    /* Centre inside (or on) the box: leave through the nearest face. */
    int k = 0;
    for (int i = 1; i < 3; ++i)
      if (h[i] - fabs(c[i]) < h[k] - fabs(c[k])) k = i;
    double side = c[k] >= 0 ? 1.0 : -1.0;
    gap = -(h[k] - fabs(c[k])) - r;
    if (!(gap < margin)) return 0;
    m3_col(n, b->R, k);
    v3_scale(n, n, side);
    q[k] = side * h[k];
    m3_mul_v(surface_b, b->R, q);
  }
  v3_add(surface_b, surface_b, b->pos);
  sg_narrow_add_from_b(out, surface_b, n, gap, 0);
  return out->n;
}
