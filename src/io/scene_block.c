/* Scene files read by blocks of rows: each rank reads one contiguous block of every per-body
 * dataset, keeps the moving bodies of its block and all-gathers the fixed ones, so that no rank
 * holds per-body arrays of the whole scene. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "io/read_fapl.h"
#include "signorini/exchange.h"
#include "signorini/io.h"

/* The ids of this rank's block of rows, when the file has /bodies/gid (*ids NULL otherwise: the ids
 * are the rows), and the attribute next_gid (-1 when absent). Collective; checked in the order of
 * sg_scene_group_read. */
static sg_err read_block_ids(MPI_Comm comm, hid_t file, const char *path, long long n, int rank, int nranks,
                             hid_t dxpl, int64_t **ids, long long *next_attr) {
  *ids = NULL;
  *next_attr = -1;
  sg_err err = SG_OK;
  if (sg_h5_exists(file, "bodies/gid")) { /* the same answer on every rank */
    char why[320];
    snprintf(why, sizeof why, "(N = %lld bodies from /bodies/shape)", n);
    long long dims[1] = {n}, first = 0, count = 0;
    double *x = NULL;
    err = sg_h5_read_block_checked(file, "bodies/gid", "/bodies/gid", path, 0, 1, dims, why, rank, nranks, dxpl, &first,
                                   &count, (void **)&x);
    err = sg_error_collective(comm, err);
    if (!err && !(*ids = malloc((size_t)(count > 0 ? count : 1) * sizeof **ids)))
      err = sg_error_set(SG_ERR_MEM, "%s: out of memory reading dataset /bodies/gid", path);
    if (!err) err = sg_scene_ids_check(x, count, first, path, "/bodies/gid", *ids);
    free(x);
    err = sg_error_collective(comm, err);
  }
  if (!err) err = sg_error_collective(comm, sg_scene_next_gid_read(file, "", path, next_attr));
  if (err) {
    free(*ids);
    *ids = NULL;
  }
  return err;
}

/* Once the bodies are distributed: every id of the file held once (moving bodies on their rank,
 * the fixed ones counted on rank 0), and next_gid above every id. Collective. */
static sg_err finish_block_ids(MPI_Comm comm, const char *path, int with_ids, long long next_attr, sg_scene *s) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  long long top = -1;
  for (int i = 0; i < s->n; ++i)
    if (s->gid[i] > top) top = s->gid[i];
  MPI_Allreduce(MPI_IN_PLACE, &top, 1, MPI_LONG_LONG, MPI_MAX, comm);
  s->next_gid = top + 1 > next_attr ? top + 1 : next_attr;
  if (!with_ids) return SG_OK; /* ids are the rows: distinct */
  int64_t *mine = malloc(((size_t)s->n + 1) * sizeof *mine), dup = -1;
  int count = 0;
  for (int i = 0; mine && i < s->n; ++i)
    if (sg_io_writes_body(rank, s, i)) mine[count++] = s->gid[i];
  sg_err err = sg_error_collective(comm, mine ? SG_OK : sg_error_set(SG_ERR_MEM, "%s: out of memory checking ids", path));
  if (!err) err = sg_io_first_duplicate(comm, count, mine, path, &dup);
  /* dup is the same on every rank: the message of the whole read (its smallest duplicate) */
  if (!err && dup >= 0) err = sg_error_set(SG_ERR_FORMAT, "%s: dataset /bodies/gid: id %lld appears twice", path, (long long)dup);
  free(mine);
  return err;
}

sg_err sg_scene_read_block(MPI_Comm comm, const char *path, sg_scene *s) {
  return sg_scene_read_block_fapl(comm, path, H5P_DEFAULT, s);
}

sg_err sg_scene_read_block_fapl(MPI_Comm comm, const char *path, hid_t access, sg_scene *s) {
  memset(s, 0, sizeof *s);
  int rank, nranks;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  void *col[SG_F_COUNT] = {0};
  double *friction = NULL, *restitution = NULL, *rolling = NULL, *gravity = NULL, period[6] = {0};
  sg_scene blk;
  memset(&blk, 0, sizeof blk);
  char shown[256], shape_name[256], why[320];
  long long n = -1, first = 0, count = 0, mm[2] = {-1, -1}, next_attr = -1;
  int64_t *ids = NULL;
  hid_t file = H5I_INVALID_HID, dxpl = H5I_INVALID_HID;

  sg_err err = sg_h5_open_read(comm, path, access, &file);
  if (!err) err = sg_scene_check_header(file, path);
  if (!err && (dxpl = sg_h5_read_dxpl(file)) < 0) err = sg_error_set(SG_ERR_LIB, "%s: cannot set up HDF5 transfers", path);
  /* Checks are made in the order of sg_scene_group_read, with a collective check wherever ranks
   * could disagree, so that no rank skips a collective read the others make, and the error
   * reported is the one the whole read would report (the lowest failing rank holds the lowest
   * failing body). */
  err = sg_error_collective(comm, err);

  /* /bodies/shape fixes N; every other per-body dataset must agree with it. */
  const char *sname = sg_body_fields[SG_F_SHAPE].name;
  snprintf(shape_name, sizeof shape_name, "/%s", sname);
  if (!err)
    err = sg_h5_read_block_checked(file, sname, shape_name, path, 1, 1, &n, NULL, rank, nranks, dxpl, &first, &count,
                                   &col[SG_F_SHAPE]);
  err = sg_error_collective(comm, err);
  if (!err && n == 0) err = sg_error_set(SG_ERR_FORMAT, "%s: no bodies (dataset %s is empty)", path, shape_name);
  if (!err && n > INT_MAX) err = sg_error_set(SG_ERR_FORMAT, "%s: %lld bodies is more than this build handles", path, n);
  snprintf(why, sizeof why, "(N = %lld bodies from %s)", n, shape_name);
  for (int f = 1; f < SG_F_COUNT && !err; ++f) {
    const sg_body_field *bf = &sg_body_fields[f];
    long long dims[2] = {n, bf->ncols}, f0, c0;
    snprintf(shown, sizeof shown, "/%s", bf->name);
    err = sg_h5_read_block_checked(file, bf->name, shown, path, bf->is_int, bf->ncols ? 2 : 1, dims, why, rank, nranks,
                                   dxpl, &f0, &c0, &col[f]);
    err = sg_error_collective(comm, err);
  }
  if (!err) {
    const int *fx = col[SG_F_FIXED];
    snprintf(shown, sizeof shown, "/%s", sg_body_fields[SG_F_FIXED].name);
    for (long long i = 0; i < count && !err; ++i)
      if (fx[i] != 0 && fx[i] != 1)
        err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s: body %lld has value %d, expected 0 or 1", path, shown,
                           first + i, fx[i]);
    err = sg_error_collective(comm, err);
  }
  if (!err) err = read_block_ids(comm, file, path, n, rank, nranks, dxpl, &ids, &next_attr);

  /* Small: every rank reads them whole. */
  if (!err) {
    err = sg_h5_read_checked(file, "materials/friction", "/materials/friction", path, 0, 2, mm,
                             "(M x M, M = number of materials)", dxpl, (void **)&friction);
    if (!err && mm[0] != mm[1])
      err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s has shape [%lld][%lld], expected [M][M] (M = number of materials)",
                         path, "/materials/friction", mm[0], mm[1]);
    if (!err && mm[0] == 0) err = sg_error_set(SG_ERR_FORMAT, "%s: no materials (dataset %s is empty)", path, "/materials/friction");
    if (!err && mm[0] > 65536) err = sg_error_set(SG_ERR_FORMAT, "%s: %lld materials is too many", path, mm[0]);
    if (!err) err = sg_material_table_read(file, "", path, "restitution", mm[0], dxpl, &restitution);
    if (!err) err = sg_material_table_read(file, "", path, "rolling_friction", mm[0], dxpl, &rolling);
    err = sg_error_collective(comm, err);
  }
  if (!err) {
    long long three = 3;
    err = sg_h5_read_checked(file, "world/gravity", "/world/gravity", path, 0, 1, &three, NULL, dxpl, (void **)&gravity);
    if (!err) err = sg_period_read(file, "", path, dxpl, period, period + 3);
    err = sg_error_collective(comm, err);
  }

  /* The whole block (moving and fixed) in file order, validated with its global ids so that
   * messages name the body as the whole read does (its row when the file has no ids). */
  if (!err) err = sg_scene_create(&blk, (int)count, (int)mm[0]);
  err = sg_error_collective(comm, err ? err : sg_meshes_read(file, "", path, dxpl, &blk)); /* the bodies name them */
  for (int i = 0; i < count && !err; ++i) {
    const double *sz = col[SG_F_SIZE], *rho = col[SG_F_DENSITY], *p = col[SG_F_POS], *q = col[SG_F_QUAT],
                 *v = col[SG_F_VEL];
    const int *sh = col[SG_F_SHAPE], *mat = col[SG_F_MATERIAL], *fx = col[SG_F_FIXED];
    int k;
    err = sg_scene_add_body(&blk, sh[i], sz + 3 * i, mat[i], fx[i], rho[i], p + 3 * i, q + 4 * i, v + 6 * i, &k);
    if (!err) blk.gid[k] = ids ? ids[i] : first + i;
  }
  if (!err) {
    memcpy(blk.friction, friction, (size_t)(mm[0] * mm[0]) * sizeof(double));
    if (restitution) memcpy(blk.restitution, restitution, (size_t)(mm[0] * mm[0]) * sizeof(double));
    if (rolling) memcpy(blk.rolling, rolling, (size_t)(mm[0] * mm[0]) * sizeof(double));
    memcpy(blk.gravity, gravity, sizeof blk.gravity);
    memcpy(blk.period_lo, period, sizeof blk.period_lo);
    memcpy(blk.period_hi, period + 3, sizeof blk.period_hi);
    err = sg_scene_validate(&blk, path);
  }
  err = sg_error_collective(comm, err);

  /* This block's moving bodies stay here, its fixed bodies go to every rank; then gid order
   * (scene.h's layout). */
  if (!err && (err = sg_scene_update_mass(&blk))) sg_error_append(" (%s)", path);
  err = sg_error_collective(comm, err);
  int *off = err ? NULL : sg_calloc((size_t)blk.n + 1, sizeof *off, "block plan");
  long long n_dest = 0;
  for (int i = 0; i < blk.n; ++i) n_dest += blk.fixed[i] ? nranks : 1;
  int *dest = err ? NULL : sg_calloc((size_t)n_dest + 1, sizeof *dest, "block plan");
  if (!err && (!off || !dest)) err = SG_ERR_MEM;
  for (int i = 0, m = 0; i < blk.n && !err; ++i) {
    if (blk.fixed[i]) for (int r = 0; r < nranks; ++r) dest[m++] = r;
    else dest[m++] = rank;
    off[i + 1] = m;
  }
  if (!err) err = sg_scene_create(s, blk.n + 8, (int)mm[0]);
  err = sg_error_collective(comm, err);
  if (!err) err = sg_error_collective(comm, sg_bodies_exchange(comm, &blk, off, dest, s, NULL, NULL));
  free(off);
  free(dest);
  if (!err) err = sg_scene_copy_globals(s, &blk);
  if (!err) err = sg_scene_sort_local(s);
  err = sg_error_collective(comm, err);
  if (!err) err = finish_block_ids(comm, path, ids != NULL, next_attr, s);
  if (!err) err = sg_error_collective(comm, sg_scene_run_options_read(file, "", path, s));
  if (!err) err = sg_error_collective(comm, sg_motions_read(file, "", path, dxpl, s)); /* every fixed body is here */
  if (!err) err = sg_error_collective(comm, sg_regions_read(file, "", path, dxpl, s));
  if (!err) err = sg_error_collective(comm, sg_trees_read(file, "", path, dxpl, s));
  if (!err) err = sg_error_collective(comm, sg_trees_check_held(comm, s, path));

  for (int f = 0; f < SG_F_COUNT; ++f) free(col[f]);
  free(ids);
  free(friction);
  free(restitution);
  free(rolling);
  free(gravity);
  sg_scene_destroy(&blk);
  sg_h5_close(&dxpl);
  sg_h5_close(&file);
  if (err) sg_scene_destroy(s);
  return err;
}
