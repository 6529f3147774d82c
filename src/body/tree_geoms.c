/* Collision geoms of a tree's links (tree.h, sg_link_geom): their placement and motion in the
 * world from the tree's kinematics, the parent-child filter, and the bounds the broad phase and the
 * ghosts' reach use for the tree's body. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/la.h"
#include "signorini/scene.h"
#include "signorini/tree.h"

sg_err sg_tree_add_geom(sg_tree *t, const sg_link_geom *g) {
  if (t->n_geoms >= SG_TREE_MAX_GEOMS)
    return sg_error_set(SG_ERR_ARG, "tree of body %lld: more than %d link geoms", (long long)t->body, SG_TREE_MAX_GEOMS);
  sg_link_geom *grown = realloc(t->geom, ((size_t)t->n_geoms + 1) * sizeof *grown);
  if (!grown) return sg_error_set(SG_ERR_MEM, "out of memory for the link geoms of a tree");
  t->geom = grown;
  t->geom[t->n_geoms++] = *g;
  return SG_OK;
}

void sg_tree_geom_world(const sg_tree *t, const sg_tree_kin *k, int g, double pos[3], double R[9]) {
  const sg_link_geom *G = &t->geom[g];
  const double *Rl = k->R[G->link];
  double Rg[9], d[3];
  quat_to_mat(Rg, G->quat);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) R[3 * r + c] = Rl[3 * r] * Rg[c] + Rl[3 * r + 1] * Rg[3 + c] + Rl[3 * r + 2] * Rg[6 + c];
  m3_mul_v(d, Rl, G->pos);
  v3_add(pos, k->x[G->link], d);
}

/* The link's twist (w; v_O at the world origin) gives the centre's velocity v_O + w x c. */
void sg_tree_geom_motion(const sg_tree *t, const sg_tree_kin *k, int g, const double *v, double vel[3], double w[3]) {
  double tw[6], pos[3], R[9], wx[3];
  sg_tree_link_twist(t, k, t->geom[g].link, v, tw);
  sg_tree_geom_world(t, k, g, pos, R);
  v3_cross(wx, tw, pos);
  v3_add(vel, tw + 3, wx);
  v3_copy(w, tw);
}

double sg_tree_geom_radius(const sg_link_geom *g) {
  const double *d = g->size;
  switch (g->shape) {
    case SG_SHAPE_SPHERE: return d[0];
    case SG_SHAPE_CAPSULE: return d[0] + d[1];
    case SG_SHAPE_BOX: return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    default: return 0.0;
  }
}

int sg_tree_links_joined(const sg_tree *t, int a, int b) {
  return a == b || t->link[a].parent == b || t->link[b].parent == a;
}

/* A point of geom g moves at most at |v_c| + |w| r_g (r_g its bounding radius about the centre c). */
void sg_tree_geom_bounds(const sg_tree *t, double *radius, double *speed) {
  *radius = *speed = 0;
  if (t->n_geoms == 0) return;
  sg_tree_kin k;
  sg_tree_kinematics(t, t->q, &k);
  for (int g = 0; g < t->n_geoms; ++g) {
    double pos[3], R[9], d[3], vel[3], w[3];
    const double r = sg_tree_geom_radius(&t->geom[g]);
    sg_tree_geom_world(t, &k, g, pos, R);
    sg_tree_geom_motion(t, &k, g, t->v, vel, w);
    v3_sub(d, pos, k.x[0]);
    *radius = fmax(*radius, v3_norm(d) + r);
    *speed = fmax(*speed, v3_norm(vel) + v3_norm(w) * r);
  }
}
