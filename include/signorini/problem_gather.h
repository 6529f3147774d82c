/* A distributed problem gathered whole (src/problem/gather.c): on one rank for -fclib_dump_step,
 * or on every rank for a solver that needs the whole problem (the stepper's gather adapter). */
#ifndef SIGNORINI_PROBLEM_GATHER_H
#define SIGNORINI_PROBLEM_GATHER_H
#include <mpi.h>
#include <stdint.h>
#include "signorini/problem.h"

/* Collective. Every rank gives the subsystems it owns (sub_mine[j]) and the constraints it keeps
 * (con_kept[i], each constraint kept by one rank, with its key con_key[3 i .. 3 i + 2]); out on root
 * receives all of them, subsystems in ascending global id and constraints in ascending key, the
 * pairs of a constraint in their order (out is untouched on other ranks). At most 8 pairs per
 * constraint; global ids and keys below 2^53. */
sg_err sg_problem_gather(MPI_Comm comm, const sg_problem *p, const unsigned char *sub_mine, const unsigned char *con_kept,
                         const int64_t *con_key, int root, sg_problem *out);

/* The whole problem on every rank, with what a solver needs beside it. */
typedef struct {
  sg_problem prob;     /* subsystems by global id, constraints by key; owners = the ranks that sent them */
  int64_t *key;        /* [3 n_con] each constraint's key */
  double *v, *lambda;  /* warm starts (the senders'), in prob's order */
  int cap_key, cap_v, cap_lambda;
} sg_whole_problem;

/* Collective: as sg_problem_gather, on every rank, carrying each subsystem's v and each
 * constraint's lambda (in p's layout) into w->v and w->lambda. */
sg_err sg_problem_gather_all(MPI_Comm comm, const sg_problem *p, const unsigned char *sub_mine, const unsigned char *con_kept,
                             const int64_t *con_key, const double *v, const double *lambda, sg_whole_problem *w);
/* Index of the subsystem with global id gid in w->prob, of the constraint with key in w (-1: none). */
int sg_whole_find_sub(const sg_whole_problem *w, int64_t gid);
int sg_whole_find_con(const sg_whole_problem *w, const int64_t key[3]);
void sg_whole_problem_destroy(sg_whole_problem *w);

#endif
