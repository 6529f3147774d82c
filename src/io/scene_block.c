/* Scene files read by blocks of rows: each rank reads one contiguous block of every per-body
 * dataset, keeps the moving bodies of its block and all-gathers the fixed ones, so that no rank
 * holds per-body arrays of the whole scene. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "signorini/exchange.h"
#include "signorini/io.h"

/* The per-body datasets, as in scene_io.c (its table is private to that file): `ncols` values per
 * body (0: one value, a 1-D dataset). */
typedef struct {
  const char *name;
  int is_int;
  int ncols;
} body_field;

enum { F_SHAPE, F_SIZE, F_MATERIAL, F_FIXED, F_DENSITY, F_POS, F_QUAT, F_VEL, F_COUNT };
static const body_field body_fields[F_COUNT] = {
    {"bodies/shape", 1, 0},    {"bodies/size", 0, 3},     {"bodies/material", 1, 0},
    {"bodies/fixed", 1, 0},    {"bodies/density", 0, 0},  {"bodies/position", 0, 3},
    {"bodies/orientation", 0, 4}, {"bodies/velocity", 0, 6},
};

/* A fixed body on the wire, sent as bytes so the int64 gid travels exactly. */
typedef struct {
  int64_t gid;
  int32_t shape, material;
  double size[3], density, pos[3], quat[4], vel[6];
} fixed_body;

static sg_err check_header(hid_t file, const char *path) {
  char kind[64];
  long long version = 0;
  SG_CHECK(sg_h5_read_header(file, path, kind, sizeof kind, &version));
  if (kind[0] && strcmp(kind, SG_KIND_SCENE) != 0)
    return sg_error_set(SG_ERR_FORMAT, "%s: kind is '%s', expected '%s' (not a scene file)", path, kind, SG_KIND_SCENE);
  if (version != SG_SCENE_FORMAT_VERSION)
    return sg_error_set(SG_ERR_FORMAT, "%s: scene format_version %lld is not supported (this build reads version %d)",
                        path, version, SG_SCENE_FORMAT_VERSION);
  return SG_OK;
}

/* All fixed bodies of the scene, in ascending gid, appended to s: the blocks are in rank order. */
static sg_err gather_fixed(MPI_Comm comm, const sg_scene *blk, const char *path, sg_scene *s) {
  int nranks, nfix = 0;
  MPI_Comm_size(comm, &nranks);
  for (int i = 0; i < blk->n; ++i) nfix += blk->fixed[i];
  fixed_body *mine = NULL, *all = NULL;
  int *counts = calloc((size_t)nranks, sizeof *counts), *displs = calloc((size_t)nranks, sizeof *displs);
  sg_err err = SG_OK;
  if (!counts || !displs) err = sg_error_set(SG_ERR_MEM, "%s: out of memory gathering the fixed bodies", path);
  err = sg_error_collective(comm, err);
  if (err) goto done;
  int bytes = nfix * (int)sizeof(fixed_body);
  if (MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, comm) != MPI_SUCCESS)
    err = sg_error_set(SG_ERR_LIB, "%s: MPI_Allgather of the fixed body counts failed", path);
  long long total = 0;
  for (int r = 0; r < nranks; ++r) {
    displs[r] = (int)total;
    total += counts[r];
  }
  if (!err && total > INT_MAX)
    err = sg_error_set(SG_ERR_FORMAT, "%s: %lld fixed bodies is more than this build gathers", path,
                       total / (long long)sizeof(fixed_body));
  err = sg_error_collective(comm, err);
  if (!err && ((nfix && !(mine = malloc((size_t)bytes))) || (total && !(all = malloc((size_t)total)))))
    err = sg_error_set(SG_ERR_MEM, "%s: out of memory gathering %lld fixed bodies", path,
                       total / (long long)sizeof(fixed_body));
  err = sg_error_collective(comm, err);
  if (err) goto done;
  for (int i = 0, k = 0; i < blk->n; ++i) {
    if (!blk->fixed[i]) continue;
    fixed_body *f = &mine[k++];
    memset(f, 0, sizeof *f);
    f->gid = blk->gid[i];
    f->shape = blk->shape[i];
    f->material = blk->material[i];
    f->density = blk->density[i];
    memcpy(f->size, blk->size + 3 * i, sizeof f->size);
    memcpy(f->pos, blk->pos + 3 * i, sizeof f->pos);
    memcpy(f->quat, blk->quat + 4 * i, sizeof f->quat);
    memcpy(f->vel, blk->vel + 6 * i, sizeof f->vel);
  }
  if (MPI_Allgatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, comm) != MPI_SUCCESS)
    err = sg_error_set(SG_ERR_LIB, "%s: MPI_Allgatherv of the fixed bodies failed", path);
  long long nall = total / (long long)sizeof(fixed_body);
  for (long long j = 0; j < nall && !err; ++j) {
    const fixed_body *f = &all[j];
    int k;
    err = sg_scene_add_body(s, f->shape, f->size, f->material, 1, f->density, f->pos, f->quat, f->vel, &k);
    if (!err) s->gid[k] = f->gid;
  }
done:
  free(mine);
  free(all);
  free(counts);
  free(displs);
  return err;
}

sg_err sg_scene_read_block(MPI_Comm comm, const char *path, sg_scene *s) {
  memset(s, 0, sizeof *s);
  int rank, nranks;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  void *col[F_COUNT] = {0};
  double *friction = NULL, *gravity = NULL;
  sg_scene blk;
  memset(&blk, 0, sizeof blk);
  char shown[256], shape_name[256], why[320];
  long long n = -1, first = 0, count = 0, mm[2] = {-1, -1};
  hid_t file = H5I_INVALID_HID, dxpl = H5I_INVALID_HID;

  sg_err err = sg_h5_open_read(comm, path, &file);
  if (!err) err = check_header(file, path);
  if (!err && (dxpl = sg_h5_dxpl()) < 0) err = sg_error_set(SG_ERR_LIB, "%s: cannot set up HDF5 transfers", path);
  /* Checks are made in the order of sg_scene_group_read, with a collective check wherever ranks
   * could disagree, so that no rank skips a collective read the others make, and the error
   * reported is the one the whole read would report (the lowest failing rank holds the lowest
   * failing body). */
  err = sg_error_collective(comm, err);

  /* /bodies/shape fixes N; every other per-body dataset must agree with it. */
  const char *sname = body_fields[F_SHAPE].name;
  snprintf(shape_name, sizeof shape_name, "/%s", sname);
  if (!err)
    err = sg_h5_read_block_checked(file, sname, shape_name, path, 1, 1, &n, NULL, rank, nranks, dxpl, &first, &count,
                                   &col[F_SHAPE]);
  err = sg_error_collective(comm, err);
  if (!err && n == 0) err = sg_error_set(SG_ERR_FORMAT, "%s: no bodies (dataset %s is empty)", path, shape_name);
  if (!err && n > INT_MAX) err = sg_error_set(SG_ERR_FORMAT, "%s: %lld bodies is more than this build handles", path, n);
  snprintf(why, sizeof why, "(N = %lld bodies from %s)", n, shape_name);
  for (int f = 1; f < F_COUNT && !err; ++f) {
    const body_field *bf = &body_fields[f];
    long long dims[2] = {n, bf->ncols}, f0, c0;
    snprintf(shown, sizeof shown, "/%s", bf->name);
    err = sg_h5_read_block_checked(file, bf->name, shown, path, bf->is_int, bf->ncols ? 2 : 1, dims, why, rank, nranks,
                                   dxpl, &f0, &c0, &col[f]);
    err = sg_error_collective(comm, err);
  }
  if (!err) {
    const int *fx = col[F_FIXED];
    snprintf(shown, sizeof shown, "/%s", body_fields[F_FIXED].name);
    for (long long i = 0; i < count && !err; ++i)
      if (fx[i] != 0 && fx[i] != 1)
        err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s: body %lld has value %d, expected 0 or 1", path, shown,
                           first + i, fx[i]);
    err = sg_error_collective(comm, err);
  }

  /* Small: every rank reads them whole. */
  if (!err) {
    err = sg_h5_read_checked(file, "materials/friction", "/materials/friction", path, 0, 2, mm,
                             "(M x M, M = number of materials)", dxpl, (void **)&friction);
    if (!err && mm[0] != mm[1])
      err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s has shape [%lld][%lld], expected [M][M] (M = number of materials)",
                         path, "/materials/friction", mm[0], mm[1]);
    if (!err && mm[0] == 0) err = sg_error_set(SG_ERR_FORMAT, "%s: no materials (dataset %s is empty)", path, "/materials/friction");
    if (!err && mm[0] > 65536) err = sg_error_set(SG_ERR_FORMAT, "%s: %lld materials is too many", path, mm[0]);
    err = sg_error_collective(comm, err);
  }
  if (!err) {
    long long three = 3;
    err = sg_h5_read_checked(file, "world/gravity", "/world/gravity", path, 0, 1, &three, NULL, dxpl, (void **)&gravity);
    err = sg_error_collective(comm, err);
  }

  /* The whole block (moving and fixed) in gid order, validated with its global ids so that
   * messages name the body's index in the file. */
  if (!err) err = sg_scene_create(&blk, (int)count, (int)mm[0]);
  for (int i = 0; i < count && !err; ++i) {
    const double *sz = col[F_SIZE], *rho = col[F_DENSITY], *p = col[F_POS], *q = col[F_QUAT],
                 *v = col[F_VEL];
    const int *sh = col[F_SHAPE], *mat = col[F_MATERIAL], *fx = col[F_FIXED];
    int k;
    err = sg_scene_add_body(&blk, sh[i], sz + 3 * i, mat[i], fx[i], rho[i], p + 3 * i, q + 4 * i, v + 6 * i, &k);
    if (!err) blk.gid[k] = first + i;
  }
  if (!err) {
    memcpy(blk.friction, friction, (size_t)(mm[0] * mm[0]) * sizeof(double));
    memcpy(blk.gravity, gravity, sizeof blk.gravity);
    err = sg_scene_validate(&blk, path);
  }
  err = sg_error_collective(comm, err);

  /* This block's moving bodies, then every fixed body; sorted by gid below (scene.h's layout). */
  int n_owned = 0;
  for (int i = 0; i < blk.n; ++i) n_owned += !blk.fixed[i];
  if (!err) err = sg_scene_create(s, n_owned, (int)mm[0]);
  for (int i = 0; i < blk.n && !err; ++i)
    if (!blk.fixed[i]) err = sg_scene_copy_body(s, &blk, i);
  err = sg_error_collective(comm, err);
  if (!err) err = gather_fixed(comm, &blk, path, s);
  if (!err) err = sg_scene_copy_globals(s, &blk);
  if (!err) err = sg_scene_update_mass(s);
  if (!err) err = sg_scene_sort_local(s);
  err = sg_error_collective(comm, err);

  for (int f = 0; f < F_COUNT; ++f) free(col[f]);
  free(friction);
  free(gravity);
  sg_scene_destroy(&blk);
  sg_h5_close(&dxpl);
  sg_h5_close(&file);
  if (err) sg_scene_destroy(s);
  return err;
}
