/* Partitioning of the subsystems (moving bodies) over ranks, for the distributed solver.
 *
 * The subsystem graph: one vertex per moving body (fixed bodies such as walls and planes are not
 * vertices: they are replicated on every rank); vertex weight from the body's kind
 * (sg_body_kind_ops.partition_weight: base + per_contact x the contacts touching the body; rigid-6:
 * its 6 DOF + its contacts, since SubADMM's work is per contact-iteration); an edge between two
 * moving bodies weighs the number of contacts between them. Two sources:
 *   - contacts (sg_find_contacts), the real coupling once the simulation runs;
 *   - proximity, before any contact exists: the candidate pairs of the grid broad phase with the
 *     bounding spheres grown by a margin of factor x the median bounding radius of the moving
 *     bodies (SG_PARTITION_PROXIMITY_FACTOR by default); each pair counts as one contact.
 * The graph is stored in METIS's CSR form (idx_t), built in O(N + pairs) memory and time.
 * Partitions come from METIS (k-way or multilevel recursive bisection) with a fixed seed, and
 * contiguous parts (k-way) when the graph is connected, so that results are reproducible. */
#ifndef SIGNORINI_PARTITION_H
#define SIGNORINI_PARTITION_H
#include <metis.h>
#include <stddef.h>
#include "signorini/body_kind.h"
#include "signorini/collision.h"
#include "signorini/problem.h"
#include "signorini/scene.h"

/* Vertex weight of a rigid-6 body with no contact: its degrees of freedom. */
#define SG_PARTITION_DOF_WEIGHT 6
/* Proximity graph: margin = factor x median bounding radius of the moving bodies. */
#define SG_PARTITION_PROXIMITY_FACTOR 1.5
/* Default method choice (SG_PARTITION_AUTO): recursive bisection up to this many parts. */
#define SG_PARTITION_RB_MAX_PARTS 8

/* Per-item sizes of the memory estimate, from the actual structs (sizeof of one element of each
 * array indexed per body / per contact; sizeof does not evaluate the null pointer). */
#define SG_SIZEOF_ELEM(type, field) sizeof(*((type *)0)->field)
/* A body's record in the sg_scene arrays: gid, shape, size[3], material, fixed, density, mass,
 * inertia[3], pos[3], quat[4], vel[6] (185 bytes on LP64). Owned, ghost and fixed bodies. */
#define SG_PARTITION_BYTES_PER_BODY                                                                 \
  (SG_SIZEOF_ELEM(sg_scene, gid) + SG_SIZEOF_ELEM(sg_scene, shape) + 3 * SG_SIZEOF_ELEM(sg_scene, size) + \
   SG_SIZEOF_ELEM(sg_scene, material) + SG_SIZEOF_ELEM(sg_scene, fixed) +                          \
   SG_SIZEOF_ELEM(sg_scene, density) + SG_SIZEOF_ELEM(sg_scene, mass) +                             \
   3 * SG_SIZEOF_ELEM(sg_scene, inertia) + 3 * SG_SIZEOF_ELEM(sg_scene, state.pos) +                      \
   4 * SG_SIZEOF_ELEM(sg_scene, state.quat) + 6 * SG_SIZEOF_ELEM(sg_scene, state.vel))
/* An owned body's subsystem in sg_problem: sub_dof, sub_off, sub_aoff, the 6x6 block A, b[6],
 * sub_gid (356 bytes). Only owned bodies carry a subsystem. */
#define SG_PARTITION_BYTES_PER_SUBSYSTEM                                                            \
  (SG_SIZEOF_ELEM(sg_problem, sub_dof) + SG_SIZEOF_ELEM(sg_problem, sub_off) +                      \
   SG_SIZEOF_ELEM(sg_problem, sub_aoff) + 36 * SG_SIZEOF_ELEM(sg_problem, A) +                      \
   6 * SG_SIZEOF_ELEM(sg_problem, b) + SG_SIZEOF_ELEM(sg_problem, sub_gid))
/* A contact: the sg_contact record plus its constraint in sg_problem (kind, con_row, e[3], mu,
 * stiff, damp, con_pair, two (pair_sub, pair_joff), two 3x6 Jacobian blocks) and its multipliers
 * lambda[3] (476 bytes on LP64). Solver work arrays are not counted. */
#define SG_PARTITION_BYTES_PER_CONTACT                                                              \
  (sizeof(sg_contact) + SG_SIZEOF_ELEM(sg_problem, kind) + SG_SIZEOF_ELEM(sg_problem, con_row) +    \
   3 * SG_SIZEOF_ELEM(sg_problem, e) + SG_SIZEOF_ELEM(sg_problem, mu) +                             \
   SG_SIZEOF_ELEM(sg_problem, stiff) + SG_SIZEOF_ELEM(sg_problem, damp) +                           \
   SG_SIZEOF_ELEM(sg_problem, con_pair) + 2 * SG_SIZEOF_ELEM(sg_problem, pair_sub) +                \
   2 * SG_SIZEOF_ELEM(sg_problem, pair_joff) + 36 * SG_SIZEOF_ELEM(sg_problem, J) +                 \
   3 * sizeof(double))

enum { SG_PARTITION_AUTO = -1, SG_PARTITION_KWAY = 0, SG_PARTITION_RB = 1 };
enum { SG_PARTITION_GRAPH_CONTACTS = 0, SG_PARTITION_GRAPH_PROXIMITY = 1 };

const char *sg_partition_method_name(int method); /* "kway", "rb" */

typedef struct {
  int source;              /* SG_PARTITION_GRAPH_* */
  double margin;           /* proximity margin used (m); 0 for contacts */
  int n_bodies;            /* bodies of the scene */
  int nvtx;                /* vertices = moving bodies */
  int *vertex_of_body;     /* [n_bodies]: vertex, -1 for a fixed body */
  int *body_of_vertex;     /* [nvtx] */
  idx_t *xadj;             /* [nvtx + 1] CSR offsets */
  idx_t *adjncy;           /* [xadj[nvtx]] neighbours, sorted within each row, no duplicates */
  idx_t *adjwgt;           /* contacts between the two bodies */
  idx_t *vwgt;             /* [nvtx] the body's kind's weight (sg_partition_graph_weigh) */
  long long *vcontacts;    /* [nvtx] contacts touching the body (fixed bodies included) */
  long long n_edges;       /* distinct pairs of moving bodies (xadj[nvtx] / 2) */
  long long n_contacts;    /* contacts (or candidate pairs) with at least one moving body */
  int connected;           /* 1 when the graph is connected (contiguous parts are requested) */
} sg_partition_graph;

/* Graph from a contact list (contacts between two fixed bodies are ignored). */
sg_err sg_partition_graph_from_contacts(const sg_scene *s, const sg_contacts *c, sg_partition_graph *g);
/* Proximity graph: margin = factor x median bounding radius of the moving bodies (factor <= 0:
 * SG_PARTITION_PROXIMITY_FACTOR). */
sg_err sg_partition_graph_proximity(const sg_scene *s, double factor, sg_partition_graph *g);
void sg_partition_graph_destroy(sg_partition_graph *g);
/* Vertex weights vwgt[v] = base + per_contact x vcontacts[v], from weight[i] for body i of the
 * graph's scene s, or from each body's kind when weight is NULL (what the builders above do).
 * SG_ERR_ARG when a weight or their sum passes METIS's integers. */
sg_err sg_partition_graph_weigh(sg_partition_graph *g, const sg_scene *s, const sg_body_weight *weight);

/* Partition the vertices into nparts (vpart[nvtx] in [0, nparts)). method: SG_PARTITION_AUTO
 * (recursive bisection for nparts <= SG_PARTITION_RB_MAX_PARTS, k-way beyond), _KWAY or _RB.
 * nparts = 1 puts every vertex in part 0 without calling METIS. nparts must not exceed the
 * number of vertices (SG_ERR_ARG). *used (may be NULL) receives the method actually used. */
sg_err sg_partition_graph_split(const sg_partition_graph *g, int nparts, int method, int seed, int *vpart,
                                int *used);

typedef struct {
  int nparts, method;
  int n_vertices, n_fixed;     /* moving bodies; fixed bodies (replicated on every rank) */
  long long n_edges, n_contacts;
  long long edge_cut;          /* total weight (contacts) of the edges between parts */
  long long total_weight;      /* sum of the vertex weights */
  double imbalance;            /* max part weight / mean part weight */
  long long *part_weight;      /* [nparts] sum of the vertex weights */
  int *part_bodies;            /* [nparts] owned bodies */
  int *part_boundary;          /* [nparts] owned bodies with a neighbour in another part */
  int *part_ghosts;            /* [nparts] distinct bodies of other parts adjacent to the part */
  int *part_neighbours;        /* [nparts] parts adjacent to the part */
  long long *part_contacts;    /* [nparts] contacts touching an owned body (cut ones on both sides) */
  double *part_halo;           /* [nparts] part_boundary / part_bodies (0 for an empty part) */
  double *part_memory;         /* [nparts] estimated bytes on the rank (see sg_partition_memory) */
  double halo_min, halo_mean, halo_max;
  int neighbours_max, empty_parts;
  double memory_min, memory_mean, memory_max;
} sg_partition_stats;

/* Estimated bytes on a rank: owned x (body + subsystem) + (ghosts + fixed) x body + contacts x contact. */
double sg_partition_memory(long long owned, long long ghosts, long long fixed, long long contacts);

/* Statistics of a vertex partition (allocates the per-part arrays; free with _destroy). */
sg_err sg_partition_graph_stats(const sg_partition_graph *g, int nparts, const int *vpart, sg_partition_stats *st);
void sg_partition_stats_destroy(sg_partition_stats *st);

/* All in one: graph from the contacts c, or the proximity graph when c is NULL; part[s->n] gets
 * the part of each body, -1 for fixed bodies; st (may be NULL) the statistics (free with
 * sg_partition_stats_destroy). */
sg_err sg_partition_compute(const sg_scene *s, const sg_contacts *c, int nparts, int method, int seed, int *part,
                            sg_partition_stats *st);
/* The same with the vertex weights of weight[s->n] (sg_partition_graph_weigh; NULL: the kinds'):
 * for a scene that stands for another (the distributed partitioner's skeleton). */
sg_err sg_partition_compute_weighted(const sg_scene *s, const sg_contacts *c, const sg_body_weight *weight, int nparts,
                                     int method, int seed, int *part, sg_partition_stats *st);

/* Repartitioning policy: 1 at every `every`-th step (step > 0; every <= 0: never on a schedule),
 * or whenever the measured imbalance (max/mean work per rank) exceeds threshold (threshold <= 0
 * or not a number: never on imbalance). */
int sg_partition_needs_update(long step, long every, double measured_imbalance, double threshold);

#endif
