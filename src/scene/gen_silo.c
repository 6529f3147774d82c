/* Silos and hoppers: `generate silo` and `generate hopper`.
 *
 * silo (-bin cylinder, the default): a cylindrical shell of inner diameter -width standing on a
 * flat floor (a disk) with a circular orifice of diameter -orifice in its middle; -bin box: a
 * square bin of fixed boxes with a square orifice of side -orifice. hopper: the same shell on a
 * cone that narrows, at -half_angle from the vertical, to the orifice. The orifice's plane is
 * z = 0 (the floor's top), so the discharged mass at a frame is that of the spheres below z = 0;
 * a catch plane -drop below gathers what left. The charge is n spheres on a jittered lattice
 * (sites that clear the walls), which start to fall and flow out at once; with -gate_open T a
 * gate (a kinematic disk, or box, over the orifice) holds the charge until t = T, then slides
 * away along +x at -gate_speed until the orifice is clear. With -outflow_depth d the spheres are
 * deleted once their centre is d below the orifice (an outflow half-space); with -inflow_rate R
 * spheres enter a box at the top at R per second (an inflow region), above the lattice. Sizes
 * follow -size_dist (size_dist.h), in the bin and in the inflow; the lattice and the bin's
 * proportions go by the largest radius. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/generate.h"
#include "signorini/options.h"

typedef enum { BIN_CYLINDER, BIN_BOX, BIN_HOPPER, BIN_NONE } bin_kind;

typedef struct {
  int bin;
  long n, seed;
  double r, density, width, orifice, drop, spacing, gate_open, gate_speed, outflow_depth, inflow_rate;
  double half_angle, cone_height; /* hopper: from the vertical (rad); height of the cone (m) */
  sg_size_dist size;              /* r: its largest radius */
} silo_options;

static sg_err read_bin(int hopper, silo_options *o) {
  if (hopper) {
    double deg;
    SG_CHECK(sg_opt_real("-half_angle", 30.0, 5.0, 80.0, "half angle of the hopper's cone from the vertical (degrees)", &deg));
    o->bin = BIN_HOPPER;
    o->half_angle = deg * M_PI / 180.0;
    return SG_OK;
  }
  char bin[16];
  SG_CHECK(sg_opt_choice("-bin", "cylinder", "cylinder|box|none",
                         "a cylindrical silo with a circular orifice, a square bin of boxes with a square one, or no bin (the box bin's lattice and gate; walls from -stl)",
                         bin, sizeof bin));
  o->bin = !strcmp(bin, "box") ? BIN_BOX : !strcmp(bin, "none") ? BIN_NONE : BIN_CYLINDER;
  return SG_OK;
}

static sg_err read_silo_options(sg_scene *s, int hopper, silo_options *o) {
  sg_grains g;
  SG_CHECK(read_bin(hopper, o));
  SG_CHECK(sg_opt_int("-n", 5000, 0, 100000000, "number of spheres (0: none, with -inflow_rate)", &o->n));
  SG_CHECK(sg_grains_from_options(s, 0.001, 0.5, "friction coefficient", &g));
  o->size = g.size;
  o->r = g.r;
  o->density = g.density;
  o->spacing = g.spacing;
  o->seed = g.seed;
  SG_CHECK(sg_opt_real("-width", 0.0, 0.0, 1e9, "inner diameter of the silo, or inner width of the box bin (m; 0: 32 radii)", &o->width));
  SG_CHECK(sg_opt_real("-orifice", 0.0, 0.0, 1e9, "diameter of the orifice, or side of the box bin's square one (m; 0: 12 radii)", &o->orifice));
  SG_CHECK(sg_opt_real("-drop", 0.0, 0.0, 1e9, "depth of the catch plane below the orifice (m; 0: 100 radii)", &o->drop));
  SG_CHECK(sg_opt_real("-gate_open", 0.0, 0.0, 1e9, "a gate closes the orifice until this time (s; 0: no gate)", &o->gate_open));
  SG_CHECK(sg_opt_real("-gate_speed", 0.0, 0.0, 1e9, "speed of the opening gate (m/s; 0: 50 radii per second)", &o->gate_speed));
  SG_CHECK(sg_opt_real("-outflow_depth", 0.0, 0.0, 1e9, "delete spheres whose centre is this far below the orifice (m; 0: none)", &o->outflow_depth));
  SG_CHECK(sg_opt_real("-inflow_rate", 0.0, 0.0, 1e9, "spheres per second entering at the top of the bin (0: none)", &o->inflow_rate));
  if (o->gate_speed <= 0) o->gate_speed = 50 * o->r;
  if (o->width <= 0) o->width = 32 * o->r;
  if (o->orifice <= 0) o->orifice = 12 * o->r;
  if (o->drop <= 0) o->drop = 100 * o->r;
  o->cone_height = o->bin == BIN_HOPPER ? 0.5 * (o->width - o->orifice) / tan(o->half_angle) : 0;
  if (o->n == 0 && o->inflow_rate <= 0) return sg_error_set(SG_ERR_ARG, "-n 0 needs an -inflow_rate");
  if (o->outflow_depth > 0 && o->outflow_depth >= o->drop)
    return sg_error_set(SG_ERR_ARG, "-outflow_depth %g must be above the catch plane (-drop %g)", o->outflow_depth, o->drop);
  if (o->orifice >= o->width) return sg_error_set(SG_ERR_ARG, "-orifice %g must be narrower than -width %g", o->orifice, o->width);
  if (o->width < o->spacing * o->r) return sg_error_set(SG_ERR_ARG, "-width %g holds no lattice site", o->width);
  return SG_OK;
}

/* ---- the charge: lattice sites that clear the walls ---- */

/* Inner radius of the container at height z. */
static double container_radius(const silo_options *o, double z) {
  if (o->bin == BIN_HOPPER && z < o->cone_height) return 0.5 * o->orifice + z * tan(o->half_angle);
  return 0.5 * o->width;
}

/* Does a sphere of the largest radius, jittered, fit at the site (x, y, z)? The box bin's
 * lattice fits its square by construction. */
static int site_fits(const silo_options *o, double x, double y, double z, double clearance) {
  if (o->bin == BIN_BOX || o->bin == BIN_NONE) return 1;
  double slope = o->bin == BIN_HOPPER && z < o->cone_height ? cos(o->half_angle) : 1.0;
  return (container_radius(o, z) - hypot(x, y)) * slope >= clearance;
}

typedef struct {
  double *pos; /* [n][3] */
  long n, layers;
} charge;

/* The first o->n fitting sites, layer by layer from the orifice's plane up, jittered. */
static sg_err place_charge(const silo_options *o, charge *c) {
  const double h = o->spacing * o->r, jitter = 0.2 * (h - 2 * o->r), clearance = o->r + 0.5 * jitter;
  const long nx = (long)floor(o->width / h);
  const double half = 0.5 * nx * h;
  uint64_t state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)o->seed;
  c->pos = malloc((size_t)(o->n > 0 ? o->n : 1) * 3 * sizeof *c->pos);
  if (!c->pos) return sg_error_set(SG_ERR_MEM, "out of memory for %ld sphere positions", o->n);
  c->n = c->layers = 0;
  for (long iz = 0; c->n < o->n; ++iz) {
    const double z = o->r + 0.5 * (h - 2 * o->r) + iz * h;
    long in_layer = 0;
    for (long k = 0; k < nx * nx && c->n < o->n; ++k) {
      double x = -half + (k % nx + 0.5) * h, y = -half + (k / nx + 0.5) * h;
      if (!site_fits(o, x, y, z, clearance)) continue;
      double *p = c->pos + 3 * c->n++;
      p[0] = x + jitter * sg_lattice_jitter(&state);
      p[1] = y + jitter * sg_lattice_jitter(&state);
      p[2] = z;
      ++in_layer;
    }
    if (in_layer) c->layers = iz + 1;
    else if (z > o->cone_height + h) /* a full-width layer without a site */
      return sg_error_set(SG_ERR_ARG, "-width %g holds no lattice site", o->width);
  }
  return SG_OK;
}

/* ---- the walls ---- */

/* The box bin: four floor slabs around the orifice (top at z = 0), four walls. */
static sg_err add_box_bin(sg_scene *s, const silo_options *o, double height) {
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
  return SG_OK;
}

/* The cylindrical silo: its shell from `bottom` up to `top`, and below it a flat floor with the
 * orifice (silo) or a cone down to the orifice (hopper). */
static sg_err add_round_bin(sg_scene *s, const silo_options *o, double top) {
  const double R = 0.5 * o->width, bottom = o->cone_height;
  const double shell[3] = {R, 0.5 * (top - bottom), 0}, shell_at[3] = {0, 0, 0.5 * (top + bottom)};
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_CYLINDER, shell, 0, 1, 0, shell_at, NULL, NULL, NULL));
  if (o->bin == BIN_HOPPER) {
    const double cone[3] = {0.5 * o->orifice, R, 0.5 * bottom}, cone_at[3] = {0, 0, 0.5 * bottom};
    return sg_scene_add_body(s, SG_SHAPE_CONE, cone, 0, 1, 0, cone_at, NULL, NULL, NULL);
  }
  const double floor[3] = {0.5 * o->orifice, R, 0}, zero[3] = {0, 0, 0};
  return sg_scene_add_body(s, SG_SHAPE_DISK, floor, 0, 1, 0, zero, NULL, NULL, NULL);
}

/* The gate over the orifice (top at z = 0), at rest until gate_open, then sliding along +x for
 * the time it takes to clear the orifice (it passes under the floor: fixed and kinematic bodies
 * do not collide). A box under the square orifice; a disk a radius wider than the round one. */
static sg_err add_gate(sg_scene *s, const silo_options *o) {
  const double hd = 0.5 * o->orifice, t = 2 * o->r, v[3] = {o->gate_speed, 0, 0};
  int gate;
  if (o->bin == BIN_BOX || o->bin == BIN_NONE) {
    const double half[3] = {hd, hd, 0.5 * t}, pos[3] = {0, 0, -0.5 * t};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, half, 0, 1, 0, pos, NULL, NULL, &gate));
  } else {
    const double disk[3] = {0, hd + o->r, 0}, zero[3] = {0, 0, 0};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_DISK, disk, 0, 1, 0, zero, NULL, NULL, &gate));
  }
  return sg_scene_add_motion(s, gate, SG_MOTION_TRANSLATE, v, NULL, o->gate_open, o->gate_open + (o->orifice + t) / o->gate_speed);
}

/* The regions: an outflow half-space below the orifice, an inflow box of `depth` at the top of
 * the bin (inside the square the shell circumscribes), whose walls end at z = top. */
static sg_err add_regions(sg_scene *s, const silo_options *o, double top, double depth) {
  if (o->outflow_depth > 0) {
    sg_region out = {.kind = SG_REGION_OUTFLOW, .zone = SG_ZONE_HALFSPACE, .point = {0, 0, -o->outflow_depth}, .normal = {0, 0, -1}};
    SG_CHECK(sg_scene_add_region(s, &out, "generate silo"));
  }
  if (o->inflow_rate > 0) {
    const double a = o->bin == BIN_BOX || o->bin == BIN_NONE ? 0.5 * o->width : 0.5 * o->width * M_SQRT1_2;
    sg_region in = {.kind = SG_REGION_INFLOW, .zone = SG_ZONE_BOX, .lo = {-a, -a, top - depth}, .hi = {a, a, top},
                    .rate = o->inflow_rate, .rate_unit = SG_RATE_BODIES, .size = o->size,
                    .density = o->density, .t_end = INFINITY, .seed = (uint64_t)o->seed};
    SG_CHECK(sg_scene_add_region(s, &in, "generate silo"));
  }
  return sg_scene_check_regions(s, "generate silo");
}

static sg_err add_spheres(sg_scene *s, const silo_options *o, const charge *c) {
  uint64_t size_state = sg_size_stream((uint64_t)o->seed);
  for (long k = 0; k < c->n; ++k) {
    const double size[3] = {sg_next_radius(&o->size, &size_state), 0, 0};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, o->density, c->pos + 3 * k, NULL, NULL, NULL));
  }
  return SG_OK;
}

static sg_err build(sg_scene *s, const silo_options *o, const charge *c) {
  const double h = o->spacing * o->r, inflow_depth = o->inflow_rate > 0 ? 4 * h : 0;
  const double top = fmax((c->layers + 2) * h, o->cone_height + 2 * h) + inflow_depth;
  const double zero[3] = {0, 0, 0}, below[3] = {0, 0, -o->drop};
  SG_CHECK(sg_scene_reserve(s, (int)c->n + 12));
  if (o->bin != BIN_NONE) SG_CHECK(o->bin == BIN_BOX ? add_box_bin(s, o, top) : add_round_bin(s, o, top));
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, below, NULL, NULL, NULL));
  if (o->gate_open > 0) SG_CHECK(add_gate(s, o));
  SG_CHECK(add_regions(s, o, top, inflow_depth));
  SG_CHECK(add_spheres(s, o, c));
  s->next_gid = s->n;
  return SG_OK;
}

static sg_err generate(sg_scene *s, int hopper) {
  silo_options o;
  SG_CHECK(read_silo_options(s, hopper, &o));
  charge c = {0};
  sg_err err = place_charge(&o, &c);
  if (!err) err = build(s, &o, &c);
  free(c.pos);
  return err;
}

sg_err sg_generate_silo(sg_scene *s) { return generate(s, 0); }
sg_err sg_generate_hopper(sg_scene *s) { return generate(s, 1); }
