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
/* Write a scene file atomically (temporary name, then rename). */
sg_err sg_scene_write(MPI_Comm comm, const char *path, const sg_scene *s);

typedef struct sg_traj_writer sg_traj_writer;

/* Open a trajectory: the data goes to a temporary file beside path until sg_traj_close(w, 1).
 * Fails early (SG_ERR_IO, naming the path) when the output cannot be written. */
sg_err sg_traj_open(MPI_Comm comm, const char *path, const sg_scene *s, sg_traj_writer **w);
sg_err sg_traj_write_frame(sg_traj_writer *w, const sg_scene *s);
sg_err sg_traj_write_stats(sg_traj_writer *w, const sg_step_stats *st);
/* Attach a string attribute to the root (run options, solver name, ...). */
sg_err sg_traj_set_attr(sg_traj_writer *w, const char *name, const char *value);
/* success = 1: finish the file, rename it to its final name and write the .xmf next to it.
 * success = 0: remove the temporary file (nothing that looks complete is left). */
sg_err sg_traj_close(sg_traj_writer *w, int success);

/* Print a summary of a scene or trajectory file. */
sg_err sg_file_info(MPI_Comm comm, const char *path, FILE *out);

#endif
