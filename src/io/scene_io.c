/* Scene files (format version 1, docs/FORMATS.md): the scene layout under a group, and the
 * reader and atomic writer of whole scene files. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "io/read_fapl.h"
#include "signorini/exchange.h"
#include "signorini/io.h"
#include "signorini/scene_options.h"

const sg_body_field sg_body_fields[SG_F_COUNT] = {
    {"bodies/shape", 1, 0},    {"bodies/size", 0, 3},     {"bodies/material", 1, 0},
    {"bodies/fixed", 1, 0},    {"bodies/density", 0, 0},  {"bodies/position", 0, 3},
    {"bodies/orientation", 0, 4}, {"bodies/velocity", 0, 6},
};

/* One per-body field: the bodies this rank writes, packed in the plan's order, at its rows. buf
 * holds a row of every field for each of them (at most 6 values of at most 8 bytes). */
static sg_err write_field(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, const sg_io_rows *r, int f,
                          unsigned char *buf, hid_t dxpl) {
  const void *data[SG_F_COUNT] = {s->shape, s->size, s->material, s->fixed, s->density, s->state.pos, s->state.quat, s->state.vel};
  const sg_body_field *bf = &sg_body_fields[f];
  /* Files hold fixed-size little-endian types whatever the machine. */
  hid_t ftype = f == SG_F_FIXED ? H5T_STD_U8LE : bf->is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE;
  hid_t mtype = f == SG_F_FIXED ? H5T_NATIVE_UCHAR : bf->is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
  size_t row = (f == SG_F_FIXED ? 1 : bf->is_int ? sizeof(int) : sizeof(double)) * (size_t)(bf->ncols ? bf->ncols : 1);
  for (int k = 0; k < r->count; ++k)
    memcpy(buf + row * (size_t)k, (const unsigned char *)data[f] + row * (size_t)r->index[k], row);
  if (f == SG_F_FIXED) /* kinematic bodies are fixed bodies with a row of /motions */
    for (int k = 0; k < r->count; ++k) buf[k] = buf[k] != 0;
  hsize_t dims[2] = {(hsize_t)r->n, (hsize_t)bf->ncols};
  hid_t d;
  sg_err err = sg_error_collective(comm, sg_h5_dataset_create(loc, bf->name, ftype, bf->ncols ? 2 : 1, dims, NULL, NULL,
                                                             file, &d));
  if (!err) err = sg_h5_write_rows_blocked(comm, d, mtype, -1, bf->ncols, r->count, r->row, buf, NULL, dxpl, file, bf->name);
  sg_h5_close(&d);
  return err;
}

/* /bodies/gid when the ids are not the rows (a file with dense ids stays as it always was), and
 * the attribute next_gid of /bodies, always. */
static sg_err write_ids(MPI_Comm comm, hid_t loc, const char *file, const sg_io_rows *r, hid_t dxpl) {
  sg_err err = SG_OK;
  if (!r->dense) {
    hsize_t dims[1] = {(hsize_t)r->n};
    hid_t d;
    err = sg_h5_dataset_create(loc, "bodies/gid", H5T_STD_I64LE, 1, dims, NULL, NULL, file, &d);
    if (!err) err = sg_h5_write_rows(d, H5T_NATIVE_INT64, -1, 0, r->count, r->row, r->gid, dxpl, file, "bodies/gid");
    err = sg_error_collective(comm, err); /* as sg_h5_write_whole: a write may fail on some ranks only */
    sg_h5_close(&d);
  }
  hid_t g = err ? H5I_INVALID_HID : H5Gopen2(loc, "bodies", H5P_DEFAULT);
  if (!err && g < 0) err = sg_error_set(SG_ERR_IO, "%s: cannot open group bodies to write attribute next_gid", file);
  if (!err) err = sg_h5_attr_write_i64(g, "next_gid", r->next_gid, file);
  sg_h5_close(&g);
  return err;
}

/* The attribute run_options of /world, when the scene carries any (scene_options.h). */
static sg_err write_run_options(hid_t loc, const char *file, const sg_scene *s) {
  if (!s->run_options[0]) return SG_OK;
  hid_t g = H5Gopen2(loc, "world", H5P_DEFAULT);
  if (g < 0) return sg_error_set(SG_ERR_IO, "%s: cannot open group world to write attribute run_options", file);
  sg_err err = sg_h5_attr_write_str(g, "run_options", s->run_options, file);
  sg_h5_close(&g);
  return err;
}

sg_err sg_scene_run_options_read(hid_t loc, const char *prefix, const char *file, sg_scene *s) {
  s->run_options[0] = 0;
  hid_t g = H5Gopen2(loc, "world", H5P_DEFAULT);
  if (g < 0) return sg_error_set(SG_ERR_FORMAT, "%s: cannot open group %s/world", file, prefix);
  char text[SG_SCENE_OPTIONS_LEN + 1], why[256];
  int found = 0;
  sg_err err = sg_h5_attr_read_str(g, "run_options", text, sizeof text, &found, file);
  sg_h5_close(&g);
  if (err) sg_error_append(" (on group %s/world)", prefix);
  else if (found && !sg_scene_options_valid(text, why, sizeof why))
    err = sg_error_set(SG_ERR_FORMAT, "%s: attribute run_options of %s/world: %s", file, prefix, why);
  else if (found)
    memcpy(s->run_options, text, sizeof s->run_options);
  return err;
}

/* The periodic cell, when the scene has one (/world/period_lo, /world/period_hi). */
static sg_err write_period(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, int rank, hid_t dxpl) {
  hsize_t three = 3;
  const char *names[2] = {"world/period_lo", "world/period_hi"};
  const double *values[2] = {s->period_lo, s->period_hi};
  sg_err err = SG_OK;
  for (int k = 0; k < 2 && !err; ++k) {
    hid_t d = H5I_INVALID_HID;
    err = sg_h5_dataset_create(loc, names[k], H5T_IEEE_F64LE, 1, &three, NULL, NULL, file, &d);
    if (!err) err = sg_h5_write_whole(comm, d, H5T_NATIVE_DOUBLE, rank == 0, values[k], dxpl, file, names[k]);
    sg_h5_close(&d);
  }
  return err;
}

sg_err sg_scene_group_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s,
                            hid_t dxpl) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  sg_io_rows r;
  sg_err err = sg_io_rows_plan(comm, s, file, &r);
  if (err) return err; /* collective */
  unsigned char *buf = sg_calloc((size_t)r.count + 1, 6 * sizeof(double), "rows to write");
  err = sg_error_collective(comm, buf ? SG_OK : SG_ERR_MEM);
  for (int f = 0; f < SG_F_COUNT && !err; ++f) err = write_field(comm, loc, file, s, &r, f, buf, dxpl);
  if (!err) err = write_ids(comm, loc, file, &r, dxpl);
  free(buf);
  sg_io_rows_free(&r);
  err = sg_error_collective(comm, err);
  hsize_t mm[2] = {(hsize_t)s->n_materials, (hsize_t)s->n_materials}, three = 3;
  hid_t d = H5I_INVALID_HID;
  if (!err) err = sg_h5_dataset_create(loc, "materials/friction", H5T_IEEE_F64LE, 2, mm, NULL, NULL, file, &d);
  if (!err) err = sg_h5_write_whole(comm, d, H5T_NATIVE_DOUBLE, rank == 0, s->friction, dxpl, file, "materials/friction");
  sg_h5_close(&d);
  if (!err) err = sg_h5_dataset_create(loc, "materials/restitution", H5T_IEEE_F64LE, 2, mm, NULL, NULL, file, &d);
  if (!err) err = sg_h5_write_whole(comm, d, H5T_NATIVE_DOUBLE, rank == 0, s->restitution, dxpl, file, "materials/restitution");
  sg_h5_close(&d);
  if (!err) err = sg_h5_dataset_create(loc, "materials/rolling_friction", H5T_IEEE_F64LE, 2, mm, NULL, NULL, file, &d);
  if (!err) err = sg_h5_write_whole(comm, d, H5T_NATIVE_DOUBLE, rank == 0, s->rolling, dxpl, file, "materials/rolling_friction");
  sg_h5_close(&d);
  if (!err) err = sg_h5_dataset_create(loc, "world/gravity", H5T_IEEE_F64LE, 1, &three, NULL, NULL, file, &d);
  if (!err) err = sg_h5_write_whole(comm, d, H5T_NATIVE_DOUBLE, rank == 0, s->gravity, dxpl, file, "world/gravity");
  sg_h5_close(&d);
  double L[3];
  if (!err && sg_scene_period(s, L)) err = write_period(comm, loc, file, s, rank, dxpl);
  if (!err) err = write_run_options(loc, file, s);
  if (!err) err = sg_motions_write(comm, loc, file, s, dxpl);
  if (!err) err = sg_regions_write(comm, loc, file, s, dxpl);
  if (!err) err = sg_meshes_write(comm, loc, file, s, dxpl);
  if (!err) err = sg_trees_write(comm, loc, file, s, dxpl);
  return err;
}

sg_err sg_scene_ids_check(const double *x, long long count, long long first, const char *file, const char *shown,
                          int64_t *ids) {
  for (long long k = 0; k < count; ++k) {
    if (!(x[k] >= 0 && x[k] < (double)SG_IO_MAX_ID && x[k] == floor(x[k])))
      return sg_error_set(SG_ERR_FORMAT, "%s: dataset %s: row %lld holds %.17g, not an id (a whole number in [0, 2^53))",
                          file, shown, first + k, x[k]);
    ids[k] = (int64_t)x[k];
  }
  return SG_OK;
}

sg_err sg_scene_next_gid_read(hid_t loc, const char *prefix, const char *file, long long *value) {
  *value = -1;
  hid_t g = H5Gopen2(loc, "bodies", H5P_DEFAULT);
  if (g < 0) return sg_error_set(SG_ERR_FORMAT, "%s: cannot open group %s/bodies", file, prefix);
  int found = 0;
  long long v = -1;
  sg_err err = sg_h5_attr_read_int(g, "next_gid", &v, &found, file);
  sg_h5_close(&g);
  if (err) {
    sg_error_append(" (on group %s/bodies)", prefix);
    return err;
  }
  if (found && (v < 0 || v >= SG_IO_MAX_ID))
    return sg_error_set(SG_ERR_FORMAT, "%s: attribute next_gid of %s/bodies is %lld, not in [0, 2^53)", file, prefix, v);
  if (found) *value = v;
  return SG_OK;
}

/* next_gid: above every id of the file, and at least its attribute (absent: -1). */
static void set_next_gid(sg_scene *s, long long attr) {
  int64_t top = -1;
  for (int i = 0; i < s->n; ++i)
    if (s->gid[i] > top) top = s->gid[i];
  s->next_gid = top + 1 > attr ? top + 1 : attr;
}

static int i64_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The smallest id held twice, the message sg_scene_read_block gives for the same file. */
static sg_err check_unique(const int64_t *ids, long long n, const char *file, const char *shown) {
  int64_t *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
  if (!c) return sg_error_set(SG_ERR_MEM, "%s: out of memory checking dataset %s", file, shown);
  memcpy(c, ids, (size_t)n * sizeof *c);
  qsort(c, (size_t)n, sizeof *c, i64_cmp);
  sg_err err = SG_OK;
  for (long long k = 1; k < n && !err; ++k)
    if (c[k] == c[k - 1]) err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s: id %lld appears twice", file, shown, (long long)c[k]);
  free(c);
  return err;
}

/* The per-body columns: /bodies/shape fixes N, every other per-body dataset must agree with it,
 * fixed flags are 0 or 1; /bodies/gid (optional) read and checked into *ids (NULL when absent). */
static sg_err read_bodies(hid_t loc, const char *prefix, const char *file, hid_t dxpl, void *col[SG_F_COUNT],
                          long long *n_out, int64_t **ids) {
  char shown[256], shape_name[256], why[320];
  long long n = -1;
  *ids = NULL;
  snprintf(shape_name, sizeof shape_name, "%s/%s", prefix, sg_body_fields[SG_F_SHAPE].name);
  sg_err err = sg_h5_read_checked(loc, sg_body_fields[SG_F_SHAPE].name, shape_name, file, 1, 1, &n, NULL, dxpl, &col[SG_F_SHAPE]);
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
  *n_out = n;
  if (err || !sg_h5_exists(loc, "bodies/gid")) return err;
  double *x = NULL;
  long long dims[1] = {n};
  snprintf(shown, sizeof shown, "%s/bodies/gid", prefix);
  err = sg_h5_read_checked(loc, "bodies/gid", shown, file, 0, 1, dims, why, dxpl, (void **)&x);
  if (!err && !(*ids = malloc((size_t)n * sizeof **ids)))
    err = sg_error_set(SG_ERR_MEM, "%s: out of memory reading dataset %s", file, shown);
  if (!err) err = sg_scene_ids_check(x, n, 0, file, shown, *ids);
  free(x);
  return err;
}

sg_err sg_material_table_read(hid_t loc, const char *prefix, const char *file, const char *name, long long m, hid_t dxpl,
                              double **table) {
  char path[64], shown[256];
  long long mm[2] = {m, m};
  *table = NULL;
  snprintf(path, sizeof path, "materials/%s", name);
  if (!sg_h5_exists(loc, path)) return SG_OK;
  snprintf(shown, sizeof shown, "%s/%s", prefix, path);
  return sg_h5_read_checked(loc, path, shown, file, 0, 2, mm, "(M x M, M from /materials/friction)", dxpl, (void **)table);
}

sg_err sg_period_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, double lo[3], double hi[3]) {
  const char *names[2] = {"world/period_lo", "world/period_hi"};
  double *out[2] = {lo, hi};
  int present = sg_h5_exists(loc, names[0]) + sg_h5_exists(loc, names[1]);
  memset(lo, 0, 3 * sizeof *lo);
  memset(hi, 0, 3 * sizeof *hi);
  if (present == 0) return SG_OK;
  if (present == 1)
    return sg_error_set(SG_ERR_FORMAT, "%s: %s/world/period_lo and %s/world/period_hi go together; the file has one", file, prefix,
                        prefix);
  sg_err err = SG_OK;
  for (int k = 0; k < 2 && !err; ++k) {
    char shown[256];
    long long three = 3;
    double *v = NULL;
    snprintf(shown, sizeof shown, "%s/%s", prefix, names[k]);
    err = sg_h5_read_checked(loc, names[k], shown, file, 0, 1, &three, NULL, dxpl, (void **)&v);
    if (!err) memcpy(out[k], v, 3 * sizeof *v);
    free(v);
  }
  return err;
}

/* The friction table (M x M), the restitution and rolling-friction tables when there are, gravity
 * and the periodic cell (lo then hi). */
static sg_err read_world(hid_t loc, const char *prefix, const char *file, hid_t dxpl, long long *m,
                         double **friction, double **restitution, double **rolling, double **gravity, double period[6]) {
  char shown[256];
  long long mm[2] = {-1, -1}, three = 3;
  snprintf(shown, sizeof shown, "%s/materials/friction", prefix);
  sg_err err = sg_h5_read_checked(loc, "materials/friction", shown, file, 0, 2, mm, "(M x M, M = number of materials)",
                                  dxpl, (void **)friction);
  if (!err && mm[0] != mm[1])
    err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s has shape [%lld][%lld], expected [M][M] (M = number of materials)",
                       file, shown, mm[0], mm[1]);
  if (!err && mm[0] == 0) err = sg_error_set(SG_ERR_FORMAT, "%s: no materials (dataset %s is empty)", file, shown);
  if (!err && mm[0] > 65536) err = sg_error_set(SG_ERR_FORMAT, "%s: %lld materials is too many", file, mm[0]);
  *m = mm[0];
  if (!err) err = sg_material_table_read(loc, prefix, file, "restitution", *m, dxpl, restitution);
  if (!err) err = sg_material_table_read(loc, prefix, file, "rolling_friction", *m, dxpl, rolling);
  snprintf(shown, sizeof shown, "%s/world/gravity", prefix);
  if (!err) err = sg_h5_read_checked(loc, "world/gravity", shown, file, 0, 1, &three, NULL, dxpl, (void **)gravity);
  if (!err) err = sg_period_read(loc, prefix, file, dxpl, period, period + 3);
  return err;
}

/* Bodies in file order (validation names the first bad row, as the block reader does), then held
 * in ascending id as scene.h wants (a file with ids may hold them in any order). */
static sg_err build_scene(sg_scene *s, long long n, long long m, void *const col[SG_F_COUNT], const int64_t *ids,
                          const double *friction, const double *restitution, const double *rolling, const double *gravity,
                          const double period[6], const sg_scene *meshes, const char *file) {
  sg_err err = sg_scene_create(s, (int)n, (int)m);
  if (!err) err = sg_scene_share_meshes(s, meshes);
  for (int i = 0; i < n && !err; ++i) {
    const double *sz = col[SG_F_SIZE], *rho = col[SG_F_DENSITY], *p = col[SG_F_POS], *q = col[SG_F_QUAT], *v = col[SG_F_VEL];
    const int *sh = col[SG_F_SHAPE], *mat = col[SG_F_MATERIAL], *fx = col[SG_F_FIXED];
    err = sg_scene_add_body(s, sh[i], sz + 3 * i, mat[i], fx[i], rho[i], p + 3 * i, q + 4 * i, v + 6 * i, NULL);
    if (!err && ids) s->gid[i] = ids[i];
  }
  if (err) return err;
  memcpy(s->friction, friction, (size_t)(m * m) * sizeof(double));
  if (restitution) memcpy(s->restitution, restitution, (size_t)(m * m) * sizeof(double));
  if (rolling) memcpy(s->rolling, rolling, (size_t)(m * m) * sizeof(double));
  memcpy(s->gravity, gravity, sizeof s->gravity);
  memcpy(s->period_lo, period, sizeof s->period_lo);
  memcpy(s->period_hi, period + 3, sizeof s->period_hi);
  return sg_scene_validate(s, file);
}

sg_err sg_scene_group_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl,
                           sg_scene *s) {
  memset(s, 0, sizeof *s);
  void *col[SG_F_COUNT] = {0};
  double *friction = NULL, *restitution = NULL, *rolling = NULL, *gravity = NULL, period[6] = {0};
  int64_t *ids = NULL;
  long long n = 0, m = 0, next_attr = -1;
  char shown[256];
  snprintf(shown, sizeof shown, "%s/bodies/gid", prefix);

  sg_err err = read_bodies(loc, prefix, file, dxpl, col, &n, &ids);
  if (!err) err = sg_scene_next_gid_read(loc, prefix, file, &next_attr);
  if (!err) err = read_world(loc, prefix, file, dxpl, &m, &friction, &restitution, &rolling, &gravity, period);
  sg_scene meshes = {0}; /* holds the meshes the bodies name until they are built */
  if (!err) err = sg_meshes_read(loc, prefix, file, dxpl, &meshes);
  if (!err) err = build_scene(s, n, m, col, ids, friction, restitution, rolling, gravity, period, &meshes, file);
  sg_scene_destroy(&meshes);
  if (!err && ids) err = check_unique(ids, n, file, shown);
  if (!err) set_next_gid(s, next_attr);
  if (!err && ids) { /* sg_scene_sort_local orders the bodies; this scene stays a replicated one */
    err = sg_scene_sort_local(s);
    s->distributed = 0;
    s->n_owned = 0;
  }
  if (!err && (err = sg_scene_update_mass(s))) sg_error_append(" (%s)", file);
  if (!err) err = sg_scene_run_options_read(loc, prefix, file, s);
  /* the motions name bodies by id: after the sort */
  if (!err) err = sg_motions_read(loc, prefix, file, dxpl, s);
  if (!err) err = sg_regions_read(loc, prefix, file, dxpl, s);
  if (!err) err = sg_trees_read(loc, prefix, file, dxpl, s);

  for (int f = 0; f < SG_F_COUNT; ++f) free(col[f]);
  free(friction);
  free(restitution);
  free(rolling);
  free(gravity);
  free(ids);
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
  return sg_scene_read_fapl(comm, path, H5P_DEFAULT, s);
}

sg_err sg_scene_read_fapl(MPI_Comm comm, const char *path, hid_t access, sg_scene *s) {
  memset(s, 0, sizeof *s);
  hid_t file, dxpl = H5I_INVALID_HID;
  sg_err err = sg_h5_open_read(comm, path, access, &file);
  if (!err) err = sg_scene_check_header(file, path);
  if (!err && (dxpl = sg_h5_read_dxpl(file)) < 0) err = sg_error_set(SG_ERR_LIB, "%s: cannot set up HDF5 transfers", path);
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
  err = sg_h5_close_written(comm, &file, tmp, path, err, 0);
  if (!err) err = sg_fs_rename(comm, tmp, path);
  if (err && created) sg_fs_remove(comm, tmp);
  free(tmp);
  return err;
}
