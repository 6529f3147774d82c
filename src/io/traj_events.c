/* The logs of bodies that entered (/inserted) or left (/deleted) during a run: each rank keeps the
 * events of the bodies it held, and a flush gathers them to rank 0, sorts them by (time, gid) and
 * appends them to extendible datasets, so that the file does not depend on the number of ranks. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/traj_internal.h"

enum { EV_F64, EV_I64, EV_I32 };
typedef struct {
  const char *name;
  size_t offset;
  int ncols; /* 0: one value per event (a 1-D dataset) */
  int kind;
} event_field;

/* /deleted has the first N_DELETED_FIELDS of these, /inserted all of them. */
static const event_field ev_fields[] = {
    {"gid", offsetof(sg_body_event, gid), 0, EV_I64},
    {"time", offsetof(sg_body_event, time), 0, EV_F64},
    {"mass", offsetof(sg_body_event, mass), 0, EV_F64},
    {"position", offsetof(sg_body_event, pos), 3, EV_F64},
    {"orientation", offsetof(sg_body_event, quat), 4, EV_F64},
    {"velocity", offsetof(sg_body_event, vel), 6, EV_F64},
    {"shape", offsetof(sg_body_event, shape), 0, EV_I32},
    {"material", offsetof(sg_body_event, material), 0, EV_I32},
    {"size", offsetof(sg_body_event, size), 3, EV_F64},
    {"density", offsetof(sg_body_event, density), 0, EV_F64},
};
#define N_FIELDS ((int)(sizeof ev_fields / sizeof ev_fields[0]))
#define N_DELETED_FIELDS 6

/* One log: the events kept on this rank, and its datasets. */
typedef struct {
  const char *group;
  int n_fields;
  hid_t d[N_FIELDS];
  sg_body_event *ev;
  int n, cap;
  long long written; /* rows in the file */
} event_log;

enum { LOG_INSERTED, LOG_DELETED, LOG_COUNT };

struct sg_traj_events {
  MPI_Comm comm; /* the writer's (not owned) */
  int rank;
  const char *path; /* the writer's (not owned) */
  hid_t dxpl;
  MPI_Datatype ev_type; /* one sg_body_event as bytes: every rank runs the same binary */
  event_log log[LOG_COUNT];
};

static hid_t file_type(int kind) {
  return kind == EV_F64 ? H5T_IEEE_F64LE : kind == EV_I64 ? H5T_STD_I64LE : H5T_STD_I32LE;
}
static hid_t mem_type(int kind) {
  return kind == EV_F64 ? H5T_NATIVE_DOUBLE : kind == EV_I64 ? H5T_NATIVE_INT64 : H5T_NATIVE_INT;
}
static size_t kind_size(int kind) { return kind == EV_I32 ? sizeof(int) : 8; }

static sg_err create_log(sg_traj_events *e, hid_t file, event_log *l, const char *what) {
  hid_t g = H5Gcreate2(file, l->group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return sg_error_set(SG_ERR_IO, "%s: cannot create group /%s", e->path, l->group);
  sg_err err = sg_h5_attr_write_str(g, "description", what, e->path);
  for (int k = 0; k < l->n_fields && !err; ++k) {
    const event_field *f = &ev_fields[k];
    hsize_t dims[2] = {0, (hsize_t)f->ncols}, maxdims[2] = {H5S_UNLIMITED, (hsize_t)f->ncols};
    hsize_t chunk[2] = {SG_TRAJ_SERIES_CHUNK, (hsize_t)f->ncols};
    err = sg_h5_dataset_create(g, f->name, file_type(f->kind), f->ncols ? 2 : 1, dims, maxdims, chunk, e->path,
                               &l->d[k]);
  }
  sg_h5_close(&g);
  return err;
}

sg_err sg_traj_events_open(MPI_Comm comm, hid_t file, hid_t dxpl, const char *path, sg_traj_events **out) {
  *out = NULL;
  sg_traj_events *e = calloc(1, sizeof *e);
  SG_CHECK(sg_error_collective(comm, e ? SG_OK : sg_error_set(SG_ERR_MEM, "out of memory opening %s", path)));
  e->comm = comm;
  MPI_Comm_rank(comm, &e->rank);
  e->path = path;
  e->dxpl = dxpl;
  MPI_Type_contiguous((int)sizeof(sg_body_event), MPI_BYTE, &e->ev_type);
  MPI_Type_commit(&e->ev_type);
  e->log[LOG_INSERTED] = (event_log){.group = "inserted", .n_fields = N_FIELDS};
  e->log[LOG_DELETED] = (event_log){.group = "deleted", .n_fields = N_DELETED_FIELDS};
  for (int j = 0; j < LOG_COUNT; ++j)
    for (int k = 0; k < N_FIELDS; ++k) e->log[j].d[k] = H5I_INVALID_HID;
  sg_err err = create_log(e, file, &e->log[LOG_INSERTED],
                          "bodies that entered during the run (inflow), one row each, sorted by (time, gid)");
  if (!err)
    err = create_log(e, file, &e->log[LOG_DELETED],
                     "bodies that left during the run (outflow), one row each, sorted by (time, gid)");
  err = sg_error_collective(comm, err);
  if (err) {
    sg_traj_events_close(e);
    return err;
  }
  *out = e;
  return SG_OK;
}

static sg_err keep(event_log *l, const sg_body_events *src) {
  if (!src || src->n == 0) return SG_OK;
  SG_CHECK(sg_grow((void **)&l->ev, &l->cap, l->n + src->n, sizeof *l->ev, "body events"));
  memcpy(l->ev + l->n, src->ev, (size_t)src->n * sizeof *l->ev);
  l->n += src->n;
  return SG_OK;
}

sg_err sg_traj_events_add(sg_traj_events *e, const sg_body_events *inserted, const sg_body_events *deleted) {
  SG_CHECK(keep(&e->log[LOG_INSERTED], inserted));
  return keep(&e->log[LOG_DELETED], deleted);
}

static int event_cmp(const void *a, const void *b) {
  const sg_body_event *x = a, *y = b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return (x->gid > y->gid) - (x->gid < y->gid);
}

/* Every rank's kept events on rank 0 (*all, *total of them, sorted); *total on every rank. */
static sg_err gather_sorted(sg_traj_events *e, event_log *l, sg_body_event **all, long long *total) {
  *all = NULL;
  long long mine = l->n;
  MPI_Allreduce(&mine, total, 1, MPI_LONG_LONG, MPI_SUM, e->comm);
  if (*total == 0) return SG_OK;
  int size;
  MPI_Comm_size(e->comm, &size);
  int *counts = NULL, *displs = NULL;
  sg_err err = *total > INT32_MAX ? sg_error_set(SG_ERR_ARG, "%s: %lld events in one block of /%s", e->path, *total,
                                                  l->group)
                                  : SG_OK;
  if (!err && e->rank == 0) {
    counts = sg_calloc((size_t)size, sizeof *counts, "event counts");
    displs = sg_calloc((size_t)size, sizeof *displs, "event counts");
    *all = sg_calloc((size_t)*total, sizeof **all, "gathered events");
    if (!counts || !displs || !*all) err = SG_ERR_MEM;
  }
  err = sg_error_collective(e->comm, err);
  if (!err) {
    MPI_Gather(&l->n, 1, MPI_INT, counts, 1, MPI_INT, 0, e->comm);
    for (int r = 1; e->rank == 0 && r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    MPI_Gatherv(l->ev, l->n, e->ev_type, *all, counts, displs, e->ev_type, 0, e->comm);
    /* (time, gid) is a total order: the same rows whatever the order the ranks sent them in */
    if (e->rank == 0) qsort(*all, (size_t)*total, sizeof **all, event_cmp);
  }
  free(counts);
  free(displs);
  if (err) {
    free(*all);
    *all = NULL;
  }
  return err;
}

/* Column k of the events (rank 0; n of them) packed for a write. */
static void pack_column(const sg_body_event *ev, long long n, const event_field *f, unsigned char *out) {
  size_t w = kind_size(f->kind) * (size_t)(f->ncols ? f->ncols : 1);
  for (long long i = 0; i < n; ++i) memcpy(out + (size_t)i * w, (const unsigned char *)&ev[i] + f->offset, w);
}

/* Append the n sorted events (on rank 0) to every dataset of the log, at row l->written. */
static sg_err append(sg_traj_events *e, event_log *l, const sg_body_event *ev, long long n) {
  int count = e->rank == 0 ? (int)n : 0;
  int64_t *rows = sg_calloc((size_t)count + 1, sizeof *rows, "event rows");
  unsigned char *col = sg_calloc((size_t)count + 1, 6 * sizeof(double), "event rows");
  sg_err err = sg_error_collective(e->comm, rows && col ? SG_OK : SG_ERR_MEM);
  for (int i = 0; i < count; ++i) rows[i] = l->written + i;
  for (int k = 0; k < l->n_fields && !err; ++k) {
    const event_field *f = &ev_fields[k];
    char name[64];
    snprintf(name, sizeof name, "/%s/%s", l->group, f->name);
    if (count) pack_column(ev, n, f, col);
    /* each collective HDF5 call agreed on before the next one */
    err = sg_error_collective(e->comm, sg_h5_extend(l->d[k], (hsize_t)(l->written + n), e->path, name));
    if (!err)
      err = sg_error_collective(e->comm, sg_h5_write_rows(l->d[k], mem_type(f->kind), -1, f->ncols, count, rows, col,
                                                          e->dxpl, e->path, name));
  }
  free(rows);
  free(col);
  return err;
}

static sg_err flush_log(sg_traj_events *e, event_log *l) {
  sg_body_event *all = NULL;
  long long total = 0;
  SG_CHECK(gather_sorted(e, l, &all, &total));
  sg_err err = total ? append(e, l, all, total) : SG_OK;
  free(all);
  if (err) return err;
  l->written += total;
  l->n = 0;
  return SG_OK;
}

sg_err sg_traj_events_flush(sg_traj_events *e) {
  for (int j = 0; j < LOG_COUNT; ++j) SG_CHECK(flush_log(e, &e->log[j]));
  return SG_OK;
}

void sg_traj_events_close(sg_traj_events *e) {
  if (!e) return;
  for (int j = 0; j < LOG_COUNT; ++j) {
    for (int k = 0; k < N_FIELDS; ++k) sg_h5_close(&e->log[j].d[k]);
    free(e->log[j].ev);
  }
  MPI_Type_free(&e->ev_type); /* committed before anything could fail in sg_traj_events_open */
  free(e);
}
