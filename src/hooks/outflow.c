/* Outflow: at the end of each step, every moving body whose centre is in the region's deleting
 * zone (scene.h, sg_region_deletes) is deleted by the rank that holds it. The deletion is logged
 * (global id, time, state, mass) and tallied: the count and the mass that left, summed
 * reproducibly so that the statistics are the same bits whatever the number of ranks. */
#include <stdlib.h>
#include "signorini/exchange.h"
#include "signorini/hooks.h"

typedef struct {
  int region;
  unsigned char *drop;
  int cap_drop;
  double *mass;
  int cap_mass;
} outflow;

static sg_err outflow_run(sg_hook *h, sg_hook_stage stage, const sg_hook_context *ctx) {
  (void)stage;
  outflow *o = h->data;
  sg_scene *s = ctx->s;
  const sg_region *r = &s->regions[o->region];
  sg_err err = sg_grow((void **)&o->drop, &o->cap_drop, s->n + 1, 1, "outflow marks");
  if (!err) err = sg_grow((void **)&o->mass, &o->cap_mass, s->n + 1, sizeof(double), "outflow masses");
  int n_drop = 0;
  for (int i = 0; i < s->n && !err; ++i) {
    o->drop[i] = i < ctx->n_held && s->fixed[i] == SG_MOVING && sg_region_deletes(r, s->state.pos + 3 * i);
    if (!o->drop[i]) continue;
    err = sg_body_events_push(ctx->deleted, s, i, ctx->t1);
    o->mass[n_drop++] = s->mass[i];
  }
  SG_CHECK(sg_error_collective(ctx->comm, err)); /* before the reductions, which every rank must reach */
  long long count = n_drop;
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_LONG_LONG, MPI_SUM, ctx->comm);
  double mass = sg_sum_reproducible(ctx->comm, o->mass, n_drop);
  if (n_drop) sg_scene_remove_bodies(s, o->drop);
  ctx->tally->deleted += count;
  ctx->tally->mass_deleted += mass;
  return SG_OK;
}

static void outflow_destroy(sg_hook *h) {
  outflow *o = h->data;
  if (o) {
    free(o->drop);
    free(o->mass);
  }
  free(o);
  h->data = NULL;
}

static const sg_hook_ops outflow_ops = {
    .name = "outflow",
    .mask = SG_HOOK_END_OF_STEP,
    .run = outflow_run,
    .destroy = outflow_destroy,
};

sg_err sg_hook_outflow_add(sg_hook_list *l, const sg_scene *s, int region) {
  (void)s;
  outflow *o = sg_calloc(1, sizeof *o, "outflow hook");
  if (!o) return SG_ERR_MEM;
  o->region = region;
  sg_err err = sg_hooks_add(l, &outflow_ops, o);
  if (err) free(o);
  return err;
}
