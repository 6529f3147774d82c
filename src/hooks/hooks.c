/* The hook registry: a list run stage by stage (hooks.h). */
#include <stdlib.h>
#include "signorini/hooks.h"

sg_err sg_hooks_add(sg_hook_list *l, const sg_hook_ops *ops, void *data) {
  SG_CHECK(sg_grow((void **)&l->hooks, &l->cap, l->n + 1, sizeof *l->hooks, "step hooks"));
  l->hooks[l->n++] = (sg_hook){ops, data};
  return SG_OK;
}

sg_err sg_hooks_run(sg_hook_list *l, sg_hook_stage stage, const sg_hook_context *ctx) {
  if (l->n == 0) return SG_OK; /* every rank holds the same hooks: no reduction needed */
  sg_err err = SG_OK;
  for (int k = 0; k < l->n && !err; ++k)
    if (l->hooks[k].ops->mask & stage) err = l->hooks[k].ops->run(&l->hooks[k], stage, ctx);
  return sg_error_collective(ctx->comm, err);
}

void sg_hooks_destroy(sg_hook_list *l) {
  for (int k = 0; k < l->n; ++k)
    if (l->hooks[k].ops->destroy) l->hooks[k].ops->destroy(&l->hooks[k]);
  free(l->hooks);
  l->hooks = NULL;
  l->n = l->cap = 0;
}

sg_err sg_hooks_from_model(const sg_scene *s, sg_hook_list *l) {
  if (s->n_motions > 0) SG_CHECK(sg_hooks_add(l, &sg_hook_kinematic_ops, NULL));
  return SG_OK;
}
