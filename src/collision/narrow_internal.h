/* Helpers shared by the narrow-phase files: emitting contact points, closest points between
 * segments, manifold reduction, and the world frame of a box or capsule.
 * Feature ids (uint32) used by the pairs, so that the ranges never collide within one pair:
 *   single-point smooth pairs (sphere-*, crossing capsules)  0
 *   sphere against a wall of revolution                      0 face, 1 and 2 rims
 *   capsule end against a plane                              end index 0/1
 *   box vertex against a plane                               vertex index (bit k: sign of axis k)
 *   box face against a capsule                               face * 16 + clip end (0/1),
 *                                                            face * 16 + 2 (rounding fallback)
 *   box edge / vertex against a capsule                      96 + edge, 112 + vertex
 *   parallel capsules                                        16 + overlap end (0/1), 18 deepest
 *   box-box face clipping                                    see narrow_box_box.c (< 4608)
 *   box-box edge-edge                                        8192 + edge_a * 12 + edge_b
 * Face index = axis * 2 + (0 for the + side, 1 for the - side); edge index = axis * 4 + the signs
 * of the two other axes (bit 0: the next axis negative, bit 1: the one after negative). */
#ifndef SG_COLLISION_NARROW_INTERNAL_H
#define SG_COLLISION_NARROW_INTERNAL_H
#include <stdint.h>
#include "signorini/geometry.h"
#include "signorini/la.h"

/* Below this sine two directions are treated as parallel. */
#define SG_NARROW_PARALLEL_SIN 1e-3

/* Append a point unless the manifold is full (callers never exceed SG_MANIFOLD_MAX by design). */
static inline void sg_narrow_add(sg_manifold *out, const double *point, const double *normal,
                                 double gap, uint32_t feature) {
  if (out->n >= SG_MANIFOLD_MAX) return;
  sg_contact_point *c = &out->p[out->n++];
  v3_copy(c->point, point);
  v3_copy(c->normal, normal);
  c->gap = gap;
  c->feature = feature;
}

/* Add a point given the point on B's surface and the normal from B toward A: the reported point
 * lies gap/2 further along the normal, midway to A's surface. */
static inline void sg_narrow_add_from_b(sg_manifold *out, const double *surface_b,
                                        const double *normal, double gap, uint32_t feature) {
  double mid[3];
  v3_copy(mid, surface_b);
  v3_axpy(mid, 0.5 * gap, normal);
  sg_narrow_add(out, mid, normal, gap, feature);
}

/* A unit vector perpendicular to the unit vector axis, +z when possible (else +x): the fixed
 * fallback normal for coincident centres, chosen so that it never points along a capsule axis. */
static inline void sg_narrow_perpendicular(double *o, const double *axis) {
  static const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
  const double *ref = fabs(axis[2]) < 0.9 ? z : x;
  v3_copy(o, ref);
  v3_axpy(o, -v3_dot(ref, axis), axis);
  v3_normalize(o);
}

/* Capsule segment end points pos -/+ h * (local z axis in world) and the unit axis. */
static inline void sg_narrow_capsule_segment(const sg_geom *g, double *p0, double *p1, double *axis) {
  m3_col(axis, g->R, 2);
  v3_copy(p0, g->pos);
  v3_axpy(p0, -g->size[1], axis);
  v3_copy(p1, g->pos);
  v3_axpy(p1, g->size[1], axis);
}

/* Contact between two spheres (also the closest points of two segments grown by radii). The
 * normal is ca - cb normalized, or fallback_normal when the centres (nearly) coincide. Adds the
 * point when gap < margin; returns 1 if added. */
int sg_narrow_sphere_pair(const double *ca, double ra, const double *cb, double rb,
                          const double *fallback_normal, double margin, uint32_t feature,
                          sg_manifold *out);

/* Closest points of segments p0 + s (p1 - p0) and q0 + t (q1 - q0), s, t in [0, 1]; degenerate
 * (zero-length) and parallel segments are handled (parallel ones return one of the closest pairs). */
void sg_narrow_segment_closest(const double *p0, const double *p1, const double *q0,
                               const double *q1, double *s, double *t);

/* Parameter in [0, 1] of the point of segment p0-p1 closest to x. */
double sg_narrow_segment_param(const double *p0, const double *p1, const double *x);

/* Keep at most 4 of the n candidate points: the deepest, the one farthest from it, then the two
 * that enlarge the covered area the most (measured in the plane normal to `normal`). Writes the
 * chosen points to out (appending). */
void sg_narrow_reduce(const sg_contact_point *cand, int n, const double *normal, sg_manifold *out);

#endif
