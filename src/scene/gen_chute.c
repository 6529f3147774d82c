/* Inclined chute: `generate chute`. A layer of spheres flowing down a rough incline, periodic along
 * the flow (x) and across it (y): the cell [0, -length) x [0, -width) repeats without end, as in
 * the simulations of Silbert et al. 2001. The incline is the plane z = 0 with gravity tilted by
 * -angle about y (g = |g| (sin angle, 0, -cos angle)); its roughness, fixed spheres of the largest
 * radius on a square lattice that tiles the cell, their centres on the plane. The charge starts on
 * a jittered lattice -height deep above the base and flows from rest. Velocity and packing-fraction
 * profiles across the depth: scripts/profiles.py. */
#include <math.h>
#include <stdint.h>
#include "signorini/generate.h"
#include "signorini/options.h"

typedef struct {
  sg_grains g;
  double angle, length, width, height;
} chute_options;

static sg_err read_chute_options(sg_scene *s, chute_options *o) {
  SG_CHECK(sg_grains_from_options(s, 0.001, 0.5, "friction coefficient (spheres and base)", &o->g));
  const double d = 2 * o->g.r;
  SG_CHECK(sg_opt_real("-angle", 24.0, 0.0, 89.0, "inclination of the chute (degrees)", &o->angle));
  SG_CHECK(sg_opt_real("-length", 0.0, 0.0, 1e9, "period along the flow, x (m; 0: 20 diameters)", &o->length));
  SG_CHECK(sg_opt_real("-width", 0.0, 0.0, 1e9, "period across the flow, y (m; 0: 10 diameters)", &o->width));
  SG_CHECK(sg_opt_real("-height", 0.0, 0.0, 1e9, "depth of the charge's lattice (m; 0: 12 diameters)", &o->height));
  if (o->length <= 0) o->length = 20 * d;
  if (o->width <= 0) o->width = 10 * d;
  if (o->height <= 0) o->height = 12 * d;
  const double h = o->g.spacing * o->g.r;
  if (o->length < 4 * h || o->width < 4 * h)
    return sg_error_set(SG_ERR_ARG, "a chute cell of -length %g and -width %g is below 4 lattice spacings (%g m) across: too small to be periodic",
                        o->length, o->width, h);
  if (o->height < h) return sg_error_set(SG_ERR_ARG, "-height %g holds no layer of the lattice (spacing %g m)", o->height, h);
  return SG_OK;
}

/* The plane and the fixed spheres of the base: n x m sites spaced by at least a diameter that
 * tile the cell exactly, so that the base is periodic too. */
static sg_err add_base(sg_scene *s, const chute_options *o) {
  SG_CHECK(sg_add_ground(s, 0));
  const double r = o->g.r, size[3] = {r, 0, 0};
  const long n = (long)floor(o->length / (2 * r)), m = (long)floor(o->width / (2 * r));
  const double ax = o->length / (double)n, ay = o->width / (double)m;
  for (long k = 0; k < n * m; ++k) {
    const double p[3] = {(k % n + 0.5) * ax, (k / n + 0.5) * ay, 0};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 1, 0, p, NULL, NULL, NULL));
  }
  return SG_OK;
}

/* The charge: a jittered lattice filling the cell from just above the base to -height. */
static sg_err add_charge(sg_scene *s, const chute_options *o) {
  const sg_grains *g = &o->g;
  const double h = g->spacing * g->r, jitter = 0.2 * (h - 2 * g->r);
  const long nx = (long)floor(o->length / h), ny = (long)floor(o->width / h), nz = (long)floor(o->height / h);
  const double ax = o->length / (double)nx, ay = o->width / (double)ny;
  uint64_t state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)g->seed, size_state = sg_size_stream((uint64_t)g->seed);
  for (long k = 0; k < nx * ny * nz; ++k) {
    const double p[3] = {(k % nx + 0.5) * ax + jitter * sg_lattice_jitter(&state), (k / nx % ny + 0.5) * ay,
                         2 * g->r + 0.5 * h + (double)(k / (nx * ny)) * h};
    const double size[3] = {sg_next_radius(&g->size, &size_state), 0, 0};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, g->density, p, NULL, NULL, NULL));
  }
  return SG_OK;
}

sg_err sg_generate_chute(sg_scene *s) {
  chute_options o;
  SG_CHECK(read_chute_options(s, &o));
  const double a = o.angle * M_PI / 180.0, g = 9.81;
  s->gravity[0] = g * sin(a);
  s->gravity[1] = 0;
  s->gravity[2] = -g * cos(a);
  s->period_hi[0] = o.length;
  s->period_hi[1] = o.width;
  SG_CHECK(add_base(s, &o));
  SG_CHECK(add_charge(s, &o));
  s->next_gid = s->n;
  return SG_OK;
}
