/* What the two numberings of the Newton matrix share (newton_petsc.c, newton_local.c); not a public
 * interface. */
#ifndef SG_NEWTON_INTERNAL_H
#define SG_NEWTON_INTERNAL_H
#include "signorini/newton.h"

#define SG_PETSC(call)                                                           \
  do {                                                                           \
    if (call) return sg_error_set(SG_ERR_LIB, "PETSc call failed: %s", #call);  \
  } while (0)

/* Forget the last problem's matrix and vectors (the KSP is reset: a new problem's local sizes may
 * differ; type, prefix, tolerances and options stay). */
sg_err sg_newton_begin_setup(sg_newton_sys *ns);
/* With ns->gofs, row_lo, row_hi and n_v set for p: the preallocated H, its vectors and the block
 * scratch. */
sg_err sg_newton_create_matrix(sg_newton_sys *ns, const sg_problem *p);

#endif
