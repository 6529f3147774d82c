/* Loop closures of a tree (tree.h, sg_closure): a point of one link held at a point of another link
 * or of the world. The tree stays the spanning tree of the mechanism (its mass matrix, its
 * factorization (40)-(41)); each closure adds three bilateral rows on the tree's subsystem
 * (src/body/tree_rows.c), the cut joint of Featherstone 2008, Sec. 8.1, in velocity form. */
#include <math.h>
#include <stdlib.h>
#include "signorini/la.h"
#include "signorini/tree.h"

sg_err sg_tree_add_closure(sg_tree *t, const sg_closure *c) {
  if (t->n_closures >= SG_TREE_MAX_CLOSURES)
    return sg_error_set(SG_ERR_ARG, "tree of body %lld: more than %d loop closures", (long long)t->body, SG_TREE_MAX_CLOSURES);
  sg_closure *grown = realloc(t->closure, ((size_t)t->n_closures + 1) * sizeof *grown);
  if (!grown) return sg_error_set(SG_ERR_MEM, "out of memory for the loop closures of a tree");
  t->closure = grown;
  t->closure[t->n_closures++] = *c;
  return SG_OK;
}

sg_err sg_tree_check_closure(const sg_tree *t, int c, const char *where) {
  const sg_closure *C = &t->closure[c];
  const long long b = (long long)t->body;
  if (C->link[0] < 0 || C->link[0] >= t->n_links || C->link[1] < -1 || C->link[1] >= t->n_links)
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: loop closure %d joins links %d and %d, expected 0 to %d and -1 (the "
                        "world) to %d", where, b, c, C->link[0], C->link[1], t->n_links - 1, t->n_links - 1);
  if (C->link[0] == C->link[1])
    return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: loop closure %d joins link %d to itself", where, b, c, C->link[0]);
  for (int k = 0; k < 2; ++k)
    for (int d = 0; d < 3; ++d)
      if (!isfinite(C->point[k][d]))
        return sg_error_set(SG_ERR_FORMAT, "%s: tree of body %lld: loop closure %d has a point that is not finite", where, b, c);
  return SG_OK;
}

/* x = the link's origin + R p (world), or p itself for the world (link -1). */
static void world_point(const sg_tree_kin *k, int link, const double p[3], double x[3]) {
  if (link < 0) {
    v3_copy(x, p);
    return;
  }
  double Rp[3];
  m3_mul_v(Rp, k->R[link], p);
  v3_add(x, k->x[link], Rp);
}

void sg_tree_closure_points(const sg_tree *t, const sg_tree_kin *k, int c, double xa[3], double xb[3]) {
  const sg_closure *C = &t->closure[c];
  world_point(k, C->link[0], C->point[0], xa);
  world_point(k, C->link[1], C->point[1], xb);
}
