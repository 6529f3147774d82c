/* Chain: an n-link pendulum hanging from a fixed pivot, a kinematic tree (tree.h) of n links joined
 * by revolute joints about the world y axis (or spherical joints), each link a massless rod of
 * -length with a bob (a small solid sphere) at its end. The chain starts straight, tilted by -theta0
 * from the vertical in the x-z plane, at rest. With -geom its links touch (a sphere at each bob or a
 * capsule along each rod), and -ground puts a fixed plane or box below it. */
#include <math.h>
#include <string.h>
#include "signorini/generate.h"
#include "signorini/la.h"
#include "signorini/options.h"
#include "signorini/tree.h"

void sg_bob_link(sg_link *L, int parent, int type, const double pos[3], const double bob[3], double mass, double radius) {
  L->parent = parent;
  L->type = type;
  v3_copy(L->pos, pos);
  L->quat[0] = 1;
  v3_set(L->axis, 0, 1, 0);
  L->mass = mass;
  v3_copy(L->com, bob);
  const double I = 0.4 * mass * radius * radius; /* a solid sphere's */
  v3_set(L->inertia, I, I, I);
}

/* Link k: its joint at the end of link k-1 (at the pivot for k = 0), its bob at -length along its
 * own z; the first joint turned by theta0. */
static void chain_link(sg_link *L, int k, const sg_chain *c) {
  const double pivot[3] = {c->pivot[0], c->pivot[1], c->pivot[2]}, down[3] = {0, 0, -c->length};
  sg_bob_link(L, k - 1, c->spherical ? SG_JOINT_SPHERICAL : SG_JOINT_REVOLUTE, k == 0 ? pivot : down, down, c->mass, c->radius);
  if (c->spherical) return;
  L->limit[0] = c->limit[0];
  L->limit[1] = c->limit[1];
  memcpy(L->pd, c->pd, sizeof L->pd);
}

/* Link k's geom: a sphere at the bob, or a capsule (its axis along local z) from the joint to the bob. */
static sg_err chain_geom(sg_tree *t, int k, const sg_chain *c) {
  if (c->geom == SG_CHAIN_GEOM_NONE) return SG_OK;
  sg_link_geom g = {.link = k, .quat = {1, 0, 0, 0}, .size = {c->radius, 0, 0}};
  const int capsule = c->geom == SG_CHAIN_GEOM_CAPSULE;
  g.shape = capsule ? SG_SHAPE_CAPSULE : SG_SHAPE_SPHERE;
  if (capsule) g.size[1] = 0.5 * c->length;
  v3_set(g.pos, 0, 0, capsule ? -0.5 * c->length : -c->length);
  return sg_tree_add_geom(t, &g);
}

sg_err sg_chain_add(sg_scene *s, const sg_chain *c, int *index) {
  const double size[3] = {c->radius, 0, 0};
  int i;
  sg_tree *t = NULL;
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, 1.0, c->pivot, NULL, NULL, &i));
  SG_CHECK(sg_tree_create(c->n, s->gid[i], &t));
  sg_err err = SG_OK;
  for (int k = 0; k < c->n && !err; ++k) {
    chain_link(&t->link[k], k, c);
    err = chain_geom(t, k, c);
  }
  if (!err) err = sg_tree_finish(t, "generate chain");
  if (!err && c->spherical) { /* the first joint's quaternion: a turn by theta0 about y */
    double axis[3] = {0, 1, 0};
    quat_from_axis_angle(t->q, axis, c->theta0);
  } else if (!err) {
    t->q[0] = c->theta0;
  }
  if (!err) err = sg_scene_add_tree(s, t);
  sg_tree_release(&t);
  if (!err) err = sg_scene_attach_trees(s, "generate chain");
  if (index) *index = i;
  return err;
}

/* A fixed ground whose top is at height z below the chain: a plane, or a box as wide as the chain
 * is long each way. */
static sg_err chain_ground(sg_scene *s, const char *kind, double z, const sg_chain *c) {
  if (!strcmp(kind, "none")) return SG_OK;
  const double reach = c->n * c->length, thick = 0.1 * c->length;
  const int box = !strcmp(kind, "box");
  const double size[3] = {box ? 2 * reach : 0, box ? 2 * reach : 0, box ? thick : 0};
  const double pos[3] = {c->pivot[0], c->pivot[1], box ? z - thick : z};
  return sg_scene_add_body(s, box ? SG_SHAPE_BOX : SG_SHAPE_PLANE, size, 0, SG_FIXED, 0.0, pos, NULL, NULL, NULL);
}

sg_err sg_generate_chain(sg_scene *s) {
  long n;
  double theta0, ground_z;
  char joint[32], geom[32], ground[32];
  sg_chain c;
  memset(&c, 0, sizeof c);
  SG_CHECK(sg_opt_int("-n", 2, 1, SG_TREE_MAX_LINKS, "links", &n));
  SG_CHECK(sg_opt_real("-length", 1.0, 1e-6, 1e6, "length of each link, joint to bob (m)", &c.length));
  SG_CHECK(sg_opt_real("-mass", 1.0, 1e-9, 1e12, "mass of each bob (kg)", &c.mass));
  SG_CHECK(sg_opt_real("-radius", 0.02 * c.length, 1e-9, 1e6, "radius of each bob, a solid sphere (m)", &c.radius));
  SG_CHECK(sg_opt_real("-theta0", 30.0, -180.0, 180.0, "initial angle of the straight chain from the vertical (degrees)", &theta0));
  SG_CHECK(sg_opt_real("-height", (double)n * c.length * 1.1, -1e6, 1e6, "height of the pivot (m)", &c.pivot[2]));
  SG_CHECK(sg_opt_choice("-joint", "revolute", "revolute|spherical", "joints: revolute about y, or spherical", joint,
                         sizeof joint));
  SG_CHECK(sg_opt_real("-limit_lower", -INFINITY, -INFINITY, 180.0, "lower limit of every revolute joint (degrees; absent: none)", &c.limit[0]));
  SG_CHECK(sg_opt_real("-limit_upper", INFINITY, -180.0, INFINITY, "upper limit of every revolute joint (degrees; absent: none)", &c.limit[1]));
  SG_CHECK(sg_opt_real("-kp", 0.0, 0.0, 1e12, "PD stiffness of every revolute joint (N m/rad; 0 and -kd 0: no control)", &c.pd[0]));
  SG_CHECK(sg_opt_real("-kd", 0.0, 0.0, 1e12, "PD damping of every revolute joint (N m s/rad; > 0 with -kp)", &c.pd[1]));
  SG_CHECK(sg_opt_real("-target", 0.0, -180.0, 180.0, "PD target angle of every revolute joint (degrees)", &c.pd[2]));
  SG_CHECK(sg_opt_choice("-geom", "none", "none|sphere|capsule", "collision geoms of the links: none, a sphere at each bob, or a "
                         "capsule of -radius along each link", geom, sizeof geom));
  SG_CHECK(sg_opt_choice("-ground", "none", "none|plane|box", "a fixed ground below the chain", ground, sizeof ground));
  SG_CHECK(sg_opt_real("-ground_z", 0.0, -1e6, 1e6, "height of the ground's top (m)", &ground_z));
  c.geom = !strcmp(geom, "sphere") ? SG_CHAIN_GEOM_SPHERE : !strcmp(geom, "capsule") ? SG_CHAIN_GEOM_CAPSULE : SG_CHAIN_GEOM_NONE;
  for (int k = 0; k < 2; ++k) c.limit[k] *= M_PI / 180.0;
  c.pd[2] *= M_PI / 180.0;
  c.n = (int)n;
  c.theta0 = theta0 * M_PI / 180.0;
  c.spherical = !strcmp(joint, "spherical");
  s->friction[0] = 0.5;
  SG_CHECK(chain_ground(s, ground, ground_z, &c));
  return sg_chain_add(s, &c, NULL);
}
