/* Inflow and outflow regions of the model (scene.h): their checks, alone and against each other,
 * and the deleting zone of an outflow. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/scene.h"

static int finite_n(const double *x, int n) {
  for (int k = 0; k < n; ++k)
    if (!isfinite(x[k])) return 0;
  return 1;
}

static sg_err check_box(const sg_region *r, int k, const char *where) {
  if (!finite_n(r->lo, 3) || !finite_n(r->hi, 3))
    return sg_error_set(SG_ERR_FORMAT, "region %d: box corners are not finite (%s)", k, where);
  for (int d = 0; d < 3; ++d)
    if (!(r->lo[d] < r->hi[d]))
      return sg_error_set(SG_ERR_FORMAT, "region %d: box is empty along axis %d (lo %g >= hi %g) (%s)", k, d, r->lo[d],
                          r->hi[d], where);
  return SG_OK;
}

static sg_err check_outflow(const sg_region *r, int k, const char *where) {
  if (r->zone < 0 || r->zone >= SG_ZONE_KINDS)
    return sg_error_set(SG_ERR_FORMAT, "region %d: zone %d (0 box, 1 domain, 2 half-space) (%s)", k, r->zone, where);
  if (r->zone != SG_ZONE_HALFSPACE) return check_box(r, k, where);
  if (!finite_n(r->point, 3) || !finite_n(r->normal, 3))
    return sg_error_set(SG_ERR_FORMAT, "region %d: half-space point or normal is not finite (%s)", k, where);
  double nn = r->normal[0] * r->normal[0] + r->normal[1] * r->normal[1] + r->normal[2] * r->normal[2];
  if (fabs(nn - 1.0) > 1e-9)
    return sg_error_set(SG_ERR_FORMAT, "region %d: half-space normal has length %g, not 1 (%s)", k, sqrt(nn), where);
  return SG_OK;
}

static sg_err check_inflow(const sg_scene *s, const sg_region *r, int k, const char *where) {
  if (r->zone != SG_ZONE_BOX) return sg_error_set(SG_ERR_FORMAT, "region %d: an inflow is a box (zone 0) (%s)", k, where);
  SG_CHECK(check_box(r, k, where));
  if (!(isfinite(r->rate) && r->rate > 0) || (r->rate_unit != SG_RATE_BODIES && r->rate_unit != SG_RATE_MASS))
    return sg_error_set(SG_ERR_FORMAT, "region %d: inflow rate %g (unit %d: 0 bodies/s, 1 kg/s) must be positive (%s)", k,
                        r->rate, r->rate_unit, where);
  char what[4200];
  snprintf(what, sizeof what, "region %d, %s", k, where);
  SG_CHECK(sg_size_check(&r->size, what));
  if (!(isfinite(r->density) && r->density > 0))
    return sg_error_set(SG_ERR_FORMAT, "region %d: inflow density %g must be positive (%s)", k, r->density, where);
  if (r->material < 0 || r->material >= s->n_materials)
    return sg_error_set(SG_ERR_FORMAT, "region %d: inflow material %d is not in [0, %d) (%s)", k, r->material,
                        s->n_materials, where);
  if (!finite_n(r->velocity, 3))
    return sg_error_set(SG_ERR_FORMAT, "region %d: inflow velocity is not finite (%s)", k, where);
  for (int d = 0; d < 3; ++d)
    if (r->hi[d] - r->lo[d] < 2 * r->size.hi)
      return sg_error_set(SG_ERR_FORMAT, "region %d: inflow box is thinner along axis %d than a sphere of radius %g (%s)", k,
                          d, r->size.hi, where);
  if (!isfinite(r->t_start) || !(r->t_end > r->t_start))
    return sg_error_set(SG_ERR_FORMAT, "region %d: inflow window [%g, %g) is empty or not finite at its start (%s)", k,
                        r->t_start, r->t_end, where);
  return SG_OK;
}

sg_err sg_scene_add_region(sg_scene *s, const sg_region *r, const char *where) {
  int k = s->n_regions;
  if (r->kind == SG_REGION_OUTFLOW) SG_CHECK(check_outflow(r, k, where));
  else if (r->kind == SG_REGION_INFLOW) SG_CHECK(check_inflow(s, r, k, where));
  else return sg_error_set(SG_ERR_FORMAT, "region %d: kind %d (0 outflow, 1 inflow) (%s)", k, r->kind, where);
  sg_region *grown = realloc(s->regions, (size_t)(k + 1) * sizeof *grown);
  if (!grown) return sg_error_set(SG_ERR_MEM, "out of memory for %d regions", k + 1);
  s->regions = grown;
  s->regions[k] = *r;
  s->n_regions = k + 1;
  return SG_OK;
}

int sg_region_deletes(const sg_region *r, const double x[3]) {
  if (r->zone == SG_ZONE_HALFSPACE)
    return (x[0] - r->point[0]) * r->normal[0] + (x[1] - r->point[1]) * r->normal[1] +
               (x[2] - r->point[2]) * r->normal[2] > 0;
  int inside = 1;
  for (int d = 0; d < 3; ++d) inside &= x[d] >= r->lo[d] && x[d] <= r->hi[d];
  return r->zone == SG_ZONE_BOX ? inside : !inside;
}

static int boxes_overlap(const double *alo, const double *ahi, const double *blo, const double *bhi) {
  for (int d = 0; d < 3; ++d)
    if (ahi[d] <= blo[d] || bhi[d] <= alo[d]) return 0;
  return 1;
}

/* Can a body inserted in inflow box b have its centre in the deleting zone of outflow o? */
static int inflow_meets_outflow(const sg_region *b, const sg_region *o) {
  if (o->zone == SG_ZONE_BOX) return boxes_overlap(b->lo, b->hi, o->lo, o->hi);
  if (o->zone == SG_ZONE_DOMAIN) {
    for (int d = 0; d < 3; ++d)
      if (b->lo[d] < o->lo[d] || b->hi[d] > o->hi[d]) return 1;
    return 0;
  }
  /* the box corner farthest along the normal */
  double far = 0;
  for (int d = 0; d < 3; ++d) far += ((o->normal[d] > 0 ? b->hi[d] : b->lo[d]) - o->point[d]) * o->normal[d];
  return far > 0;
}

sg_err sg_scene_check_regions(const sg_scene *s, const char *where) {
  for (int a = 0; a < s->n_regions; ++a) {
    const sg_region *ra = &s->regions[a];
    if (ra->kind != SG_REGION_INFLOW) continue;
    for (int b = 0; b < s->n_regions; ++b) {
      const sg_region *rb = &s->regions[b];
      if (b == a) continue;
      if (rb->kind == SG_REGION_INFLOW && b > a && boxes_overlap(ra->lo, ra->hi, rb->lo, rb->hi))
        return sg_error_set(SG_ERR_FORMAT, "inflow regions %d and %d overlap (%s)", a, b, where);
      if (rb->kind == SG_REGION_OUTFLOW && rb->zone == SG_ZONE_DOMAIN && inflow_meets_outflow(ra, rb))
        return sg_error_set(SG_ERR_FORMAT, "inflow region %d is not inside the domain of outflow region %d (%s)", a, b, where);
      if (rb->kind == SG_REGION_OUTFLOW && inflow_meets_outflow(ra, rb))
        return sg_error_set(SG_ERR_FORMAT, "inflow region %d overlaps the deleting zone of outflow region %d (%s)", a, b,
                            where);
    }
  }
  return SG_OK;
}

void sg_regions_least_body(const sg_scene *s, double *mass, double *size) {
  *mass = *size = INFINITY;
  for (int k = 0; k < s->n_regions; ++k) {
    const sg_region *r = &s->regions[k];
    if (r->kind != SG_REGION_INFLOW) continue;
    double rad = r->size.lo;
    *mass = fmin(*mass, sg_sphere_mass(r->density, rad));
    *size = fmin(*size, rad);
  }
}
