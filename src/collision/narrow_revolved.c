/* A sphere against a wall of revolution (cylinder, cone frustum, flat ring). The wall is the
 * surface swept by a meridian segment turning about the local z axis, so the closest point to the
 * sphere's centre lies in the centre's meridian half-plane: a 2-D closest point on a segment.
 * The wall has no thickness and is touched from the side the centre is on (a shell from inside
 * and outside, a floor from above and below), so a sphere never pops through it.
 * Features: 0 the wall's face, 1 and 2 its rims (the circles swept by the segment's ends), so a
 * sphere sliding over a silo's orifice edge keeps one contact. */
#include <math.h>
#include "narrow_internal.h"
#include "signorini/scene.h"

void sg_revolved_meridian(const sg_geom *g, double p0[2], double p1[2]) {
  const double *d = g->size;
  switch (g->shape) {
    case SG_SHAPE_CYLINDER: p0[0] = p1[0] = d[0]; p0[1] = -d[1]; p1[1] = d[1]; break;
    case SG_SHAPE_CONE: p0[0] = d[0]; p1[0] = d[1]; p0[1] = -d[2]; p1[1] = d[2]; break;
    default: p0[0] = d[0]; p1[0] = d[1]; p0[1] = p1[1] = 0; break; /* disk */
  }
}

/* Closest point q of the segment p0-p1 to x in the meridian plane, its parameter in [0, 1]. */
static double meridian_closest(const double p0[2], const double p1[2], const double x[2], double q[2]) {
  double e[2] = {p1[0] - p0[0], p1[1] - p0[1]}, ee = e[0] * e[0] + e[1] * e[1];
  double t = ee > 0 ? ((x[0] - p0[0]) * e[0] + (x[1] - p0[1]) * e[1]) / ee : 0;
  t = fmin(1.0, fmax(0.0, t));
  q[0] = p0[0] + t * e[0];
  q[1] = p0[1] + t * e[1];
  return t;
}

/* Point x in the wall's meridian plane (rho, local z) and in the wall's frame (c); the closest
 * point q of the meridian, its parameter t; returns the distance from x to the wall. */
static double revolved_closest(const sg_geom *b, const double *pos, double c[3], double x[2], double q[2], double *t) {
  double rel[3], p0[2], p1[2];
  v3_sub(rel, pos, b->pos);
  m3t_mul_v(c, b->R, rel);
  x[0] = hypot(c[0], c[1]);
  x[1] = c[2];
  sg_revolved_meridian(b, p0, p1);
  *t = meridian_closest(p0, p1, x, q);
  return hypot(x[0] - q[0], x[1] - q[1]);
}

double sg_revolved_distance(const sg_geom *b, const double *pos) {
  double c[3], x[2], q[2], t;
  return revolved_closest(b, pos, c, x, q, &t);
}

int sg_collide_sphere_revolved(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  double c[3], x[2], q[2], t;
  const double dist = revolved_closest(b, a->pos, c, x, q, &t); /* c: the centre in the wall's frame */
  const double rho = x[0];
  /* the centre's meridian direction; on the axis every direction is one: take local x */
  double er[3] = {1, 0, 0};
  if (rho > 0) { er[0] = c[0] / rho; er[1] = c[1] / rho; }
  double n2[2] = {x[0] - q[0], x[1] - q[1]};
  double gap = dist - a->size[0];
  if (!(gap < margin)) return 0;
  if (dist > 1e-12 * a->size[0]) {
    n2[0] /= dist;
    n2[1] /= dist;
  } else { /* centre on the wall: the segment's left normal (toward the axis, or up for a ring) */
    double p0[2], p1[2];
    sg_revolved_meridian(b, p0, p1);
    double e[2] = {p1[0] - p0[0], p1[1] - p0[1]}, len = hypot(e[0], e[1]);
    n2[0] = -e[1] / len;
    n2[1] = e[0] / len;
  }
  double local_q[3] = {q[0] * er[0], q[0] * er[1], q[1]}, local_n[3] = {n2[0] * er[0], n2[0] * er[1], n2[1]};
  double surface_b[3], n[3];
  m3_mul_v(surface_b, b->R, local_q);
  v3_add(surface_b, surface_b, b->pos);
  m3_mul_v(n, b->R, local_n);
  sg_narrow_add_from_b(out, surface_b, n, gap, t <= 0 ? 1u : t >= 1 ? 2u : 0u);
  return out->n;
}
