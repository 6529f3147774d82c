/* Partitioning a distributed scene (partition/distributed.c). */
#ifndef SIGNORINI_PARTITION_DIST_H
#define SIGNORINI_PARTITION_DIST_H
#include <mpi.h>
#include <stdint.h>
#include "signorini/scene.h"

/* New owner rank of every body of the distributed scene s (new_owner[i], i < s->n; -1 for fixed
 * bodies), from METIS on rank 0 (sg_partition_compute on a skeleton of bounding spheres):
 * pairs NULL: the proximity graph; else the contact graph of every rank's pairs (gid_a, gid_b per
 * contact, -1 for a fixed body; each contact given by one rank). Collective; the same owners
 * whatever the distribution on entry. */
sg_err sg_partition_distributed(MPI_Comm comm, const sg_scene *s, const int64_t *pairs, int n_pairs, int *new_owner);

#endif
