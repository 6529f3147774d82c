/* Error handling in the PETSc manner: functions return an sg_err, callers propagate with SG_CHECK.
 * The first error raised on a rank records a one-line message; the command line prints it as
 * "signorini: error: <message>" after a collective check makes every rank stop together. */
#ifndef SIGNORINI_ERROR_H
#define SIGNORINI_ERROR_H
#include <mpi.h>

typedef int sg_err;
enum {
  SG_OK = 0,
  SG_ERR_ARG = 1,      /* bad argument or option */
  SG_ERR_IO = 2,       /* file missing, unreadable, unwritable */
  SG_ERR_FORMAT = 3,   /* malformed or inconsistent file content */
  SG_ERR_MEM = 4,      /* allocation failed */
  SG_ERR_NUMERIC = 5,  /* NaN/Inf, matrix not SPD, divergence */
  SG_ERR_LIB = 6,      /* error from MPI, PETSc, HDF5, METIS */
  SG_ERR_INJECTED = 7  /* a test's injected fault (fault.h), never taken for a recoverable one */
};

/* Record a message (printf format) and return code. Keeps the first message until sg_error_clear. */
sg_err sg_error_set(sg_err code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *sg_error_message(void);
/* Append to the recorded message (printf format), keeping it on one line. */
void sg_error_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sg_error_clear(void);

/* Collective check at a phase boundary: returns the first non-zero code over all ranks (lowest rank
 * wins) and copies that rank's message to every rank, so all ranks stop with the same line.
 * The rule that keeps ranks in step: a function that takes part in collectives returns an error only
 * once every rank has agreed on it through this check, so that after a failure all ranks leave by
 * the same path and meet the same collectives. A rank-local error is carried to the next check (or
 * to a flag in the next reduction), never returned straight past a collective the others enter.
 * The check runs on a private duplicate of comm, cached on it: it can meet only another check, never
 * one of the caller's collectives, so ranks out of step cannot exchange unrelated data. */
sg_err sg_error_collective(MPI_Comm comm, sg_err local);

#define SG_CHECK(call)                          \
  do {                                          \
    sg_err sg_check_err_ = (call);              \
    if (sg_check_err_) return sg_check_err_;    \
  } while (0)

/* Checked allocation: zero-initialized, never NULL on success (count 0 gives one element); on
 * failure records an error naming what was allocated. */
void *sg_calloc(size_t count, size_t size, const char *what);
#define SG_ALLOC(ptr, count)                                                              \
  do {                                                                                    \
    (ptr) = sg_calloc((size_t)(count), sizeof(*(ptr)), #ptr);                             \
    if (!(ptr) && (count) > 0) return SG_ERR_MEM;                                         \
  } while (0)
/* Grow a buffer to at least n elements (capacity doubles); a NULL buffer is allocated even for n = 0. */
sg_err sg_grow(void **ptr, int *cap, int n, size_t elem, const char *what);

#endif
