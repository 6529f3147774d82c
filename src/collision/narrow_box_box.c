/* Box against box: separating-axis test over the 15 axes, then either a face manifold (the
 * incident face clipped against the side planes of the reference face) or one edge-edge point. */
#include "narrow_internal.h"

typedef struct {
  double c[3];     /* centre */
  double ax[3][3]; /* unit axes in world */
  double h[3];     /* half extents */
} box_frame;

typedef struct {
  double s;    /* separation along the axis (negative: penetration) */
  double n[3]; /* unit axis oriented from b toward a */
  int i, j;    /* face axis index (i), or the edge pair (axis i of a, axis j of b) */
  int valid;
} sat_axis;

/* A clip polygon vertex, named by the two polygon edges that meet there. Edge tags: 0-3 the
 * incident face edges, 4-7 the side planes of the reference face. The pair stays the same while
 * the same features touch, which makes it a feature id. */
typedef struct {
  double x[3];
  int edge_in, edge_out;
} clip_vertex;

#define CLIP_CAP 16
#define EDGE_FEATURE_BASE 8192u

static void box_frame_from(box_frame *f, const sg_geom *g) {
  v3_copy(f->c, g->pos);
  for (int k = 0; k < 3; ++k) {
    m3_col(f->ax[k], g->R, k);
    f->h[k] = g->size[k];
  }
}

/* Half width of the box projected on the unit axis L. */
static double box_radius(const box_frame *f, const double *L) {
  return f->h[0] * fabs(v3_dot(f->ax[0], L)) + f->h[1] * fabs(v3_dot(f->ax[1], L)) +
         f->h[2] * fabs(v3_dot(f->ax[2], L));
}

/* Separation of the boxes along the unit axis L; n is L turned to point from b toward a. */
static double axis_separation(const box_frame *a, const box_frame *b, const double *L, double *n) {
  double d[3];
  v3_sub(d, a->c, b->c);
  double dist = v3_dot(d, L);
  v3_scale(n, L, dist < 0 ? -1.0 : 1.0);
  return fabs(dist) - box_radius(a, L) - box_radius(b, L);
}

/* Keep the axis with the largest separation among faces of one box. */
static int sat_faces(const box_frame *a, const box_frame *b, const box_frame *owner, double margin,
                     sat_axis *best) {
  best->valid = 0;
  for (int k = 0; k < 3; ++k) {
    double n[3];
    double s = axis_separation(a, b, owner->ax[k], n);
    if (s >= margin) return 0;
    if (!best->valid || s > best->s) {
      best->valid = 1;
      best->s = s;
      v3_copy(best->n, n);
      best->i = k;
      best->j = -1;
    }
  }
  return 1;
}

static int sat_edges(const box_frame *a, const box_frame *b, double margin, sat_axis *best) {
  best->valid = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double L[3], n[3];
      v3_cross(L, a->ax[i], b->ax[j]);
      /* Nearly parallel edges: the face axes already cover this direction. */
      if (v3_normalize(L) < 1e-6) continue;
      double s = axis_separation(a, b, L, n);
      if (s >= margin) return 0;
      if (!best->valid || s > best->s) {
        best->valid = 1;
        best->s = s;
        v3_copy(best->n, n);
        best->i = i;
        best->j = j;
      }
    }
  return 1;
}

/* Sutherland-Hodgman against the half-space dot(x, w) <= offset; returns the new vertex count. */
static int clip_polygon(const clip_vertex *in, int n, const double *w, double offset, int tag,
                        clip_vertex *res) {
  int m = 0;
  for (int i = 0; i < n && m < CLIP_CAP - 1; ++i) {
    const clip_vertex *prev = &in[(i + n - 1) % n], *cur = &in[i];
    double dp = v3_dot(prev->x, w) - offset, dc = v3_dot(cur->x, w) - offset;
    if ((dp <= 0) != (dc <= 0)) {
      clip_vertex *x = &res[m++];
      double f = dp / (dp - dc), step[3];
      v3_sub(step, cur->x, prev->x);
      v3_copy(x->x, prev->x);
      v3_axpy(x->x, f, step);
      /* Entering: the new polygon reaches x along the plane and leaves along the old edge. */
      x->edge_in = dc <= 0 ? tag : prev->edge_out;
      x->edge_out = dc <= 0 ? prev->edge_out : tag;
    }
    if (dc <= 0) res[m++] = *cur;
  }
  return m;
}

/* Edge of box f along axis i on the side that faces direction toward; returns its index. */
static int extreme_edge(const box_frame *f, int i, const double *toward, double *e0, double *e1) {
  double centre[3];
  v3_copy(centre, f->c);
  int index = i * 4;
  for (int p = 1; p <= 2; ++p) {
    int k = (i + p) % 3;
    double side = v3_dot(f->ax[k], toward) >= 0 ? 1.0 : -1.0;
    if (side < 0) index += p;
    v3_axpy(centre, side * f->h[k], f->ax[k]);
  }
  v3_copy(e0, centre);
  v3_axpy(e0, -f->h[i], f->ax[i]);
  v3_copy(e1, centre);
  v3_axpy(e1, f->h[i], f->ax[i]);
  return index;
}

/* One point between the two crossing edges that define the edge axis. */
static int edge_contact(const box_frame *a, const box_frame *b, const sat_axis *ax, sg_manifold *out) {
  double a0[3], a1[3], b0[3], b1[3], toward_b[3], s, t, pa[3], pb[3], mid[3];
  v3_scale(toward_b, ax->n, -1.0);
  int edge_a = extreme_edge(a, ax->i, toward_b, a0, a1);
  int edge_b = extreme_edge(b, ax->j, ax->n, b0, b1);
  sg_narrow_segment_closest(a0, a1, b0, b1, &s, &t);
  for (int k = 0; k < 3; ++k) {
    pa[k] = a0[k] + s * (a1[k] - a0[k]);
    pb[k] = b0[k] + t * (b1[k] - b0[k]);
    mid[k] = 0.5 * (pa[k] + pb[k]);
  }
  sg_narrow_add(out, mid, ax->n, ax->s, EDGE_FEATURE_BASE + (uint32_t)(edge_a * 12 + edge_b));
  return out->n;
}

/* Face manifold: ref_is_b tells which box owns the reference face (axis ax->i). */
static int face_contacts(const box_frame *a, const box_frame *b, const sat_axis *ax, int ref_is_b,
                         double margin, sg_manifold *out) {
  const box_frame *ref = ref_is_b ? b : a, *inc = ref_is_b ? a : b;
  /* Outward normal of the reference face, toward the incident box. */
  double m[3];
  v3_scale(m, ax->n, ref_is_b ? 1.0 : -1.0);
  int k = ax->i;
  double ref_side = v3_dot(m, ref->ax[k]) > 0 ? 1.0 : -1.0;
  int ref_face = 2 * k + (ref_side > 0 ? 0 : 1);
  double ref_centre[3];
  v3_copy(ref_centre, ref->c);
  v3_axpy(ref_centre, ref_side * ref->h[k], ref->ax[k]);

  /* Incident face: the face of the other box most opposed to m. */
  int j = 0;
  for (int q = 1; q < 3; ++q)
    if (fabs(v3_dot(inc->ax[q], m)) > fabs(v3_dot(inc->ax[j], m))) j = q;
  double inc_side = v3_dot(inc->ax[j], m) > 0 ? -1.0 : 1.0;
  int inc_face = 2 * j + (inc_side > 0 ? 0 : 1);
  double fc[3], u[3], v[3];
  v3_copy(fc, inc->c);
  v3_axpy(fc, inc_side * inc->h[j], inc->ax[j]);
  v3_scale(u, inc->ax[(j + 1) % 3], inc->h[(j + 1) % 3]);
  v3_scale(v, inc->ax[(j + 2) % 3], inc->h[(j + 2) % 3]);
  static const double corner[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
  clip_vertex poly[2][CLIP_CAP];
  int n = 4, cur = 0;
  for (int q = 0; q < 4; ++q) {
    v3_copy(poly[0][q].x, fc);
    v3_axpy(poly[0][q].x, corner[q][0], u);
    v3_axpy(poly[0][q].x, corner[q][1], v);
    poly[0][q].edge_in = (q + 3) % 4;
    poly[0][q].edge_out = q;
  }
  for (int p = 0; p < 2 && n > 0; ++p) {
    int t = (k + 1 + p) % 3;
    for (int side = 0; side < 2 && n > 0; ++side) {
      double w[3];
      v3_scale(w, ref->ax[t], side ? -1.0 : 1.0);
      double offset = v3_dot(ref->c, w) + ref->h[t];
      n = clip_polygon(poly[cur], n, w, offset, 4 + 2 * p + side, poly[1 - cur]);
      cur = 1 - cur;
    }
  }

  sg_contact_point cand[CLIP_CAP];
  int count = 0;
  /* Feature: (which box is the reference, reference face, incident face) * 64 + the vertex's
   * pair of edge tags (lo * 8 + hi): below 72 * 64 = 4608, clear of the edge-edge ids. */
  uint32_t face_pair = (uint32_t)(((ref_is_b * 6 + ref_face) * 6 + inc_face) * 64);
  for (int q = 0; q < n; ++q) {
    const clip_vertex *x = &poly[cur][q];
    double d[3];
    v3_sub(d, x->x, ref_centre);
    double sep = v3_dot(d, m);
    if (!(sep < margin)) continue;
    sg_contact_point *c = &cand[count++];
    v3_copy(c->point, x->x);
    v3_axpy(c->point, -0.5 * sep, m); /* midway to the reference face */
    v3_copy(c->normal, ax->n);
    c->gap = sep;
    int lo = x->edge_in < x->edge_out ? x->edge_in : x->edge_out;
    int hi = x->edge_in < x->edge_out ? x->edge_out : x->edge_in;
    c->feature = face_pair + (uint32_t)(lo * 8 + hi);
  }
  sg_narrow_reduce(cand, count, ax->n, out);
  return out->n;
}

/* A candidate axis must beat the current one by this much to replace it, so that near ties do not
 * flip the manifold from step to step (faces are preferred to edges, a's faces to b's). */
static double switch_tolerance(double s, double scale) { return 0.05 * fabs(s) + 1e-3 * scale; }

int sg_collide_box_box(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  box_frame A, B;
  box_frame_from(&A, a);
  box_frame_from(&B, b);
  double scale = A.h[0];
  for (int k = 0; k < 3; ++k) scale = fmin(scale, fmin(A.h[k], B.h[k]));

  sat_axis face_a, face_b, edge;
  if (!sat_faces(&A, &B, &A, margin, &face_a)) return 0;
  if (!sat_faces(&A, &B, &B, margin, &face_b)) return 0;
  if (!sat_edges(&A, &B, margin, &edge)) return 0;

  int ref_is_b = face_b.s > face_a.s + switch_tolerance(face_a.s, scale);
  const sat_axis *face = ref_is_b ? &face_b : &face_a;
  if (edge.valid && edge.s > face->s + switch_tolerance(face->s, scale))
    return edge_contact(&A, &B, &edge, out);
  face_contacts(&A, &B, face, ref_is_b, margin, out);
  /* A face chosen by the tolerance may leave nothing within margin: the edges may still touch. */
  if (out->n == 0 && edge.valid && edge.s < margin) edge_contact(&A, &B, &edge, out);
  return out->n;
}
