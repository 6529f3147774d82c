/* Per-process phase timers and halo counters (in the manner of PETSc's -log_view stages), reported
 * at the end of a run with min / mean / max over ranks and stored in the output file. */
#ifndef SIGNORINI_TIMING_H
#define SIGNORINI_TIMING_H
#include <mpi.h>
#include <stdio.h>
#include "signorini/error.h"

typedef enum {
  SG_PHASE_COLLISION, SG_PHASE_ASSEMBLY, SG_PHASE_FACTOR, SG_PHASE_ITERATE, SG_PHASE_HALO_WAIT,
  SG_PHASE_REDUCE, SG_PHASE_GHOSTS, SG_PHASE_GATHER, SG_PHASE_METRIC, SG_PHASE_INTEGRATE, SG_PHASE_IO, SG_PHASE_COUNT
} sg_phase;

typedef struct {
  double seconds[SG_PHASE_COUNT];
  double halo_bytes, halo_messages, iterations;
} sg_timing;

extern sg_timing sg_timers;

static inline void sg_timer_add(sg_phase ph, double t0) { sg_timers.seconds[ph] += MPI_Wtime() - t0; }
const char *sg_phase_name(int ph);
void sg_timing_reset(void);
/* Collective: every rank's figures gathered to rank 0 into all[P][SG_TIMING_FIELDS] (may be NULL
 * on other ranks; rank 0 allocates it, the caller frees it), and a table printed there when out. */
#define SG_TIMING_FIELDS (SG_PHASE_COUNT + 3)
sg_err sg_timing_gather(MPI_Comm comm, double wall, FILE *out, double **all);
#endif
