/* Bodies and per-body values between ranks: the building blocks of the distributed scene
 * (owned bodies, ghosts, migration). Every function here is collective over comm. */
#ifndef SIGNORINI_EXCHANGE_H
#define SIGNORINI_EXCHANGE_H
#include <mpi.h>
#include "signorini/scene.h"

/* Send body i of src to every rank in dest[dest_off[i] .. dest_off[i + 1]) (this rank included if
 * listed) and append each body received to dst, by source rank and then in the sender's order.
 * from (may be NULL) is grown to dst->n entries: the source rank of each appended body. The
 * whole record travels: description, mass, inertia, state and gid. */
sg_err sg_bodies_exchange(MPI_Comm comm, const sg_scene *src, const int *dest_off, const int *dest, sg_scene *dst,
                          int **from, int *cap_from);

/* Put a scene's bodies in ascending gid and mark it distributed (n_owned = its moving bodies). */
sg_err sg_scene_sort_local(sg_scene *s);

/* A replicated scene (every rank holds all bodies) becomes a distributed one: rank r keeps the
 * moving bodies of the r-th of P equal blocks of the moving bodies in gid order, and every fixed
 * body. A scene already distributed is left as it is. */
sg_err sg_scene_keep_block(MPI_Comm comm, sg_scene *s);

/* Move each moving body i of a distributed scene to rank new_owner[i] (entries of fixed bodies are
 * ignored), keeping the layout of scene.h. */
sg_err sg_scene_migrate(MPI_Comm comm, sg_scene *s, const int *new_owner);

/* Sum of x[0..n) over all ranks, the same bits whatever the number of ranks and the order of the
 * values: each value is rounded to a multiple of 2^-b, with b chosen from the largest |x| and the
 * count so that the total fits 62 bits, and the multiples are summed exactly in 64-bit integers.
 * Relative to the largest |x|, the result is exact to about count x 2^-62. */
double sg_sum_reproducible(MPI_Comm comm, const double *x, int n);
/* D dot products at once, out[d] = sum over ranks and over the entries k < n with mask[k] (NULL:
 * all) of x[d][k] y[d][k], each summed as sg_sum_reproducible does (three all-reduces in all). */
void sg_dots_reproducible(MPI_Comm comm, int D, const double *const *x, const double *const *y, int n,
                          const unsigned char *mask, double *out);

#endif
