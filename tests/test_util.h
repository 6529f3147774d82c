/* Minimal test harness: CHECK macros count failures; tests return sg_test_exit(). A test asserts a
 * physical or mathematical fact with a stated tolerance and prints the measured values. */
#ifndef SG_TEST_UTIL_H
#define SG_TEST_UTIL_H
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int sg_test_failures = 0;

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);        \
      ++sg_test_failures;                                                             \
    }                                                                                 \
  } while (0)

/* |a - b| <= tol (absolute) */
#define CHECK_NEAR(a, b, tol)                                                                  \
  do {                                                                                         \
    double a_ = (a), b_ = (b), t_ = (tol);                                                     \
    if (!(fabs(a_ - b_) <= t_)) {                                                              \
      fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.15g, %s = %.15g, |diff| = %.3g > %.3g\n", \
              __FILE__, __LINE__, #a, a_, #b, b_, fabs(a_ - b_), t_);                          \
      ++sg_test_failures;                                                                      \
    }                                                                                          \
  } while (0)

#define CHECK_OK(call)                                                                \
  do {                                                                                \
    int e_ = (call);                                                                  \
    if (e_) {                                                                         \
      fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #call, e_,   \
              sg_error_message());                                                    \
      ++sg_test_failures;                                                             \
    }                                                                                 \
  } while (0)

static inline int sg_test_exit(void) {
  if (sg_test_failures) fprintf(stderr, "%d check(s) failed\n", sg_test_failures);
  else printf("all checks passed\n");
  return sg_test_failures ? 1 : 0;
}

/* Largest |x_k| and largest |x_k - y_k| over n entries. */
static inline double sg_test_max_abs(const double *x, int n) {
  double m = 0;
  for (int k = 0; k < n; ++k) m = fmax(m, fabs(x[k]));
  return m;
}
static inline double sg_test_max_diff(const double *x, const double *y, int n) {
  double m = 0;
  for (int k = 0; k < n; ++k) m = fmax(m, fabs(x[k] - y[k]));
  return m;
}

/* Deterministic uniform random numbers in [lo, hi) (xorshift64*), independent of libc. */
static inline double sg_test_rand(unsigned long long *state, double lo, double hi) {
  unsigned long long x = *state;
  x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
  *state = x;
  return lo + (hi - lo) * (double)((x * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}
#endif
