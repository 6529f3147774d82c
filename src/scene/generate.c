/* Scenario registry and shared scene pieces. */
#include <stdio.h>
#include <string.h>
#include "signorini/generate.h"

static const sg_scenario g_scenarios[] = {
  {"incline", "a box (or spheres) on a tilted plane", sg_generate_incline},
  {"stack", "a vertical stack of boxes on the ground", sg_generate_stack},
  {"pile", "spheres poured into an open box", sg_generate_pile},
};

const sg_scenario *sg_scenario_find(const char *name) {
  for (size_t k = 0; k < sizeof g_scenarios / sizeof g_scenarios[0]; ++k)
    if (!strcmp(g_scenarios[k].name, name)) return &g_scenarios[k];
  return NULL;
}

void sg_scenario_list(char *buf, int len) {
  buf[0] = 0;
  for (size_t k = 0; k < sizeof g_scenarios / sizeof g_scenarios[0]; ++k) {
    size_t used = strlen(buf);
    snprintf(buf + used, (size_t)len - used, "%s%s", k ? "|" : "", g_scenarios[k].name);
  }
}

sg_err sg_add_ground(sg_scene *s, int material) {
  const double zero[3] = {0, 0, 0};
  return sg_scene_add_body(s, SG_SHAPE_PLANE, zero, material, 1, 0, zero, NULL, NULL, NULL);
}

sg_err sg_add_open_box(sg_scene *s, double hx, double hy, double height, double wall, int material) {
  SG_CHECK(sg_add_ground(s, material));
  double h = 0.5 * height, t = 0.5 * wall;
  /* walls overlap at the corners so that nothing leaks through the seams */
  const double sx[3] = {t, hy + wall, h}, sy[3] = {hx + wall, t, h};
  const double px[2][3] = {{-hx - t, 0, h}, {hx + t, 0, h}}, py[2][3] = {{0, -hy - t, h}, {0, hy + t, h}};
  for (int k = 0; k < 2; ++k) {
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, sx, material, 1, 0, px[k], NULL, NULL, NULL));
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, sy, material, 1, 0, py[k], NULL, NULL, NULL));
  }
  return SG_OK;
}
