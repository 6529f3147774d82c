/* The /motions group of a scene file (docs/FORMATS.md): one row per prescribed motion of a
 * kinematic body, read whole on every rank (the bodies are fixed, so every rank holds them) and
 * written by rank 0. The poses of the bodies in the file are their poses at t = 0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"

typedef struct { const char *name; int ncols; } motion_field;
enum { M_BODY, M_KIND, M_VELOCITY, M_POINT, M_WINDOW, M_COUNT };
static const motion_field fields[M_COUNT] = {
    {"motions/body", 0}, {"motions/kind", 0}, {"motions/velocity", 3}, {"motions/point", 3}, {"motions/window", 2}};

/* Row k of the columns read into a motion of s. */
static sg_err add_row(sg_scene *s, const char *file, const char *prefix, int k, double *const col[M_COUNT]) {
  double g = col[M_BODY][k], kind = col[M_KIND][k];
  int i = g == floor(g) && fabs(g) < 9007199254740992.0 ? sg_scene_find_gid(s, s->n, (int64_t)g) : -1;
  if (i < 0 || s->fixed[i] == SG_MOVING)
    return sg_error_set(SG_ERR_FORMAT, "%s: %s/motions/body row %d: body %.17g is not a fixed body of the scene "
                        "(a kinematic body has /bodies/fixed = 1)", file, prefix, k, g);
  if (kind != floor(kind) || kind < 0 || kind >= SG_MOTION_KINDS)
    return sg_error_set(SG_ERR_FORMAT, "%s: %s/motions/kind row %d: %g (0 translate, 1 rotate)", file, prefix, k, kind);
  double saved = s->state.time;
  s->state.time = 0; /* the file's poses are those at t = 0 */
  sg_err err = sg_scene_add_motion(s, i, (int)kind, col[M_VELOCITY] + 3 * k, col[M_POINT] + 3 * k,
                                   col[M_WINDOW][2 * k], col[M_WINDOW][2 * k + 1]);
  s->state.time = saved;
  if (err) sg_error_append(" (%s, %s/motions row %d)", file, prefix, k);
  return err;
}

sg_err sg_motions_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, sg_scene *s) {
  if (!sg_h5_exists(loc, "motions")) return SG_OK; /* optional */
  double *col[M_COUNT] = {0};
  long long m = -1;
  char shown[256], why[320];
  sg_err err = SG_OK;
  for (int f = 0; f < M_COUNT && !err; ++f) {
    long long dims[2] = {m, fields[f].ncols};
    snprintf(shown, sizeof shown, "%s/%s", prefix, fields[f].name);
    snprintf(why, sizeof why, "(M = %lld motions from %s/motions/body)", m, prefix);
    err = sg_h5_read_checked(loc, fields[f].name, shown, file, 0, fields[f].ncols ? 2 : 1, dims, f ? why : NULL, dxpl,
                             (void **)&col[f]);
    if (!err && f == 0) m = dims[0];
  }
  for (int k = 0; k < m && !err; ++k) err = add_row(s, file, prefix, k, col);
  for (int f = 0; f < M_COUNT; ++f) free(col[f]);
  return err;
}

sg_err sg_motions_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl) {
  if (s->n_motions == 0) return SG_OK;
  int rank;
  MPI_Comm_rank(comm, &rank);
  const int m = s->n_motions;
  double *col[M_COUNT];
  for (int f = 0; f < M_COUNT; ++f) col[f] = sg_calloc((size_t)m * 3 + 1, sizeof(double), "motions");
  sg_err err = SG_OK;
  for (int f = 0; f < M_COUNT; ++f)
    if (!col[f]) err = SG_ERR_MEM;
  for (int k = 0; k < m && !err; ++k) {
    const sg_motion *mo = &s->motions[k];
    col[M_BODY][k] = (double)mo->body;
    col[M_KIND][k] = mo->kind;
    memcpy(col[M_VELOCITY] + 3 * k, mo->velocity, 3 * sizeof(double));
    memcpy(col[M_POINT] + 3 * k, mo->point, 3 * sizeof(double));
    col[M_WINDOW][2 * k] = mo->t_start;
    col[M_WINDOW][2 * k + 1] = mo->t_end;
  }
  err = sg_error_collective(comm, err);
  for (int f = 0; f < M_COUNT && !err; ++f) {
    hsize_t dims[2] = {(hsize_t)m, (hsize_t)fields[f].ncols};
    hid_t ftype = f == M_BODY ? H5T_STD_I64LE : f == M_KIND ? H5T_STD_I32LE : H5T_IEEE_F64LE, d;
    err = sg_h5_dataset_create(loc, fields[f].name, ftype, fields[f].ncols ? 2 : 1, dims, NULL, NULL, file, &d);
    if (!err) err = sg_h5_write_whole(comm, d, H5T_NATIVE_DOUBLE, rank == 0, col[f], dxpl, file, fields[f].name);
    sg_h5_close(&d);
  }
  for (int f = 0; f < M_COUNT; ++f) free(col[f]);
  return err;
}
