/* Scene files (format version 1, docs/FORMATS.md): the scene layout under a group, and the
 * reader and atomic writer of whole scene files. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "signorini/io.h"

const sg_body_field sg_body_fields[SG_F_COUNT] = {
    {"bodies/shape", 1, 0},    {"bodies/size", 0, 3},     {"bodies/material", 1, 0},
    {"bodies/fixed", 1, 0},    {"bodies/density", 0, 0},  {"bodies/position", 0, 3},
    {"bodies/orientation", 0, 4}, {"bodies/velocity", 0, 6},
};

sg_err sg_scene_group_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s,
                            hid_t dxpl) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  long long n = sg_io_n_global(comm, s);
  /* the rows this rank writes, packed (every field has at most 6 values of at most 8 bytes) */
  int mine = 0;
  for (int i = 0; i < s->n; ++i) mine += sg_io_writes_body(rank, s, i);
  int64_t *gid = sg_calloc((size_t)mine + 1, sizeof *gid, "rows to write");
  unsigned char *buf = sg_calloc((size_t)mine + 1, 6 * sizeof(double), "rows to write");
  sg_err err = gid && buf ? SG_OK : SG_ERR_MEM;
  for (int i = 0, k = 0; !err && i < s->n; ++i)
    if (sg_io_writes_body(rank, s, i)) gid[k++] = s->gid[i];
  if (!err) err = sg_io_check_rows(comm, mine, gid, n, file);
  const void *data[SG_F_COUNT] = {s->shape, s->size, s->material, s->fixed,
                               s->density, s->pos, s->quat, s->vel};
  for (int f = 0; f < SG_F_COUNT && !err; ++f) {
    const sg_body_field *bf = &sg_body_fields[f];
    /* Files hold fixed-size little-endian types whatever the machine. */
    hid_t ftype = f == SG_F_FIXED ? H5T_STD_U8LE : bf->is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE;
    hid_t mtype = f == SG_F_FIXED ? H5T_NATIVE_UCHAR : bf->is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
    size_t row = (f == SG_F_FIXED ? 1 : bf->is_int ? sizeof(int) : sizeof(double)) * (size_t)(bf->ncols ? bf->ncols : 1);
    for (int i = 0, k = 0; i < s->n; ++i)
      if (sg_io_writes_body(rank, s, i)) memcpy(buf + row * (size_t)k++, (const unsigned char *)data[f] + row * (size_t)i, row);
    if (f == SG_F_FIXED) /* kinematic bodies are fixed bodies with a row of /motions */
      for (int k = 0; k < mine; ++k) buf[k] = buf[k] != 0;
    hsize_t dims[2] = {(hsize_t)n, (hsize_t)bf->ncols};
    hid_t d;
    err = sg_h5_dataset_create(loc, bf->name, ftype, bf->ncols ? 2 : 1, dims, NULL, NULL, file, &d);
    if (!err) err = sg_h5_write_rows(d, mtype, -1, bf->ncols, mine, gid, buf, dxpl, file, bf->name);
    sg_h5_close(&d);
  }
  free(gid);
  free(buf);
  err = sg_error_collective(comm, err);
  hsize_t mm[2] = {(hsize_t)s->n_materials, (hsize_t)s->n_materials}, three = 3;
  hid_t d = H5I_INVALID_HID;
  if (!err) err = sg_h5_dataset_create(loc, "materials/friction", H5T_IEEE_F64LE, 2, mm, NULL, NULL, file, &d);
  if (!err) err = sg_h5_write_whole(d, H5T_NATIVE_DOUBLE, rank == 0, s->friction, dxpl, file, "materials/friction");
  sg_h5_close(&d);
  if (!err) err = sg_h5_dataset_create(loc, "world/gravity", H5T_IEEE_F64LE, 1, &three, NULL, NULL, file, &d);
  if (!err) err = sg_h5_write_whole(d, H5T_NATIVE_DOUBLE, rank == 0, s->gravity, dxpl, file, "world/gravity");
  sg_h5_close(&d);
  if (!err) err = sg_motions_write(comm, loc, file, s, dxpl);
  return err;
}

sg_err sg_scene_group_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl,
                           sg_scene *s) {
  memset(s, 0, sizeof *s);
  void *col[SG_F_COUNT] = {0};
  double *friction = NULL, *gravity = NULL;
  char shown[256], shape_name[256], why[320];
  sg_err err = SG_OK;

  /* /bodies/shape fixes N; every other per-body dataset must agree with it. */
  long long n = -1;
  snprintf(shape_name, sizeof shape_name, "%s/%s", prefix, sg_body_fields[SG_F_SHAPE].name);
  err = sg_h5_read_checked(loc, sg_body_fields[SG_F_SHAPE].name, shape_name, file, 1, 1, &n, NULL, dxpl, &col[SG_F_SHAPE]);
  if (!err && n == 0) err = sg_error_set(SG_ERR_FORMAT, "%s: no bodies (dataset %s is empty)", file, shape_name);
  if (!err && n > INT_MAX) err = sg_error_set(SG_ERR_FORMAT, "%s: %lld bodies is more than this build handles", file, n);
  snprintf(why, sizeof why, "(N = %lld bodies from %s)", n, shape_name);
  for (int f = 1; f < SG_F_COUNT && !err; ++f) {
    const sg_body_field *bf = &sg_body_fields[f];
    long long dims[2] = {n, bf->ncols};
    snprintf(shown, sizeof shown, "%s/%s", prefix, bf->name);
    err = sg_h5_read_checked(loc, bf->name, shown, file, bf->is_int, bf->ncols ? 2 : 1, dims, why, dxpl, &col[f]);
  }
  if (!err) {
    const int *fx = col[SG_F_FIXED];
    snprintf(shown, sizeof shown, "%s/%s", prefix, sg_body_fields[SG_F_FIXED].name);
    for (long long i = 0; i < n && !err; ++i)
      if (fx[i] != 0 && fx[i] != 1)
        err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s: body %lld has value %d, expected 0 or 1", file,
                           shown, i, fx[i]);
  }

  long long mm[2] = {-1, -1};
  if (!err) {
    snprintf(shown, sizeof shown, "%s/materials/friction", prefix);
    err = sg_h5_read_checked(loc, "materials/friction", shown, file, 0, 2, mm, "(M x M, M = number of materials)",
                             dxpl, (void **)&friction);
    if (!err && mm[0] != mm[1])
      err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s has shape [%lld][%lld], expected [M][M] (M = number of materials)",
                         file, shown, mm[0], mm[1]);
    if (!err && mm[0] == 0) err = sg_error_set(SG_ERR_FORMAT, "%s: no materials (dataset %s is empty)", file, shown);
    if (!err && mm[0] > 65536) err = sg_error_set(SG_ERR_FORMAT, "%s: %lld materials is too many", file, mm[0]);
  }
  if (!err) {
    long long three = 3;
    snprintf(shown, sizeof shown, "%s/world/gravity", prefix);
    err = sg_h5_read_checked(loc, "world/gravity", shown, file, 0, 1, &three, NULL, dxpl, (void **)&gravity);
  }

  if (!err) err = sg_scene_create(s, (int)n, (int)mm[0]);
  for (int i = 0; i < n && !err; ++i) {
    const double *sz = col[SG_F_SIZE], *rho = col[SG_F_DENSITY], *p = col[SG_F_POS], *q = col[SG_F_QUAT], *v = col[SG_F_VEL];
    const int *sh = col[SG_F_SHAPE], *mat = col[SG_F_MATERIAL], *fx = col[SG_F_FIXED];
    err = sg_scene_add_body(s, sh[i], sz + 3 * i, mat[i], fx[i], rho[i], p + 3 * i, q + 4 * i, v + 6 * i, NULL);
  }
  if (!err) {
    memcpy(s->friction, friction, (size_t)(mm[0] * mm[0]) * sizeof(double));
    memcpy(s->gravity, gravity, sizeof s->gravity);
    err = sg_scene_validate(s, file);
  }
  if (!err) err = sg_scene_update_mass(s);
  if (!err) err = sg_motions_read(loc, prefix, file, dxpl, s);

  for (int f = 0; f < SG_F_COUNT; ++f) free(col[f]);
  free(friction);
  free(gravity);
  if (err) sg_scene_destroy(s);
  return err;
}

sg_err sg_scene_check_header(hid_t file, const char *path) {
  char kind[64];
  long long version = 0;
  SG_CHECK(sg_h5_read_header(file, path, kind, sizeof kind, &version));
  /* A kind is optional (hand-made files), but a different one means the wrong file was given. */
  if (kind[0] && strcmp(kind, SG_KIND_SCENE) != 0)
    return sg_error_set(SG_ERR_FORMAT, "%s: kind is '%s', expected '%s' (not a scene file)", path, kind, SG_KIND_SCENE);
  if (version != SG_SCENE_FORMAT_VERSION)
    return sg_error_set(SG_ERR_FORMAT, "%s: scene format_version %lld is not supported (this build reads version %d)",
                        path, version, SG_SCENE_FORMAT_VERSION);
  return SG_OK;
}

sg_err sg_scene_read(MPI_Comm comm, const char *path, sg_scene *s) {
  memset(s, 0, sizeof *s);
  hid_t file, dxpl = H5I_INVALID_HID;
  sg_err err = sg_h5_open_read(comm, path, &file);
  if (!err) err = sg_scene_check_header(file, path);
  if (!err && (dxpl = sg_h5_dxpl()) < 0) err = sg_error_set(SG_ERR_LIB, "%s: cannot set up HDF5 transfers", path);
  if (!err) err = sg_scene_group_read(file, "", path, dxpl, s);
  sg_h5_close(&dxpl);
  sg_h5_close(&file);
  err = sg_error_collective(comm, err);
  if (err) sg_scene_destroy(s);
  return err;
}

sg_err sg_scene_write(MPI_Comm comm, const char *path, const sg_scene *s) {
  sg_h5_quiet();
  if (sg_io_n_global(comm, s) < 1) return sg_error_set(SG_ERR_ARG, "cannot write %s: the scene has no bodies", path);
  char *tmp = sg_fs_tmp_name(comm, path, ".tmp");
  if (!tmp) return sg_error_collective(comm, SG_ERR_MEM);
  hid_t file = H5I_INVALID_HID, dxpl = H5I_INVALID_HID;
  sg_err err = sg_h5_create(comm, tmp, path, &file);
  int created = !err;
  if (!err) err = sg_h5_attr_write_int(file, "format_version", SG_SCENE_FORMAT_VERSION, path);
  if (!err) err = sg_h5_attr_write_str(file, "kind", SG_KIND_SCENE, path);
  if (!err && (dxpl = sg_h5_dxpl()) < 0) err = sg_error_set(SG_ERR_LIB, "%s: cannot set up HDF5 transfers", path);
  if (!err) err = sg_scene_group_write(comm, file, path, s, dxpl);
  sg_h5_close(&dxpl);
  if (file >= 0 && H5Fclose(file) < 0 && !err) err = sg_error_set(SG_ERR_IO, "cannot write %s: closing %s failed", path, tmp);
  err = sg_error_collective(comm, err);
  if (!err) err = sg_fs_rename(comm, tmp, path);
  if (err && created) sg_fs_remove(comm, tmp);
  free(tmp);
  return err;
}
