/* Anderson acceleration (type II) of a fixed-point iteration x <- G(x): the next iterate is the
 * combination of the last m+1 images that minimizes the linearized residual G(x) - x. */
#ifndef SIGNORINI_ANDERSON_H
#define SIGNORINI_ANDERSON_H
#include "signorini/error.h"

typedef struct {
  int m, n;          /* memory and vector length */
  int count, head;   /* stored differences, ring position */
  double *dF, *dG;   /* [m][n] differences of residuals f = G(x) - x and of images G(x) */
  double *f_prev, *g_prev;
  int have_prev;
} sg_anderson;

sg_err sg_anderson_init(sg_anderson *a, int m, int n);
void sg_anderson_reset(sg_anderson *a);
void sg_anderson_destroy(sg_anderson *a);
/* x: the iterate G was applied to; g: G(x) on entry, the accelerated next iterate on exit. */
sg_err sg_anderson_step(sg_anderson *a, const double *x, double *g);
#endif
