/* A distributed problem gathered whole on one rank (src/problem/gather.c). */
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

#endif
