/* Scenario registry and shared scene pieces. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "signorini/generate.h"
#include "signorini/la.h"
#include "signorini/options.h"

/* Run options of scenes that come to rest: over-relaxation (paper 002 eq. (35)) and the stop on the
 * contact residual, which ends a step once it is accurate instead of at the iteration cap
 * (docs/PERFORMANCE.md, "Run options carried by the scene"). */
#define SG_SETTLING_RUN_OPTIONS "-subadmm_relax 1.8 -subadmm_contact_tol 1e-4"
/* Run options of dense flows that never come to rest (silo and hopper discharges, drums), where the
 * stop would not fire: over-relaxation at half the iteration cap (docs/GRANULAR.md, "Run options": the
 * measured flow rate and angle of repose within their spread, the run a quarter to a third faster). */
#define SG_FLOW_RUN_OPTIONS "-subadmm_relax 1.8 -solver_max_it 50"
/* A silo adds a wider contact margin: more of the grains that the converging flow above its orifice
 * deflects into one another within the step are then contacts of the first solve rather than of an
 * added one: fewer iterations and added solves for the same flow rate (docs/GRANULAR.md, "Benchmark";
 * a hopper gains little there). */
#define SG_SILO_RUN_OPTIONS SG_FLOW_RUN_OPTIONS " -contact_margin_factor 0.3"

static const sg_scenario g_scenarios[] = {
  {"incline", "a box (or spheres) on a tilted plane", sg_generate_incline, NULL},
  {"stack", "a vertical stack of boxes on the ground", sg_generate_stack, NULL},
  {"pile", "spheres poured into an open box (or a cylinder of boxes)", sg_generate_pile, SG_SETTLING_RUN_OPTIONS},
  {"silo", "a cylindrical silo (or a square bin of boxes) discharging through an orifice in its flat floor", sg_generate_silo, SG_SILO_RUN_OPTIONS},
  {"hopper", "a cylindrical silo on a conical hopper discharging through the orifice at its apex", sg_generate_hopper, SG_FLOW_RUN_OPTIONS},
  {"drum", "a rotating drum, partly filled with spheres", sg_generate_drum, SG_FLOW_RUN_OPTIONS},
  {"collapse", "a column of spheres released on a plane by lifting its tube", sg_generate_collapse, NULL},
  {"chute", "spheres flowing down a rough incline, periodic along and across the flow", sg_generate_chute, NULL},
  {"chain", "an n-link pendulum hanging from a fixed point (a kinematic tree)", sg_generate_chain, NULL},
  {"linkage", "a parallelogram four-bar linkage swinging from two pivots (a kinematic tree with a loop closure)", sg_generate_linkage, NULL},
  {"quadruped", "18-velocity four-legged robots standing on the ground (or a bed of spheres) under PD control (kinematic trees)", sg_generate_quadruped, NULL},
  {"arm", "a 7-velocity arm holding a level tray under PD control, spheres on the tray (a kinematic tree)", sg_generate_arm, NULL},
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

double sg_lattice_jitter(uint64_t *state) {
  /* xorshift64*: a fixed sequence whatever the platform, so scenes are reproducible */
  uint64_t x = *state;
  x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
  *state = x;
  return (double)((x * 2685821657736338717ULL) >> 11) / 9007199254740992.0 - 0.5;
}

uint64_t sg_size_stream(uint64_t seed) { return 0xD1B54A32D192ED03ULL ^ seed; }

double sg_next_radius(const sg_size_dist *d, uint64_t *state) { return sg_size_sample(d, sg_lattice_jitter(state) + 0.5); }

sg_err sg_grains_from_options(sg_scene *s, double radius, double mu_default, const char *mu_help, sg_grains *g) {
  double mu;
  SG_CHECK(sg_size_from_options(radius, &g->size));
  g->r = g->size.hi;
  SG_CHECK(sg_opt_real("-density", 2500.0, 1e-9, 1e12, "density (kg/m^3)", &g->density));
  SG_CHECK(sg_opt_real("-mu", mu_default, 0.0, 100.0, mu_help, &mu));
  SG_CHECK(sg_opt_real("-restitution", 0.0, 0.0, 1.0, "normal restitution coefficient of every contact (Newton's impact law; 0: inelastic)",
                       &s->restitution[0]));
  SG_CHECK(sg_opt_real("-rolling_friction", 0.0, 0.0, 100.0,
                       "rolling-friction coefficient of every contact: a torque mu_r R N opposes rolling (0: none; docs/GRANULAR.md)",
                       &s->rolling[0]));
  SG_CHECK(sg_opt_real("-spacing", 2.4, 2.05, 100.0, "lattice spacing in radii", &g->spacing));
  SG_CHECK(sg_opt_int("-seed", 1, 0, INT64_MAX, "seed of the lattice jitter", &g->seed));
  s->friction[0] = mu;
  return SG_OK;
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

sg_err sg_add_open_cylinder(sg_scene *s, double radius, double height, double wall, int staves, int material) {
  SG_CHECK(sg_add_ground(s, material));
  /* a regular polygon of fixed boxes whose inner faces touch the circle; each stave is widened by
   * the wall thickness times tan(pi / staves) so that neighbours meet at their outer corners */
  const double step = 2.0 * M_PI / staves, half_chord = (radius + wall) * tan(0.5 * step);
  const double half[3] = {half_chord, 0.5 * wall, 0.5 * height}, axis[3] = {0, 0, 1};
  for (int k = 0; k < staves; ++k) {
    double angle = k * step, q[4];
    const double centre[3] = {(radius + 0.5 * wall) * sin(angle), -(radius + 0.5 * wall) * cos(angle), 0.5 * height};
    quat_from_axis_angle(q, axis, angle);
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_BOX, half, material, 1, 0, centre, q, NULL, NULL));
  }
  return SG_OK;
}
