/* Trajectory writer (docs/FORMATS.md): a copy of the initial scene; per frame, one row of
 * extendible datasets indexed by global id, whose body axis grows with the ids the run uses (rows
 * of ids absent from a frame read as NaN); the description of every id; per-step statistics and
 * the logs of inserted and deleted bodies, buffered and appended in blocks. The data goes to
 * "<path>.partial" and is renamed to its final name only by a successful close. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/traj_internal.h"
#include "signorini/fault.h"
#include "signorini/io.h"

#define STATS_BLOCK 256              /* steps buffered between two appends to /stats */
#define FRAME_CHUNK_BYTES (4u << 20) /* upper bound of one chunk of a per-body frame dataset */
#define GROW_CHUNK_ROWS 1024         /* least bodies per frame chunk when an inflow adds ids */

/* Element kinds of the datasets: file type, memory type, size. */
enum { K_F64, K_I32, K_I64, K_U8 };
static hid_t file_type(int kind) {
  return kind == K_F64 ? H5T_IEEE_F64LE : kind == K_I32 ? H5T_STD_I32LE : kind == K_I64 ? H5T_STD_I64LE : H5T_STD_U8LE;
}
static hid_t mem_type(int kind) {
  return kind == K_F64   ? H5T_NATIVE_DOUBLE
         : kind == K_I32 ? H5T_NATIVE_INT
         : kind == K_I64 ? H5T_NATIVE_LLONG
                         : H5T_NATIVE_UCHAR;
}

typedef struct {
  const char *name;
  size_t offset;
  int kind; /* K_F64, K_I32 or K_I64, as the field of sg_step_stats */
} stat_field;

static const stat_field stat_fields[] = {
    {"stats/time", offsetof(sg_step_stats, time), K_F64},
    {"stats/iterations", offsetof(sg_step_stats, iterations), K_I32},
    {"stats/residual_primal", offsetof(sg_step_stats, residual_primal), K_F64},
    {"stats/residual_dual", offsetof(sg_step_stats, residual_dual), K_F64},
    {"stats/contact_residual", offsetof(sg_step_stats, contact_residual), K_F64},
    {"stats/n_contacts", offsetof(sg_step_stats, n_contacts), K_I32},
    {"stats/wall_seconds", offsetof(sg_step_stats, wall_seconds), K_F64},
    {"stats/converged", offsetof(sg_step_stats, converged), K_I32},
    {"stats/max_penetration", offsetof(sg_step_stats, max_penetration), K_F64},
    {"stats/recoveries", offsetof(sg_step_stats, recoveries), K_I32},
    {"stats/resolves", offsetof(sg_step_stats, resolves), K_I32},
    {"stats/n_bodies", offsetof(sg_step_stats, n_bodies), K_I64},
    {"stats/inserted", offsetof(sg_step_stats, inserted), K_I64},
    {"stats/deleted", offsetof(sg_step_stats, deleted), K_I64},
    {"stats/inflow_waiting", offsetof(sg_step_stats, inflow_waiting), K_I64},
    {"stats/mass_inserted", offsetof(sg_step_stats, mass_inserted), K_F64},
    {"stats/mass_deleted", offsetof(sg_step_stats, mass_deleted), K_F64},
};
#define N_STATS ((int)(sizeof stat_fields / sizeof stat_fields[0]))

enum { FR_POS, FR_QUAT, FR_VEL, FR_COUNT };
static const struct {
  const char *name;
  int ncols;
} frame_fields[FR_COUNT] = {{"frames/position", 3}, {"frames/orientation", 4}, {"frames/velocity", 6}};

/* /ids: the description of every id the frames use (row = id), for readers that need the shape
 * or size of a body that was not in the initial scene (the .xmf, frame_to_scene.py). */
enum { ID_GID, ID_SHAPE, ID_SIZE, ID_MATERIAL, ID_FIXED, ID_DENSITY, ID_COUNT };
static const struct {
  const char *name;
  int ncols, kind;
} id_fields[ID_COUNT] = {{"ids/gid", 0, K_I64},      {"ids/shape", 0, K_I32}, {"ids/size", 3, K_F64},
                         {"ids/material", 0, K_I32}, {"ids/fixed", 0, K_U8},  {"ids/density", 0, K_F64}};

struct sg_traj_writer {
  MPI_Comm comm;
  int rank;
  char *path;   /* final name */
  char *tmp;    /* name while being written */
  hid_t file, dxpl, d_time, d_frame[FR_COUNT], d_present, d_nbodies, d_nids, d_ids[ID_COUNT], d_stats[N_STATS];
  long long n;  /* rows of the body axis: the largest id extent so far */
  long long n_gid; /* rows of /ids/gid written */
  long long n_frames, n_stats;
  double *times;      /* per frame, for the .xmf */
  long long *n_ids;   /* per frame: its id extent */
  int times_cap, n_ids_cap;
  /* the ids present in the frame being written, and those present in any frame so far (the ids
   * /ids describes); every rank holds both, of every rank */
  unsigned char *present, *seen;
  int present_cap, seen_cap;
  sg_step_stats buf[STATS_BLOCK];
  int nbuf;
  sg_traj_events *events;
  /* rows of the bodies this rank writes, packed (frames written by owners) */
  int64_t *own_gid;
  double *own_data[FR_COUNT];
  int cap_own, cap_data[FR_COUNT];
  sg_surface walls; /* rank 0: the fixed walls at the start, for the .xmf */
  sg_traj_walls moving; /* the kinematic walls, drawn at every frame */
  int moving_open;
  sg_traj_trees trees; /* the trees' links at every frame */
  int trees_open;
  /* /frames/stress when asked for (sg_traj_add_stress): the rows of the next frame */
  hid_t d_stress;
  int n_stress;
  const int64_t *stress_gid;
  const double *stress_W;
};

static void close_handles(sg_traj_writer *w) {
  sg_h5_close(&w->d_time);
  for (int k = 0; k < FR_COUNT; ++k) sg_h5_close(&w->d_frame[k]);
  sg_h5_close(&w->d_stress);
  if (w->moving_open) sg_h5_close(&w->moving.d_xyz);
  if (w->trees_open) sg_traj_trees_close(&w->trees);
  sg_h5_close(&w->d_present);
  sg_h5_close(&w->d_nbodies);
  sg_h5_close(&w->d_nids);
  for (int k = 0; k < ID_COUNT; ++k) sg_h5_close(&w->d_ids[k]);
  for (int k = 0; k < N_STATS; ++k) sg_h5_close(&w->d_stats[k]);
  sg_traj_events_close(w->events);
  w->events = NULL;
  sg_h5_close(&w->dxpl);
}

static void writer_free(sg_traj_writer *w) {
  close_handles(w);
  sg_h5_close(&w->file);
  if (w->comm != MPI_COMM_NULL) MPI_Comm_free(&w->comm);
  free(w->path);
  free(w->tmp);
  free(w->times);
  free(w->n_ids);
  free(w->present);
  free(w->seen);
  free(w->own_gid);
  for (int k = 0; k < FR_COUNT; ++k) free(w->own_data[k]);
  sg_surface_free(&w->walls);
  if (w->moving_open) sg_traj_walls_close(&w->moving);
  free(w);
}

static sg_err create_series(sg_traj_writer *w, const char *name, hid_t ftype, hid_t *d) {
  hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk = SG_TRAJ_SERIES_CHUNK;
  return sg_h5_dataset_create(w->file, name, ftype, 1, &dims, &maxdims, &chunk, w->path, d);
}

/* A dataset read as *fill until written, after the room for that fill is reserved (collective,
 * agreed; h5_room.c says why). */
static sg_err create_filled(sg_traj_writer *w, const char *name, hid_t ftype, int rank, const hsize_t *dims,
                            const hsize_t *maxdims, const hsize_t *chunk, hid_t memtype, const void *fill, hid_t *d) {
  SG_CHECK(sg_h5_room_reserve(w->comm, w->file, w->tmp, w->path, name, sg_h5_room_create(rank, dims, chunk, ftype)));
  return sg_error_collective(w->comm, sg_h5_dataset_create_filled(w->file, name, ftype, rank, dims, maxdims, chunk, memtype,
                                                                  fill, w->path, d));
}

/* Bodies per chunk of a frame dataset of `row` bytes per body: one frame per chunk (a frame is
 * written whole), split along bodies past 4 MiB into equal parts, so that the last chunk of a
 * frame is not mostly empty space on disk. n: the bodies expected. */
static hsize_t frame_chunk_rows(hsize_t n, hsize_t row) {
  hsize_t max_rows = FRAME_CHUNK_BYTES / row;
  hsize_t parts = (n + max_rows - 1) / max_rows;
  return (n + parts - 1) / parts;
}

static int has_inflow(const sg_scene *s) {
  for (int k = 0; k < s->n_regions; ++k)
    if (s->regions[k].kind == SG_REGION_INFLOW) return 1;
  return 0;
}

/* /frames/position, orientation, velocity (NaN until written) and present (0 until written):
 * [0][n][k], extendible along frames and bodies. */
static sg_err create_frames(sg_traj_writer *w, const sg_scene *s) {
  /* A set that grows by an inflow gets chunks of at least GROW_CHUNK_ROWS bodies: many tiny
   * chunks per frame would make every frame write slow. A fixed set keeps its one-chunk frames. */
  hsize_t n = (hsize_t)w->n, hint = has_inflow(s) && n < GROW_CHUNK_ROWS ? GROW_CHUNK_ROWS : n;
  const double nan = NAN;
  const unsigned char zero = 0;
  for (int k = 0; k < FR_COUNT; ++k) {
    hsize_t k3 = (hsize_t)frame_fields[k].ncols;
    hsize_t dims[3] = {0, n, k3}, maxdims[3] = {H5S_UNLIMITED, H5S_UNLIMITED, k3};
    hsize_t chunk[3] = {1, frame_chunk_rows(hint, sizeof(double) * k3), k3};
    SG_CHECK(create_filled(w, frame_fields[k].name, H5T_IEEE_F64LE, 3, dims, maxdims, chunk, H5T_NATIVE_DOUBLE, &nan,
                           &w->d_frame[k]));
  }
  hsize_t dims[2] = {0, n}, maxdims[2] = {H5S_UNLIMITED, H5S_UNLIMITED}, chunk[2] = {1, frame_chunk_rows(hint, 1)};
  return create_filled(w, "frames/present", H5T_STD_U8LE, 2, dims, maxdims, chunk, H5T_NATIVE_UCHAR, &zero, &w->d_present);
}

sg_err sg_traj_add_stress(sg_traj_writer *w, const sg_scene *s) {
  if (w->n_frames > 0) return sg_error_set(SG_ERR_ARG, "%s: /frames/stress is added before the first frame", w->path);
  hsize_t n = (hsize_t)w->n, hint = has_inflow(s) && n < GROW_CHUNK_ROWS ? GROW_CHUNK_ROWS : n;
  hsize_t dims[3] = {0, n, 9}, maxdims[3] = {H5S_UNLIMITED, H5S_UNLIMITED, 9}, chunk[3] = {1, frame_chunk_rows(hint, 9 * sizeof(double)), 9};
  const double nan = NAN;
  return create_filled(w, "frames/stress", H5T_IEEE_F64LE, 3, dims, maxdims, chunk, H5T_NATIVE_DOUBLE, &nan, &w->d_stress);
}

void sg_traj_set_stress(sg_traj_writer *w, int n, const int64_t *gid, const double *W) {
  w->n_stress = n;
  w->stress_gid = gid;
  w->stress_W = W;
}

/* /ids/...: [n] or [n][3], extendible, rows of ids never present hold the fill values. */
/* Each creation agreed before the next (a full disk may fail the fill's writes on some ranks only). */
static sg_err create_ids(sg_traj_writer *w) {
  const double nan = NAN;
  const int minus1 = -1;
  const long long minus1ll = -1;
  const unsigned char zero = 0;
  const void *fill[ID_COUNT] = {&minus1ll, &minus1, &nan, &minus1, &zero, &nan};
  for (int k = 0; k < ID_COUNT; ++k) {
    hsize_t c = (hsize_t)id_fields[k].ncols;
    hsize_t dims[2] = {(hsize_t)w->n, c}, maxdims[2] = {H5S_UNLIMITED, c}, chunk[2] = {SG_TRAJ_SERIES_CHUNK, c};
    SG_CHECK(create_filled(w, id_fields[k].name, file_type(id_fields[k].kind), c ? 2 : 1, dims, maxdims, chunk,
                           mem_type(id_fields[k].kind), fill[k], &w->d_ids[k]));
  }
  return SG_OK;
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
  /* each step agreed before the next collective HDF5 call: a rank that failed alone (a full disk)
   * must not leave the others waiting in the next one */
  SG_CHECK(sg_error_collective(w->comm, err));
  SG_CHECK(sg_error_collective(w->comm, create_series(w, "frames/time", H5T_IEEE_F64LE, &w->d_time)));
  SG_CHECK(sg_error_collective(w->comm, create_frames(w, s)));
  SG_CHECK(sg_error_collective(w->comm, create_series(w, "frames/n_bodies", H5T_STD_I64LE, &w->d_nbodies)));
  SG_CHECK(sg_error_collective(w->comm, create_series(w, "frames/n_ids", H5T_STD_I64LE, &w->d_nids)));
  SG_CHECK(create_ids(w));
  for (int k = 0; k < N_STATS; ++k)
    SG_CHECK(sg_error_collective(w->comm, create_series(w, stat_fields[k].name, file_type(stat_fields[k].kind), &w->d_stats[k])));
  return SG_OK;
}

/* The id extent of the scene: above next_gid and every id held, the same on every rank. */
static long long id_extent(MPI_Comm comm, const sg_scene *s) {
  long long top = s->next_gid;
  for (int i = 0; i < s->n; ++i)
    if (s->gid[i] + 1 > top) top = s->gid[i] + 1;
  MPI_Allreduce(MPI_IN_PLACE, &top, 1, MPI_LONG_LONG, MPI_MAX, comm);
  return top;
}

static sg_traj_writer *writer_alloc(MPI_Comm comm, const char *path) {
  sg_traj_writer *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->file = w->dxpl = w->d_time = w->d_present = w->d_nbodies = w->d_nids = H5I_INVALID_HID;
  for (int k = 0; k < FR_COUNT; ++k) w->d_frame[k] = H5I_INVALID_HID;
  w->d_stress = H5I_INVALID_HID;
  for (int k = 0; k < ID_COUNT; ++k) w->d_ids[k] = H5I_INVALID_HID;
  for (int k = 0; k < N_STATS; ++k) w->d_stats[k] = H5I_INVALID_HID;
  /* A private communicator keeps our collectives apart from the caller's. */
  MPI_Comm_dup(comm, &w->comm);
  MPI_Comm_rank(w->comm, &w->rank);
  size_t len = strlen(path);
  w->path = malloc(len + 1);
  w->tmp = malloc(len + sizeof ".partial");
  if (w->path) memcpy(w->path, path, len + 1);
  if (w->tmp) snprintf(w->tmp, len + sizeof ".partial", "%s.partial", path);
  return w;
}

sg_err sg_traj_open(MPI_Comm comm, const char *path, const sg_scene *s, sg_traj_writer **out) {
  *out = NULL;
  sg_h5_quiet();
  sg_traj_writer *w = writer_alloc(comm, path);
  sg_err err = sg_error_collective(comm, w ? SG_OK : sg_error_set(SG_ERR_MEM, "out of memory opening %s", path));
  if (err) return err;
  err = sg_error_collective(w->comm, w->path && w->tmp ? SG_OK : sg_error_set(SG_ERR_MEM, "out of memory opening %s", path));
  if (!err) {
    w->n = id_extent(w->comm, s);
    if (w->n < 1) err = sg_error_set(SG_ERR_ARG, "cannot write %s: the scene has no bodies", path);
    else if (w->n > INT_MAX) err = sg_error_set(SG_ERR_ARG, "cannot write %s: body ids reach %lld", path, w->n);
  }
  if (!err) err = sg_h5_create(w->comm, w->tmp, path, &w->file);
  int created = !err;
  if (!err) err = create_layout(w, s);
  err = sg_error_collective(w->comm, err);
  if (!err) err = sg_traj_events_open(w->comm, w->file, w->dxpl, w->path, &w->events);
  /* every rank holds every fixed body: rank 0 draws them */
  if (!err) err = sg_error_collective(w->comm, w->rank == 0 ? sg_walls_surface(s, SG_FIXED, &w->walls) : SG_OK);
  if (!err) {
    err = sg_traj_walls_open(w->comm, w->file, w->dxpl, w->path, s, &w->moving);
    w->moving_open = 1; /* closed whatever the outcome: the open sets every field first */
  }
  if (!err) {
    err = sg_traj_trees_open(w->comm, w->file, w->dxpl, w->path, s, &w->trees);
    w->trees_open = 1;
  }
  if (err) {
    close_handles(w);
    sg_h5_close_written(w->comm, &w->file, w->tmp, path, err, 1);
    if (created) sg_fs_remove(w->comm, w->tmp);
    writer_free(w);
    return err;
  }
  *out = w;
  return SG_OK;
}

static sg_err flush_buffers(sg_traj_writer *w);

/* The rows this rank writes (sg_io_writes_body), packed in scene order. */
static sg_err pick_rows(sg_traj_writer *w, const sg_scene *s, int *mine, const int64_t **gid, const double **data) {
  const double *all[FR_COUNT] = {s->state.pos, s->state.quat, s->state.vel};
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

/* Room for `ext` ids in the present and seen maps (new ids: not seen). */
static sg_err grow_maps(sg_traj_writer *w, long long ext) {
  int old = w->seen_cap;
  SG_CHECK(sg_grow((void **)&w->present, &w->present_cap, (int)ext, 1, "present ids"));
  SG_CHECK(sg_grow((void **)&w->seen, &w->seen_cap, (int)ext, 1, "present ids"));
  memset(w->seen + old, 0, (size_t)(w->seen_cap - old));
  return SG_OK;
}

/* The frame's id extent *ext (never below the last one: at least next_gid and one past every id
 * written, the same on every rank), the map of the ids present on every rank and their number
 * *count. Refuses a negative id and an id written twice (by one rank or by two): no row may be
 * written twice in one collective write. Collective, errors agreed. */
static sg_err frame_ids(sg_traj_writer *w, const sg_scene *s, int mine, const int64_t *gid, long long *ext,
                        long long *count) {
  sg_err err = SG_OK;
  long long top = s->next_gid > w->n ? s->next_gid : w->n;
  for (int i = 0; i < mine; ++i) {
    if (gid[i] < 0 && !err)
      err = sg_error_set(SG_ERR_ARG, "%s: body id %lld is negative (frame %lld)", w->path, (long long)gid[i],
                         w->n_frames);
    if (gid[i] + 1 > top) top = gid[i] + 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &top, 1, MPI_LONG_LONG, MPI_MAX, w->comm);
  if (!err && top > INT_MAX) err = sg_error_set(SG_ERR_ARG, "%s: body ids reach %lld (frame %lld)", w->path, top, w->n_frames);
  if (!err) err = grow_maps(w, top);
  SG_CHECK(sg_error_collective(w->comm, err));
  memset(w->present, 0, (size_t)top);
  for (int i = 0; i < mine; ++i) w->present[gid[i]] = 1;
  MPI_Allreduce(MPI_IN_PLACE, w->present, (int)top, MPI_UNSIGNED_CHAR, MPI_BOR, w->comm);
  long long total = mine, distinct = 0;
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
  for (long long g = 0; g < top; ++g) distinct += w->present[g];
  if (distinct != total) /* the same on every rank */
    err = sg_error_set(SG_ERR_ARG, "%s: frame %lld has %lld body rows for %lld distinct ids (a body given twice)",
                       w->path, w->n_frames, total, distinct);
  *ext = top;
  *count = total;
  return sg_error_collective(w->comm, err);
}

/* Grow axis `axis` of a chunked dataset to n (collective). */
static sg_err extend_axis(hid_t dset, int axis, hsize_t n, const char *file, const char *name) {
  hsize_t dims[H5S_MAX_RANK];
  hid_t space = H5Dget_space(dset);
  int rank = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
  sg_h5_close(&space);
  if (rank <= axis) return sg_error_set(SG_ERR_LIB, "%s: cannot query dataset %s", file, name);
  dims[axis] = n;
  if (H5Dset_extent(dset, dims) < 0)
    return sg_error_set(SG_ERR_IO, "%s: cannot extend dataset %s to %llu %s", file, name, (unsigned long long)n,
                        axis ? "bodies" : "entries");
  return SG_OK;
}

/* Grow axis `axis` of a filled dataset to n, after the room for the fill of its new chunks is
 * reserved (collective, agreed; h5_room.c says why). */
static sg_err grow_filled(sg_traj_writer *w, hid_t dset, int axis, hsize_t n, const char *name) {
  SG_CHECK(sg_h5_room_reserve(w->comm, w->file, w->tmp, w->path, name, sg_h5_room_extend(dset, axis, n)));
  return sg_error_collective(w->comm, extend_axis(dset, axis, n, w->path, name));
}

/* Grow the body axis of the frame datasets and of /ids to ext rows (collective; each call
 * agreed on before the next). */
static sg_err grow_bodies(sg_traj_writer *w, long long ext) {
  if (ext <= w->n) return SG_OK;
  sg_err err = SG_OK;
  for (int k = 0; k < FR_COUNT && !err; ++k) err = grow_filled(w, w->d_frame[k], 1, (hsize_t)ext, frame_fields[k].name);
  if (!err && w->d_stress >= 0) err = grow_filled(w, w->d_stress, 1, (hsize_t)ext, "frames/stress");
  if (!err) err = grow_filled(w, w->d_present, 1, (hsize_t)ext, "frames/present");
  for (int k = 0; k < ID_COUNT && !err; ++k) err = grow_filled(w, w->d_ids[k], 0, (hsize_t)ext, id_fields[k].name);
  if (!err) w->n = ext;
  return err;
}

/* Rows [w->n_gid, ext) of /ids/gid, from rank 0: row g holds g (collective, agreed). */
static sg_err write_gid_rows(sg_traj_writer *w, long long ext) {
  if (ext <= w->n_gid) return SG_OK;
  long long first = w->n_gid, cnt = w->rank == 0 ? ext - first : 0;
  long long *ids = sg_calloc((size_t)cnt + 1, sizeof *ids, "body ids");
  sg_err err = sg_error_collective(w->comm, ids ? SG_OK : SG_ERR_MEM);
  for (long long i = 0; i < cnt && !err; ++i) ids[i] = first + i;
  if (!err)
    err = sg_error_collective(w->comm, sg_h5_write_range(w->comm, w->d_ids[ID_GID], H5T_NATIVE_LLONG, (hsize_t)first,
                                                         (hsize_t)(ext - first), w->rank == 0, ids, w->dxpl, w->path,
                                                         "/ids/gid"));
  free(ids);
  if (!err) w->n_gid = ext;
  return err;
}

/* Extend a series to f + 1 entries and write entry f from rank 0 (collective, agreed). */
static sg_err append_value(sg_traj_writer *w, hid_t d, const char *name, hsize_t f, hid_t memtype, const void *v) {
  SG_CHECK(sg_error_collective(w->comm, sg_h5_extend(d, f + 1, w->path, name)));
  return sg_error_collective(w->comm, sg_h5_write_range(w->comm, d, memtype, f, 1, w->rank == 0, v, w->dxpl, w->path, name));
}

/* Frame f of a per-body field, extended and written by every rank (its rows); an error agreed by
 * every rank, so that no rank enters the next collective HDF5 call alone (an I/O error may reach
 * one rank only). */
static sg_err write_frame_field(sg_traj_writer *w, int k, hsize_t f, int mine, const int64_t *gid, const double *data) {
  const char *name = frame_fields[k].name;
  SG_CHECK(grow_filled(w, w->d_frame[k], 0, f + 1, name));
  const double nan_row[6] = {NAN, NAN, NAN, NAN, NAN, NAN}; /* absent ids: the datasets' fill */
  return sg_error_collective(w->comm, sg_h5_write_rows_blocked(w->comm, w->d_frame[k], H5T_NATIVE_DOUBLE, (long long)f,
                                                               frame_fields[k].ncols, mine, gid, data, nan_row, w->dxpl,
                                                               w->path, name));
}

/* Frame f of /frames/stress: each rank the rows it was given (sg_traj_set_stress). */
static sg_err write_stress(sg_traj_writer *w, hsize_t f) {
  const char *name = "/frames/stress";
  double nan_row[9];
  for (int k = 0; k < 9; ++k) nan_row[k] = NAN;
  SG_CHECK(grow_filled(w, w->d_stress, 0, f + 1, name));
  return sg_error_collective(w->comm, sg_h5_write_rows_blocked(w->comm, w->d_stress, H5T_NATIVE_DOUBLE, (long long)f, 9, w->n_stress,
                                                               w->stress_gid, w->stress_W, nan_row, w->dxpl, w->path, name));
}

/* Row f of /frames/present, [0, ext) of it, from rank 0's copy of the map (collective, agreed). */
static sg_err write_present(sg_traj_writer *w, hsize_t f, long long ext) {
  const char *name = "/frames/present";
  SG_CHECK(grow_filled(w, w->d_present, 0, f + 1, name));
  hid_t fspace = H5Dget_space(w->d_present);
  hsize_t start[2] = {f, 0}, cnt[2] = {1, (hsize_t)ext}, len = (hsize_t)ext;
  hid_t mspace = H5Screate_simple(1, &len, NULL);
  sg_err err = fspace < 0 || mspace < 0 ? sg_error_set(SG_ERR_LIB, "%s: cannot query dataset %s", w->path, name) : SG_OK;
  if (!err && w->rank != 0 && (H5Sselect_none(fspace) < 0 || H5Sselect_none(mspace) < 0))
    err = sg_error_set(SG_ERR_LIB, "%s: cannot select rows of %s", w->path, name);
  if (!err && w->rank == 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0)
    err = sg_error_set(SG_ERR_LIB, "%s: cannot select rows of %s", w->path, name);
  err = sg_error_collective(w->comm, err);
  if (!err && H5Dwrite(w->d_present, H5T_NATIVE_UCHAR, mspace, fspace, w->dxpl, w->present) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot write dataset %s", w->path, name);
  sg_h5_close(&mspace);
  sg_h5_close(&fspace);
  return sg_error_collective(w->comm, err);
}

/* The description of the bodies this rank writes that no earlier frame had (rows of /ids). */
typedef struct {
  int n;
  int64_t *gid;
  int *shape, *material;
  double *size, *density;
  unsigned char *fixed;
} id_rows;

static void id_rows_free(id_rows *r) {
  free(r->gid);
  free(r->shape);
  free(r->material);
  free(r->size);
  free(r->density);
  free(r->fixed);
}

static sg_err pick_new(const sg_traj_writer *w, const sg_scene *s, id_rows *r) {
  memset(r, 0, sizeof *r);
  for (int i = 0; i < s->n; ++i) r->n += sg_io_writes_body(w->rank, s, i) && !w->seen[s->gid[i]];
  size_t m = (size_t)r->n + 1;
  r->gid = malloc(m * sizeof *r->gid);
  r->shape = malloc(m * sizeof *r->shape);
  r->material = malloc(m * sizeof *r->material);
  r->size = malloc(3 * m * sizeof *r->size);
  r->density = malloc(m * sizeof *r->density);
  r->fixed = malloc(m);
  if (!r->gid || !r->shape || !r->material || !r->size || !r->density || !r->fixed)
    return sg_error_set(SG_ERR_MEM, "%s: out of memory describing %d bodies", w->path, r->n);
  for (int i = 0, k = 0; i < s->n; ++i) {
    if (!sg_io_writes_body(w->rank, s, i) || w->seen[s->gid[i]]) continue;
    r->gid[k] = s->gid[i];
    r->shape[k] = s->shape[i];
    r->material[k] = s->material[i];
    memcpy(r->size + 3 * k, s->size + 3 * i, 3 * sizeof *r->size);
    r->density[k] = s->density[i];
    r->fixed[k++] = s->fixed[i] != SG_MOVING; /* kinematic bodies are fixed, as in a scene file */
  }
  return SG_OK;
}

/* The /ids rows of the ids present in this frame and in no earlier one (each rank those of the
 * bodies it writes), then they are seen. Nothing when there are none (known alike on every
 * rank from the maps). Collective, errors agreed. */
static sg_err write_ids(sg_traj_writer *w, const sg_scene *s, long long ext) {
  long long fresh = 0;
  for (long long g = 0; g < ext; ++g) fresh += w->present[g] && !w->seen[g];
  if (fresh == 0) return SG_OK;
  id_rows r;
  sg_err err = sg_error_collective(w->comm, pick_new(w, s, &r));
  const void *data[ID_COUNT] = {NULL, r.shape, r.size, r.material, r.fixed, r.density};
  for (int k = ID_SHAPE; k < ID_COUNT && !err; ++k)
    err = sg_error_collective(w->comm, sg_h5_write_rows_blocked(w->comm, w->d_ids[k], mem_type(id_fields[k].kind), -1, id_fields[k].ncols,
                                                                r.n, r.gid, data[k], NULL, w->dxpl, w->path,
                                                                id_fields[k].name));
  id_rows_free(&r);
  if (err) return err;
  for (long long g = 0; g < ext; ++g) w->seen[g] |= w->present[g];
  return SG_OK;
}

/* Room for one more frame's time and extent. */
static sg_err grow_frame_log(sg_traj_writer *w) {
  int n = (int)w->n_frames + 1;
  SG_CHECK(sg_grow((void **)&w->times, &w->times_cap, n, sizeof *w->times, "frame times"));
  return sg_grow((void **)&w->n_ids, &w->n_ids_cap, n, sizeof *w->n_ids, "frame extents");
}

/* Every dataset of frame f (the ids already checked by frame_ids). Collective, errors agreed. */
static sg_err write_frame_data(sg_traj_writer *w, const sg_scene *s, int mine, const int64_t *gid,
                               const double *const *data, long long ext, long long count) {
  hsize_t f = (hsize_t)w->n_frames;
  sg_err err = sg_error_collective(w->comm, grow_frame_log(w));
  if (!err) err = grow_bodies(w, ext);
  if (!err) err = write_gid_rows(w, ext);
  if (!err) err = append_value(w, w->d_time, "/frames/time", f, H5T_NATIVE_DOUBLE, &s->state.time);
  for (int k = 0; k < FR_COUNT && !err; ++k) err = write_frame_field(w, k, f, mine, gid, data[k]);
  if (!err && w->d_stress >= 0) err = write_stress(w, f);
  if (!err) err = sg_traj_walls_frame(&w->moving, s, f);
  if (!err) err = sg_traj_trees_frame(&w->trees, s, f);
  if (!err) err = write_present(w, f, ext);
  if (!err) err = append_value(w, w->d_nbodies, "/frames/n_bodies", f, H5T_NATIVE_LLONG, &count);
  if (!err) err = append_value(w, w->d_nids, "/frames/n_ids", f, H5T_NATIVE_LLONG, &ext);
  if (!err) err = write_ids(w, s, ext);
  return err;
}

sg_err sg_traj_write_frame(sg_traj_writer *w, const sg_scene *s) {
  if (!w) return sg_error_set(SG_ERR_ARG, "sg_traj_write_frame: no trajectory writer");
  int mine = 0;
  const int64_t *gid = NULL;
  const double *data[FR_COUNT];
  sg_err err = pick_rows(w, s, &mine, &gid, data);
  if (!err) err = sg_fault_check("output", sg_fault_step());
  SG_CHECK(sg_error_collective(w->comm, err));
  long long ext = 0, count = 0;
  SG_CHECK(frame_ids(w, s, mine, gid, &ext, &count));
  SG_CHECK(write_frame_data(w, s, mine, gid, data, ext, count));
  w->times[w->n_frames] = s->state.time;
  w->n_ids[w->n_frames] = ext;
  w->n_frames++;
  /* Each frame is a checkpoint of the file: write the buffered stats and events and HDF5's
   * metadata, so the .partial of a run that dies holds every frame so far and opens cleanly. */
  SG_CHECK(flush_buffers(w));
  err = H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0 ? sg_error_set(SG_ERR_IO, "%s: cannot flush %s", w->path, w->tmp) : SG_OK;
  return sg_error_collective(w->comm, err);
}

/* Column k of the buffered stats, packed as its dataset's memory type. */
static void stats_column(const sg_traj_writer *w, const stat_field *sf, void *col) {
  size_t sz = sf->kind == K_I32 ? sizeof(int) : sf->kind == K_I64 ? sizeof(long long) : sizeof(double);
  for (int i = 0; i < w->nbuf; ++i) memcpy((char *)col + (size_t)i * sz, (const char *)&w->buf[i] + sf->offset, sz);
}

static sg_err flush_stats(sg_traj_writer *w) {
  if (w->nbuf == 0) return SG_OK;
  sg_err err = SG_OK;
  hsize_t at = (hsize_t)w->n_stats, cnt = (hsize_t)w->nbuf;
  for (int k = 0; k < N_STATS && !err; ++k) {
    const stat_field *sf = &stat_fields[k];
    double col[STATS_BLOCK]; /* 8 bytes an entry: room for every kind */
    stats_column(w, sf, col);
    /* each collective HDF5 call agreed on before the next one */
    err = sg_error_collective(w->comm, sg_h5_extend(w->d_stats[k], at + cnt, w->path, sf->name));
    if (!err)
      err = sg_h5_write_range(w->comm, w->d_stats[k], mem_type(sf->kind), at, cnt, w->rank == 0, col, w->dxpl, w->path, sf->name);
    err = sg_error_collective(w->comm, err);
  }
  if (err) return err;
  w->n_stats += w->nbuf;
  w->nbuf = 0;
  return SG_OK;
}

/* The buffered statistics and events into the file (collective, agreed). */
static sg_err flush_buffers(sg_traj_writer *w) {
  SG_CHECK(flush_stats(w));
  return sg_traj_events_flush(w->events);
}

sg_err sg_traj_write_stats(sg_traj_writer *w, const sg_step_stats *st) {
  if (!w) return sg_error_set(SG_ERR_ARG, "sg_traj_write_stats: no trajectory writer");
  w->buf[w->nbuf++] = *st;
  if (w->nbuf < STATS_BLOCK) return SG_OK;
  SG_CHECK(flush_buffers(w));
  /* Push HDF5's metadata out now and then: the .partial of a run that dies stays readable. */
  sg_err err = H5Fflush(w->file, H5F_SCOPE_LOCAL) < 0 ? sg_error_set(SG_ERR_IO, "%s: cannot flush %s", w->path, w->tmp)
                                                        : SG_OK;
  return sg_error_collective(w->comm, err);
}

sg_err sg_traj_write_events(sg_traj_writer *w, const sg_body_events *inserted, const sg_body_events *deleted) {
  if (!w) return sg_error_set(SG_ERR_ARG, "sg_traj_write_events: no trajectory writer");
  /* kept until the next flush (a frame, a block of stats, the close); agreed, since a rank short
   * of memory must not leave the others waiting in that flush */
  return sg_error_collective(w->comm, sg_traj_events_add(w->events, inserted, deleted));
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
  if (!err) err = sg_h5_write_whole(w->comm, dset, H5T_NATIVE_DOUBLE, w->rank == 0, all, w->dxpl, w->path, "/timing/table");
  if (!err) err = sg_h5_attr_write_str(dset, "columns", columns, w->path);
  if (dset >= 0) sg_h5_close(&dset);
  return sg_error_collective(w->comm, err);
}

/* "<path without .h5>.xmf<suffix>" */
static char *xmf_name(const char *path, const char *suffix) {
  size_t len = strlen(path), n;
  if (len >= 3 && !strcmp(path + len - 3, ".h5")) len -= 3;
  n = len + 5 + strlen(suffix);
  char *x = malloc(n);
  if (x) snprintf(x, n, "%.*s.xmf%s", (int)len, path, suffix);
  return x;
}

const char *sg_traj_partial_name(const sg_traj_writer *w) { return w ? w->tmp : ""; }

/* The .xmf of the trajectory, written by rank 0 under the temporary name `tmp` (collective, agreed). */
static sg_err write_xmf(sg_traj_writer *w, const char *tmp) {
  sg_err xerr = SG_OK;
  if (w->rank == 0) {
    const char *slash = strrchr(w->path, '/');
    xerr = sg_xdmf_write(tmp, slash ? slash + 1 : w->path, w->n, w->times, w->n_ids, w->n_frames, w->trees.n_links,
                         w->trees.n_geoms, &w->walls, w->moving.d_xyz >= 0 ? &w->moving.surface : NULL);
  }
  return sg_error_collective(w->comm, xerr);
}

/* The .xmf and the trajectory under their final names, the .xmf first: neither is left without the
 * other (collective, agreed). */
static sg_err rename_both(sg_traj_writer *w, const char *xmf_tmp, const char *xmf) {
  SG_CHECK(sg_fs_rename(w->comm, xmf_tmp, xmf));
  sg_err err = sg_fs_rename(w->comm, w->tmp, w->path);
  if (err) sg_fs_remove(w->comm, xmf);
  return err;
}

sg_err sg_traj_close(sg_traj_writer *w, int mode) {
  if (!w) return SG_OK;
  sg_err err = SG_OK;
  int success = mode == SG_TRAJ_COMPLETE;
  if (mode == SG_TRAJ_KEEP_PARTIAL) err = flush_buffers(w); /* everything up to the stop, complete stays 0 */
  char *xmf = success ? xmf_name(w->path, "") : NULL, *xmf_tmp = success ? xmf_name(w->path, ".partial") : NULL;
  if (success) {
    err = sg_error_collective(w->comm, xmf && xmf_tmp ? SG_OK : sg_error_set(SG_ERR_MEM, "out of memory naming the .xmf of %s", w->path));
    if (!err) err = flush_buffers(w);
    /* the companion first: a trajectory whose .xmf could not be written (a full disk) is not complete */
    if (!err) err = write_xmf(w, xmf_tmp);
    /* Set last, so that a file whose run stopped early never claims to be complete. */
    if (!err) err = sg_error_collective(w->comm, sg_h5_attr_write_int(w->file, "complete", 1, w->path));
  }
  close_handles(w);
  sg_err written = sg_h5_close_written(w->comm, &w->file, w->tmp, w->path, err, mode == SG_TRAJ_DISCARD);
  if (mode != SG_TRAJ_DISCARD) err = written;
  if (mode != SG_TRAJ_DISCARD && !written) sg_h5_room_release(w->comm, w->tmp);
  if (success && !err) err = rename_both(w, xmf_tmp, xmf);
  if (success && err && xmf_tmp) sg_fs_remove(w->comm, xmf_tmp);
  free(xmf);
  free(xmf_tmp);
  /* A failed run leaves nothing; a failed finish or a stopped run keeps the .partial (complete = 0),
   * unless its own writing failed (then it was truncated: nothing sound is left to keep). */
  if (mode == SG_TRAJ_DISCARD || written) sg_fs_remove(w->comm, w->tmp);
  writer_free(w);
  return err;
}
