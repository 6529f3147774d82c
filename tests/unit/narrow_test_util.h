/* Helpers for the narrow-phase tests: placing shapes, checking a manifold's invariants, and
 * independent distance computations (analytic box distance, ternary searches along segments). */
#ifndef SG_NARROW_TEST_UTIL_H
#define SG_NARROW_TEST_UTIL_H
#include <stdio.h>
#include <string.h>
#include "signorini/geometry.h"
#include "signorini/la.h"
#include "signorini/scene.h"
#include "test_util.h"

static inline sg_geom geom_make(int shape, double s0, double s1, double s2, double x, double y,
                                double z) {
  sg_geom g;
  memset(&g, 0, sizeof g);
  g.shape = shape;
  v3_set(g.size, s0, s1, s2);
  v3_set(g.pos, x, y, z);
  g.R[0] = g.R[4] = g.R[8] = 1;
  return g;
}

/* Set the orientation to a rotation by angle about axis (normalized here). */
static inline void geom_rotate(sg_geom *g, double ax, double ay, double az, double angle) {
  double axis[3] = {ax, ay, az}, q[4];
  v3_normalize(axis);
  quat_from_axis_angle(q, axis, angle);
  quat_to_mat(g->R, q);
}

/* Compose a further rotation (world frame) onto the current orientation. */
static inline void geom_turn(sg_geom *g, double ax, double ay, double az, double angle) {
  sg_geom r = *g;
  geom_rotate(&r, ax, ay, az, angle);
  double R[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      R[3 * i + j] = r.R[3 * i] * g->R[j] + r.R[3 * i + 1] * g->R[3 + j] + r.R[3 * i + 2] * g->R[6 + j];
  memcpy(g->R, R, sizeof R);
}

static inline void geom_random_pose(sg_geom *g, unsigned long long *rng, double spread) {
  for (int k = 0; k < 3; ++k) g->pos[k] = sg_test_rand(rng, -spread, spread);
  double q[4];
  do {
    for (int k = 0; k < 4; ++k) q[k] = sg_test_rand(rng, -1, 1);
  } while (quat_normalize(q) < 0.1);
  quat_to_mat(g->R, q);
}

static inline void capsule_ends(const sg_geom *g, double *p0, double *p1) {
  double axis[3];
  m3_col(axis, g->R, 2);
  v3_copy(p0, g->pos);
  v3_axpy(p0, -g->size[1], axis);
  v3_copy(p1, g->pos);
  v3_axpy(p1, g->size[1], axis);
}

/* Signed distance from x to a box, written from the definition: outside, the length of the
 * excess over the half extents; inside, minus the distance to the nearest face. */
static inline double box_signed_distance(const sg_geom *g, const double *x) {
  double rel[3], c[3];
  v3_sub(rel, x, g->pos);
  m3t_mul_v(c, g->R, rel);
  double out2 = 0, inside = INFINITY;
  for (int k = 0; k < 3; ++k) {
    double excess = fabs(c[k]) - g->size[k];
    if (excess > 0) out2 += excess * excess;
    inside = fmin(inside, -excess);
  }
  return out2 > 0 ? sqrt(out2) : -inside;
}

/* Minimum over t in [0, 1] of a convex function f(t, data): coarse sampling, then ternary search
 * on the bracketing interval (100 iterations shrink it by (2/3)^100 < 1e-17: exact to rounding). */
static inline double convex_min_on_unit(double (*f)(double, const void *), const void *data) {
  int best = 0;
  double best_v = INFINITY;
  for (int i = 0; i <= 64; ++i) {
    double v = f(i / 64.0, data);
    if (v < best_v) { best_v = v; best = i; }
  }
  double lo = fmax(0.0, (best - 1) / 64.0), hi = fmin(1.0, (best + 1) / 64.0);
  for (int it = 0; it < 100; ++it) {
    double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (f(m1, data) < f(m2, data)) hi = m2;
    else lo = m1;
  }
  return fmin(best_v, f(0.5 * (lo + hi), data));
}

typedef struct {
  const double *p0, *p1, *x;
} point_segment_query;

static inline double point_segment_eval(double t, const void *data) {
  const point_segment_query *q = data;
  double y[3], d[3];
  for (int k = 0; k < 3; ++k) y[k] = q->p0[k] + t * (q->p1[k] - q->p0[k]);
  v3_sub(d, y, q->x);
  return v3_norm(d);
}

/* Distance from x to segment p0-p1 by search along the segment. */
static inline double segment_distance_search(const double *p0, const double *p1, const double *x) {
  point_segment_query q = {p0, p1, x};
  return convex_min_on_unit(point_segment_eval, &q);
}

typedef struct {
  const double *p0, *p1, *q0, *q1;
} segment_segment_query;

/* Point to segment distance by projection on the line, clamped to the segment. */
static inline double segment_distance_projected(const double *p0, const double *p1, const double *x) {
  double d[3], r[3], y[3];
  v3_sub(d, p1, p0);
  v3_sub(r, x, p0);
  double dd = v3_dot(d, d), t = dd > 0 ? v3_dot(r, d) / dd : 0;
  t = fmax(0.0, fmin(1.0, t));
  for (int k = 0; k < 3; ++k) y[k] = p0[k] + t * d[k] - x[k];
  return v3_norm(y);
}

static inline double segment_segment_eval(double s, const void *data) {
  const segment_segment_query *q = data;
  double x[3];
  for (int k = 0; k < 3; ++k) x[k] = q->p0[k] + s * (q->p1[k] - q->p0[k]);
  return segment_distance_projected(q->q0, q->q1, x);
}

/* Distance between two segments: search along the first of the distance to the second (a
 * convex function of s). */
static inline double segment_segment_distance_search(const double *p0, const double *p1,
                                                     const double *q0, const double *q1) {
  segment_segment_query q = {p0, p1, q0, q1};
  return convex_min_on_unit(segment_segment_eval, &q);
}

typedef struct {
  const double *p0, *p1;
  const sg_geom *box;
} segment_box_query;

static inline double segment_box_eval(double t, const void *data) {
  const segment_box_query *q = data;
  double x[3];
  for (int k = 0; k < 3; ++k) x[k] = q->p0[k] + t * (q->p1[k] - q->p0[k]);
  return box_signed_distance(q->box, x);
}

/* Minimum signed distance from a segment to a box (a box's signed distance is convex). */
static inline double segment_box_distance_search(const double *p0, const double *p1, const sg_geom *box) {
  segment_box_query q = {p0, p1, box};
  return convex_min_on_unit(segment_box_eval, &q);
}

/* Signed distance from x to any shape's surface (negative inside). */
static inline double shape_signed_distance(const sg_geom *g, const double *x) {
  double d[3], p0[3], p1[3], n[3];
  switch (g->shape) {
    case SG_SHAPE_SPHERE: v3_sub(d, x, g->pos); return v3_norm(d) - g->size[0];
    case SG_SHAPE_BOX: return box_signed_distance(g, x);
    case SG_SHAPE_CAPSULE:
      capsule_ends(g, p0, p1);
      return segment_distance_search(p0, p1, x) - g->size[0];
    default:
      m3_col(n, g->R, 2);
      v3_sub(d, x, g->pos);
      return v3_dot(d, n);
  }
}

/* Invariants of every manifold: count in range, finite values, unit normals (1e-12: one
 * normalization's rounding), gaps below margin. Returns 1 when they all hold. */
static inline int manifold_sane(const sg_manifold *m, double margin) {
  int ok = m->n >= 0 && m->n <= SG_MANIFOLD_MAX;
  for (int i = 0; ok && i < m->n; ++i) {
    const sg_contact_point *c = &m->p[i];
    for (int k = 0; k < 3; ++k) ok = ok && isfinite(c->point[k]) && isfinite(c->normal[k]);
    ok = ok && isfinite(c->gap) && fabs(v3_norm(c->normal) - 1) <= 1e-12 && c->gap < margin;
  }
  if (!ok) {
    fprintf(stderr, "insane manifold (n = %d):\n", m->n);
    for (int i = 0; i < m->n && i < SG_MANIFOLD_MAX; ++i)
      fprintf(stderr, "  point (%g %g %g) normal (%g %g %g) gap %g feature %u\n", m->p[i].point[0],
              m->p[i].point[1], m->p[i].point[2], m->p[i].normal[0], m->p[i].normal[1],
              m->p[i].normal[2], m->p[i].gap, (unsigned)m->p[i].feature);
  }
  return ok;
}

/* The two surface points of a contact: A's at point + gap/2 normal, B's at point - gap/2 normal.
 * Returns the larger of their distances to the respective surfaces. */
static inline double surface_mismatch(const sg_geom *a, const sg_geom *b, const sg_contact_point *c) {
  double on_a[3], on_b[3];
  v3_copy(on_a, c->point);
  v3_axpy(on_a, 0.5 * c->gap, c->normal);
  v3_copy(on_b, c->point);
  v3_axpy(on_b, -0.5 * c->gap, c->normal);
  return fmax(fabs(shape_signed_distance(a, on_a)), fabs(shape_signed_distance(b, on_b)));
}

static inline double manifold_min_gap(const sg_manifold *m) {
  double g = INFINITY;
  for (int i = 0; i < m->n; ++i) g = fmin(g, m->p[i].gap);
  return g;
}

static inline int cmp_u32(const void *x, const void *y) {
  uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
  return (a > b) - (a < b);
}

/* Sorted feature ids of a manifold, for comparing two manifolds as sets. */
static inline void manifold_features(const sg_manifold *m, uint32_t *f) {
  for (int i = 0; i < m->n; ++i) f[i] = m->p[i].feature;
  qsort(f, (size_t)m->n, sizeof *f, cmp_u32);
}

static inline int same_features(const sg_manifold *x, const sg_manifold *y) {
  if (x->n != y->n) return 0;
  uint32_t fx[SG_MANIFOLD_MAX], fy[SG_MANIFOLD_MAX];
  manifold_features(x, fx);
  manifold_features(y, fy);
  return memcmp(fx, fy, (size_t)x->n * sizeof *fx) == 0;
}

/* Feature ids within one manifold are distinct (the key of a warm start). */
static inline int distinct_features(const sg_manifold *m) {
  uint32_t f[SG_MANIFOLD_MAX];
  manifold_features(m, f);
  for (int i = 1; i < m->n; ++i)
    if (f[i] == f[i - 1]) return 0;
  return 1;
}
#endif
