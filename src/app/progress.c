#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
#include "progress.h"

void sg_progress_init(sg_progress *p, int rank, double interval) {
  p->enabled = rank == 0 && interval > 0;
  p->tty = isatty(fileno(stderr));
  p->start = p->last = MPI_Wtime();
  p->interval = p->tty ? 0.25 : interval;
}

static void format_time(char *buf, size_t n, double s) {
  if (s < 0) s = 0;
  int h = (int)(s / 3600), m = (int)(s / 60) % 60, sec = (int)s % 60;
  if (h) snprintf(buf, n, "%dh%02dm", h, m);
  else snprintf(buf, n, "%dm%02ds", m, sec);
}

void sg_progress_update(sg_progress *p, long step, long total, double sim_time, int iterations) {
  if (!p->enabled) return;
  double now = MPI_Wtime();
  if (now - p->last < p->interval && step < total) return;
  p->last = now;
  double elapsed = now - p->start, frac = total > 0 ? (double)step / total : 1.0;
  char eta[32], el[32];
  format_time(el, sizeof el, elapsed);
  format_time(eta, sizeof eta, frac > 0 ? elapsed * (1 - frac) / frac : 0);
  fprintf(stderr, "%sstep %ld/%ld  t = %.4f s  %5.1f%%  iterations %d  elapsed %s  ETA %s%s",
          p->tty ? "\r" : "", step, total, sim_time, 100 * frac, iterations, el, eta, p->tty ? "   " : "\n");
  fflush(stderr);
}

void sg_progress_finish(sg_progress *p) {
  if (p->enabled && p->tty) fprintf(stderr, "\n");
}
