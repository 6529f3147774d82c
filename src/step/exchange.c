/* Where bodies live: the first partition, repartitions (bodies and the warm-start entries of their
 * contacts move to their new owners), and the ghosts each step appends to the scene. */
#include <stdlib.h> /* first: it defines __GLIBC__ */
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include "signorini/exchange.h"
#include "signorini/partition.h"
#include "signorini/partition_dist.h"
#include "signorini/timing.h"
#include "step/stepper_internal.h"

/* Give the pages freed by a partition (METIS's graph on rank 0, the scene copies of a migration)
 * back to the system, so that they do not stay resident beside the arrays of the steps to come. */
static void release_free_memory(void) {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

static void count_moving(sg_stepper *st) {
  long long n = 0;
  for (int i = 0; i < st->s->n; ++i) n += !st->s->fixed[i];
  MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_LONG_LONG, MPI_SUM, st->comm);
  st->n_moving_global = n;
}

/* A whole scene becomes this rank's block; then METIS (on rank 0) on the proximity graph of the
 * bodies' bounding spheres gives the owners, and the bodies move to them. */
sg_err sg_stepper_partition_initial(sg_stepper *st) {
  MPI_Comm comm = st->comm;
  sg_scene *s = st->s;
  SG_CHECK(sg_error_collective(comm, sg_scene_keep_block(comm, s)));
  SG_CHECK(sg_error_collective(comm, sg_scene_create(&st->ghosts, 16, s->n_materials)));
  count_moving(st);
  if (st->size == 1) return SG_OK;
  int *owner = sg_calloc((size_t)s->n + 1, sizeof *owner, "owners");
  sg_err err = sg_error_collective(comm, owner ? SG_OK : SG_ERR_MEM);
  if (!err) err = st->prm.partition_sfc ? sg_partition_sfc(comm, s, st->size, owner) : sg_partition_distributed(comm, s, NULL, 0, owner);
  if (!err) err = sg_error_collective(comm, sg_scene_migrate(comm, s, owner));
  free(owner);
  release_free_memory();
  return err;
}

void sg_stepper_exchange_destroy(sg_stepper *st) {
  sg_ghosts_destroy(&st->gh);
  if (st->ghosts.cap) sg_scene_destroy(&st->ghosts);
}

/* Destination ranks of each warm entry (the new owners of the moving bodies held here among its
 * two): entry k goes to dest[off[k] .. off[k + 1]). */
static sg_err plan_warm_moves(const sg_stepper *st, const int *owner, int **off_out, int **dest_out) {
  const sg_scene *s = st->s;
  int *off = sg_calloc((size_t)st->n_warm + 1, sizeof *off, "warm plan");
  int *dest = sg_calloc((size_t)2 * st->n_warm + 1, sizeof *dest, "warm plan");
  *off_out = off;
  *dest_out = dest;
  if (!off || !dest) return SG_ERR_MEM;
  for (int k = 0; k < st->n_warm; ++k) {
    int nd = off[k];
    int a = sg_scene_find_gid(s, s->n, st->warm[k].gid_a), b = sg_scene_find_gid(s, s->n, st->warm[k].gid_b);
    if (a >= 0 && !s->fixed[a]) dest[nd++] = owner[a];
    if (b >= 0 && !s->fixed[b] && !(nd > off[k] && dest[nd - 1] == owner[b])) dest[nd++] = owner[b];
    off[k + 1] = nd;
  }
  return SG_OK;
}

/* The warm entries sent by the plan, received into *recv (n_recv of them; bytes: the ranks share
 * one architecture). Collective. */
static sg_err move_warm_entries(sg_stepper *st, const int *off, const int *dest, sg_warm_entry **recv, int *n_recv) {
  MPI_Comm comm = st->comm;
  const int P = st->size, w = (int)sizeof(sg_warm_entry), n_send = off[st->n_warm];
  int *sc = sg_calloc((size_t)P, sizeof *sc, "warm counts"), *rc = sg_calloc((size_t)P, sizeof *rc, "warm counts");
  int *sd = sg_calloc((size_t)P + 1, sizeof *sd, "warm offsets"), *rd = sg_calloc((size_t)P + 1, sizeof *rd, "warm offsets");
  int *fill = sg_calloc((size_t)P + 1, sizeof *fill, "warm offsets");
  sg_warm_entry *sbuf = sg_calloc((size_t)n_send + 1, sizeof *sbuf, "warm buffer");
  sg_err err = sg_error_collective(comm, sc && rc && sd && rd && fill && sbuf ? SG_OK : SG_ERR_MEM);
  if (!err) {
    for (int m = 0; m < n_send; ++m) sc[dest[m]]++;
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
    for (int k = 0; k < P; ++k) { sd[k + 1] = sd[k] + sc[k]; rd[k + 1] = rd[k] + rc[k]; }
    *recv = sg_calloc((size_t)rd[P] + 1, sizeof **recv, "warm buffer");
    err = sg_error_collective(comm, *recv ? SG_OK : SG_ERR_MEM);
  }
  if (!err) {
    memcpy(fill, sd, (size_t)P * sizeof *fill);
    for (int k = 0; k < st->n_warm; ++k)
      for (int m = off[k]; m < off[k + 1]; ++m) sbuf[fill[dest[m]]++] = st->warm[k];
    *n_recv = rd[P];
    for (int k = 0; k < P; ++k) { sc[k] *= w; rc[k] *= w; sd[k] *= w; rd[k] *= w; }
    if (MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, *recv, rc, rd, MPI_BYTE, comm) != MPI_SUCCESS)
      err = sg_error_set(SG_ERR_LIB, "repartition: the warm-start exchange failed");
  }
  free(sc); free(rc); free(sd); free(rd); free(fill); free(sbuf);
  return sg_error_collective(comm, err);
}

/* Is global id g a fixed body? Every rank holds every fixed body; bodies inserted or deleted since
 * the contacts were found have moved the indices, so look the id up. */
static int is_fixed_gid(const sg_scene *s, int64_t g) {
  int i = sg_scene_find_gid(s, s->n, g);
  return i >= 0 && s->fixed[i];
}

/* Last step's kept contacts as gid pairs (-1 for a fixed body), for the partition's graph. */
static int64_t *contact_pairs(const sg_stepper *st, int *nc) {
  const sg_scene *s = st->s;
  int n = 0;
  for (int k = 0; k < st->contacts.n; ++k) n += st->kept[k];
  int64_t *pairs = sg_calloc((size_t)2 * n + 2, sizeof *pairs, "contact pairs");
  *nc = n;
  for (int k = 0, m = 0; pairs && k < st->contacts.n; ++k) {
    if (!st->kept[k]) continue;
    const sg_contact *c = &st->contacts.c[k];
    pairs[2 * m] = is_fixed_gid(s, c->gid_a) ? -1 : c->gid_a;
    pairs[2 * m + 1] = is_fixed_gid(s, c->gid_b) ? -1 : c->gid_b;
    m++;
  }
  return pairs;
}

/* New owners from METIS on last step's contact graph (or the Hilbert curve), then bodies and
 * warm-start entries move. */
static sg_err repartition(sg_stepper *st) {
  MPI_Comm comm = st->comm;
  sg_scene *s = st->s;
  int nc = 0;
  int64_t *pairs = contact_pairs(st, &nc);
  int *owner = sg_calloc((size_t)s->n + 1, sizeof *owner, "owners");
  sg_err err = sg_error_collective(comm, pairs && owner ? SG_OK : SG_ERR_MEM);
  if (!err) err = st->prm.partition_sfc ? sg_partition_sfc(comm, s, st->size, owner) : sg_partition_distributed(comm, s, pairs, nc, owner);
  free(pairs);
  int *off = NULL, *dest = NULL, n_recv = 0;
  sg_warm_entry *recv = NULL;
  if (!err) err = sg_error_collective(comm, plan_warm_moves(st, owner, &off, &dest));
  if (!err) err = move_warm_entries(st, off, dest, &recv, &n_recv);
  free(off);
  free(dest);
  if (!err) err = sg_error_collective(comm, sg_scene_migrate(comm, s, owner));
  if (!err) {
    qsort(recv, (size_t)n_recv, sizeof *recv, sg_warm_entry_cmp);
    err = sg_stepper_keep_local_warm(st, recv, n_recv);
  }
  free(recv);
  free(owner);
  st->contacts.n = 0; /* its indices named the old bodies */
  if (!err) st->repartitions++;
  release_free_memory();
  return sg_error_collective(comm, err);
}

sg_err sg_stepper_maybe_repartition(sg_stepper *st) {
  const sg_scene *s = st->s;
  if (st->size == 1 || s->state.step == 0 || st->last_global_contacts == 0 || st->n_moving_global < st->size) return SG_OK;
  /* the step count and the reduced imbalance are shared; an imbalance trigger waits 20 steps after
   * the last repartition (timings are noisy) */
  double imb = (long)s->state.step - st->last_repartition_step >= 20 ? st->imbalance : 0.0;
  if (!sg_partition_needs_update((long)s->state.step, st->prm.repartition_every, imb, st->prm.repartition_imbalance)) return SG_OK;
  SG_CHECK(repartition(st));
  st->last_repartition_step = (long)s->state.step;
  return SG_OK;
}

sg_err sg_stepper_ghosts_in(sg_stepper *st) {
  sg_scene *s = st->s;
  double t0 = MPI_Wtime();
  if (st->size > 1) {
    SG_CHECK(sg_ghosts_update(&st->gh, st->comm, s, st->prm.margin, st->prm.dt, &st->ghosts));
    for (int m = 0; m < st->ghosts.n; ++m) SG_CHECK(sg_scene_copy_body(s, &st->ghosts, m));
  }
  SG_CHECK(sg_grow((void **)&st->ws_owner, &st->cap_ws_owner, s->n + 1, sizeof(int), "body owners"));
  for (int i = 0; i < s->n; ++i)
    st->ws_owner[i] = i < st->n_local ? (s->fixed[i] ? -1 : st->rank) : st->gh.ghost_owner[i - st->n_local];
  sg_timer_add(SG_PHASE_GHOSTS, t0);
  return SG_OK;
}

void sg_stepper_ghosts_out(sg_stepper *st) { st->s->n = st->n_local; }
