/* Progress line with ETA on rank 0: rewritten in place on a terminal; on a batch log (not a
 * terminal) a plain line every interval seconds, so short runs stay quiet. */
#ifndef SG_PROGRESS_H
#define SG_PROGRESS_H
typedef struct {
  int enabled, tty;
  double start, last, interval;
} sg_progress;
void sg_progress_init(sg_progress *p, int rank, double interval);
void sg_progress_update(sg_progress *p, long step, long total, double sim_time, int iterations);
void sg_progress_finish(sg_progress *p);
#endif
