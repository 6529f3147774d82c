/* -fclib_dump_step K / -fclib_dump_file FILE for `signorini run`: write the problem of one step as an
 * FCLIB global problem, so that a hard step of a simulation can be solved again, by any solver, with
 * `signorini fclib` or bench/solvers (src/app/fclib_dump.c). */
#ifndef SG_FCLIB_DUMP_H
#define SG_FCLIB_DUMP_H
#include <mpi.h>
#include "signorini/error.h"
#include "signorini/problem.h"

typedef struct {
  long step;       /* 1-based step to dump (0: off), numbered as the run's "in step K" messages */
  char file[4096];
} sg_fclib_dump;

/* Read the two options; the default file is "<output without .h5>-step<K>.fclib.hdf5". */
sg_err sg_fclib_dump_options(sg_fclib_dump *d, const char *out);
/* Before the run: K must be a step this run takes (first_step < K <= last_step), FILE must not be
 * the scene, the output or the checkpoint, and its directory must be writable. Collective. */
sg_err sg_fclib_dump_check(MPI_Comm comm, const sg_fclib_dump *d, long long first_step, long long last_step, const char *scene,
                           const char *out, const char *checkpoint);
/* After step `step` (1-based) has been solved: when it is the one asked for, rank 0 writes p (the
 * whole problem, needed on rank 0 only); collective, every rank returns the same result. */
sg_err sg_fclib_dump_after_step(MPI_Comm comm, const sg_fclib_dump *d, long long step, const sg_problem *p,
                                const char *scene, double dt, const char *solver);
#endif
