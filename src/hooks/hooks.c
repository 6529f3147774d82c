/* The hook registry: a list run stage by stage (hooks.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int sg_hooks_act_at(const sg_hook_list *l, sg_hook_stage stage) {
  for (int k = 0; k < l->n; ++k)
    if (l->hooks[k].ops->mask & stage) return 1;
  return 0;
}

void sg_hooks_save(const sg_hook_list *l, int64_t *words, int *n) {
  int m = 0;
  for (int k = 0; k < l->n; ++k) {
    const sg_hook_ops *ops = l->hooks[k].ops;
    if (!ops->save) continue;
    if (words) ops->save(&l->hooks[k], words + m);
    m += ops->n_state;
  }
  *n = m;
}

void sg_hooks_names(const sg_hook_list *l, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  for (int k = 0; k < l->n && at < len; ++k) {
    int w = snprintf(buf + at, len - at, "%s%s", k ? "," : "", l->hooks[k].ops->name);
    at += w > 0 ? (size_t)w : 0;
  }
}

sg_err sg_hooks_load(sg_hook_list *l, const int64_t *words, int n) {
  int need = 0;
  sg_hooks_save(l, NULL, &need);
  if (n != need) return sg_error_set(SG_ERR_FORMAT, "the hooks' state has %d words, this run's hooks need %d", n, need);
  int m = 0;
  for (int k = 0; k < l->n; ++k) {
    const sg_hook_ops *ops = l->hooks[k].ops;
    if (!ops->load) continue;
    SG_CHECK(ops->load(&l->hooks[k], words + m));
    m += ops->n_state;
  }
  return SG_OK;
}

sg_err sg_body_events_push(sg_body_events *e, const sg_scene *s, int i, double time) {
  SG_CHECK(sg_grow((void **)&e->ev, &e->cap, e->n + 1, sizeof *e->ev, "body events"));
  sg_body_event *v = &e->ev[e->n++];
  v->gid = s->gid[i];
  v->time = time;
  v->mass = s->mass[i];
  memcpy(v->pos, s->state.pos + 3 * i, sizeof v->pos);
  memcpy(v->quat, s->state.quat + 4 * i, sizeof v->quat);
  memcpy(v->vel, s->state.vel + 6 * i, sizeof v->vel);
  v->shape = s->shape[i];
  v->material = s->material[i];
  memcpy(v->size, s->size + 3 * i, sizeof v->size);
  v->density = s->density[i];
  return SG_OK;
}

sg_err sg_hooks_from_model(const sg_scene *s, sg_hook_list *l) {
  if (s->n_motions > 0) SG_CHECK(sg_hooks_add(l, &sg_hook_kinematic_ops, NULL));
  /* outflows first: a body deleted at the end of a step leaves room for the next insertion */
  for (int k = 0; k < s->n_regions; ++k)
    if (s->regions[k].kind == SG_REGION_OUTFLOW) SG_CHECK(sg_hook_outflow_add(l, s, k));
  for (int k = 0; k < s->n_regions; ++k)
    if (s->regions[k].kind == SG_REGION_INFLOW) SG_CHECK(sg_hook_inflow_add(l, s, k));
  if (s->n_trees > 0) SG_CHECK(sg_hooks_add(l, &sg_hook_tree_sync_ops, NULL));
  return SG_OK;
}
