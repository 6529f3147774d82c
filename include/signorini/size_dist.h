/* Sphere size distributions of the generators and the inflow regions: one sphere radius per draw
 * of a uniform number, so that a fixed seed gives the same sizes whatever the number of ranks. */
#ifndef SIGNORINI_SIZE_DIST_H
#define SIGNORINI_SIZE_DIST_H
#include "signorini/error.h"

#define SG_SIZE_CLASSES 4

typedef enum {
  SG_SIZE_UNIFORM = 0,   /* radius uniform in [lo, hi] (lo = hi: one size) */
  SG_SIZE_LOGNORMAL = 1, /* ln r normal (median, sigma), truncated to [lo, hi] */
  SG_SIZE_MIXTURE = 2,   /* discrete: radius[c] with number fraction fraction[c] */
  SG_SIZE_KINDS = 3
} sg_size_kind;

typedef struct {
  int kind;                 /* sg_size_kind */
  double lo, hi;            /* the support (m): every radius drawn lies in it */
  double median, sigma;     /* lognormal: median radius (m), standard deviation of ln r */
  int n_classes;            /* mixture: 1..SG_SIZE_CLASSES classes */
  double radius[SG_SIZE_CLASSES], fraction[SG_SIZE_CLASSES]; /* mixture: radii (m), number fractions (sum 1) */
} sg_size_dist;

/* One size: every sphere of radius r. */
sg_size_dist sg_size_mono(double r);
/* The radius for a uniform number u in [0, 1): the inverse of the distribution function. */
double sg_size_sample(const sg_size_dist *d, double u);
/* A well-formed distribution: finite positive radii, lo <= hi, sigma > 0, fractions > 0 summing to
 * 1 (within 1e-9), classes inside [lo, hi]. where names the input in the message. */
sg_err sg_size_check(const sg_size_dist *d, const char *where);
/* -size_dist mono|uniform|lognormal|mixture with -radius (the one size; the lognormal median),
 * -radius_min / -radius_max (the uniform support; the lognormal truncation, default median
 * exp(-+3 sigma)), -radius_sigma, -mixture r1:f1,r2:f2,... */
sg_err sg_size_from_options(double radius_default, sg_size_dist *d);
#endif
