/* Trajectory writer (docs/FORMATS.md): a copy of the initial scene, one row of extendible
 * datasets per frame, per-step statistics buffered and appended in blocks. The data goes to
 * "<path>.partial" and is renamed to its final name only by a successful close. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "signorini/fault.h"
#include "signorini/io.h"

#define STATS_BLOCK 256            /* steps buffered between two appends to /stats */
#define SERIES_CHUNK 1024          /* chunk of the 1-D series (/frames/time, /stats/...) */
#define FRAME_CHUNK_BYTES (4u << 20) /* upper bound of one chunk of a per-body frame dataset */

typedef struct {
  const char *name;
  size_t offset;
  int is_int;
} stat_field;

static const stat_field stat_fields[] = {
    {"stats/time", offsetof(sg_step_stats, time), 0},
    {"stats/iterations", offsetof(sg_step_stats, iterations), 1},
    {"stats/residual_primal", offsetof(sg_step_stats, residual_primal), 0},
    {"stats/residual_dual", offsetof(sg_step_stats, residual_dual), 0},
    {"stats/contact_residual", offsetof(sg_step_stats, contact_residual), 0},
    {"stats/n_contacts", offsetof(sg_step_stats, n_contacts), 1},
    {"stats/wall_seconds", offsetof(sg_step_stats, wall_seconds), 0},
    {"stats/converged", offsetof(sg_step_stats, converged), 1},
    {"stats/max_penetration", offsetof(sg_step_stats, max_penetration), 0},
    {"stats/recoveries", offsetof(sg_step_stats, recoveries), 1},
    {"stats/resolves", offsetof(sg_step_stats, resolves), 1},
};
#define N_STATS ((int)(sizeof stat_fields / sizeof stat_fields[0]))

enum { FR_POS, FR_QUAT, FR_VEL, FR_COUNT };
static const struct {
  const char *name;
  int ncols;
} frame_fields[FR_COUNT] = {{"frames/position", 3}, {"frames/orientation", 4}, {"frames/velocity", 6}};

struct sg_traj_writer {
  MPI_Comm comm;
  int rank;
  char *path;   /* final name */
  char *tmp;    /* name while being written */
  hid_t file, dxpl, d_time, d_frame[FR_COUNT], d_stats[N_STATS];
  long long n;  /* bodies */
  long long n_frames, n_stats;
  double *times; /* frame times, for the .xmf */
  int times_cap;
  sg_step_stats buf[STATS_BLOCK];
  int nbuf;
  /* rows of the bodies this rank writes, packed (frames written by owners) */
  int64_t *own_gid;
  double *own_data[FR_COUNT];
  int cap_own, cap_data[FR_COUNT];
};

static void close_handles(sg_traj_writer *w) {
  sg_h5_close(&w->d_time);
  for (int k = 0; k < FR_COUNT; ++k) sg_h5_close(&w->d_frame[k]);
  for (int k = 0; k < N_STATS; ++k) sg_h5_close(&w->d_stats[k]);
  sg_h5_close(&w->dxpl);
}

static void writer_free(sg_traj_writer *w) {
  close_handles(w);
  sg_h5_close(&w->file);
  if (w->comm != MPI_COMM_NULL) MPI_Comm_free(&w->comm);
  free(w->path);
  free(w->tmp);
  free(w->times);
  free(w->own_gid);
  for (int k = 0; k < FR_COUNT; ++k) free(w->own_data[k]);
  free(w);
}

static sg_err create_series(sg_traj_writer *w, const char *name, hid_t ftype, hid_t *d) {
  hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = SERIES_CHUNK;
  return sg_h5_dataset_create(w->file, name, ftype, 1, &dims, &maxdims, &chunk, w->path, d);
}

static sg_err create_layout(sg_traj_writer *w, const sg_scene *s) {
  SG_CHECK(sg_h5_attr_write_int(w->file, "format_version", SG_TRAJ_FORMAT_VERSION, w->path));
  SG_CHECK(sg_h5_attr_write_str(w->file, "kind", SG_KIND_TRAJ, w->path));
  SG_CHECK(sg_h5_attr_write_int(w->file, "complete", 0, w->path));
  w->dxpl = sg_h5_dxpl();
  if (w->dxpl < 0) return sg_error_set(SG_ERR_LIB, "%s: cannot set up HDF5 transfers", w->path);
  hid_t g = H5Gcreate2(w->file, "scene", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return sg_error_set(SG_ERR_IO, "%s: cannot create group /scene", w->path);
  sg_err err = sg_scene_group_write(w->comm, g, w->path, s, w->dxpl);
  sg_h5_close(&g);
  SG_CHECK(err);
  SG_CHECK(create_series(w, "frames/time", H5T_IEEE_F64LE, &w->d_time));
  for (int k = 0; k < FR_COUNT; ++k) {
    /* One frame per chunk (a frame is written whole), split along bodies past 4 MiB into equal
     * parts, so that the last chunk of a frame is not mostly empty space on disk. */
    hsize_t k3 = (hsize_t)frame_fields[k].ncols, n = (hsize_t)w->n;
    hsize_t max_rows = FRAME_CHUNK_BYTES / (sizeof(double) * k3);
    hsize_t parts = (n + max_rows - 1) / max_rows, rows = (n + parts - 1) / parts;
    hsize_t dims[3] = {0, n, k3}, maxdims[3] = {H5S_UNLIMITED, n, k3}, chunk[3] = {1, rows, k3};
    SG_CHECK(sg_h5_dataset_create(w->file, frame_fields[k].name, H5T_IEEE_F64LE, 3, dims, maxdims, chunk,
                                  w->path, &w->d_frame[k]));
  }
  for (int k = 0; k < N_STATS; ++k)
    SG_CHECK(create_series(w, stat_fields[k].name, stat_fields[k].is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE,
                           &w->d_stats[k]));
  return SG_OK;
}

sg_err sg_traj_open(MPI_Comm comm, const char *path, const sg_scene *s, sg_traj_writer **out) {
  *out = NULL;
  sg_h5_quiet();
  sg_traj_writer *w = calloc(1, sizeof *w);
  sg_err err = sg_error_collective(comm, w ? SG_OK : sg_error_set(SG_ERR_MEM, "out of memory opening %s", path));
  if (err) {
    free(w);
    return err;
  }
  w->file = w->dxpl = w->d_time = H5I_INVALID_HID;
  for (int k = 0; k < FR_COUNT; ++k) w->d_frame[k] = H5I_INVALID_HID;
  for (int k = 0; k < N_STATS; ++k) w->d_stats[k] = H5I_INVALID_HID;
  w->comm = MPI_COMM_NULL;
  /* A private communicator keeps our collectives apart from the caller's. */
  MPI_Comm_dup(comm, &w->comm);
  MPI_Comm_rank(w->comm, &w->rank);
  size_t len = strlen(path);
  w->path = malloc(len + 1);
  w->tmp = malloc(len + sizeof ".partial");
  if (!w->path || !w->tmp) {
    err = sg_error_set(SG_ERR_MEM, "out of memory opening %s", path);
  } else {
    memcpy(w->path, path, len + 1);
    snprintf(w->tmp, len + sizeof ".partial", "%s.partial", path);
  }
  err = sg_error_collective(w->comm, err);
  if (!err) {
    w->n = sg_io_n_global(w->comm, s);
    if (w->n < 1) err = sg_error_set(SG_ERR_ARG, "cannot write %s: the scene has no bodies", path);
  }
  if (!err) err = sg_h5_create(w->comm, w->tmp, path, &w->file);
  int created = !err;
  if (!err) err = create_layout(w, s);
  err = sg_error_collective(w->comm, err);
  if (err) {
    close_handles(w);
    sg_h5_close(&w->file);
    if (created) sg_fs_remove(w->comm, w->tmp);
    writer_free(w);
    return err;
  }
  *out = w;
  return SG_OK;
}

static sg_err flush_stats(sg_traj_writer *w);

/* The rows this rank writes (sg_io_writes_body), packed in scene order. */
static sg_err pick_rows(sg_traj_writer *w, const sg_scene *s, int *mine, const int64_t **gid, const double **data) {
  const double *all[FR_COUNT] = {s->pos, s->quat, s->vel};
  int n = 0;
  for (int i = 0; i < s->n; ++i) n += sg_io_writes_body(w->rank, s, i);
  if (n == s->n) { /* every row held here is written here: straight from the scene, no copy */
    *mine = n;
    *gid = s->gid;
    for (int k = 0; k < FR_COUNT; ++k) data[k] = all[k];
    return SG_OK;
  }
  sg_err err = sg_grow((void **)&w->own_gid, &w->cap_own, n + 1, sizeof(int64_t), "owned rows");
  for (int k = 0; k < FR_COUNT && !err; ++k)
    err = sg_grow((void **)&w->own_data[k], &w->cap_data[k], (n + 1) * frame_fields[k].ncols, sizeof(double), "owned rows");
  if (err) return err;
  n = 0;
  for (int i = 0; i < s->n; ++i) {
    if (!sg_io_writes_body(w->rank, s, i)) continue;
    w->own_gid[n] = s->gid[i];
    for (int k = 0; k < FR_COUNT; ++k) {
      int c = frame_fields[k].ncols;
      memcpy(w->own_data[k] + (size_t)n * c, all[k] + (size_t)i * c, (size_t)c * sizeof(double));
    }
    ++n;
  }
  *mine = n;
  *gid = w->own_gid;
  for (int k = 0; k < FR_COUNT; ++k) data[k] = w->own_data[k];
  return SG_OK;
}

/* Frame f of field k (k == FR_COUNT: the time), extended and written; an error agreed by every rank,
 * so that no rank enters the next collective HDF5 call alone (an I/O error may reach one rank only). */
static sg_err write_frame_field(sg_traj_writer *w, int k, hsize_t f, int mine, const int64_t *gid, const double *data,
                                double time) {
  hid_t d = k < FR_COUNT ? w->d_frame[k] : w->d_time;
  const char *name = k < FR_COUNT ? frame_fields[k].name : "/frames/time";
  SG_CHECK(sg_error_collective(w->comm, sg_h5_extend(d, f + 1, w->path, name)));
  sg_err err = k < FR_COUNT ? sg_h5_write_rows(d, H5T_NATIVE_DOUBLE, (long long)f, frame_fields[k].ncols, mine, gid,
                                               data, w->dxpl, w->path, name)
                            : sg_h5_write_range(d, H5T_NATIVE_DOUBLE, f, 1, w->rank == 0, &time, w->dxpl, w->path, name);
  return sg_error_collective(w->comm, err);
}

sg_err sg_traj_write_frame(sg_traj_writer *w, const sg_scene *s) {
  if (!w) return sg_error_set(SG_ERR_ARG, "sg_traj_write_frame: no trajectory writer");
  int mine = 0;
  const int64_t *gid = NULL;
  const double *data[FR_COUNT];
  sg_err err = pick_rows(w, s, &mine, &gid, data);
  if (!err) err = sg_fault_check("output", sg_fault_step());
  SG_CHECK(sg_error_collective(w->comm, err));
  SG_CHECK(sg_io_check_rows(w->comm, mine, gid, w->n, w->path));
  hsize_t f = (hsize_t)w->n_frames;
  err = sg_grow((void **)&w->times, &w->times_cap, (int)(f + 1), sizeof(double), "frame times");
  err = sg_error_collective(w->comm, err);
  if (!err) err = write_frame_field(w, FR_COUNT, f, mine, gid, NULL, s->time);
  for (int k = 0; k < FR_COUNT && !err; ++k) err = write_frame_field(w, k, f, mine, gid, data[k], s->time);
  if (err) return err;
  w->times[f] = s->time;
  w->n_frames++;
  /* Each frame is a checkpoint of the file: write the buffered stats and HDF5's metadata, so the
   * .partial of a run that dies holds every frame so far and opens cleanly. */
  SG_CHECK(flush_stats(w));
  err = H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0 ? sg_error_set(SG_ERR_IO, "%s: cannot flush %s", w->path, w->tmp) : SG_OK;
  return sg_error_collective(w->comm, err);
}

static sg_err flush_stats(sg_traj_writer *w) {
  if (w->nbuf == 0) return SG_OK;
  sg_err err = SG_OK;
  hsize_t at = (hsize_t)w->n_stats, cnt = (hsize_t)w->nbuf;
  for (int k = 0; k < N_STATS && !err; ++k) {
    const stat_field *sf = &stat_fields[k];
    /* Columns out of the buffered structs, one contiguous write per dataset. */
    double dcol[STATS_BLOCK];
    int icol[STATS_BLOCK];
    for (int i = 0; i < w->nbuf; ++i) {
      const char *p = (const char *)&w->buf[i] + sf->offset;
      if (sf->is_int) memcpy(&icol[i], p, sizeof(int));
      else memcpy(&dcol[i], p, sizeof(double));
    }
    /* each collective HDF5 call agreed on before the next one */
    err = sg_error_collective(w->comm, sg_h5_extend(w->d_stats[k], at + cnt, w->path, sf->name));
    if (!err) err = sg_h5_write_range(w->d_stats[k], sf->is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, at, cnt,
                                      w->rank == 0, sf->is_int ? (void *)icol : (void *)dcol, w->dxpl, w->path,
                                      sf->name);
    err = sg_error_collective(w->comm, err);
  }
  if (err) return err;
  w->n_stats += w->nbuf;
  w->nbuf = 0;
  return SG_OK;
}

sg_err sg_traj_write_stats(sg_traj_writer *w, const sg_step_stats *st) {
  if (!w) return sg_error_set(SG_ERR_ARG, "sg_traj_write_stats: no trajectory writer");
  w->buf[w->nbuf++] = *st;
  if (w->nbuf < STATS_BLOCK) return SG_OK;
  SG_CHECK(flush_stats(w));
  /* Push HDF5's metadata out now and then: the .partial of a run that dies stays readable. */
  sg_err err = H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0 ? sg_error_set(SG_ERR_IO, "%s: cannot flush %s", w->path, w->tmp)
                                                        : SG_OK;
  return sg_error_collective(w->comm, err);
}

sg_err sg_traj_set_attr(sg_traj_writer *w, const char *name, const char *value) {
  if (!w) return sg_error_set(SG_ERR_ARG, "sg_traj_set_attr: no trajectory writer");
  /* These three describe the file itself; a run option must not overwrite them. */
  if (!strcmp(name, "format_version") || !strcmp(name, "kind") || !strcmp(name, "complete"))
    return sg_error_set(SG_ERR_ARG, "%s: attribute name %s is reserved", w->path, name);
  return sg_error_collective(w->comm, sg_h5_attr_write_str(w->file, name, value, w->path));
}

sg_err sg_traj_write_timing(sg_traj_writer *w, const double *all, int nranks, int nfields, const char *columns) {
  if (!w) return sg_error_set(SG_ERR_ARG, "sg_traj_write_timing: no trajectory writer");
  hsize_t dims[2] = {(hsize_t)nranks, (hsize_t)nfields};
  hid_t dset = -1;
  sg_err err = sg_h5_dataset_create(w->file, "timing/table", H5T_NATIVE_DOUBLE, 2, dims, NULL, NULL, w->path, &dset);
  if (!err) err = sg_h5_write_whole(dset, H5T_NATIVE_DOUBLE, w->rank == 0, all, w->dxpl, w->path, "/timing/table");
  if (!err) err = sg_h5_attr_write_str(dset, "columns", columns, w->path);
  if (dset >= 0) sg_h5_close(&dset);
  return sg_error_collective(w->comm, err);
}

/* "<path without .h5>.xmf" */
static char *xmf_name(const char *path) {
  size_t len = strlen(path);
  if (len >= 3 && !strcmp(path + len - 3, ".h5")) len -= 3;
  char *x = malloc(len + 5);
  if (x) snprintf(x, len + 5, "%.*s.xmf", (int)len, path);
  return x;
}

const char *sg_traj_partial_name(const sg_traj_writer *w) { return w ? w->tmp : ""; }

sg_err sg_traj_close(sg_traj_writer *w, int mode) {
  if (!w) return SG_OK;
  sg_err err = SG_OK;
  int success = mode == SG_TRAJ_COMPLETE;
  if (mode == SG_TRAJ_KEEP_PARTIAL) err = flush_stats(w); /* everything up to the stop, complete stays 0 */
  if (success) {
    err = flush_stats(w);
    /* Set last, so that a file whose run stopped early never claims to be complete. */
    if (!err) err = sg_error_collective(w->comm, sg_h5_attr_write_int(w->file, "complete", 1, w->path));
  }
  close_handles(w);
  if (w->file >= 0 && H5Fclose(w->file) < 0 && !err)
    err = sg_error_set(SG_ERR_IO, "cannot write %s: closing %s failed", w->path, w->tmp);
  w->file = H5I_INVALID_HID;
  err = sg_error_collective(w->comm, err);
  if (success && !err) err = sg_fs_rename(w->comm, w->tmp, w->path);
  if (success && !err) {
    sg_err xerr = SG_OK;
    if (w->rank == 0) {
      char *xmf = xmf_name(w->path);
      const char *slash = strrchr(w->path, '/');
      if (!xmf) xerr = sg_error_set(SG_ERR_MEM, "out of memory naming the .xmf of %s", w->path);
      else xerr = sg_xdmf_write(xmf, slash ? slash + 1 : w->path, w->n, w->times, w->n_frames);
      free(xmf);
    }
    err = sg_error_collective(w->comm, xerr);
  }
  /* A failed run leaves nothing; a failed finish or a stopped run keeps the .partial (complete = 0). */
  if (mode == SG_TRAJ_DISCARD) sg_fs_remove(w->comm, w->tmp);
  writer_free(w);
  return err;
}
