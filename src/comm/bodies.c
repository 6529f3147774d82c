/* Bodies between ranks: one record per body, its kind's (body_kind.h) behind a head that names the
 * kind and the record's length; byte counts by MPI_Alltoall and the records by MPI_Alltoallv (one
 * message per pair of ranks that have something to say to each other). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/exchange.h"

typedef struct {
  int32_t kind;
  uint32_t bytes; /* of the kind's record that follows */
} record_head;

static size_t wire_size(const sg_scene *s, int i) {
  return sizeof(record_head) + sg_body_kind_of(s, i)->record_size(s, i);
}

static void pack(const sg_scene *s, int i, unsigned char *out) {
  const sg_body_kind_ops *kind = sg_body_kind_of(s, i);
  const record_head h = {s->kind[i], (uint32_t)kind->record_size(s, i)};
  memcpy(out, &h, sizeof h);
  kind->pack(s, i, out + sizeof h);
}

/* Append the body of the record at in (avail bytes left in its message); *used: its length. */
static sg_err unpack(sg_scene *s, const unsigned char *in, size_t avail, size_t *used) {
  record_head h;
  if (avail < sizeof h) return sg_error_set(SG_ERR_FORMAT, "body exchange: a record cut short");
  memcpy(&h, in, sizeof h);
  const sg_body_kind_ops *kind = sg_body_kind_get(h.kind);
  if (!kind || h.bytes > avail - sizeof h)
    return sg_error_set(SG_ERR_FORMAT, "body exchange: a record of unknown kind %d or cut short", (int)h.kind);
  int k;
  SG_CHECK(kind->unpack(s, in + sizeof h, h.bytes, &k));
  s->kind[k] = h.kind;
  *used = sizeof h + h.bytes;
  return SG_OK;
}

/* Bytes for each destination rank (sc[P]); an error when a message would pass MPI's int count. */
static sg_err send_counts(const sg_scene *src, const int *dest_off, const int *dest, int P, int *sc) {
  long long *bytes = sg_calloc((size_t)P, sizeof *bytes, "exchange counts");
  if (!bytes) return SG_ERR_MEM;
  for (int i = 0; i < src->n; ++i)
    for (int k = dest_off[i]; k < dest_off[i + 1]; ++k) bytes[dest[k]] += (long long)wire_size(src, i);
  long long total = 0;
  for (int k = 0; k < P; ++k) { sc[k] = (int)bytes[k]; total += bytes[k]; }
  free(bytes);
  if (total > INT_MAX) return sg_error_set(SG_ERR_ARG, "body exchange: %lld bytes to send pass MPI's int counts", total);
  return SG_OK;
}

/* The records of the bodies for each rank, packed by destination rank then body from the byte
 * offsets sd; fill[P] is scratch. */
static void pack_all(const sg_scene *src, const int *dest_off, const int *dest, const int *sd, int P, int *fill,
                     unsigned char *sbuf) {
  memcpy(fill, sd, (size_t)P * sizeof *fill);
  for (int i = 0; i < src->n; ++i)
    for (int k = dest_off[i]; k < dest_off[i + 1]; ++k) {
      pack(src, i, sbuf + fill[dest[k]]);
      fill[dest[k]] += (int)wire_size(src, i);
    }
}

/* Every received record appended to dst, by source rank; from[dst->n] its source. */
static sg_err unpack_all(const unsigned char *rbuf, const int *rd, int P, sg_scene *dst, int **from, int *cap_from) {
  for (int k = 0; k < P; ++k)
    for (size_t off = (size_t)rd[k], used = 0; off < (size_t)rd[k + 1]; off += used) {
      if (from) SG_CHECK(sg_grow((void **)from, cap_from, dst->n + 1, sizeof(int), "body sources"));
      if (from) (*from)[dst->n] = k;
      SG_CHECK(unpack(dst, rbuf + off, (size_t)rd[k + 1] - off, &used));
    }
  return SG_OK;
}

sg_err sg_bodies_exchange(MPI_Comm comm, const sg_scene *src, const int *dest_off, const int *dest, sg_scene *dst,
                          int **from, int *cap_from) {
  int P;
  MPI_Comm_size(comm, &P);
  int *sc = sg_calloc((size_t)P, sizeof *sc, "exchange counts"), *rc = sg_calloc((size_t)P, sizeof *rc, "exchange counts");
  int *sd = sg_calloc((size_t)P + 1, sizeof *sd, "exchange offsets"), *rd = sg_calloc((size_t)P + 1, sizeof *rd, "exchange offsets");
  int *fill = sg_calloc((size_t)P, sizeof *fill, "exchange offsets");
  unsigned char *sbuf = NULL, *rbuf = NULL;
  sg_err err = (sc && rc && sd && rd && fill) ? SG_OK : SG_ERR_MEM;
  if (!err) err = send_counts(src, dest_off, dest, P, sc);
  err = sg_error_collective(comm, err);
  if (!err && MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm) != MPI_SUCCESS)
    err = sg_error_set(SG_ERR_LIB, "body exchange: MPI_Alltoall failed");
  long long received = 0;
  for (int k = 0; !err && k < P; ++k) { sd[k + 1] = sd[k] + sc[k]; received += rc[k]; }
  if (!err && received > INT_MAX)
    err = sg_error_set(SG_ERR_ARG, "body exchange: %lld bytes to receive pass MPI's int counts", received);
  for (int k = 0; !err && k < P; ++k) rd[k + 1] = rd[k] + rc[k];
  if (!err) {
    sbuf = sg_calloc((size_t)sd[P] + 1, 1, "exchange buffer");
    rbuf = sg_calloc((size_t)rd[P] + 1, 1, "exchange buffer");
    if (!sbuf || !rbuf) err = SG_ERR_MEM;
  }
  err = sg_error_collective(comm, err);
  if (!err) {
    pack_all(src, dest_off, dest, sd, P, fill, sbuf);
    /* counts and displacements in bytes: a record is plain bytes (ranks share one architecture) */
    if (MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm) != MPI_SUCCESS)
      err = sg_error_set(SG_ERR_LIB, "body exchange: MPI_Alltoallv failed");
  }
  if (!err) err = unpack_all(rbuf, rd, P, dst, from, cap_from);
  free(sc); free(rc); free(sd); free(rd); free(fill); free(sbuf); free(rbuf);
  return err;
}

typedef struct { int64_t gid; int index; } order_key;

static int key_cmp(const void *a, const void *b) {
  const order_key *x = a, *y = b;
  return (x->gid > y->gid) - (x->gid < y->gid);
}

sg_err sg_scene_sort_local(sg_scene *s) {
  order_key *key = sg_calloc((size_t)(s->n > 0 ? s->n : 1), sizeof *key, "scene order");
  if (!key) return SG_ERR_MEM;
  for (int i = 0; i < s->n; ++i) key[i] = (order_key){s->gid[i], i};
  qsort(key, (size_t)s->n, sizeof *key, key_cmp);
  sg_scene t = {0};
  sg_err err = sg_scene_create(&t, s->n, s->n_materials);
  if (!err) err = sg_scene_copy_globals(&t, s);
  for (int k = 0; k < s->n && !err; ++k) err = sg_scene_copy_body(&t, s, key[k].index);
  free(key);
  if (err) { sg_scene_destroy(&t); return err; }
  int owned = 0;
  for (int i = 0; i < t.n; ++i) owned += !t.fixed[i];
  t.distributed = 1;
  t.n_owned = owned;
  sg_scene_destroy(s);
  *s = t;
  return SG_OK;
}

sg_err sg_scene_keep_block(MPI_Comm comm, sg_scene *s) {
  if (s->distributed) return SG_OK;
  int P, me;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  long long moving = 0;
  for (int i = 0; i < s->n; ++i) moving += !s->fixed[i];
  long long lo = moving * me / P, hi = moving * (me + 1) / P, k = 0;
  sg_scene t = {0};
  SG_CHECK(sg_scene_create(&t, (int)(hi - lo) + 8, s->n_materials));
  sg_err err = sg_scene_copy_globals(&t, s);
  for (int i = 0; i < s->n && !err; ++i) {
    if (!s->fixed[i] && (k < lo || k >= hi)) { k++; continue; }
    if (!s->fixed[i]) k++;
    err = sg_scene_copy_body(&t, s, i);
  }
  if (!err) err = sg_scene_sort_local(&t);
  if (err) { sg_scene_destroy(&t); return err; }
  sg_scene_destroy(s);
  *s = t;
  return SG_OK;
}

sg_err sg_scene_migrate(MPI_Comm comm, sg_scene *s, const int *new_owner) {
  int P;
  MPI_Comm_size(comm, &P);
  int n = s->n;
  int *off = sg_calloc((size_t)n + 1, sizeof *off, "migration plan");
  if (!off) return SG_ERR_MEM;
  /* only moving bodies travel; the fixed ones are already everywhere */
  for (int i = 0; i < n; ++i) off[i + 1] = off[i] + !s->fixed[i];
  sg_err err = SG_OK;
  for (int i = 0; i < n && !err; ++i)
    if (!s->fixed[i] && (new_owner[i] < 0 || new_owner[i] >= P))
      err = sg_error_set(SG_ERR_ARG, "migration: body %lld has no valid new owner (%d)", (long long)s->gid[i], new_owner[i]);
  int *dest = sg_calloc((size_t)off[n] + 1, sizeof *dest, "migration plan");
  if (!dest) err = SG_ERR_MEM;
  for (int i = 0; i < n && !err; ++i)
    if (!s->fixed[i]) dest[off[i]] = new_owner[i];
  sg_scene t = {0};
  if (!err) err = sg_scene_create(&t, n + 8, s->n_materials);
  if (!err) err = sg_scene_copy_globals(&t, s);
  if (!err) err = sg_bodies_exchange(comm, s, off, dest, &t, NULL, NULL);
  for (int i = 0; i < n && !err; ++i)
    if (s->fixed[i]) err = sg_scene_copy_body(&t, s, i);
  free(dest);
  if (!err) err = sg_scene_sort_local(&t);
  free(off);
  if (err) { sg_scene_destroy(&t); return err; }
  sg_scene_destroy(s);
  *s = t;
  return SG_OK;
}

/* llround(x 2^b) given scale = 2^b, a normal number: the product is x 2^b correctly rounded, as
 * ldexp's; below 2^62 a conversion truncates it exactly and the exact fraction left rounds halves
 * away from zero, as llround does (elsewhere, NaN included, the library decides). */
static inline long long scaled_round(double x, double scale) {
  const double y = x * scale;
  if (!(fabs(y) < 0x1p62)) return llround(y);
  const long long t = (long long)y;
  const double f = y - (double)t;
  return t + (f >= 0.5) - (f <= -0.5);
}

double sg_sum_reproducible(MPI_Comm comm, const double *x, int n) {
  double big = 0;
  long long count = n, total_count = 0;
  for (int i = 0; i < n; ++i) big = fabs(x[i]) > big ? fabs(x[i]) : big; /* fmax: NaN passed over */
  MPI_Allreduce(MPI_IN_PLACE, &big, 1, MPI_DOUBLE, MPI_MAX, comm); /* a max is exact in any order */
  MPI_Allreduce(&count, &total_count, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (!(big > 0) || !isfinite(big)) return big > 0 || isnan(big) ? big * (double)total_count : 0.0;
  /* 2^e >= big x count: every partial sum stays below 2^62 once scaled by 2^(62 - e) */
  int e;
  frexp(big * (double)total_count, &e);
  const int b = 62 - e;
  long long local = 0, total = 0;
  const double scale = ldexp(1.0, b);
  if (b > -1000 && b < 1000) /* 2^b a normal number */
    for (int i = 0; i < n; ++i) local += scaled_round(x[i], scale);
  else
    for (int i = 0; i < n; ++i) local += llround(ldexp(x[i], b));
  MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
  return ldexp((double)total, -b);
}

void sg_dots_reproducible(MPI_Comm comm, int D, const double *const *x, const double *const *y, int n,
                          const unsigned char *mask, double *out) {
  double big[64];
  long long acc[64], count = 0;
  for (int k = 0; k < n; ++k) count += !mask || mask[k];
  for (int d0 = 0; d0 < D; d0 += 64) { /* in batches of 64 products */
    int nd = D - d0 < 64 ? D - d0 : 64;
    for (int d = 0; d < nd; ++d) {
      big[d] = 0;
      for (int k = 0; k < n; ++k)
        if (!mask || mask[k]) big[d] = fmax(big[d], fabs(x[d0 + d][k] * y[d0 + d][k]));
    }
    long long total = count;
    MPI_Allreduce(MPI_IN_PLACE, big, nd, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
    int bits[64];
    for (int d = 0; d < nd; ++d) {
      int e = 0;
      if (big[d] > 0 && isfinite(big[d])) frexp(big[d] * (double)total, &e);
      bits[d] = 62 - e;
      acc[d] = 0;
      if (!(big[d] > 0) || !isfinite(big[d])) continue;
      for (int k = 0; k < n; ++k)
        if (!mask || mask[k]) acc[d] += llround(ldexp(x[d0 + d][k] * y[d0 + d][k], bits[d]));
    }
    MPI_Allreduce(MPI_IN_PLACE, acc, nd, MPI_LONG_LONG, MPI_SUM, comm);
    for (int d = 0; d < nd; ++d)
      out[d0 + d] = big[d] > 0 && isfinite(big[d]) ? ldexp((double)acc[d], -bits[d]) : big[d] * (double)total;
  }
}
