/* Edge coverage for the fuzz driver, from gcc's -fsanitize-coverage=trace-pc: the compiler calls
 * __sanitizer_cov_trace_pc at every basic block of the files built with it (the readers, see
 * tests/fuzz/CMakeLists.txt). Each call marks the edge (previous block, this block) in a map of
 * hit counts, as AFL does; the driver keeps an input that reaches a new edge or a new order of
 * magnitude of hits on one. This file itself is built without the flag. */
#include "fuzz_coverage.h"
#include <string.h>

_Alignas(8) uint8_t sg_cov_map[SG_COV_SIZE];
static uintptr_t g_prev;

void __sanitizer_cov_trace_pc(void);
void __sanitizer_cov_trace_pc(void) {
  uintptr_t pc = (uintptr_t)__builtin_return_address(0);
  uintptr_t cur = (pc * 0x9e3779b97f4a7c15ULL) >> 20; /* spread nearby addresses over the map */
  uint8_t *cell = &sg_cov_map[(cur ^ g_prev) & (SG_COV_SIZE - 1)];
  if (*cell < 255) ++*cell;
  g_prev = cur >> 1; /* A -> B and B -> A are different edges */
}

void sg_cov_reset(void) {
  memset(sg_cov_map, 0, sizeof sg_cov_map);
  g_prev = 0;
}

/* AFL's buckets of hit counts: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+ as one bit each. */
static uint8_t bucket(uint8_t n) {
  if (n == 0) return 0;
  if (n <= 3) return (uint8_t)(1u << (n - 1));
  if (n <= 7) return 8;
  if (n <= 15) return 16;
  if (n <= 31) return 32;
  return n <= 127 ? 64 : 128;
}

int sg_cov_merge(uint8_t *seen, long *edges) {
  int novel = 0;
  for (size_t k = 0; k < SG_COV_SIZE; ++k) {
    /* most of the map is 0: skip it eight slots at a time (the map is 8-aligned, SG_COV_SIZE a
     * multiple of 8; memcpy keeps the load free of aliasing questions) */
    uint64_t word;
    if (k % 8 == 0) {
      memcpy(&word, sg_cov_map + k, sizeof word);
      if (!word) {
        k += 7;
        continue;
      }
    }
    if (!sg_cov_map[k]) continue;
    uint8_t b = bucket(sg_cov_map[k]);
    if (b & ~seen[k]) {
      if (!seen[k]) ++*edges;
      seen[k] |= b;
      novel = 1;
    }
  }
  return novel;
}
