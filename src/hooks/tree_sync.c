/* Trees' state on every rank: each tree (tree.h) is integrated by the rank that owns its body, and at
 * the end of every step its q and v go from that rank to the others, so that the scene's table of
 * trees is the same everywhere (what output, checkpoints and the next owner after a repartition
 * read). Copies, not sums: the bits are the owner's whatever the number of ranks. */
#include <stdlib.h>
#include <string.h>
#include "signorini/hooks.h"
#include "signorini/tree.h"

static sg_err tree_sync_run(sg_hook *h, sg_hook_stage stage, const sg_hook_context *ctx) {
  (void)h;
  (void)stage;
  sg_scene *s = ctx->s;
  int size, rank;
  MPI_Comm_size(ctx->comm, &size);
  MPI_Comm_rank(ctx->comm, &rank);
  if (size == 1 || s->n_trees == 0) return SG_OK;
  int *owner = sg_calloc((size_t)s->n_trees, sizeof *owner, "tree owners");
  double *buf = sg_calloc(SG_TREE_MAX_Q + SG_TREE_MAX_DOF, sizeof *buf, "tree state");
  sg_err err = sg_error_collective(ctx->comm, owner && buf ? SG_OK : SG_ERR_MEM);
  for (int k = 0; k < s->n_trees && !err; ++k) {
    int i = sg_scene_find_gid(s, ctx->n_held, s->trees[k]->body);
    owner[k] = i >= 0 && s->fixed[i] == SG_MOVING ? rank : -1;
  }
  if (!err) MPI_Allreduce(MPI_IN_PLACE, owner, s->n_trees, MPI_INT, MPI_MAX, ctx->comm);
  for (int k = 0; k < s->n_trees && !err; ++k) {
    sg_tree *t = s->trees[k];
    if (owner[k] < 0) continue; /* its body has left the scene */
    memcpy(buf, t->q, (size_t)t->nq * sizeof *buf);
    memcpy(buf + t->nq, t->v, (size_t)t->nv * sizeof *buf);
    MPI_Bcast(buf, t->nq + t->nv, MPI_DOUBLE, owner[k], ctx->comm);
    memcpy(t->q, buf, (size_t)t->nq * sizeof *buf);
    memcpy(t->v, buf + t->nq, (size_t)t->nv * sizeof *buf);
  }
  free(owner);
  free(buf);
  return err;
}

const sg_hook_ops sg_hook_tree_sync_ops = {.name = "trees", .mask = SG_HOOK_END_OF_STEP, .run = tree_sync_run};
