/* Rows written by global id, moved first so that each rank writes one contiguous block of the
 * row axis: rank r writes rows [N r / P, N (r + 1) / P). A rank's own ids are scattered once
 * bodies migrate, enter and leave, and HDF5 1.10 builds a selection of many separate runs in time
 * quadratic in their number; a block is one run (or, without a fill, the runs of the ids present). */
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"

static long long block_start(long long n, int P, int r) { return n * r / P; }

/* The rank whose block holds row g (rows outside [0, n) go to the last or first rank, whose
 * write then refuses them with the usual message). With fewer rows than ranks the first blocks are
 * empty: row 0 belongs to the first rank whose block is not. */
static int block_of(long long n, int P, int64_t g) {
  if (g < 0 || n <= 0) return 0;
  int r = g >= n ? P - 1 : (int)((g * (long long)P) / n);
  while (r > 0 && block_start(n, P, r) > g) --r;
  while (r < P - 1 && block_start(n, P, r + 1) <= g) ++r;
  return r;
}

/* Records (gid, row bytes), `rec` bytes each, grouped by destination rank. */
static sg_err pack(int P, long long n, int count, const int64_t *gid, const void *data, size_t row, size_t rec,
                   int *sc, int *sd, unsigned char **sbuf) {
  for (int i = 0; i < count; ++i) sc[block_of(n, P, gid[i])] += (int)rec;
  for (int q = 0; q < P; ++q) sd[q + 1] = sd[q] + sc[q];
  int *at = sg_calloc((size_t)P + 1, sizeof *at, "rows to write");
  *sbuf = sg_calloc((size_t)sd[P] + 1, 1, "rows to write");
  if (!at || !*sbuf) {
    free(at);
    return SG_ERR_MEM;
  }
  memcpy(at, sd, (size_t)P * sizeof *at);
  for (int i = 0; i < count; ++i) {
    unsigned char *r = *sbuf + at[block_of(n, P, gid[i])];
    memcpy(r, &gid[i], sizeof(int64_t));
    memcpy(r + sizeof(int64_t), (const unsigned char *)data + (size_t)i * row, row);
    at[block_of(n, P, gid[i])] += (int)rec;
  }
  free(at);
  return SG_OK;
}

/* The received rows as (ids, rows): with a fill, every row of this rank's block [lo, hi), the
 * absent ones the fill; without, the received ones. */
static sg_err unpack(const unsigned char *rbuf, int nrecv, size_t row, size_t rec, long long lo, long long hi,
                     const void *fill, int *count, int64_t **gid, unsigned char **data) {
  long long n = fill ? hi - lo : nrecv;
  *gid = sg_calloc((size_t)n + 1, sizeof **gid, "rows to write");
  *data = sg_calloc((size_t)n * row + 1, 1, "rows to write");
  if (!*gid || !*data) return SG_ERR_MEM;
  for (long long i = 0; fill && i < n; ++i) {
    (*gid)[i] = lo + i;
    memcpy(*data + (size_t)i * row, fill, row);
  }
  for (int m = 0; m < nrecv; ++m) {
    int64_t g;
    memcpy(&g, rbuf + (size_t)m * rec, sizeof g);
    long long at = fill ? g - lo : m;
    if (fill && (g < lo || g >= hi)) return sg_error_set(SG_ERR_ARG, "body id %lld outside the rows written", (long long)g);
    (*gid)[at] = g;
    memcpy(*data + (size_t)at * row, rbuf + (size_t)m * rec + sizeof(int64_t), row);
  }
  *count = (int)n;
  return SG_OK;
}

sg_err sg_h5_write_rows_blocked(MPI_Comm comm, hid_t dset, hid_t memtype, long long frame, int ncols, int count,
                                const int64_t *gid, const void *data, const void *fill, hid_t dxpl, const char *file,
                                const char *name) {
  int P, me;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  hsize_t fdims[3];
  hid_t fspace = H5Dget_space(dset);
  int lead = frame >= 0, ok = fspace >= 0 && H5Sget_simple_extent_ndims(fspace) == lead + 1 + (ncols > 0);
  if (ok) H5Sget_simple_extent_dims(fspace, fdims, NULL);
  sg_h5_close(&fspace);
  SG_CHECK(sg_error_collective(comm, ok ? SG_OK : sg_error_set(SG_ERR_LIB, "%s: cannot query dataset %s", file, name)));
  const long long n = (long long)fdims[lead];
  const size_t row = H5Tget_size(memtype) * (size_t)(ncols > 0 ? ncols : 1), rec = sizeof(int64_t) + row;
  int *sc = sg_calloc((size_t)P + 1, sizeof *sc, "rows"), *sd = sg_calloc((size_t)P + 1, sizeof *sd, "rows");
  int *rc = sg_calloc((size_t)P + 1, sizeof *rc, "rows"), *rd = sg_calloc((size_t)P + 1, sizeof *rd, "rows");
  unsigned char *sbuf = NULL, *rbuf = NULL, *mine = NULL;
  int64_t *mine_gid = NULL;
  int n_mine = 0;
  sg_err err = sc && sd && rc && rd ? pack(P, n, count, gid, data, row, rec, sc, sd, &sbuf) : SG_ERR_MEM;
  err = sg_error_collective(comm, err);
  if (!err) {
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
    for (int q = 0; q < P; ++q) rd[q + 1] = rd[q] + rc[q];
    rbuf = sg_calloc((size_t)rd[P] + 1, 1, "rows to write");
    err = sg_error_collective(comm, rbuf ? SG_OK : SG_ERR_MEM);
  }
  if (!err && MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm) != MPI_SUCCESS)
    err = sg_error_set(SG_ERR_LIB, "%s: cannot exchange the rows of %s", file, name);
  if (!err)
    err = unpack(rbuf, (int)(rd[P] / (int)rec), row, rec, block_start(n, P, me), block_start(n, P, me + 1), fill, &n_mine,
                 &mine_gid, &mine);
  err = sg_error_collective(comm, err);
  if (!err) err = sg_error_collective(comm, sg_h5_write_rows(dset, memtype, frame, ncols, n_mine, mine_gid, mine, dxpl, file, name));
  free(sc); free(sd); free(rc); free(rd); free(sbuf); free(rbuf); free(mine); free(mine_gid);
  return err;
}
