/* Box against capsule, in the box frame. A separated segment is closest to the box at one of its
 * ends or at one of the 12 box edges; a segment entering the box is pushed out along the
 * separating axis of least overlap. When the contact normal is a face normal the segment is
 * clipped to that face and both clip ends are reported, so a capsule lying on a face rests on two
 * points (the height over a face is linear along the segment: the deepest point is a clip end). */
#include "narrow_internal.h"

typedef struct {
  const sg_geom *box;
  double p0[3], p1[3]; /* segment in the box frame */
  double r, margin;
  sg_manifold *out;
} box_capsule;

static void to_world(const sg_geom *box, const double *local, double *world) {
  m3_mul_v(world, box->R, local);
  v3_add(world, world, box->pos);
}

static void segment_point(const box_capsule *bc, double t, double *x) {
  for (int k = 0; k < 3; ++k) x[k] = bc->p0[k] + t * (bc->p1[k] - bc->p0[k]);
}

/* Add a point given the closest box point q and the unit direction m from the box toward the
 * capsule (both in the box frame); the normal reported points the other way (capsule to box). */
static void add_local(const box_capsule *bc, const double *q, const double *m, double gap,
                      uint32_t feature) {
  if (!(gap < bc->margin)) return;
  double mid_local[3], mid[3], n[3];
  v3_copy(mid_local, q);
  v3_axpy(mid_local, 0.5 * gap, m); /* B's surface is q + gap m, so the middle is halfway */
  to_world(bc->box, mid_local, mid);
  m3_mul_v(n, bc->box->R, m);
  v3_scale(n, n, -1.0);
  sg_narrow_add(bc->out, mid, n, gap, feature);
}

/* Does the segment cross the (closed) box? Slab clipping of t in [0, 1]. */
static int segment_hits_box(const double *p0, const double *p1, const double *h) {
  double lo = 0, hi = 1;
  for (int k = 0; k < 3; ++k) {
    double d = p1[k] - p0[k];
    if (d == 0) {
      if (fabs(p0[k]) > h[k]) return 0;
      continue;
    }
    double ta = (-h[k] - p0[k]) / d, tb = (h[k] - p0[k]) / d;
    lo = fmax(lo, fmin(ta, tb));
    hi = fmin(hi, fmax(ta, tb));
    if (lo > hi) return 0;
  }
  return 1;
}

/* Both ends of the segment clipped to the side slabs of face (k, side). Returns the number of
 * points added, or -1 when the clip is empty (the caller then reports a single point). */
static int face_points(const box_capsule *bc, int k, double side) {
  const double *h = bc->box->size;
  double lo = 0, hi = 1;
  for (int p = 1; p <= 2; ++p) {
    int j = (k + p) % 3;
    /* Slightly widened so that a segment ending on the face's rim is not lost to rounding. */
    double lim = h[j] * (1 + 1e-9);
    double d = bc->p1[j] - bc->p0[j];
    if (d == 0) {
      if (fabs(bc->p0[j]) > lim) return -1;
      continue;
    }
    double ta = (-lim - bc->p0[j]) / d, tb = (lim - bc->p0[j]) / d;
    lo = fmax(lo, fmin(ta, tb));
    hi = fmin(hi, fmax(ta, tb));
  }
  if (lo > hi) return -1;
  double m[3] = {0, 0, 0};
  m[k] = side;
  uint32_t face = (uint32_t)(2 * k + (side > 0 ? 0 : 1));
  double x[2][3], height[2];
  for (int e = 0; e < 2; ++e) {
    segment_point(bc, e ? hi : lo, x[e]);
    height[e] = side * x[e][k] - h[k];
  }
  double chord[3];
  v3_sub(chord, x[1], x[0]);
  /* Ends closer than this add no support against rolling: keep only the deeper one. */
  int single = v3_norm(chord) <= 1e-3 * bc->r;
  int before = bc->out->n;
  for (int e = 0; e < 2; ++e) {
    if (single && height[e] > height[1 - e]) continue;
    if (single && e == 1 && height[1] == height[0]) continue;
    double q[3];
    for (int i = 0; i < 3; ++i) q[i] = fmax(-h[i], fmin(h[i], x[e][i]));
    q[k] = side * h[k];
    add_local(bc, q, m, height[e] - bc->r, face * 16 + (uint32_t)e);
  }
  return bc->out->n - before;
}

/* Feature of the box point q for a single contact: vertex or edge by its clamped coordinates. */
static uint32_t box_point_feature(const double *q, const double *h, const double *m) {
  int on[3], count = 0;
  for (int i = 0; i < 3; ++i) {
    on[i] = fabs(q[i]) >= h[i] * (1 - 1e-12);
    count += on[i];
  }
  if (count == 3) {
    uint32_t v = 0;
    for (int i = 0; i < 3; ++i) v |= (q[i] < 0 ? 1u : 0u) << i;
    return 112 + v;
  }
  if (count == 2) {
    int i = !on[0] ? 0 : (!on[1] ? 1 : 2);
    uint32_t e = (uint32_t)(i * 4);
    if (q[(i + 1) % 3] < 0) e += 1;
    if (q[(i + 2) % 3] < 0) e += 2;
    return 96 + e;
  }
  /* On a face only through rounding: name the face the normal leaves by, third slot. */
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (fabs(m[i]) > fabs(m[k])) k = i;
  return (uint32_t)(2 * k + (m[k] > 0 ? 0 : 1)) * 16 + 2;
}

/* The segment enters the box: separating axes are the 3 face normals and the segment direction
 * crossed with each box axis; least overlap wins, faces preferred on near ties. */
static void penetrating(const box_capsule *bc) {
  const double *h = bc->box->size;
  double c[3], w[3], u[3];
  for (int k = 0; k < 3; ++k) {
    c[k] = 0.5 * (bc->p0[k] + bc->p1[k]);
    w[k] = 0.5 * (bc->p1[k] - bc->p0[k]);
  }
  v3_copy(u, w);
  double half_len = v3_normalize(u);

  int face = 0;
  double face_overlap = INFINITY, face_side = 1;
  for (int k = 0; k < 3; ++k) {
    double overlap = h[k] + fabs(w[k]) - fabs(c[k]);
    if (overlap < face_overlap) {
      face_overlap = overlap;
      face = k;
      face_side = c[k] >= 0 ? 1.0 : -1.0;
    }
  }
  int edge = -1;
  double edge_overlap = INFINITY, edge_dir[3] = {0, 0, 0};
  if (half_len > 0) {
    for (int i = 0; i < 3; ++i) {
      double e[3] = {0, 0, 0}, L[3];
      e[i] = 1;
      v3_cross(L, u, e);
      if (v3_normalize(L) < 1e-6) continue;
      /* L is normal to the segment, whose projection on it is a single point. */
      double dist = v3_dot(c, L);
      double overlap = h[0] * fabs(L[0]) + h[1] * fabs(L[1]) + h[2] * fabs(L[2]) - fabs(dist);
      if (overlap < edge_overlap) {
        edge_overlap = overlap;
        edge = i;
        v3_scale(edge_dir, L, dist >= 0 ? 1.0 : -1.0);
      }
    }
  }
  double scale = fmin(h[0], fmin(h[1], h[2]));
  if (edge < 0 || !(edge_overlap < face_overlap - (0.05 * face_overlap + 1e-3 * scale))) {
    if (face_points(bc, face, face_side) >= 0) return;
  }
  if (edge < 0) {
    /* Empty face clip (rounding only): one point at the deepest segment end along the face. */
    double m[3] = {0, 0, 0}, q[3];
    m[face] = face_side;
    const double *deep = face_side * bc->p0[face] < face_side * bc->p1[face] ? bc->p0 : bc->p1;
    for (int i = 0; i < 3; ++i) q[i] = fmax(-h[i], fmin(h[i], deep[i]));
    q[face] = face_side * h[face];
    add_local(bc, q, m, face_side * deep[face] - h[face] - bc->r, (uint32_t)(2 * face + (face_side > 0 ? 0 : 1)) * 16 + 2);
    return;
  }
  /* Edge of the box along axis `edge` on the side edge_dir points to. */
  double e0[3], e1[3];
  uint32_t index = (uint32_t)(edge * 4);
  for (int p = 1; p <= 2; ++p) {
    int j = (edge + p) % 3;
    double side = edge_dir[j] >= 0 ? 1.0 : -1.0;
    if (side < 0) index += (uint32_t)p;
    e0[j] = e1[j] = side * h[j];
  }
  e0[edge] = -h[edge];
  e1[edge] = h[edge];
  double s, t, q[3];
  sg_narrow_segment_closest(bc->p0, bc->p1, e0, e1, &s, &t);
  for (int k = 0; k < 3; ++k) q[k] = e0[k] + t * (e1[k] - e0[k]);
  add_local(bc, q, edge_dir, -edge_overlap - bc->r, 96 + index);
}

int sg_collide_box_capsule(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  box_capsule bc = {.box = a, .r = b->size[0], .margin = margin, .out = out};
  const double *h = a->size;
  double w0[3], w1[3], axis[3], rel[3];
  sg_narrow_capsule_segment(b, w0, w1, axis);
  v3_sub(rel, w0, a->pos);
  m3t_mul_v(bc.p0, a->R, rel);
  v3_sub(rel, w1, a->pos);
  m3t_mul_v(bc.p1, a->R, rel);

  if (segment_hits_box(bc.p0, bc.p1, h)) {
    penetrating(&bc);
    return out->n;
  }
  /* Separated segment: closest pair among the two ends and the 12 edges. Ends are tried first
   * and an edge must be closer by a relative 1e-9 to win, so a segment parallel to a face (a tie)
   * is seen from an end and handled as a face contact. */
  double best_d2 = INFINITY, best_p[3] = {0, 0, 0}, best_q[3] = {0, 0, 0};
  for (int e = 0; e < 2; ++e) {
    const double *p = e ? bc.p1 : bc.p0;
    double q[3], d[3];
    for (int i = 0; i < 3; ++i) q[i] = fmax(-h[i], fmin(h[i], p[i]));
    v3_sub(d, p, q);
    double d2 = v3_dot(d, d);
    if (d2 < best_d2) { best_d2 = d2; v3_copy(best_p, p); v3_copy(best_q, q); }
  }
  for (int i = 0; i < 3; ++i)
    for (int signs = 0; signs < 4; ++signs) {
      double e0[3], e1[3], s, t, p[3], q[3], d[3];
      int j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      e0[j1] = e1[j1] = (signs & 1) ? -h[j1] : h[j1];
      e0[j2] = e1[j2] = (signs & 2) ? -h[j2] : h[j2];
      e0[i] = -h[i];
      e1[i] = h[i];
      sg_narrow_segment_closest(bc.p0, bc.p1, e0, e1, &s, &t);
      segment_point(&bc, s, p);
      for (int k = 0; k < 3; ++k) q[k] = e0[k] + t * (e1[k] - e0[k]);
      v3_sub(d, p, q);
      double d2 = v3_dot(d, d);
      if (d2 < best_d2 * (1 - 1e-9)) { best_d2 = d2; v3_copy(best_p, p); v3_copy(best_q, q); }
    }
  double dist = sqrt(best_d2);
  if (!(dist - bc.r < margin)) return 0;
  double m[3];
  v3_sub(m, best_p, best_q);
  if (!(dist > 1e-12 * (h[0] + h[1] + h[2]))) {
    /* Touching the surface: the direction is rounding noise; the overlap test decides it. */
    penetrating(&bc);
    return out->n;
  }
  v3_scale(m, m, 1.0 / dist);
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (fabs(m[i]) > fabs(m[k])) k = i;
  /* Normal along a face axis (within ~1.4e-3 rad) with the closest segment point over the face:
   * the face carries the contact. The height is linear along the clipped segment, so its
   * smallest value is at a clip end and equals the distance. (A closest point beside the face
   * would leave the clip ends higher than the true distance: it stays a single point.) */
  int over_face = 1;
  for (int p = 1; p <= 2; ++p) {
    int j = (k + p) % 3;
    over_face = over_face && fabs(best_p[j]) <= h[j] * (1 + 1e-9);
  }
  if (over_face && fabs(m[k]) > 1 - 1e-6 && face_points(&bc, k, m[k] > 0 ? 1.0 : -1.0) >= 0)
    return out->n;
  add_local(&bc, best_q, m, dist - bc.r, box_point_feature(best_q, h, m));
  return out->n;
}
