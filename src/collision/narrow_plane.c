/* Box and capsule against a plane: every vertex (box) or segment end (capsule) below
 * margin is a contact, so a resting box gets its 4 corners and a lying capsule its 2 ends. */
#include "narrow_internal.h"

/* Contact of a point of A at height above the plane, A's surface lying `inset` below the point
 * (the capsule radius; 0 for a box vertex). */
static void add_point_on_plane(const double *x, double inset, const sg_geom *plane,
                               double margin, uint32_t feature, sg_manifold *out) {
  double n[3], d[3], foot[3];
  m3_col(n, plane->R, 2);
  v3_sub(d, x, plane->pos);
  double height = v3_dot(d, n);
  double gap = height - inset;
  if (!(gap < margin)) return;
  v3_copy(foot, x);
  v3_axpy(foot, -height, n);
  sg_narrow_add_from_b(out, foot, n, gap, feature);
}

int sg_collide_box_plane(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  for (uint32_t v = 0; v < 8; ++v) {
    /* Bit k of the vertex index selects the - side of axis k. */
    double local[3], x[3];
    for (int k = 0; k < 3; ++k) local[k] = (v >> k & 1u) ? -a->size[k] : a->size[k];
    m3_mul_v(x, a->R, local);
    v3_add(x, x, a->pos);
    add_point_on_plane(x, 0.0, b, margin, v, out);
  }
  return out->n;
}

int sg_collide_capsule_plane(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  double p[2][3], axis[3];
  sg_narrow_capsule_segment(a, p[0], p[1], axis);
  /* A zero-length segment is a sphere: one end only, never two coincident points. */
  uint32_t ends = a->size[1] > 0 ? 2u : 1u;
  for (uint32_t end = 0; end < ends; ++end) add_point_on_plane(p[end], a->size[0], b, margin, end, out);
  return out->n;
}
