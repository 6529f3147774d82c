/* Pile: n spheres on a jittered lattice above an open box, poured in by gravity. The lattice
 * footprint equals the box's, so the spheres land inside; the jitter (fixed seed) breaks the
 * symmetry of the lattice. Sizes follow -size_dist (size_dist.h); the lattice is spaced for the
 * largest radius, and the radii are drawn from a sequence of their own, so that one size gives the
 * same positions as before sizes could vary. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/generate.h"
#include "signorini/options.h"
#include "signorini/size_dist.h"

typedef struct {
  long n, seed, staves;
  double r, h, density, diameter; /* largest radius, lattice spacing; inner diameter of a cylinder (0: the box's width) */
  sg_size_dist size;
  int cylinder;
} pile_options;

/* Lattice site (ix, iy) of a layer, jittered; in a cylinder only sites whose jittered sphere stays
 * inside the circle are used. Returns 0 for a site left out. */
static int lattice_site(const pile_options *o, long nx, long ix, long iy, long iz, uint64_t *state, double *p) {
  const double half = 0.5 * nx * o->h, r = o->r, h = o->h;
  p[0] = -half + (ix + 0.5) * h + 0.2 * (h - 2 * r) * sg_lattice_jitter(state);
  p[1] = -half + (iy + 0.5) * h + 0.2 * (h - 2 * r) * sg_lattice_jitter(state);
  p[2] = r + 0.5 * (h - 2 * r) + iz * h;
  return !o->cylinder || hypot(p[0], p[1]) <= 0.5 * o->diameter - r - 0.1 * (h - 2 * r);
}

static sg_err read_pile_options(sg_scene *s, pile_options *o) {
  char container[16];
  sg_grains g;
  SG_CHECK(sg_opt_int("-n", 2000, 1, 100000000, "number of spheres", &o->n));
  SG_CHECK(sg_grains_from_options(s, 0.01, 0.3, "friction coefficient", &g));
  o->size = g.size;
  o->r = g.r;
  o->density = g.density;
  o->seed = g.seed;
  const double spread = g.spacing;
  SG_CHECK(sg_opt_choice("-container", "box", "box|cylinder", "an open box, or a cylinder of -staves fixed boxes", container, sizeof container));
  SG_CHECK(sg_opt_real("-diameter", 0.0, 0.0, 1e9, "inner diameter of the cylinder (m; 0: the width of the box)", &o->diameter));
  SG_CHECK(sg_opt_int("-staves", 32, 3, 100000, "boxes around the cylinder", &o->staves));
  o->h = spread * o->r;
  o->cylinder = !strcmp(container, "cylinder");
  if (o->cylinder && o->diameter > 0 && o->diameter < 2 * o->h)
    return sg_error_set(SG_ERR_ARG, "-diameter %g holds no lattice site (spacing %g m)", o->diameter, o->h);
  return sg_scene_reserve(s, (int)o->n + 5 + (int)o->staves);
}

sg_err sg_generate_pile(sg_scene *s) {
  pile_options o;
  SG_CHECK(read_pile_options(s, &o));
  /* square footprint, about as many layers as columns across: compact and quick to settle */
  long nx = (long)ceil(cbrt((double)o.n));
  if (nx < 1) nx = 1;
  if (o.cylinder && o.diameter <= 0) o.diameter = nx * o.h;
  if (o.cylinder) nx = (long)ceil(o.diameter / o.h);
  double *pos = sg_calloc((size_t)o.n, 3 * sizeof *pos, "pile lattice");
  if (!pos) return SG_ERR_MEM;
  uint64_t state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)o.seed;
  long placed = 0, layers = 0;
  for (long iz = 0; placed < o.n; ++iz, ++layers)
    for (long k = 0; k < nx * nx && placed < o.n; ++k)
      placed += lattice_site(&o, nx, k % nx, k / nx, iz, &state, pos + 3 * placed);
  /* the container first: its bodies keep the lowest ids whatever the number of spheres */
  const double wall_height = (layers + 2) * o.h;
  sg_err err = o.cylinder ? sg_add_open_cylinder(s, 0.5 * o.diameter, wall_height, 2 * o.r, (int)o.staves, 0)
                          : sg_add_open_box(s, 0.5 * nx * o.h, 0.5 * nx * o.h, wall_height, 2 * o.r, 0);
  uint64_t size_state = sg_size_stream((uint64_t)o.seed);
  for (long k = 0; k < o.n && !err; ++k) {
    const double size[3] = {sg_next_radius(&o.size, &size_state), 0, 0};
    err = sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, o.density, pos + 3 * k, NULL, NULL, NULL);
  }
  free(pos);
  return err;
}
