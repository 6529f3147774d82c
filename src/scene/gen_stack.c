/* Stack: n cubes on the ground, each resting exactly on the one below. With -mass_ratio r the
 * density grows by r per level upward (the heavy-on-light stack of paper 001 Fig. 14). */
#include <math.h>
#include "signorini/generate.h"
#include "signorini/options.h"

sg_err sg_generate_stack(sg_scene *s) {
  long n;
  double mu, half, density, ratio;
  SG_CHECK(sg_opt_int("-n", 10, 1, 100000, "number of boxes", &n));
  SG_CHECK(sg_opt_real("-mu", 0.5, 0.0, 100.0, "friction coefficient", &mu));
  SG_CHECK(sg_opt_real("-size", 0.1, 1e-6, 1e6, "half extent of each cube (m)", &half));
  SG_CHECK(sg_opt_real("-density", 1000.0, 1e-9, 1e12, "density of the bottom box (kg/m^3)", &density));
  SG_CHECK(sg_opt_real("-mass_ratio", 1.0, 1e-6, 1e6, "density ratio between consecutive levels (upward)", &ratio));
  s->friction[0] = mu;
  SG_CHECK(sg_add_ground(s, 0));
  const double size[3] = {half, half, half};
  for (long k = 0; k < n; ++k) {
    double p[3] = {0, 0, half * (2 * k + 1)};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, size, 0, 0, density * pow(ratio, (double)k), p, NULL, NULL, NULL));
  }
  return SG_OK;
}
