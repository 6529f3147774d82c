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

/* New owners (part numbers 0 .. nparts - 1; -1 for fixed bodies) from a stretch of a Hilbert curve
 * each (partition/sfc.c): compact parts of equal base weight (not weighed by contacts), found in
 * parallel with no gather. Collective; the same owners whatever the distribution on entry. */
sg_err sg_partition_sfc(MPI_Comm comm, const sg_scene *s, int nparts, int *new_owner);
/* Hilbert index (63 bits) of a cell of the 2^21 x 2^21 x 2^21 grid. */
uint64_t sg_hilbert_key(uint32_t x, uint32_t y, uint32_t z);

#endif
