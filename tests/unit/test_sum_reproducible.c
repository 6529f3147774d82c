/* The reproducible sum (sg_sum_reproducible, src/comm/bodies.c), one rank:
 *  - against its definition written out here with the library's llround(ldexp(x, b)) per value: the
 *    same bits on arrays of mixed signs and scales (1e-300 to 1e300), with values that land exactly
 *    on halves of the last multiple (+-0.5, +-2.5 and the like, where llround rounds away from zero
 *    and a round-half-even shortcut would differ), values scaled past 2^53, zeros of both signs, a
 *    NaN passed over by the maximum, and an array whose largest value makes 2^b not a normal number;
 *  - the same bits for every order of the values (the property the solvers' stops rest on). */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/exchange.h"
#include "test_util.h"

/* The definition: b from the largest |x| and the count, each value rounded to a multiple of 2^-b
 * (half away from zero), the multiples summed exactly. */
static double reference_sum(const double *x, int n) {
  double big = 0;
  for (int i = 0; i < n; ++i) big = fmax(big, fabs(x[i]));
  if (!(big > 0) || !isfinite(big)) return big > 0 || isnan(big) ? big * (double)n : 0.0;
  int e;
  frexp(big * (double)n, &e);
  const int b = 62 - e;
  long long total = 0;
  for (int i = 0; i < n; ++i) total += llround(ldexp(x[i], b));
  return ldexp((double)total, -b);
}

static int same_bits(double a, double b) { return !memcmp(&a, &b, sizeof a); }

static void check_array(const char *what, double *x, int n, unsigned long long *state) {
  const double want = reference_sum(x, n), got = sg_sum_reproducible(MPI_COMM_WORLD, x, n);
  int orders_agree = 1;
  for (int round = 0; round < 5; ++round) { /* shuffled */
    for (int i = n - 1; i > 0; --i) {
      int j = (int)sg_test_rand(state, 0, i + 1);
      j = j > i ? i : j;
      const double t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
    orders_agree &= same_bits(sg_sum_reproducible(MPI_COMM_WORLD, x, n), got);
  }
  printf("  %-44s n = %6d: sum %.17g (definition %.17g), %s, %s\n", what, n, got, want,
         same_bits(got, want) ? "same bits" : "DIFFERENT", orders_agree ? "any order" : "ORDER MATTERS");
  CHECK(same_bits(got, want));
  CHECK(orders_agree);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  unsigned long long state = 7;
  enum { N = 20000 };
  double *x = malloc(sizeof(double) * N);
  printf("reproducible sums against their definition:\n");
  for (int i = 0; i < N; ++i) x[i] = sg_test_rand(&state, -1, 1);
  check_array("uniform in [-1, 1)", x, N, &state);
  for (int i = 0; i < N; ++i) x[i] = sg_test_rand(&state, 0, 1) * pow(10.0, sg_test_rand(&state, -30, 0));
  check_array("positive, 30 decades (the metric's terms)", x, N, &state);
  for (int i = 0; i < N; ++i) x[i] = sg_test_rand(&state, -1, 1) * pow(10.0, sg_test_rand(&state, -300, 300));
  check_array("mixed signs, 1e-300 to 1e300", x, N, &state);
  /* halves: with the largest 2^40 and n = 16, b = 62 - 45 = 17, so k/2 * 2^-17 sits on a half */
  double halves[16] = {0x1p40, -0x1p40, 0.5 * 0x1p-17, -0.5 * 0x1p-17, 2.5 * 0x1p-17, -2.5 * 0x1p-17, 1.5 * 0x1p-17,
                       -3.5 * 0x1p-17, 0.0, -0.0, 0x1p-17 * 0.49999999999999994, 7.5 * 0x1p-17, -0x1p-18,
                       0x1p-19, 0x1p-17 * 0.5000000000000001, 1.0};
  check_array("halves of the last multiple, zeros", halves, 16, &state);
  /* the largest 3 x 2^55 and n = 4: b = 62 - 58 = 4, scaled values integers between 2^53 and 2^62 */
  double large[4] = {3 * 0x1p55, -0x1p54 - 64, 0x1p53 + 2, 17.0};
  check_array("scaled past 2^53 (integers already)", large, 4, &state);
  double with_nan[4] = {1.0, NAN, 0.0, 0.0};
  const double nan_sum = sg_sum_reproducible(MPI_COMM_WORLD, with_nan, 2), nan_ref = reference_sum(with_nan, 2);
  printf("  a NaN beside 1.0: %g (definition %g)\n", nan_sum, nan_ref);
  CHECK(same_bits(nan_sum, nan_ref));
  for (int i = 0; i < 64; ++i) x[i] = sg_test_rand(&state, -1, 1) * 1e-305; /* 2^b beyond the normal range */
  check_array("all below 1e-305", x, 64, &state);
  free(x);
  const int rc = sg_test_exit();
  MPI_Finalize();
  return rc;
}
