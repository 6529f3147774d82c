/* Incline: a plane tilted by -angle about the y axis (downhill = +x of the tilted frame), with a
 * cube at rest on it, or a row of spheres (-spheres N) that roll and slide down it. */
#include <math.h>
#include "signorini/generate.h"
#include "signorini/la.h"
#include "signorini/options.h"

sg_err sg_generate_incline(sg_scene *s) {
  double angle, mu, half, density;
  long spheres;
  SG_CHECK(sg_opt_real("-angle", 15.0, 0.0, 89.0, "incline angle (degrees)", &angle));
  SG_CHECK(sg_opt_real("-mu", 0.25, 0.0, 100.0, "friction coefficient", &mu));
  SG_CHECK(sg_opt_real("-size", 0.1, 1e-6, 1e6, "half extent of the cube, or sphere radius (m)", &half));
  SG_CHECK(sg_opt_real("-density", 1000.0, 1e-9, 1e12, "density (kg/m^3)", &density));
  SG_CHECK(sg_opt_int("-spheres", 0, 0, 100000000, "spheres instead of the cube (count)", &spheres));
  s->friction[0] = mu;
  /* rotation about +y by the angle tips the plane's normal toward +x... we want the surface to
   * descend along +x, so rotate by -angle: normal = (sin a, 0, cos a). */
  double a = angle * M_PI / 180.0, axis[3] = {0, 1, 0}, q[4];
  quat_from_axis_angle(q, axis, a);
  const double zero[3] = {0, 0, 0};
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, q, NULL, NULL));
  double n[3] = {sin(a), 0, cos(a)}, down[3] = {cos(a), 0, -sin(a)};
  if (spheres == 0) {
    const double size[3] = {half, half, half};
    double p[3];
    for (int k = 0; k < 3; ++k) p[k] = half * n[k];
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, size, 0, 0, density, p, q, NULL, NULL));
  } else {
    const double size[3] = {half, 0, 0};
    /* a line of spheres across the slope, several rows uphill, all touching the plane */
    int per_row = (int)ceil(sqrt((double)spheres));
    for (long k = 0; k < spheres; ++k) {
      double across = ((double)(k % per_row) - 0.5 * (per_row - 1)) * 2.5 * half;
      double along = -(double)(k / per_row) * 2.5 * half;
      double p[3];
      for (int c = 0; c < 3; ++c) p[c] = half * n[c] + along * down[c];
      p[1] += across;
      SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, density, p, NULL, NULL, NULL));
    }
  }
  return SG_OK;
}
