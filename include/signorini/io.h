/* HDF5 files: scenes (input), trajectories (output) with an XDMF companion for ParaView.
 * All functions are collective over comm (parallel HDF5 through the MPI-IO driver). Layouts are
 * documented in docs/FORMATS.md. Errors name the file and the dataset. */
#ifndef SIGNORINI_IO_H
#define SIGNORINI_IO_H
#include <mpi.h>
#include <stdio.h>
#include "signorini/scene.h"
#include "signorini/step.h"

/* Read and validate a scene file (every rank gets the whole scene for now). */
sg_err sg_scene_read(MPI_Comm comm, const char *path, sg_scene *s);
/* Read a scene file in parallel: rank r reads rows [N r / P, N (r + 1) / P) of every per-body
 * dataset (one collective hyperslab read per dataset), keeps the moving bodies of its block and
 * receives every fixed body (all-gathered: walls and planes are few and every rank needs them).
 * The result is a distributed scene (s->distributed = 1, see scene.h): bodies [0, n_owned) are this
 * rank's moving bodies in ascending gid (gid = row index in the file), then all fixed bodies in
 * ascending gid, identical on every rank. Mass and inertia are computed. The same validation and
 * one-line messages as sg_scene_read (naming the file, the dataset and the global body index);
 * any error on any rank makes every rank return it. */
sg_err sg_scene_read_block(MPI_Comm comm, const char *path, sg_scene *s);
/* Write a scene file atomically (temporary name, then rename). */
sg_err sg_scene_write(MPI_Comm comm, const char *path, const sg_scene *s);

typedef struct sg_traj_writer sg_traj_writer;

/* Open a trajectory: the data goes to a temporary file beside path until sg_traj_close(w, 1).
 * Fails early (SG_ERR_IO, naming the path) when the output cannot be written. */
sg_err sg_traj_open(MPI_Comm comm, const char *path, const sg_scene *s, sg_traj_writer **w);
/* One frame: each rank writes the rows of the bodies it holds (a replicated scene: rank 0 all of
 * them); one collective write, rows by global id. */
sg_err sg_traj_write_frame(sg_traj_writer *w, const sg_scene *s);
sg_err sg_traj_write_stats(sg_traj_writer *w, const sg_step_stats *st);
/* Attach a string attribute to the root (run options, solver name, ...). */
sg_err sg_traj_set_attr(sg_traj_writer *w, const char *name, const char *value);
/* Store the per-rank timing table (rank 0's all[P][fields], see timing.h) as /timing/table with
 * the column names in its attribute "columns". Collective; only rank 0's data is used. */
sg_err sg_traj_write_timing(sg_traj_writer *w, const double *all, int nranks, int nfields, const char *columns);
/* How a trajectory is closed. */
enum {
  SG_TRAJ_DISCARD = 0,      /* remove the temporary file (nothing that looks complete is left) */
  SG_TRAJ_COMPLETE = 1,     /* finish, rename to the final name, write the .xmf next to it */
  SG_TRAJ_KEEP_PARTIAL = 2  /* a run that stopped early: keep <path>.partial with complete = 0 */
};
sg_err sg_traj_close(sg_traj_writer *w, int mode);
/* Name of the temporary file a trajectory is written to until it is complete. */
const char *sg_traj_partial_name(const sg_traj_writer *w);

/* Print a summary of a scene or trajectory file. */
sg_err sg_file_info(MPI_Comm comm, const char *path, FILE *out);

/* --- checkpoints (docs/FORMATS.md, "Checkpoint file") ---------------------------------------- */
/* Where a checkpoint stood: its step and time, the run options a restart must keep, and the
 * fingerprint of the scene it was written for. */
typedef struct {
  int64_t step;
  double time, dt, theta;
  uint64_t scene_hash;
} sg_checkpoint_info;

/* 64-bit fingerprint (FNV-1a) of the static description: shapes, sizes, materials, fixed flags,
 * densities (per global id), the friction table and gravity. The same whatever the number of
 * ranks or the distribution of the bodies (collective). */
uint64_t sg_scene_hash(MPI_Comm comm, const sg_scene *s);
/* Write a checkpoint of s (state, s->step, s->time), of the run options prm and of the warm start
 * (warm[0..n_warm), as from sg_stepper_warm_written: on a distributed scene each entry comes
 * from one rank) atomically: to a temporary name beside path, synced,
 * then renamed over the previous checkpoint, which survives any interruption before that. */
sg_err sg_checkpoint_write(MPI_Comm comm, const char *path, const sg_scene *s, const sg_step_params *prm,
                           const sg_warm_entry *warm, int n_warm);
/* SG_ERR_IO naming path when a checkpoint cannot be written there (checked before a run starts). */
sg_err sg_checkpoint_check_path(MPI_Comm comm, const char *path);
/* Read a checkpoint for the scene s (read from scene_path, named in messages; may be NULL) and
 * restore its state into s by global id, with s->step and s->time. Refuses, with a one-line
 * message naming the file: a file that is not a checkpoint, a truncated or corrupted one (missing
 * dataset or attribute, NaN, data not matching its state_hash), one written for another scene
 * (scene_hash). On success *warm (free()) holds the n_warm warm-start entries, sorted for
 * sg_stepper_set_warm, and info the header; on failure s is unchanged. */
sg_err sg_checkpoint_read(MPI_Comm comm, const char *path, const char *scene_path, sg_scene *s,
                          sg_checkpoint_info *info, sg_warm_entry **warm, int *n_warm);

#endif
