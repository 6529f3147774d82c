/* Anderson acceleration (type II) of a fixed-point iteration x <- G(x): the next iterate is the
 * combination of the last m+1 images that minimizes the linearized residual G(x) - x. */
#ifndef SIGNORINI_ANDERSON_H
#define SIGNORINI_ANDERSON_H
#include <mpi.h>
#include "signorini/error.h"

typedef struct {
  int m, n;          /* memory and vector length */
  int count, head;   /* stored differences, ring position */
  double *dF, *dG;   /* [m][n] differences of residuals f = G(x) - x and of images G(x) */
  double *f_prev, *g_prev;
  int have_prev;
  /* sums over ranks (sg_dots_reproducible) of the entries with mask[k], when reduce is set */
  int reduce;
  MPI_Comm comm;
  const unsigned char *mask;
} sg_anderson;

sg_err sg_anderson_init(sg_anderson *a, int m, int n);
void sg_anderson_reset(sg_anderson *a);
void sg_anderson_destroy(sg_anderson *a);
/* x: the iterate G was applied to; g: G(x) on entry, the accelerated next iterate on exit. */
sg_err sg_anderson_step(sg_anderson *a, const double *x, double *g);
/* Distributed state: each rank holds a part of x (its entries with mask[k] = 1 count once over the
 * ranks; the others are copies). The least-squares problem is then summed over comm, with the same
 * bits whatever the number of ranks; the mask must stay valid while the history is used. */
void sg_anderson_set_reduction(sg_anderson *a, MPI_Comm comm, const unsigned char *mask);
#endif
