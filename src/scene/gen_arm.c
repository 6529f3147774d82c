/* Arm: a 7-velocity robot arm as one kinematic tree (tree.h) on a fixed pedestal, revolute joints
 * about z, y, z, y, z, y, z (the usual alternation of a 7-axis arm), each link a rod along its own
 * +z with a capsule geom, and a tray (a thin box) on the last link. PD control on every joint holds
 * the pose q = (0, a, 0, -2a, 0, a, 0): the shoulder and the wrist pitched by a, the elbow by -2a,
 * so that the last link, and the tray, stay level. Spheres may rest on the tray. */
#include <math.h>
#include <string.h>
#include "signorini/generate.h"
#include "signorini/la.h"
#include "signorini/options.h"
#include "signorini/tree.h"

enum { ARM_LINKS = 7 };
/* Link lengths along +z (m), masses (kg), capsule radii (m); the tray's half extents (m). */
static const double arm_len[ARM_LINKS] = {0.35, 0.1, 0.4, 0.1, 0.35, 0.1, 0.08};
static const double arm_mass[ARM_LINKS] = {4.0, 3.0, 2.5, 2.0, 1.5, 1.0, 0.5};
static const double arm_r = 0.05, tray_half[3] = {0.15, 0.15, 0.01}, tray_mass = 0.5;

/* Link k: its joint at the end of link k-1 (at the pedestal's top for k = 0), a rod of its length. */
static void arm_link(sg_link *L, int k, const sg_arm *a) {
  static const double z_axis[3] = {0, 0, 1}, y_axis[3] = {0, 1, 0};
  L->parent = k - 1;
  L->type = SG_JOINT_REVOLUTE;
  if (k == 0) v3_copy(L->pos, a->base);
  else v3_set(L->pos, 0, 0, arm_len[k - 1]);
  L->quat[0] = 1;
  v3_copy(L->axis, k % 2 ? y_axis : z_axis);
  const double l = arm_len[k];
  L->mass = arm_mass[k];
  v3_set(L->com, 0, 0, 0.5 * l);
  const double I = L->mass * (l * l / 12 + arm_r * arm_r / 4), Iz = 0.5 * L->mass * arm_r * arm_r; /* a solid cylinder's */
  v3_set(L->inertia, I, I, Iz);
  L->limit[0] = -INFINITY;
  L->limit[1] = INFINITY;
  const double target[ARM_LINKS] = {0, a->pitch, 0, -2 * a->pitch, 0, a->pitch, 0};
  L->pd[0] = a->kp;
  L->pd[1] = a->kd;
  L->pd[2] = target[k];
}

/* The last link carries the tray: its mass and inertia added to the link's, its box on top. */
static sg_err arm_tray(sg_tree *t) {
  sg_link *L = &t->link[ARM_LINKS - 1];
  const double l = arm_len[ARM_LINKS - 1], m = L->mass, h[3] = {tray_half[0], tray_half[1], tray_half[2]};
  const double zt = l + h[2];
  L->mass = m + tray_mass;
  L->com[2] = (m * 0.5 * l + tray_mass * zt) / L->mass;
  L->inertia[0] += tray_mass * (h[1] * h[1] + h[2] * h[2]) / 3;
  L->inertia[1] += tray_mass * (h[0] * h[0] + h[2] * h[2]) / 3;
  L->inertia[2] += tray_mass * (h[0] * h[0] + h[1] * h[1]) / 3;
  sg_link_geom g = {.link = ARM_LINKS - 1, .shape = SG_SHAPE_BOX, .pos = {0, 0, zt}, .quat = {1, 0, 0, 0}};
  v3_copy(g.size, h);
  return sg_tree_add_geom(t, &g);
}

/* Link k's capsule, short of both joints so that links two apart do not touch where they meet. */
static sg_err arm_geom(sg_tree *t, int k) {
  const double l = arm_len[k], half = fmax(0.5 * l - arm_r, 0.01);
  sg_link_geom g = {.link = k, .shape = SG_SHAPE_CAPSULE, .size = {0.8 * arm_r, half, 0}, .pos = {0, 0, 0.5 * l}, .quat = {1, 0, 0, 0}};
  return k == ARM_LINKS - 1 ? SG_OK : sg_tree_add_geom(t, &g); /* the last link is the tray's mount */
}

double sg_arm_tray_height(const sg_arm *a) {
  /* the shoulder's pitch a tilts links 1-2, the elbow's -2a brings links 3-4 to -a, the wrist's a
   * brings links 5-6 upright */
  const double c = cos(a->pitch);
  return a->base[2] + arm_len[0] + (arm_len[1] + arm_len[2] + arm_len[3] + arm_len[4]) * c + arm_len[5] + arm_len[6] +
         2 * tray_half[2];
}

/* The tray's centre along x from the base (the pitched links' reach forward and back). */
static double tray_x(const sg_arm *a) {
  return a->base[0] + (arm_len[1] + arm_len[2] - arm_len[3] - arm_len[4]) * sin(a->pitch);
}

sg_err sg_arm_add(sg_scene *s, const sg_arm *a, int *index) {
  const double size[3] = {arm_r, 0, 0};
  int i;
  sg_tree *t = NULL;
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, 1.0, a->base, NULL, NULL, &i));
  SG_CHECK(sg_tree_create(ARM_LINKS, s->gid[i], &t));
  sg_err err = SG_OK;
  for (int k = 0; k < ARM_LINKS && !err; ++k) {
    arm_link(&t->link[k], k, a);
    err = arm_geom(t, k);
  }
  if (!err) err = arm_tray(t);
  if (!err) err = sg_tree_finish(t, "generate arm");
  if (!err)
    for (int k = 0; k < ARM_LINKS; ++k) t->q[k] = t->link[k].pd[2]; /* starts in the held pose */
  if (!err) err = sg_scene_add_tree(s, t);
  sg_tree_release(&t);
  if (!err) err = sg_scene_attach_trees(s, "generate arm");
  if (index) *index = i;
  return err;
}

/* n spheres of radius r resting on the tray, a square grid centred on it. */
static sg_err tray_balls(sg_scene *s, const sg_arm *a, long n, double r, double density) {
  const int side = (int)ceil(sqrt((double)n) - 1e-9);
  const double pitch = 2 * tray_half[0] / side;
  if (pitch < 2 * r) return sg_error_set(SG_ERR_ARG, "%ld spheres of radius %g m do not fit on the tray (generate arm -balls)", n, r);
  const double size[3] = {r, 0, 0}, top = sg_arm_tray_height(a);
  for (long k = 0; k < n; ++k) {
    const double pos[3] = {tray_x(a) + ((k % side) - 0.5 * (side - 1)) * pitch, a->base[1] + ((k / side) - 0.5 * (side - 1)) * pitch, top + r};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, density, pos, NULL, NULL, NULL));
  }
  return SG_OK;
}

sg_err sg_generate_arm(sg_scene *s) {
  sg_arm a;
  long balls;
  double r, density;
  memset(&a, 0, sizeof a);
  SG_CHECK(sg_opt_real("-kp", 2000.0, 0.0, 1e9, "PD stiffness of every joint (N m/rad)", &a.kp));
  SG_CHECK(sg_opt_real("-kd", 50.0, 1e-9, 1e9, "PD damping of every joint (N m s/rad)", &a.kd));
  SG_CHECK(sg_opt_real("-pitch", 0.5, -1.2, 1.2, "shoulder and wrist pitch of the held pose (rad; the elbow at -2x)", &a.pitch));
  SG_CHECK(sg_opt_real("-height", 0.5, 0.0, 100.0, "height of the arm's base above the ground (m)", &a.base[2]));
  SG_CHECK(sg_opt_int("-balls", 0, 0, 10000, "spheres resting on the tray", &balls));
  SG_CHECK(sg_opt_real("-ball_radius", 0.02, 1e-4, 0.15, "radius of the spheres on the tray (m)", &r));
  SG_CHECK(sg_opt_real("-ball_density", 1000.0, 1e-6, 1e6, "density of the spheres on the tray (kg/m^3)", &density));
  SG_CHECK(sg_opt_real("-mu", 0.5, 0.0, 10.0, "friction", &s->friction[0]));
  SG_CHECK(sg_add_ground(s, 0));
  SG_CHECK(sg_arm_add(s, &a, NULL));
  SG_CHECK(tray_balls(s, &a, balls, r, density));
  s->next_gid = s->n;
  return SG_OK;
}
