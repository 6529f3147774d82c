/* Linkage: a parallelogram four-bar linkage, the smallest mechanism with a kinematic loop. Two cranks
 * of -length hang from pivots A and B, -span apart along x; a coupler of -span joins their lower
 * ends. Each link is a massless rod with a bob (a small solid sphere) at its end, joined by revolute
 * joints about y. The tree is crank 1 - coupler, and either (-closure world) crank 2 as the coupler's
 * child, its tip held at B, or (-closure links) crank 2 hanging from B as a second root, its bob held
 * at the coupler's end. The coupler translates without turning, so the cranks swing as pendulums of
 * -length (docs/SCENES.md, "Loop closures"). */
#include <math.h>
#include <string.h>
#include "signorini/generate.h"
#include "signorini/la.h"
#include "signorini/options.h"
#include "signorini/tree.h"

/* A revolute link about y without limits: joint at pos in its parent's frame, its bob at `bob` in its own frame. */
static void rod(sg_link *L, int parent, const double pos[3], const double bob[3], const sg_linkage *k) {
  sg_bob_link(L, parent, SG_JOINT_REVOLUTE, pos, bob, k->mass, k->radius);
  L->limit[0] = -INFINITY;
  L->limit[1] = INFINITY;
}

/* The three links, the closure, and the parallelogram at crank angle theta0: a turn q about y takes
 * (0, 0, -L) to (-L sin q, 0, -L cos q), so the coupler (along its +x) stays level at q1 = -q0 and
 * crank 2 is parallel to crank 1 at q0 (from B) or, as the coupler's child pointing up, at q2 = q0. */
static sg_err build(sg_tree *t, const sg_linkage *k) {
  const double L = k->length, D = k->span, down[3] = {0, 0, -L}, up[3] = {0, 0, L}, along[3] = {D, 0, 0};
  const double B[3] = {k->pivot[0] + D, k->pivot[1], k->pivot[2]};
  rod(&t->link[0], -1, k->pivot, down, k);
  rod(&t->link[1], 0, down, along, k);
  sg_closure c;
  memset(&c, 0, sizeof c);
  if (k->close_at_world) {
    rod(&t->link[2], 1, along, up, k);
    c.link[0] = 2;
    c.link[1] = -1;
    v3_copy(c.point[0], up);
    v3_copy(c.point[1], B);
  } else {
    rod(&t->link[2], -1, B, down, k);
    c.link[0] = 1;
    c.link[1] = 2;
    v3_copy(c.point[0], along);
    v3_copy(c.point[1], down);
  }
  SG_CHECK(sg_tree_add_closure(t, &c));
  SG_CHECK(sg_tree_finish(t, "generate linkage"));
  t->q[0] = k->theta0;
  t->q[1] = -k->theta0;
  t->q[2] = k->theta0;
  return SG_OK;
}

sg_err sg_linkage_add(sg_scene *s, const sg_linkage *k, int *index) {
  const double size[3] = {k->radius, 0, 0};
  int i;
  sg_tree *t = NULL;
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, 1.0, k->pivot, NULL, NULL, &i));
  SG_CHECK(sg_tree_create(3, s->gid[i], &t));
  sg_err err = build(t, k);
  if (!err) err = sg_scene_add_tree(s, t);
  sg_tree_release(&t);
  if (index) *index = i;
  return err ? err : sg_scene_attach_trees(s, "generate linkage");
}

sg_err sg_generate_linkage(sg_scene *s) {
  double theta0;
  char closure[16];
  sg_linkage k;
  memset(&k, 0, sizeof k);
  SG_CHECK(sg_opt_real("-length", 1.0, 1e-6, 1e6, "length of each crank, pivot to bob (m)", &k.length));
  SG_CHECK(sg_opt_real("-span", k.length, 1e-6, 1e6, "distance between the pivots, and length of the coupler (m)", &k.span));
  SG_CHECK(sg_opt_real("-mass", 1.0, 1e-9, 1e12, "mass of each bob (kg)", &k.mass));
  SG_CHECK(sg_opt_real("-radius", 0.02 * k.length, 1e-9, 1e6, "radius of each bob, a solid sphere (m)", &k.radius));
  SG_CHECK(sg_opt_real("-theta0", 20.0, -89.0, 89.0, "initial angle of the cranks from the vertical (degrees)", &theta0));
  SG_CHECK(sg_opt_real("-height", 1.1 * k.length, -1e6, 1e6, "height of the pivots (m)", &k.pivot[2]));
  SG_CHECK(sg_opt_choice("-closure", "world", "world|links",
                         "where the loop closes: crank 2's tip held at pivot B, or crank 2 hanging from B with its bob held at the "
                         "coupler's end", closure, sizeof closure));
  k.theta0 = theta0 * M_PI / 180.0;
  k.close_at_world = !strcmp(closure, "world");
  return sg_linkage_add(s, &k, NULL);
}
