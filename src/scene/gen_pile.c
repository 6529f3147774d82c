/* Pile: n spheres on a jittered lattice above an open box, poured in by gravity. The lattice
 * footprint equals the box's, so the spheres land inside; the jitter (fixed seed) breaks the
 * symmetry of the lattice. */
#include <math.h>
#include <stdint.h>
#include "signorini/generate.h"
#include "signorini/options.h"

static double jitter(uint64_t *state) {
  /* xorshift64*: a fixed sequence whatever the platform, so scenes are reproducible */
  uint64_t x = *state;
  x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
  *state = x;
  return (double)((x * 2685821657736338717ULL) >> 11) / 9007199254740992.0 - 0.5;
}

sg_err sg_generate_pile(sg_scene *s) {
  long n, seed;
  double r, mu, density, spread;
  SG_CHECK(sg_opt_int("-n", 2000, 1, 100000000, "number of spheres", &n));
  SG_CHECK(sg_opt_real("-radius", 0.01, 1e-6, 1e6, "sphere radius (m)", &r));
  SG_CHECK(sg_opt_real("-mu", 0.3, 0.0, 100.0, "friction coefficient", &mu));
  SG_CHECK(sg_opt_real("-density", 2500.0, 1e-9, 1e12, "density (kg/m^3)", &density));
  SG_CHECK(sg_opt_real("-spacing", 2.4, 2.05, 100.0, "lattice spacing in radii", &spread));
  SG_CHECK(sg_opt_int("-seed", 1, 0, INT64_MAX, "seed of the lattice jitter", &seed));
  s->friction[0] = mu;
  double h = spread * r;
  /* square footprint, about as many layers as columns across: compact and quick to settle */
  long nx = (long)ceil(cbrt((double)n));
  if (nx < 1) nx = 1;
  long layers = (n + nx * nx - 1) / (nx * nx);
  double half = 0.5 * nx * h;
  double wall_height = (layers + 2) * h;
  SG_CHECK(sg_scene_reserve(s, (int)n + 5));
  SG_CHECK(sg_add_open_box(s, half, half, wall_height, 2 * r, 0));
  uint64_t state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)seed;
  const double size[3] = {r, 0, 0};
  for (long k = 0; k < n; ++k) {
    long ix = k % nx, iy = (k / nx) % nx, iz = k / (nx * nx);
    double p[3] = {-half + (ix + 0.5) * h + 0.2 * (h - 2 * r) * jitter(&state),
                   -half + (iy + 0.5) * h + 0.2 * (h - 2 * r) * jitter(&state),
                   r + 0.5 * (h - 2 * r) + iz * h};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, density, p, NULL, NULL, NULL));
  }
  return SG_OK;
}
