/* Internals shared by the files of the trajectory writer (traj_io.c, traj_events.c); not part of
 * the public interface. Layout in docs/FORMATS.md, "Trajectory file". */
#ifndef SG_TRAJ_INTERNAL_H
#define SG_TRAJ_INTERNAL_H
#include "io/io_internal.h"
#include "signorini/hooks.h"

#define SG_TRAJ_SERIES_CHUNK 1024 /* chunk of the 1-D series and of the rows of the event logs */

/* Create a chunked dataset (with missing intermediate groups) whose elements read as *fill (of
 * memtype) until written. Under MPI-IO HDF5 allocates every chunk when the dataset is created or
 * extended and writes the fill value into it then, so rows never written (absent bodies, ids
 * above a frame's extent) read back as the fill value on any number of ranks. Collective. */
sg_err sg_traj_dataset_create(hid_t loc, const char *name, hid_t ftype, int rank, const hsize_t *dims,
                              const hsize_t *maxdims, const hsize_t *chunk, hid_t memtype, const void *fill,
                              const char *file, hid_t *dset);

/* The logs of inserted and deleted bodies (/inserted, /deleted). Events are kept on the rank that
 * recorded them until a flush gathers them to rank 0, which appends them sorted by (time, gid):
 * the file is the same whatever the number of ranks. */
typedef struct sg_traj_events sg_traj_events;
/* Create both groups with their empty datasets (collective; errors agreed over comm). */
sg_err sg_traj_events_open(MPI_Comm comm, hid_t file, hid_t dxpl, const char *path, sg_traj_events **out);
/* Keep this rank's events of one step (local; either may be NULL). */
sg_err sg_traj_events_add(sg_traj_events *e, const sg_body_events *inserted, const sg_body_events *deleted);
/* Append every kept event to the file (collective; errors agreed over comm). */
sg_err sg_traj_events_flush(sg_traj_events *e);
void sg_traj_events_close(sg_traj_events *e);
#endif
