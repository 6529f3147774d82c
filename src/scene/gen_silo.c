/* Box silo: a square bin of fixed boxes whose floor has a square orifice of side D in its middle,
 * filled with n spheres on a jittered lattice that start to fall and flow out at once; a catch plane
 * -drop below the floor gathers what left. The floor's top is z = 0, so the discharged mass at a
 * frame is that of the spheres below z = 0. Built from boxes and a plane only (the cylindrical silo
 * needs a cylinder shape). With -gate_open T a gate (a kinematic box filling the orifice) holds the
 * charge until t = T, then slides away along +x at -gate_speed until the orifice is clear. With
 * -outflow_depth d the spheres are deleted once their centre is d below the floor (an outflow
 * half-space); with -inflow_rate R spheres of the same size enter a box at the top of the bin at R
 * per second (an inflow region), above the lattice. Sizes follow -size_dist (size_dist.h), in the bin
 * and in the inflow; the lattice and the bin's proportions go by the largest radius. */
#include <math.h>
#include <stdint.h>
#include "signorini/generate.h"
#include "signorini/options.h"

typedef struct {
  long n, seed;
  double r, density, width, orifice, drop, spacing, gate_open, gate_speed, outflow_depth, inflow_rate;
  sg_size_dist size; /* r: its largest radius */
} silo_options;

static sg_err read_silo_options(sg_scene *s, silo_options *o) {
  double mu;
  SG_CHECK(sg_opt_int("-n", 5000, 0, 100000000, "number of spheres (0: none, with -inflow_rate)", &o->n));
  SG_CHECK(sg_size_from_options(0.001, &o->size));
  o->r = o->size.hi;
  SG_CHECK(sg_opt_real("-density", 2500.0, 1e-9, 1e12, "density (kg/m^3)", &o->density));
  SG_CHECK(sg_opt_real("-mu", 0.5, 0.0, 100.0, "friction coefficient", &mu));
  SG_CHECK(sg_opt_real("-restitution", 0.0, 0.0, 1.0, "normal restitution coefficient of every contact (Newton's impact law; 0: inelastic)", &s->restitution[0]));
  SG_CHECK(sg_opt_real("-width", 0.0, 0.0, 1e9, "inner width of the bin (m; 0: 32 radii)", &o->width));
  SG_CHECK(sg_opt_real("-orifice", 0.0, 0.0, 1e9, "side of the square orifice (m; 0: 12 radii)", &o->orifice));
  SG_CHECK(sg_opt_real("-drop", 0.0, 0.0, 1e9, "depth of the catch plane below the floor (m; 0: 100 radii)", &o->drop));
  SG_CHECK(sg_opt_real("-spacing", 2.4, 2.05, 100.0, "lattice spacing in radii", &o->spacing));
  SG_CHECK(sg_opt_int("-seed", 1, 0, INT64_MAX, "seed of the lattice jitter", &o->seed));
  SG_CHECK(sg_opt_real("-gate_open", 0.0, 0.0, 1e9, "a gate closes the orifice until this time (s; 0: no gate)", &o->gate_open));
  SG_CHECK(sg_opt_real("-gate_speed", 0.0, 0.0, 1e9, "speed of the opening gate (m/s; 0: 50 radii per second)", &o->gate_speed));
  SG_CHECK(sg_opt_real("-outflow_depth", 0.0, 0.0, 1e9, "delete spheres whose centre is this far below the floor (m; 0: none)", &o->outflow_depth));
  SG_CHECK(sg_opt_real("-inflow_rate", 0.0, 0.0, 1e9, "spheres per second entering at the top of the bin (0: none)", &o->inflow_rate));
  if (o->gate_speed <= 0) o->gate_speed = 50 * o->r;
  if (o->n == 0 && o->inflow_rate <= 0) return sg_error_set(SG_ERR_ARG, "-n 0 needs an -inflow_rate");
  s->friction[0] = mu;
  if (o->width <= 0) o->width = 32 * o->r;
  if (o->orifice <= 0) o->orifice = 12 * o->r;
  if (o->drop <= 0) o->drop = 100 * o->r;
  if (o->outflow_depth > 0 && o->outflow_depth >= o->drop)
    return sg_error_set(SG_ERR_ARG, "-outflow_depth %g must be above the catch plane (-drop %g)", o->outflow_depth, o->drop);
  if (o->orifice >= o->width) return sg_error_set(SG_ERR_ARG, "-orifice %g must be narrower than -width %g", o->orifice, o->width);
  if (o->width < o->spacing * o->r) return sg_error_set(SG_ERR_ARG, "-width %g holds no lattice site", o->width);
  return SG_OK;
}

/* The bin: four floor slabs around the orifice (top at z = 0), four walls, the catch plane. */
static sg_err add_bin(sg_scene *s, const silo_options *o, double height) {
  const double a = 0.5 * o->width, t = 2 * o->r, hd = 0.5 * o->orifice, outer = a + t;
  const double side = 0.5 * (outer - hd), mid = 0.5 * (outer + hd);
  const double slab_x[3] = {side, outer, 0.5 * t}, slab_y[3] = {hd, side, 0.5 * t};
  for (int k = -1; k <= 1; k += 2) {
    const double px[3] = {k * mid, 0, -0.5 * t}, py[3] = {0, k * mid, -0.5 * t};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, slab_x, 0, 1, 0, px, NULL, NULL, NULL));
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, slab_y, 0, 1, 0, py, NULL, NULL, NULL));
  }
  const double wall_x[3] = {0.5 * t, outer, 0.5 * height}, wall_y[3] = {outer, 0.5 * t, 0.5 * height};
  for (int k = -1; k <= 1; k += 2) {
    const double px[3] = {k * (a + 0.5 * t), 0, 0.5 * height}, py[3] = {0, k * (a + 0.5 * t), 0.5 * height};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, wall_x, 0, 1, 0, px, NULL, NULL, NULL));
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, wall_y, 0, 1, 0, py, NULL, NULL, NULL));
  }
  const double zero[3] = {0, 0, 0}, below[3] = {0, 0, -o->drop};
  return sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, below, NULL, NULL, NULL);
}

/* The gate: a box filling the orifice (top at z = 0), at rest until gate_open, then sliding along
 * +x for the time it takes to clear the orifice (it passes under the floor slab: fixed and
 * kinematic bodies do not collide). */
static sg_err add_gate(sg_scene *s, const silo_options *o) {
  const double hd = 0.5 * o->orifice, t = 2 * o->r, half[3] = {hd, hd, 0.5 * t}, pos[3] = {0, 0, -0.5 * t};
  const double v[3] = {o->gate_speed, 0, 0};
  int gate;
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, half, 0, 1, 0, pos, NULL, NULL, &gate));
  return sg_scene_add_motion(s, gate, SG_MOTION_TRANSLATE, v, NULL, o->gate_open, o->gate_open + (o->orifice + t) / o->gate_speed);
}

/* The regions: an outflow half-space below the floor, an inflow box of `depth` at the top of the
 * bin, whose walls end at z = top. */
static sg_err add_regions(sg_scene *s, const silo_options *o, double top, double depth) {
  if (o->outflow_depth > 0) {
    sg_region out = {.kind = SG_REGION_OUTFLOW, .zone = SG_ZONE_HALFSPACE, .point = {0, 0, -o->outflow_depth}, .normal = {0, 0, -1}};
    SG_CHECK(sg_scene_add_region(s, &out, "generate silo"));
  }
  if (o->inflow_rate > 0) {
    const double a = 0.5 * o->width;
    sg_region in = {.kind = SG_REGION_INFLOW, .zone = SG_ZONE_BOX, .lo = {-a, -a, top - depth}, .hi = {a, a, top},
                    .rate = o->inflow_rate, .rate_unit = SG_RATE_BODIES, .size = o->size,
                    .density = o->density, .t_end = INFINITY, .seed = (uint64_t)o->seed};
    SG_CHECK(sg_scene_add_region(s, &in, "generate silo"));
  }
  return sg_scene_check_regions(s, "generate silo");
}

sg_err sg_generate_silo(sg_scene *s) {
  silo_options o;
  SG_CHECK(read_silo_options(s, &o));
  const double h = o.spacing * o.r, inflow_depth = o.inflow_rate > 0 ? 4 * h : 0;
  const long nx = (long)floor(o.width / h), layers = (o.n + nx * nx - 1) / (nx * nx);
  const double top = (layers + 2) * h + inflow_depth;
  SG_CHECK(sg_scene_reserve(s, (int)o.n + 10));
  SG_CHECK(add_bin(s, &o, top));
  if (o.gate_open > 0) SG_CHECK(add_gate(s, &o));
  SG_CHECK(add_regions(s, &o, top, inflow_depth));
  uint64_t state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)o.seed;
  uint64_t size_state = sg_size_stream((uint64_t)o.seed);
  const double half = 0.5 * nx * h;
  for (long k = 0; k < o.n; ++k) {
    const double size[3] = {sg_next_radius(&o.size, &size_state), 0, 0};
    long ix = k % nx, iy = (k / nx) % nx, iz = k / (nx * nx);
    double p[3] = {-half + (ix + 0.5) * h + 0.2 * (h - 2 * o.r) * sg_lattice_jitter(&state),
                   -half + (iy + 0.5) * h + 0.2 * (h - 2 * o.r) * sg_lattice_jitter(&state), o.r + 0.5 * (h - 2 * o.r) + iz * h};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, o.density, p, NULL, NULL, NULL));
  }
  s->next_gid = s->n;
  return SG_OK;
}
