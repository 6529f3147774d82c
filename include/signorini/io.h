/* HDF5 files: scenes (input), trajectories (output) with an XDMF companion for ParaView.
 * All functions are collective over comm (parallel HDF5 through the MPI-IO driver). Layouts are
 * documented in docs/FORMATS.md. Errors name the file and the dataset. */
#ifndef SIGNORINI_IO_H
#define SIGNORINI_IO_H
#include <mpi.h>
#include <stdio.h>
#include "signorini/hooks.h"
#include "signorini/scene.h"
#include "signorini/step.h"

/* Read and validate a scene file: every rank gets the whole scene, its bodies in ascending gid
 * (/bodies/gid, or the row when the file has none), s->next_gid = max(attribute next_gid of
 * /bodies, 1 + the largest id). */
sg_err sg_scene_read(MPI_Comm comm, const char *path, sg_scene *s);
/* Read a scene file in parallel: rank r reads rows [N r / P, N (r + 1) / P) of every per-body
 * dataset (one collective hyperslab read per dataset), keeps the moving bodies of its block and
 * receives every fixed body (all-gathered: walls and planes are few and every rank needs them).
 * The result is a distributed scene (s->distributed = 1, see scene.h): this rank's moving bodies
 * and every fixed body, all in ascending gid (/bodies/gid, or the row when the file has none);
 * s->next_gid above every id of the file and at least its attribute. Mass and inertia are computed.
 * The same validation and one-line messages as sg_scene_read (naming the file, the dataset and the
 * body's id; an id held twice anywhere in the file is refused); any error on any rank makes every
 * rank return it. */
sg_err sg_scene_read_block(MPI_Comm comm, const char *path, sg_scene *s);
/* Write a scene file atomically (temporary name, then rename). Ids 0..N-1: rows by id, as always;
 * ids with gaps: each rank's rows after the lower ranks' (their order depends on P) and
 * /bodies/gid; the attribute next_gid of /bodies always (max(s->next_gid, 1 + the largest id)). */
sg_err sg_scene_write(MPI_Comm comm, const char *path, const sg_scene *s);

typedef struct sg_traj_writer sg_traj_writer;

/* Open a trajectory: the data goes to a temporary file beside path until sg_traj_close(w, 1).
 * Fails early (SG_ERR_IO, naming the path) when the output cannot be written. */
sg_err sg_traj_open(MPI_Comm comm, const char *path, const sg_scene *s, sg_traj_writer **w);
/* One frame: each rank writes the rows of the bodies it writes (a replicated scene: rank 0 all of
 * them; a distributed one: each rank its moving bodies, rank 0 the fixed ones); one collective
 * write, rows by global id. The body set may change from frame to frame: the frame's id extent
 * is max(s->next_gid, 1 + the largest id), never below the last frame's, and the rows of the
 * ids absent from it read as NaN (/frames/present = 0). Refuses (SG_ERR_ARG, every rank) a
 * negative id and an id written twice. */
sg_err sg_traj_write_frame(sg_traj_writer *w, const sg_scene *s);
/* Add /frames/stress ([frame][id][9], NaN where not given) to a trajectory, before its first frame
 * (collective); sg_traj_set_stress gives the rows of the next frame (each rank its bodies': n
 * rows, ids gid, 9 numbers each; kept by pointer until then). */
sg_err sg_traj_add_stress(sg_traj_writer *w, const sg_scene *s);
void sg_traj_set_stress(sg_traj_writer *w, int n, const int64_t *gid, const double *W);
/* One step's statistics (buffered; appended every 256 steps, at each frame and at the close). */
sg_err sg_traj_write_stats(sg_traj_writer *w, const sg_step_stats *st);
/* The bodies this rank inserted and deleted in one step (either may be NULL or empty). Collective:
 * call it on every rank after every step, before that step's sg_traj_write_stats and
 * sg_traj_write_frame, so that a frame's flush holds the events up to it. They are kept and
 * appended with the stats (gathered to rank 0, sorted by (time, gid)) to /inserted and /deleted. */
sg_err sg_traj_write_events(sg_traj_writer *w, const sg_body_events *inserted, const sg_body_events *deleted);
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
/* 64-bit fingerprint (FNV-1a) of the static description: shapes, sizes, materials, fixed flags,
 * densities (per global id), the friction table, the motions, the regions and gravity. The same
 * whatever the number of ranks or the distribution of the bodies (collective). */
uint64_t sg_scene_hash(MPI_Comm comm, const sg_scene *s);

/* What a checkpoint holds besides the scene s (its bodies, s->state.step, s->state.time, s->next_gid) and the
 * run options. */
typedef struct {
  /* sg_scene_hash of the scene file the run started from, computed right after reading it (before
   * a restart changed anything): a restart of a restart reads the same file and so matches */
  uint64_t scene_hash;
  /* the warm start, as from sg_stepper_warm_written: on a distributed scene each entry from one rank */
  const sg_warm_entry *warm;
  int n_warm;
  /* the hooks' state and names, as from sg_stepper_hook_state: the same on every rank */
  const int64_t *hook_state;
  int n_hook_state;
  const char *hook_names; /* NULL: "" */
  /* the solver's warm penalty (sg_solver.warm_penalty; 0: none), so that a restart continues as the
   * run would have */
  double solver_penalty;
} sg_checkpoint_extras;

/* Write a checkpoint of s, prm and x atomically: to a temporary name beside path, synced, then
 * renamed over the previous checkpoint, which survives any interruption before that. The bodies
 * s holds may have gaps in their ids (bodies that entered and left). */
sg_err sg_checkpoint_write(MPI_Comm comm, const char *path, const sg_scene *s, const sg_step_params *prm,
                           const sg_checkpoint_extras *x);
/* Do the two paths name the same file: the same inode when both exist, else the same path once
 * their directories are resolved (links, "./", ".."). For the checks that keep an output from
 * overwriting an input. */
int sg_fs_same_file(const char *a, const char *b);
/* SG_ERR_IO naming path when an output file cannot be written there: its directory missing or not
 * writable, or path a directory (checked before a run starts; collective). */
sg_err sg_output_check_path(MPI_Comm comm, const char *path);

#define SG_CHECKPOINT_NAMES_LEN 512
/* What sg_checkpoint_read returns besides the restored scene (free with sg_checkpoint_info_free). */
typedef struct {
  int64_t step;
  double time, dt, theta;
  uint64_t scene_hash;
  int64_t next_gid;
  sg_warm_entry *warm; /* sorted for sg_stepper_set_warm */
  int n_warm;
  int64_t *hook_state; /* for sg_stepper_set_hook_state */
  int n_hook_state;
  char hook_names[SG_CHECKPOINT_NAMES_LEN];
  double solver_penalty; /* for sg_solver_set_warm_penalty (0 in files that carry none) */
} sg_checkpoint_info;
void sg_checkpoint_info_free(sg_checkpoint_info *info);

/* Restore a checkpoint into s, the scene read from the scene file scene_path (named in messages;
 * may be NULL) by sg_scene_read_block (or a replicated scene, every rank holding every body, in
 * ascending gid). Its scene_hash must be sg_scene_hash(s). s's moving bodies become the
 * checkpoint's (description, mass, state): on a distributed s, rank r keeps the r-th of P equal
 * blocks of them in gid order (on a replicated one, all); the fixed bodies stay s's (description,
 * kinematic flag, motions) and take the checkpoint's state; s->next_gid, s->state.step, s->state.time become
 * the checkpoint's. Refuses, with a one-line message naming the file: a file that is not a
 * checkpoint, a truncated or corrupted one (missing dataset or attribute, NaN, data not matching
 * its state_hash), one written for another scene (scene_hash). On failure s is unchanged and info
 * holds nothing to free. */
sg_err sg_checkpoint_read(MPI_Comm comm, const char *path, const char *scene_path, sg_scene *s,
                          sg_checkpoint_info *info);

#endif
