/* Rotating drum: `generate drum`. A cylindrical shell of inner diameter -diameter and length
 * -length, its axis along y through the origin, closed by two end disks; shell and ends turn
 * together about the axis at -omega (rad/s, positive about +y) from -spin_start on (kinematic
 * bodies with a rotate motion). The charge fills -fill of the drum's volume once settled (at a
 * packing fraction of 0.6): spheres on a jittered lattice from the bottom of the drum up, the sites
 * that clear the walls. -ends periodic drops the end disks and makes the drum periodic along its
 * axis (an infinitely long drum). The dynamic angle of repose of the rolling bed:
 * scripts/repose_angle.py. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/generate.h"
#include "signorini/la.h"
#include "signorini/options.h"

typedef struct {
  sg_grains g;
  long n;
  double diameter, length, omega, spin_start, fill;
  int periodic; /* -ends periodic: no end disks, the drum repeats along its axis */
} drum_options;

static sg_err read_drum_options(sg_scene *s, drum_options *o) {
  SG_CHECK(sg_grains_from_options(s, 0.001, 0.5, "friction coefficient (spheres and walls)", &o->g));
  const double r = o->g.r;
  SG_CHECK(sg_opt_real("-diameter", 0.0, 0.0, 1e9, "inner diameter of the drum (m; 0: 40 radii)", &o->diameter));
  SG_CHECK(sg_opt_real("-length", 0.0, 0.0, 1e9, "inner length of the drum along its axis (m; 0: 12 radii)", &o->length));
  SG_CHECK(sg_opt_real("-omega", 3.0, -1e6, 1e6, "angular velocity of the drum about +y (rad/s)", &o->omega));
  SG_CHECK(sg_opt_real("-spin_start", 0.2, 0.0, 1e9, "time the drum starts to turn, the charge having settled (s)", &o->spin_start));
  SG_CHECK(sg_opt_real("-fill", 0.35, 0.01, 0.9, "fraction of the drum's volume the settled bed fills", &o->fill));
  char ends[16];
  SG_CHECK(sg_opt_choice("-ends", "disks", "disks|periodic", "end walls turning with the shell, or a drum periodic along its axis (no end effects)",
                         ends, sizeof ends));
  o->periodic = !strcmp(ends, "periodic");
  if (o->diameter <= 0) o->diameter = 40 * r;
  if (o->length <= 0) o->length = 12 * r;
  const double mean_volume = 4.0 / 3.0 * M_PI * pow(0.5 * (o->g.size.lo + o->g.size.hi), 3);
  o->n = (long)ceil(o->fill * M_PI * 0.25 * o->diameter * o->diameter * o->length * 0.6 / mean_volume);
  if (o->length < o->g.spacing * r || o->diameter < 2 * o->g.spacing * r)
    return sg_error_set(SG_ERR_ARG, "a drum of -diameter %g and -length %g holds no lattice site", o->diameter, o->length);
  return SG_OK;
}

/* Shell and end disks, local z along world y, turning about the axis from spin_start on. */
static sg_err add_drum(sg_scene *s, const drum_options *o) {
  const double R = 0.5 * o->diameter, half = 0.5 * o->length, axis_x[3] = {1, 0, 0}, spin[3] = {0, o->omega, 0};
  const double origin[3] = {0, 0, 0}, shell[3] = {R, half, 0}, end[3] = {0, R, 0};
  double q[4];
  quat_from_axis_angle(q, axis_x, -0.5 * M_PI); /* local z -> world +y */
  const double at[3][3] = {{0, 0, 0}, {0, -half, 0}, {0, half, 0}};
  for (int k = 0; k < (o->periodic ? 1 : 3); ++k) {
    int body;
    SG_CHECK(sg_scene_add_body(s, k ? SG_SHAPE_DISK : SG_SHAPE_CYLINDER, k ? end : shell, 0, 1, 0, at[k], q, NULL, &body));
    SG_CHECK(sg_scene_add_motion(s, body, SG_MOTION_ROTATE, spin, origin, o->spin_start, INFINITY));
  }
  return SG_OK;
}

/* Lattice sites in the drum, bottom layer first (z up), each clearing the shell and the ends. */
static sg_err add_charge(sg_scene *s, const drum_options *o) {
  const sg_grains *g = &o->g;
  const double h = g->spacing * g->r, jitter = 0.2 * (h - 2 * g->r), clearance = g->r + 0.5 * jitter;
  const double R = 0.5 * o->diameter, half = 0.5 * o->length;
  const long nx = (long)floor(o->diameter / h), ny = (long)floor((o->length - 2 * clearance) / h) + 1;
  uint64_t state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)g->seed, size_state = sg_size_stream((uint64_t)g->seed);
  long placed = 0;
  for (long iz = 0; iz < nx && placed < o->n; ++iz)
    for (long k = 0; k < nx * ny && placed < o->n; ++k) {
      double x = -0.5 * nx * h + (k % nx + 0.5) * h, y = -0.5 * (ny - 1) * h + (k / nx) * h, z = -R + clearance + iz * h;
      if (hypot(x, z) > R - clearance || (!o->periodic && fabs(y) > half - clearance)) continue;
      const double p[3] = {x + jitter * sg_lattice_jitter(&state), y, z}, size[3] = {sg_next_radius(&g->size, &size_state), 0, 0};
      SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, g->density, p, NULL, NULL, NULL));
      ++placed;
    }
  if (placed < o->n)
    return sg_error_set(SG_ERR_ARG, "-fill %g needs %ld spheres; the drum's lattice holds %ld (lower -spacing or -fill)", o->fill, o->n, placed);
  return SG_OK;
}

sg_err sg_generate_drum(sg_scene *s) {
  drum_options o;
  SG_CHECK(read_drum_options(s, &o));
  SG_CHECK(sg_scene_reserve(s, (int)o.n + 3));
  if (o.periodic) { /* the shell spans the cell: a wall seen directly from both sides of the boundary */
    s->period_lo[1] = -0.5 * o.length;
    s->period_hi[1] = 0.5 * o.length;
  }
  SG_CHECK(add_drum(s, &o));
  SG_CHECK(add_charge(s, &o));
  s->next_gid = s->n;
  return SG_OK;
}
