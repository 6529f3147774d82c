/* The broad phase's pairs in the canonical order of contacts (sg_contact_key_cmp: by the lower
 * global id, then the higher), so that the narrow phase gives its contacts already sorted and the
 * step need not sort them: a least-significant-digit radix sort of the pairs by their bodies'
 * ranks, linear in the pairs. Bodies are ranked by (gid, local index); the index orders the
 * periodic images, which share their body's gid. */
#include <stdint.h>
#include <stdlib.h>
#include "signorini/collision.h"

#define DIGIT_BITS 11
#define DIGIT_VALUES (1 << DIGIT_BITS)

typedef struct {
  int64_t gid;
  int index;
} gid_index;

struct sg_pair_order {
  int *rank;
  gid_index *by_gid;
  uint64_t *key, *key_tmp;
  int *pair_of, *pair_of_tmp, *pairs_tmp;
  int *digit_start;
  int cap_rank, cap_by_gid, cap_key, cap_key_tmp, cap_pair_of, cap_pair_of_tmp, cap_pairs_tmp, cap_digit_start;
};

static int cmp_gid_index(const void *a, const void *b) {
  const gid_index *x = a, *y = b;
  if (x->gid != y->gid) return x->gid < y->gid ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

/* rank[i]: the place of body i in the order of (gid, index); the identity when the gids ascend. */
static sg_err rank_bodies(sg_pair_order *o, const sg_scene *s) {
  SG_CHECK(sg_grow((void **)&o->rank, &o->cap_rank, s->n + 1, sizeof *o->rank, "pair order"));
  int ascending = 1;
  for (int i = 1; i < s->n && ascending; ++i) ascending = s->gid[i] > s->gid[i - 1];
  if (ascending) {
    for (int i = 0; i < s->n; ++i) o->rank[i] = i;
    return SG_OK;
  }
  SG_CHECK(sg_grow((void **)&o->by_gid, &o->cap_by_gid, s->n + 1, sizeof *o->by_gid, "pair order"));
  for (int i = 0; i < s->n; ++i) o->by_gid[i] = (gid_index){s->gid[i], i};
  qsort(o->by_gid, (size_t)s->n, sizeof *o->by_gid, cmp_gid_index);
  for (int k = 0; k < s->n; ++k) o->rank[o->by_gid[k].index] = k;
  return SG_OK;
}

static sg_err reserve(sg_pair_order *o, int n_pairs) {
  SG_CHECK(sg_grow((void **)&o->key, &o->cap_key, n_pairs + 1, sizeof *o->key, "pair order"));
  SG_CHECK(sg_grow((void **)&o->key_tmp, &o->cap_key_tmp, n_pairs + 1, sizeof *o->key_tmp, "pair order"));
  SG_CHECK(sg_grow((void **)&o->pair_of, &o->cap_pair_of, n_pairs + 1, sizeof *o->pair_of, "pair order"));
  SG_CHECK(sg_grow((void **)&o->pair_of_tmp, &o->cap_pair_of_tmp, n_pairs + 1, sizeof *o->pair_of_tmp, "pair order"));
  SG_CHECK(sg_grow((void **)&o->pairs_tmp, &o->cap_pairs_tmp, 2 * n_pairs + 2, sizeof *o->pairs_tmp, "pair order"));
  return sg_grow((void **)&o->digit_start, &o->cap_digit_start, DIGIT_VALUES, sizeof *o->digit_start, "pair order");
}

/* One stable counting pass on the digit at `shift`: (key, pair_of) -> (key_tmp, pair_of_tmp). */
static void radix_pass(sg_pair_order *o, int n, int shift) {
  int *start = o->digit_start;
  for (int d = 0; d < DIGIT_VALUES; ++d) start[d] = 0;
  for (int k = 0; k < n; ++k) start[(o->key[k] >> shift) & (DIGIT_VALUES - 1)]++;
  for (int d = 0, total = 0; d < DIGIT_VALUES; ++d) {
    int c = start[d];
    start[d] = total;
    total += c;
  }
  for (int k = 0; k < n; ++k) {
    int at = start[(o->key[k] >> shift) & (DIGIT_VALUES - 1)]++;
    o->key_tmp[at] = o->key[k];
    o->pair_of_tmp[at] = o->pair_of[k];
  }
  uint64_t *key = o->key;
  o->key = o->key_tmp;
  o->key_tmp = key;
  int *pair_of = o->pair_of;
  o->pair_of = o->pair_of_tmp;
  o->pair_of_tmp = pair_of;
}

sg_err sg_broadphase_sort_canonical(sg_broadphase *bp, const sg_scene *s) {
  if (bp->n < 2) return SG_OK;
  if (!bp->order && !(bp->order = sg_calloc(1, sizeof *bp->order, "pair order"))) return SG_ERR_MEM;
  sg_pair_order *o = bp->order;
  SG_CHECK(rank_bodies(o, s));
  SG_CHECK(reserve(o, bp->n));
  const uint64_t n = (uint64_t)s->n;
  uint64_t largest = 0;
  for (int k = 0; k < bp->n; ++k) {
    uint64_t ri = (uint64_t)o->rank[bp->pairs[2 * k]], rj = (uint64_t)o->rank[bp->pairs[2 * k + 1]];
    o->key[k] = ri < rj ? ri * n + rj : rj * n + ri;
    o->pair_of[k] = k;
    if (o->key[k] > largest) largest = o->key[k];
  }
  for (int shift = 0; shift < 64 && (largest >> shift) > 0; shift += DIGIT_BITS) radix_pass(o, bp->n, shift);
  for (int k = 0; k < bp->n; ++k) {
    o->pairs_tmp[2 * k] = bp->pairs[2 * o->pair_of[k]];
    o->pairs_tmp[2 * k + 1] = bp->pairs[2 * o->pair_of[k] + 1];
  }
  int *pairs = bp->pairs, cap = bp->cap;
  bp->pairs = o->pairs_tmp;
  bp->cap = o->cap_pairs_tmp;
  o->pairs_tmp = pairs;
  o->cap_pairs_tmp = cap;
  return SG_OK;
}

void sg_pair_order_free(sg_pair_order *o) {
  if (!o) return;
  free(o->rank); free(o->by_gid); free(o->key); free(o->key_tmp); free(o->pair_of); free(o->pair_of_tmp);
  free(o->pairs_tmp); free(o->digit_start);
  free(o);
}
