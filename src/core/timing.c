/* Phase timers: accumulated per process, gathered and summarized at the end of a run. */
#include <stdlib.h>
#include <string.h>
#include "signorini/timing.h"

sg_timing sg_timers;

const char *sg_phase_name(int ph) {
  static const char *names[SG_PHASE_COUNT] = {"collision", "assembly", "factorization", "iteration", "halo_wait",
                                              "reductions", "ghosts", "gather", "metric", "integration", "io"};
  return ph >= 0 && ph < SG_PHASE_COUNT ? names[ph] : "unknown";
}

void sg_timing_reset(void) { memset(&sg_timers, 0, sizeof sg_timers); }

sg_err sg_timing_gather(MPI_Comm comm, double wall, FILE *out, double **all) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double mine[SG_TIMING_FIELDS];
  memcpy(mine, sg_timers.seconds, sizeof sg_timers.seconds);
  mine[SG_PHASE_COUNT] = sg_timers.halo_bytes;
  mine[SG_PHASE_COUNT + 1] = sg_timers.halo_messages;
  mine[SG_PHASE_COUNT + 2] = sg_timers.iterations;
  double *buf = NULL;
  if (rank == 0) {
    buf = sg_calloc((size_t)size * SG_TIMING_FIELDS, sizeof *buf, "timing table");
    if (!buf) return SG_ERR_MEM;
  }
  MPI_Gather(mine, SG_TIMING_FIELDS, MPI_DOUBLE, buf, SG_TIMING_FIELDS, MPI_DOUBLE, 0, comm);
  if (rank == 0 && out) {
    fprintf(out, "timing over %d rank(s), wall %.3f s         min        mean         max   %% of wall (max)\n", size, wall);
    for (int ph = 0; ph < SG_PHASE_COUNT; ++ph) {
      double mn = buf[ph], mx = buf[ph], sum = 0;
      for (int r = 0; r < size; ++r) {
        double v = buf[r * SG_TIMING_FIELDS + ph];
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        sum += v;
      }
      fprintf(out, "  %-28s %10.3f  %10.3f  %10.3f   %5.1f\n", sg_phase_name(ph), mn, sum / size, mx, wall > 0 ? 100 * mx / wall : 0.0);
    }
    double bytes = 0, msgs = 0, it = buf[SG_PHASE_COUNT + 2], imax = 0, isum = 0;
    for (int r = 0; r < size; ++r) {
      bytes += buf[r * SG_TIMING_FIELDS + SG_PHASE_COUNT];
      msgs += buf[r * SG_TIMING_FIELDS + SG_PHASE_COUNT + 1];
      double ti = buf[r * SG_TIMING_FIELDS + SG_PHASE_ITERATE];
      imax = ti > imax ? ti : imax;
      isum += ti;
    }
    if (it > 0)
      fprintf(out, "  halo per iteration: %.0f bytes in %.1f messages per rank (mean); iteration imbalance (max/mean) %.3f\n",
              bytes / it / size, msgs / it / size, isum > 0 ? imax / (isum / size) : 1.0);
  }
  if (all) *all = buf;
  else free(buf);
  return SG_OK;
}
