/* Partitioning a distributed scene: the moving bodies' gid, centre, bounding radius and partition
 * weight (their kind's, body_kind.h) (and, for a contact graph, the contact pairs by gid) are
 * gathered on rank 0, which runs serial METIS on a skeleton of spheres weighted as the bodies and
 * sends every rank the new owner of each body it holds. Rank 0 holds the graph (56 bytes per body
 * plus the pairs) for the duration of the call; no rank holds the scene. */
#include <stdlib.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/partition.h"
#include "signorini/partition_dist.h"

/* a gid and a weight below 2^53 are exact in a double */
typedef struct { double gid, x, y, z, r, base, per_contact; } skel_record;
enum { REC = (int)(sizeof(skel_record) / sizeof(double)) };

typedef struct { int64_t gid; int at; } gid_slot;

static int slot_cmp(const void *a, const void *b) {
  const gid_slot *x = a, *y = b;
  return (x->gid > y->gid) - (x->gid < y->gid);
}

static int find_vertex(const gid_slot *v, int n, int64_t gid) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (v[mid].gid == gid) return mid;
    if (v[mid].gid < gid) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

/* Rank 0: the part of every gathered record (rec[0..n), in gathered order). */
static sg_err split_on_root(const sg_scene *s, const skel_record *rec, int n, const int64_t *pairs, long long n_pairs,
                            int nparts, int *part_of_record) {
  gid_slot *v = sg_calloc((size_t)n + 1, sizeof *v, "partition vertices");
  if (!v) return SG_ERR_MEM;
  for (int k = 0; k < n; ++k) v[k] = (gid_slot){(int64_t)rec[k].gid, k};
  qsort(v, (size_t)n, sizeof *v, slot_cmp);
  sg_err err = SG_OK;
  if (n < nparts) { /* METIS cannot split fewer vertices than parts: one body per rank, in gid order */
    for (int k = 0; k < n; ++k) part_of_record[v[k].at] = k;
    free(v);
    return SG_OK;
  }
  /* skeleton: each moving body as its bounding sphere, in gid order; one fixed plane far below
   * stands for every fixed body of the contact pairs */
  sg_scene sk;
  err = sg_scene_create(&sk, n + 1, 1);
  if (!err) { /* the proximity graph links bodies across periodic boundaries */
    memcpy(sk.period_lo, s->period_lo, sizeof sk.period_lo);
    memcpy(sk.period_hi, s->period_hi, sizeof sk.period_hi);
  }
  sg_body_weight *weight = sg_calloc((size_t)n + 1, sizeof *weight, "partition weights");
  if (!err && !weight) err = SG_ERR_MEM;
  for (int k = 0; k < n && !err; ++k) {
    const skel_record *r = &rec[v[k].at];
    double size[3] = {r->r, 0, 0}, pos[3] = {r->x, r->y, r->z};
    weight[k] = (sg_body_weight){(int64_t)r->base, (int64_t)r->per_contact};
    err = sg_scene_add_body(&sk, SG_SHAPE_SPHERE, size, 0, 0, 1.0, pos, NULL, NULL, NULL);
  }
  sg_contacts c = {0};
  if (!err && pairs) {
    double size[3] = {0, 0, 0}, pos[3] = {0, 0, -1e300};
    err = sg_scene_add_body(&sk, SG_SHAPE_PLANE, size, 0, 1, 0.0, pos, NULL, NULL, NULL);
    if (!err) err = sg_grow((void **)&c.c, &c.cap, (int)(n_pairs > 0 ? n_pairs : 1), sizeof *c.c, "partition contacts");
    for (long long k = 0; k < n_pairs && !err; ++k) {
      int ab[2];
      for (int e = 0; e < 2; ++e) {
        int64_t g = pairs[2 * k + e];
        ab[e] = g < 0 ? n : find_vertex(v, n, g);
      }
      if (ab[0] < 0 || ab[1] < 0) continue; /* a body deleted since the contact was found (outflow) */
      memset(&c.c[c.n], 0, sizeof c.c[c.n]); c.c[c.n].a = ab[0]; c.c[c.n].b = ab[1]; c.n++;
    }
  }
  int *part = err ? NULL : sg_calloc((size_t)sk.n, sizeof *part, "partition");
  if (!err && !part) err = SG_ERR_MEM;
  if (!err) err = sg_partition_compute_weighted(&sk, pairs ? &c : NULL, weight, nparts, SG_PARTITION_AUTO, 1, part, NULL);
  for (int k = 0; k < n && !err; ++k) part_of_record[v[k].at] = part[k];
  free(part);
  free(weight);
  sg_contacts_destroy(&c);
  sg_scene_destroy(&sk);
  free(v);
  return err;
}

sg_err sg_partition_distributed(MPI_Comm comm, const sg_scene *s, const int64_t *pairs, int n_pairs, int *new_owner) {
  int P, me;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  int n = 0;
  for (int i = 0; i < s->n; ++i) n += !s->fixed[i];
  skel_record *mine = sg_calloc((size_t)n + 1, sizeof *mine, "partition records");
  int *cnt = sg_calloc((size_t)P, sizeof *cnt, "partition counts"), *dsp = sg_calloc((size_t)P + 1, sizeof *dsp, "partition offsets");
  int *pcnt = sg_calloc((size_t)P, sizeof *pcnt, "partition counts"), *pdsp = sg_calloc((size_t)P + 1, sizeof *pdsp, "partition offsets");
  skel_record *all = NULL;
  int64_t *all_pairs = NULL;
  int *part = NULL, *my_part = sg_calloc((size_t)n + 1, sizeof *my_part, "partition");
  sg_err err = mine && cnt && dsp && pcnt && pdsp && my_part ? SG_OK : SG_ERR_MEM;
  for (int i = 0, k = 0; !err && i < s->n; ++i)
    if (!s->fixed[i]) {
      const sg_body_weight w = sg_body_kind_of(s, i)->partition_weight(s, i);
      mine[k++] = (skel_record){(double)s->gid[i], s->state.pos[3 * i], s->state.pos[3 * i + 1], s->state.pos[3 * i + 2],
                                sg_body_bounding_radius(s, i), (double)w.base, (double)w.per_contact};
    }
  /* an error on any rank stops every rank before the collectives below */
  err = sg_error_collective(comm, err);
  if (err) goto done;
  int nrec = REC * n, npv = pairs ? 2 * n_pairs : 0;
  MPI_Gather(&nrec, 1, MPI_INT, cnt, 1, MPI_INT, 0, comm);
  MPI_Gather(&npv, 1, MPI_INT, pcnt, 1, MPI_INT, 0, comm);
  if (me == 0) {
    for (int k = 0; k < P; ++k) { dsp[k + 1] = dsp[k] + cnt[k]; pdsp[k + 1] = pdsp[k] + pcnt[k]; }
    all = sg_calloc((size_t)dsp[P] / REC + 1, sizeof *all, "partition records");
    all_pairs = sg_calloc((size_t)pdsp[P] + 1, sizeof *all_pairs, "partition pairs");
    part = sg_calloc((size_t)dsp[P] / REC + 1, sizeof *part, "partition");
    if (!all || !all_pairs || !part) err = SG_ERR_MEM;
  }
  MPI_Gatherv(mine, nrec, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, 0, comm);
  MPI_Gatherv(pairs, npv, MPI_INT64_T, all_pairs, pcnt, pdsp, MPI_INT64_T, 0, comm);
  if (me == 0 && !err) err = split_on_root(s, all, dsp[P] / REC, pairs ? all_pairs : NULL, pdsp[P] / 2, P, part);
  err = sg_error_collective(comm, err);
  if (err) goto done;
  /* back to the holders: the records came in rank order, so the counts are those of the gather */
  if (me == 0)
    for (int k = 0; k <= P; ++k) { if (k < P) cnt[k] /= REC; dsp[k] /= REC; }
  MPI_Scatterv(part, cnt, dsp, MPI_INT, my_part, n, MPI_INT, 0, comm);
  for (int i = 0, k = 0; i < s->n; ++i) new_owner[i] = s->fixed[i] ? -1 : my_part[k++];
done:
  free(mine); free(cnt); free(dsp); free(pcnt); free(pdsp); free(all); free(all_pairs); free(part); free(my_part);
  return err;
}
