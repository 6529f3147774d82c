/* The registry of body kinds: ids as stored in the scene, and names. */
#include <string.h>
#include "signorini/body_kind.h"

static const sg_body_kind_ops *const kinds[SG_BODY_KIND_COUNT] = {[SG_BODY_RIGID6] = &sg_body_rigid6_ops,
                                                                   [SG_BODY_TREE] = &sg_body_tree_ops};

const sg_body_kind_ops *sg_body_kind_get(int kind) {
  return kind >= 0 && kind < SG_BODY_KIND_COUNT ? kinds[kind] : NULL;
}

int sg_body_kind_find(const char *name) {
  for (int k = 0; k < SG_BODY_KIND_COUNT; ++k)
    if (strcmp(kinds[k]->name, name) == 0) return k;
  return -1;
}

int sg_body_max_dof(void) {
  int w = 0;
  for (int k = 0; k < SG_BODY_KIND_COUNT; ++k)
    if (kinds[k]->max_dof > w) w = kinds[k]->max_dof;
  return w;
}
