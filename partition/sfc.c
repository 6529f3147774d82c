/* Geometric partition along a Hilbert curve, in parallel: every rank keys its moving bodies by the
 * Hilbert index of their centres in the global bounding box, and the P - 1 cut keys that split the
 * total weight into equal parts are found by a bisection over the key range shared by all ranks
 * (one all-reduce of P - 1 integer sums per bit of the key). No rank gathers the scene or a graph;
 * the weights are integers, so the sums and the cuts do not depend on how the bodies are spread
 * over the ranks. A part is a stretch of the curve: compact, but blind to the contacts that METIS
 * weighs (a body's weight is its kind's base weight alone). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/partition.h"
#include "signorini/partition_dist.h"

enum { KEY_BITS = 21 }; /* per axis: 63 bits of key */

/* Hilbert index of the cell (x, y, z), each coordinate of KEY_BITS bits: Skilling's transposed form
 * (Skilling 2004), whose bits, interleaved from the highest
 * level down, give the index. */
uint64_t sg_hilbert_key(uint32_t x, uint32_t y, uint32_t z) {
  uint32_t X[3] = {x, y, z};
  const uint32_t top = 1u << (KEY_BITS - 1);
  for (uint32_t q = top; q > 1; q >>= 1) { /* undo the excess work of the inverse transform */
    const uint32_t p = q - 1;
    for (int i = 0; i < 3; ++i) {
      if (X[i] & q) {
        X[0] ^= p;
      } else {
        const uint32_t t = (X[0] ^ X[i]) & p;
        X[0] ^= t;
        X[i] ^= t;
      }
    }
  }
  for (int i = 1; i < 3; ++i) X[i] ^= X[i - 1]; /* Gray encode */
  uint32_t t = 0;
  for (uint32_t q = top; q > 1; q >>= 1)
    if (X[2] & q) t ^= q - 1;
  for (int i = 0; i < 3; ++i) X[i] ^= t;
  uint64_t key = 0;
  for (int b = KEY_BITS - 1; b >= 0; --b)
    for (int i = 0; i < 3; ++i) key = key << 1 | ((X[i] >> b) & 1u);
  return key;
}

typedef struct {
  uint64_t key;
  int64_t weight;
} keyed;

static int keyed_cmp(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}

/* The global box of the moving bodies' centres (lo, hi), the same on every rank. */
static void global_box(MPI_Comm comm, const sg_scene *s, double lo[3], double hi[3]) {
  double m[6] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY}; /* -hi kept as a min */
  for (int i = 0; i < s->n; ++i)
    if (!s->fixed[i])
      for (int d = 0; d < 3; ++d) {
        m[d] = fmin(m[d], s->state.pos[3 * i + d]);
        m[3 + d] = fmin(m[3 + d], -s->state.pos[3 * i + d]);
      }
  MPI_Allreduce(MPI_IN_PLACE, m, 6, MPI_DOUBLE, MPI_MIN, comm);
  for (int d = 0; d < 3; ++d) { lo[d] = m[d]; hi[d] = -m[3 + d]; }
}

static uint32_t cell(double x, double lo, double hi) {
  const double cells = (double)(1u << KEY_BITS);
  const double c = hi > lo ? (x - lo) / (hi - lo) * cells : 0.0;
  return c <= 0 ? 0u : c >= cells - 1 ? (1u << KEY_BITS) - 1 : (uint32_t)c;
}

/* Weight of the bodies with key < k, from the sorted list and its prefix sums. */
static int64_t weight_below(const keyed *b, const int64_t *prefix, int n, uint64_t k) {
  int lo = 0, hi = n; /* first index with key >= k */
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (b[mid].key < k) lo = mid + 1; else hi = mid;
  }
  return prefix[lo];
}

/* Cut c_p (p = 1 .. nparts - 1): the smallest key K with W(key < K) >= p W / nparts, by bisection
 * of every cut at once over the 63-bit key range. Collective. */
static sg_err find_cuts(MPI_Comm comm, const keyed *b, const int64_t *prefix, int n, int nparts, uint64_t *cut) {
  int64_t total = prefix[n];
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, comm);
  const int nc = nparts - 1;
  uint64_t *lo = sg_calloc((size_t)nc + 1, sizeof *lo, "partition cuts");
  int64_t *below = sg_calloc((size_t)nc + 1, sizeof *below, "partition cuts");
  sg_err err = sg_error_collective(comm, lo && below ? SG_OK : SG_ERR_MEM);
  for (int p = 0; p < nc && !err; ++p) { lo[p] = 0; cut[p] = (uint64_t)1 << (3 * KEY_BITS); }
  /* exact integer comparison below * nparts >= (p + 1) W needs (p + 1) W within int64 */
  if (!err && total > INT64_MAX / nparts)
    err = sg_error_set(SG_ERR_ARG, "partition: total weight %lld too large for %d parts", (long long)total, nparts);
  err = sg_error_collective(comm, err);
  for (int bit = 0; bit <= 3 * KEY_BITS && !err; ++bit) { /* invariant: W(< lo) < target <= W(< cut) */
    for (int p = 0; p < nc; ++p) below[p] = weight_below(b, prefix, n, lo[p] + (cut[p] - lo[p]) / 2);
    MPI_Allreduce(MPI_IN_PLACE, below, nc, MPI_INT64_T, MPI_SUM, comm);
    for (int p = 0; p < nc; ++p) {
      const uint64_t mid = lo[p] + (cut[p] - lo[p]) / 2;
      if (below[p] * nparts >= (int64_t)(p + 1) * total) cut[p] = mid; else lo[p] = mid;
    }
  }
  free(lo);
  free(below);
  return err;
}

/* The part of a key: the number of cuts at or below it (the cuts ascend with p). */
static int cuts_at_or_below(const uint64_t *cut, int nc, uint64_t key) {
  int lo = 0, hi = nc;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (cut[mid] <= key) lo = mid + 1; else hi = mid;
  }
  return lo;
}

sg_err sg_partition_sfc(MPI_Comm comm, const sg_scene *s, int nparts, int *new_owner) {
  double lo[3], hi[3];
  global_box(comm, s, lo, hi);
  int n = 0;
  for (int i = 0; i < s->n; ++i) n += !s->fixed[i];
  keyed *b = sg_calloc((size_t)n + 1, sizeof *b, "partition keys");
  int64_t *prefix = sg_calloc((size_t)n + 1, sizeof *prefix, "partition keys");
  uint64_t *cut = sg_calloc((size_t)nparts, sizeof *cut, "partition cuts");
  sg_err err = sg_error_collective(comm, b && prefix && cut ? SG_OK : SG_ERR_MEM);
  if (err) goto done;
  for (int i = 0, k = 0; i < s->n; ++i) {
    if (s->fixed[i]) continue;
    const double *x = s->state.pos + 3 * i;
    b[k].key = sg_hilbert_key(cell(x[0], lo[0], hi[0]), cell(x[1], lo[1], hi[1]), cell(x[2], lo[2], hi[2]));
    b[k++].weight = sg_body_kind_of(s, i)->partition_weight(s, i).base;
  }
  keyed *sorted = sg_calloc((size_t)n + 1, sizeof *sorted, "partition keys");
  err = sg_error_collective(comm, sorted ? SG_OK : SG_ERR_MEM);
  if (err) goto done;
  memcpy(sorted, b, (size_t)n * sizeof *b);
  qsort(sorted, (size_t)n, sizeof *sorted, keyed_cmp);
  for (int k = 0; k < n; ++k) prefix[k + 1] = prefix[k] + sorted[k].weight;
  err = find_cuts(comm, sorted, prefix, n, nparts, cut);
  free(sorted);
  for (int i = 0, k = 0; i < s->n && !err; ++i) {
    if (s->fixed[i]) { new_owner[i] = -1; continue; }
    new_owner[i] = cuts_at_or_below(cut, nparts - 1, b[k].key);
    k++;
  }
done:
  free(b);
  free(prefix);
  free(cut);
  return err;
}
