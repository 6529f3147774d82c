/* Quadruped: an 18-velocity robot of the Laikago's proportions as one kinematic tree (tree.h): a
 * floating base (a free joint) and four legs of three revolute joints each (hip abduction about x,
 * hip flexion and knee about y), primitive geoms (a box for the base, capsules for thighs and
 * calves, a sphere at each foot), and PD control on every joint holding the standing pose: thighs
 * turned `crouch` rad, knees -2 crouch, so each foot is below its hip and the base at the height
 * where the feet touch the ground. */
#include <math.h>
#include <string.h>
#include "signorini/generate.h"
#include "signorini/la.h"
#include "signorini/options.h"
#include "signorini/tree.h"

/* Base (half extents, mass), hip offsets, and the legs' lengths, masses and radii (m, kg). */
static const double base_half[3] = {0.27, 0.09, 0.06}, base_mass = 9.0;
static const double hip_x = 0.21, hip_y = 0.075, thigh_y = 0.08, seg = 0.25;
static const double hip_mass = 1.0, thigh_mass = 1.0, calf_mass = 0.3, thigh_r = 0.025, calf_r = 0.015, foot_r = 0.02;

/* A link hanging along its own -z: a rod of mass m and length l, centre of mass at its middle. */
static void rod_link(sg_link *L, int parent, const double pos[3], const double axis[3], double m, double l) {
  L->parent = parent;
  L->type = SG_JOINT_REVOLUTE;
  v3_copy(L->pos, pos);
  v3_copy(L->axis, axis);
  L->mass = m;
  v3_set(L->com, 0, 0, -0.5 * l);
  const double I = m * l * l / 12 + 1e-5; /* a thin rod's, and a little about its axis */
  v3_set(L->inertia, I, I, 1e-5);
}

static sg_err add_geom(sg_tree *t, int link, int shape, double r, double half, double z) {
  sg_link_geom g = {.link = link, .shape = shape, .size = {r, half, 0}, .pos = {0, 0, z}, .quat = {1, 0, 0, 0}};
  return sg_tree_add_geom(t, &g);
}

/* Leg k (front/rear by k < 2, left/right by k even): links 1 + 3k (hip), 2 + 3k (thigh), 3 + 3k
 * (calf), the PD targets of the standing pose. */
static sg_err add_leg(sg_tree *t, int k, const sg_quadruped *q) {
  static const double x_axis[3] = {1, 0, 0}, y_axis[3] = {0, 1, 0};
  const double sx = k < 2 ? 1 : -1, sy = k % 2 ? -1 : 1;
  const double hip_pos[3] = {sx * hip_x, sy * hip_y, 0}, thigh_pos[3] = {0, sy * thigh_y, 0}, calf_pos[3] = {0, 0, -seg};
  const int h = 1 + 3 * k;
  sg_link *hip = &t->link[h], *thigh = &t->link[h + 1], *calf = &t->link[h + 2];
  rod_link(hip, 0, hip_pos, x_axis, hip_mass, 0.0);
  v3_set(hip->inertia, 1e-3, 1e-3, 1e-3);
  rod_link(thigh, h, thigh_pos, y_axis, thigh_mass, seg);
  rod_link(calf, h + 1, calf_pos, y_axis, calf_mass, seg);
  const double target[3] = {0, q->crouch, -2 * q->crouch};
  for (int j = 0; j < 3; ++j) {
    sg_link *L = &t->link[h + j];
    L->pd[0] = q->kp;
    L->pd[1] = q->kd;
    L->pd[2] = target[j];
  }
  SG_CHECK(add_geom(t, h + 1, SG_SHAPE_CAPSULE, thigh_r, 0.5 * seg - thigh_r, -0.5 * seg));
  SG_CHECK(add_geom(t, h + 2, SG_SHAPE_CAPSULE, calf_r, 0.5 * seg - 0.04, -0.5 * seg + 0.01)); /* short of the foot */
  return add_geom(t, h + 2, SG_SHAPE_SPHERE, foot_r, 0, -seg);
}

/* The base: a free joint from the world frame, its box geom. */
static sg_err add_base(sg_tree *t) {
  sg_link *b = &t->link[0];
  b->parent = -1;
  b->type = SG_JOINT_FREE;
  b->mass = base_mass;
  const double *h = base_half;
  v3_set(b->inertia, base_mass * (h[1] * h[1] + h[2] * h[2]) / 3, base_mass * (h[0] * h[0] + h[2] * h[2]) / 3,
         base_mass * (h[0] * h[0] + h[1] * h[1]) / 3);
  sg_link_geom g = {.link = 0, .shape = SG_SHAPE_BOX, .quat = {1, 0, 0, 0}};
  v3_copy(g.size, base_half);
  return sg_tree_add_geom(t, &g);
}

double sg_quadruped_stand_height(const sg_quadruped *q) { return 2 * seg * cos(q->crouch) + foot_r; }

sg_err sg_quadruped_add(sg_scene *s, const sg_quadruped *q, int *index) {
  const double size[3] = {foot_r, 0, 0};
  double pos[3] = {q->pos[0], q->pos[1], q->pos[2] + sg_quadruped_stand_height(q)};
  int i;
  sg_tree *t = NULL;
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, q->material, 0, 1.0, pos, NULL, NULL, &i));
  SG_CHECK(sg_tree_create(13, s->gid[i], &t));
  sg_err err = add_base(t);
  for (int k = 0; k < 4 && !err; ++k) err = add_leg(t, k, q);
  if (!err) err = sg_tree_finish(t, "generate quadruped");
  if (!err) { /* the base's position (q[0..2], its joint frame is the world's), then the standing pose */
    v3_copy(t->q, pos);
    for (int k = 0; k < 4; ++k) {
      t->q[t->link[2 + 3 * k].q_off] = q->crouch;
      t->q[t->link[3 + 3 * k].q_off] = -2 * q->crouch;
    }
  }
  if (!err) err = sg_scene_add_tree(s, t);
  sg_tree_release(&t);
  if (!err) err = sg_scene_attach_trees(s, "generate quadruped");
  if (index) *index = i;
  return err;
}
