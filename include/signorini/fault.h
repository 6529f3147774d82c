/* Fault injection, a testing aid (docs/TESTING.md): SG_FAULT=phase:rank[:step] makes one rank fail
 * at one point of a run, so that tests can check that every rank stops together, with the failing
 * rank's message. Phases: collision, factorization (SubADMM's first of a step), refactorization
 * (SubADMM's after an adaptive penalty change), solve (inside a solver's iteration), output (a
 * trajectory frame). The step is 1-based (step K goes from (K-1) dt to K dt), default 1. */
#ifndef SIGNORINI_FAULT_H
#define SIGNORINI_FAULT_H
#include "signorini/error.h"

/* An error when SG_FAULT is set but malformed (such a one injects nothing). */
sg_err sg_fault_setup(void);

/* On the rank SG_FAULT names, the first time `phase` is reached in its step or a later one: an
 * SG_ERR_INJECTED error "injected fault in phase '<phase>' on rank <r> in step <k> (SG_FAULT)".
 * SG_OK everywhere else, and always without SG_FAULT. */
sg_err sg_fault_check(const char *phase, long long step);

/* The step being taken, for injection points that do not know it (set by the run loop; 0 before the
 * first step, when the initial frame is written). */
void sg_fault_set_step(long long step);
long long sg_fault_step(void);

#endif
