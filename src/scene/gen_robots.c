/* The `quadruped` scenario: n quadrupeds (gen_quadruped.c) standing on the ground in a square grid,
 * the robots of paper 002's ablation (Table III, 8 and 27 Laikagos), optionally on a bed of spheres
 * (issue 16's mixed scene: robots among many contacts). The bed is one layer of equal spheres on a
 * square lattice covering the robots' grid, each sphere resting on the ground, and the robots stand
 * with their feet on the bed's top. */
#include <math.h>
#include <string.h>
#include "signorini/generate.h"
#include "signorini/options.h"

typedef struct {
  long n, bed;
  double spacing, bed_radius, bed_density;
  int cols, rows;
} robots_options;

/* Robot k's place in the grid, the grid centred on the origin. */
static void grid_position(const robots_options *o, int k, double pos[2]) {
  pos[0] = ((k % o->cols) - 0.5 * (o->cols - 1)) * o->spacing;
  pos[1] = ((k / o->cols) - 0.5 * (o->rows - 1)) * o->spacing;
}

/* The bed: o->bed spheres on a square lattice of pitch 2 r (neighbours touching, each on the ground) over the
 * grid's footprint plus half a spacing each way; r from the footprint when not given. Its top's
 * height in *top. */
static sg_err add_bed(sg_scene *s, const robots_options *o, double *top) {
  *top = 0;
  if (o->bed == 0) return SG_OK;
  const double w = o->cols * o->spacing, h = o->rows * o->spacing;
  const int fx = (int)ceil(sqrt((double)o->bed * w / h)), fy = (int)((o->bed + fx - 1) / fx); /* a fitting lattice */
  const double r = o->bed_radius > 0 ? o->bed_radius : fmin(w / fx, h / fy) / 2;
  const double pitch = 2 * r;
  const int nx = (int)floor(w / pitch + 1e-9), ny = (int)floor(h / pitch + 1e-9); /* the fitting lattice's, rounding aside */
  if ((long)nx * ny < o->bed)
    return sg_error_set(SG_ERR_ARG, "a bed of %ld spheres of radius %g m does not fit in one layer under the robots (generate quadruped -bed)", o->bed, r);
  const double size[3] = {r, 0, 0};
  for (long k = 0; k < o->bed; ++k) {
    const double pos[3] = {(k % nx - 0.5 * (nx - 1)) * pitch, (k / nx - 0.5 * (ny - 1)) * pitch, r};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, o->bed_density, pos, NULL, NULL, NULL));
  }
  *top = 2 * r;
  return SG_OK;
}

sg_err sg_generate_quadruped(sg_scene *s) {
  sg_quadruped q;
  robots_options o;
  memset(&q, 0, sizeof q);
  memset(&o, 0, sizeof o);
  SG_CHECK(sg_opt_real("-kp", 400.0, 0.0, 1e9, "PD stiffness of every joint (N m/rad)", &q.kp));
  SG_CHECK(sg_opt_real("-kd", 8.0, 1e-9, 1e9, "PD damping of every joint (N m s/rad)", &q.kd));
  SG_CHECK(sg_opt_real("-crouch", 0.7, 0.05, 1.4, "thigh angle of the standing pose (rad; knees at -2 crouch)", &q.crouch));
  SG_CHECK(sg_opt_real("-mu", 0.8, 0.0, 10.0, "friction between the feet and the ground", &s->friction[0]));
  SG_CHECK(sg_opt_int("-n", 1, 1, 100000, "robots, in a square grid", &o.n));
  SG_CHECK(sg_opt_real("-spacing", 1.0, 0.8, 1e6, "distance between neighbouring robots of the grid (m)", &o.spacing));
  SG_CHECK(sg_opt_int("-bed", 0, 0, 100000000, "spheres of a bed under the robots (0: the robots stand on the ground)", &o.bed));
  SG_CHECK(sg_opt_real("-bed_radius", 0.0, 0.0, 1.0, "radius of the bed's spheres (m; 0: fill the grid's footprint in one layer)", &o.bed_radius));
  SG_CHECK(sg_opt_real("-bed_density", 2500.0, 1e-6, 1e6, "density of the bed's spheres (kg/m^3)", &o.bed_density));
  o.cols = (int)ceil(sqrt((double)o.n) - 1e-9);
  o.rows = (int)((o.n + o.cols - 1) / o.cols);
  SG_CHECK(sg_add_ground(s, 0));
  SG_CHECK(add_bed(s, &o, &q.pos[2]));
  for (int k = 0; k < o.n; ++k) {
    grid_position(&o, k, q.pos);
    SG_CHECK(sg_quadruped_add(s, &q, NULL));
  }
  s->next_gid = s->n;
  return SG_OK;
}
