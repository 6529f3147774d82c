/* Edge coverage of the instrumented readers (fuzz_coverage.c). */
#ifndef SG_FUZZ_COVERAGE_H
#define SG_FUZZ_COVERAGE_H
#include <stddef.h>
#include <stdint.h>

#define SG_COV_SIZE (1 << 16)
/* Hit counts of the current input, per edge slot. */
extern uint8_t sg_cov_map[SG_COV_SIZE];
/* Clear the map before an input. */
void sg_cov_reset(void);
/* Fold the current input's counts into `seen` (SG_COV_SIZE bucket masks): 1 when the input
 * reached something new, *edges counting the slots ever hit. */
int sg_cov_merge(uint8_t *seen, long *edges);
#endif
