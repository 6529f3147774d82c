/* Granular column collapse: `generate collapse`. A column of spheres of radius -column_radius and
 * aspect ratio -aspect (settled height over radius, at a packing fraction of 0.6) stands on a
 * rough base inside a tube (a kinematic cylinder) that is lifted at -lift_speed from -release on,
 * the charge having settled: the column collapses and spreads. The base is a plane covered with
 * fixed spheres of the largest radius, touching on a square lattice, out to -base_radius (spheres
 * roll on a smooth plane without end: without rolling resistance only a rough base stops them, as
 * the glued grains of the experiments do; -base smooth leaves the plane bare). The lattice is
 * loose, so the charge starts higher than the column it settles into; the tube reaches above it.
 * The runout against the published scalings: scripts/runout.py. */
#include <math.h>
#include <stdint.h>
#include "signorini/generate.h"
#include "signorini/options.h"
#include <string.h>

typedef struct {
  sg_grains g;
  long n;
  double r, column_radius, aspect, release, lift_speed, base_radius;
  int rough;
} collapse_options;

static sg_err read_collapse_options(sg_scene *s, collapse_options *o) {
  SG_CHECK(sg_grains_from_options(s, 0.001, 0.5, "friction coefficient (spheres, base and tube)", &o->g));
  o->r = o->g.r;
  SG_CHECK(sg_opt_real("-column_radius", 0.0, 0.0, 1e9, "radius of the column (m; 0: 20 radii)", &o->column_radius));
  SG_CHECK(sg_opt_real("-aspect", 1.0, 0.05, 100.0, "aspect ratio of the settled column: height over radius", &o->aspect));
  SG_CHECK(sg_opt_real("-release", 0.3, 0.0, 1e9, "time the tube starts to rise, the column having settled (s)", &o->release));
  SG_CHECK(sg_opt_real("-lift_speed", 1.0, 1e-9, 1e9, "speed of the rising tube (m/s)", &o->lift_speed));
  char base[16];
  SG_CHECK(sg_opt_choice("-base", "rough", "rough|smooth", "a plane covered with fixed spheres, or the bare plane", base, sizeof base));
  SG_CHECK(sg_opt_real("-base_radius", 0.0, 0.0, 1e9, "radius of the rough base (m; 0: beyond the runout of Lube et al. 2004, by half of it)", &o->base_radius));
  o->rough = !strcmp(base, "rough");
  if (o->column_radius <= 0) o->column_radius = 20 * o->r;
  if (o->base_radius <= 0) {
    const double runout = o->aspect < 1.7 ? 1.24 * o->aspect : 1.6 * sqrt(o->aspect);
    o->base_radius = o->column_radius * (1 + 1.5 * runout) + 4 * o->r;
  }
  if (o->column_radius < o->g.spacing * o->r)
    return sg_error_set(SG_ERR_ARG, "-column_radius %g holds no lattice site", o->column_radius);
  const double mean_volume = 4.0 / 3.0 * M_PI * pow(0.5 * (o->g.size.lo + o->g.size.hi), 3);
  o->n = (long)ceil(M_PI * o->column_radius * o->column_radius * o->aspect * o->column_radius * 0.6 / mean_volume);
  return SG_OK;
}

/* The rough base: fixed spheres touching on a square lattice, centres on the plane z = 0. */
static sg_err add_base(sg_scene *s, const collapse_options *o) {
  const double a = 2 * o->r, size[3] = {o->r, 0, 0};
  const long m = (long)floor(o->base_radius / a);
  for (long iy = -m; iy <= m; ++iy)
    for (long ix = -m; ix <= m; ++ix) {
      const double p[3] = {ix * a, iy * a, 0};
      if (hypot(p[0], p[1]) > o->base_radius) continue;
      SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 1, 0, p, NULL, NULL, NULL));
    }
  return SG_OK;
}

/* The charge, layer by layer from `base_top` up: sites that clear the tube. Returns the height of
 * its top. */
static sg_err add_charge(sg_scene *s, const collapse_options *o, double base_top, double *top) {
  const double h = o->g.spacing * o->r, jitter = 0.2 * (h - 2 * o->r), clearance = o->r + 0.5 * jitter;
  const long nx = (long)floor(2 * o->column_radius / h);
  uint64_t state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)o->g.seed, size_state = sg_size_stream((uint64_t)o->g.seed);
  long placed = 0;
  double z = o->r;
  for (long iz = 0; placed < o->n; ++iz) {
    z = base_top + o->r + 0.5 * (h - 2 * o->r) + iz * h;
    for (long k = 0; k < nx * nx && placed < o->n; ++k) {
      double x = -0.5 * nx * h + (k % nx + 0.5) * h, y = -0.5 * nx * h + (k / nx + 0.5) * h;
      if (hypot(x, y) > o->column_radius - clearance) continue;
      const double p[3] = {x + jitter * sg_lattice_jitter(&state), y + jitter * sg_lattice_jitter(&state), z};
      const double size[3] = {sg_next_radius(&o->g.size, &size_state), 0, 0};
      SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, o->g.density, p, NULL, NULL, NULL));
      ++placed;
    }
  }
  *top = z + o->r;
  return SG_OK;
}

sg_err sg_generate_collapse(sg_scene *s) {
  collapse_options o;
  SG_CHECK(read_collapse_options(s, &o));
  const long base_count = o.rough ? (long)ceil(M_PI * pow(o.base_radius / (2 * o.r) + 1, 2)) : 0;
  SG_CHECK(sg_scene_reserve(s, (int)(o.n + base_count + 2)));
  SG_CHECK(sg_add_ground(s, 0));
  /* the tube: its body index is 1, its size set once the charge's height is known */
  const double zero[3] = {0, 0, 0}, lift[3] = {0, 0, o.lift_speed};
  int tube;
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_CYLINDER, (double[3]){o.column_radius, 1, 0}, 0, 1, 0, zero, NULL, NULL, &tube));
  if (o.rough) SG_CHECK(add_base(s, &o));
  double top;
  SG_CHECK(add_charge(s, &o, o.rough ? o.r : 0, &top));
  const double height = top + 4 * o.r;
  s->size[3 * tube + 1] = 0.5 * height;
  s->state.pos[3 * tube + 2] = 0.5 * height;
  /* it rises until its lower rim is a tube's height above the charge */
  SG_CHECK(sg_scene_add_motion(s, tube, SG_MOTION_TRANSLATE, lift, NULL, o.release, o.release + 2 * height / o.lift_speed));
  s->next_gid = s->n;
  return SG_OK;
}
