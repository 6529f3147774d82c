/* Clocks and peak memory for the benchmark programs. */
#ifndef SG_BENCH_UTIL_H
#define SG_BENCH_UTIL_H
#include <sys/resource.h>
#include <time.h>

/* Wall-clock seconds (monotonic). */
static inline double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of this process: robust to a noisy machine where wall time is not. */
static inline double bench_cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Peak resident memory of this process (KB on Linux). */
static inline long bench_maxrss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}
#endif
