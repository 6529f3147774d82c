/* SG_FAULT: one injected failure on one rank, for the tests of collective error handling. */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/fault.h"

static const char *const phases[] = {"collision", "factorization", "refactorization", "solve", "output"};
#define N_PHASES ((int)(sizeof phases / sizeof phases[0]))

static struct {
  int read;       /* SG_FAULT looked at */
  int malformed;
  int armed;      /* a fault waits on this rank */
  char phase[32];
  int rank;
  long long step;
  long long current_step;
} g_fault;

static int known_phase(const char *name) {
  for (int k = 0; k < N_PHASES; ++k)
    if (!strcmp(name, phases[k])) return 1;
  return 0;
}

static int parse_count(const char *text, long long min, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (errno || end == text || *end || v < min) return 0;
  *out = v;
  return 1;
}

/* "phase:rank[:step]" */
static int parse(const char *spec) {
  char buf[128];
  if (strlen(spec) >= sizeof buf) return 0;
  strcpy(buf, spec);
  char *rank_text = strchr(buf, ':');
  if (!rank_text) return 0;
  *rank_text++ = 0;
  char *step_text = strchr(rank_text, ':');
  if (step_text) *step_text++ = 0;
  long long rank, step = 1;
  if (!known_phase(buf) || !parse_count(rank_text, 0, &rank) || rank > 1000000000) return 0;
  if (step_text && !parse_count(step_text, 0, &step)) return 0;
  memcpy(g_fault.phase, buf, strlen(buf) + 1); /* a known phase name: shorter than the field */
  g_fault.rank = (int)rank;
  g_fault.step = step;
  return 1;
}

/* Reads SG_FAULT once; a malformed one arms nothing (sg_fault_setup reports it). */
static void read_spec(void) {
  if (g_fault.read) return;
  g_fault.read = 1;
  const char *spec = getenv("SG_FAULT");
  if (!spec || !*spec) return;
  if (!parse(spec)) {
    g_fault.malformed = 1;
    return;
  }
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  g_fault.armed = me == g_fault.rank;
}

sg_err sg_fault_setup(void) {
  read_spec();
  if (!g_fault.malformed) return SG_OK;
  return sg_error_set(SG_ERR_ARG, "SG_FAULT '%.60s' is malformed (phase:rank[:step], phase one of collision, factorization, refactorization, solve, output)",
                      getenv("SG_FAULT"));
}

sg_err sg_fault_check(const char *phase, long long step) {
  read_spec();
  if (!g_fault.armed || step < g_fault.step || strcmp(phase, g_fault.phase)) return SG_OK;
  g_fault.armed = 0; /* once: the run stops on it */
  return sg_error_set(SG_ERR_INJECTED, "injected fault in phase '%s' on rank %d in step %lld (SG_FAULT)", phase,
                      g_fault.rank, step);
}

void sg_fault_set_step(long long step) { g_fault.current_step = step; }
long long sg_fault_step(void) { return g_fault.current_step; }
