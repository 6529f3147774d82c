/* METIS partitioning of the subsystem graph, statistics of a partition (cut, balance, halo,
 * neighbours, memory per rank) and the repartitioning policy. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/partition.h"

const char *sg_partition_method_name(int method) {
  switch (method) {
    case SG_PARTITION_KWAY: return "kway";
    case SG_PARTITION_RB: return "rb";
    case SG_PARTITION_AUTO: return "auto";
    default: return "unknown";
  }
}

static const char *metis_status(int status) {
  switch (status) {
    case METIS_ERROR_INPUT: return "input error";
    case METIS_ERROR_MEMORY: return "out of memory";
    default: return "error";
  }
}

sg_err sg_partition_graph_split(const sg_partition_graph *g, int nparts, int method, int seed, int *vpart,
                                int *used) {
  if (nparts < 1) return sg_error_set(SG_ERR_ARG, "partition: %d parts (need at least 1)", nparts);
  if (method == SG_PARTITION_AUTO) method = nparts <= SG_PARTITION_RB_MAX_PARTS ? SG_PARTITION_RB : SG_PARTITION_KWAY;
  if (method != SG_PARTITION_KWAY && method != SG_PARTITION_RB)
    return sg_error_set(SG_ERR_ARG, "partition: unknown method %d", method);
  if (used) *used = method;
  if (nparts == 1) {
    for (int v = 0; v < g->nvtx; ++v) vpart[v] = 0;
    return SG_OK;
  }
  if (nparts > g->nvtx)
    return sg_error_set(SG_ERR_ARG, "partition: %d parts for %d moving bodies (at most one part per body)", nparts,
                        g->nvtx);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = (idx_t)seed;
  options[METIS_OPTION_NUMBERING] = 0;
  /* METIS refuses (with a message on stderr) contiguity for a disconnected graph: ask only when
   * the graph is connected; recursive bisection has no such option. */
  if (method == SG_PARTITION_KWAY && g->connected) options[METIS_OPTION_CONTIG] = 1;
  idx_t nvtxs = (idx_t)g->nvtx, ncon = 1, np = (idx_t)nparts, objval = 0;
  idx_t *part = sg_calloc((size_t)g->nvtx, sizeof *part, "METIS partition");
  if (!part) return SG_ERR_MEM;
  /* METIS does not modify the graph arrays (0-based numbering), whatever its prototypes say */
  int status = (method == SG_PARTITION_KWAY ? METIS_PartGraphKway : METIS_PartGraphRecursive)(
      &nvtxs, &ncon, (idx_t *)g->xadj, (idx_t *)g->adjncy, (idx_t *)g->vwgt, NULL, (idx_t *)g->adjwgt, &np, NULL,
      NULL, options, &objval, part);
  if (status != METIS_OK) {
    free(part);
    return sg_error_set(SG_ERR_LIB, "partition: METIS_PartGraph%s failed (%s) for %d parts of %d bodies",
                        method == SG_PARTITION_KWAY ? "Kway" : "Recursive", metis_status(status), nparts, g->nvtx);
  }
  for (int v = 0; v < g->nvtx; ++v) vpart[v] = (int)part[v];
  free(part);
  return SG_OK;
}

double sg_partition_memory(long long owned, long long ghosts, long long fixed, long long contacts) {
  return (double)owned * (double)(SG_PARTITION_BYTES_PER_BODY + SG_PARTITION_BYTES_PER_SUBSYSTEM) +
         (double)(ghosts + fixed) * (double)SG_PARTITION_BYTES_PER_BODY +
         (double)contacts * (double)SG_PARTITION_BYTES_PER_CONTACT;
}

void sg_partition_stats_destroy(sg_partition_stats *st) {
  free(st->part_weight); free(st->part_bodies); free(st->part_boundary); free(st->part_ghosts);
  free(st->part_neighbours); free(st->part_contacts); free(st->part_halo); free(st->part_memory);
  memset(st, 0, sizeof *st);
}

sg_err sg_partition_graph_stats(const sg_partition_graph *g, int nparts, const int *vpart, sg_partition_stats *st) {
  memset(st, 0, sizeof *st);
  if (nparts < 1) return sg_error_set(SG_ERR_ARG, "partition: %d parts (need at least 1)", nparts);
  int nv = g->nvtx;
  for (int v = 0; v < nv; ++v)
    if (vpart[v] < 0 || vpart[v] >= nparts)
      return sg_error_set(SG_ERR_ARG, "partition: body %d in part %d, outside [0, %d)", g->body_of_vertex[v], vpart[v], nparts);
  st->nparts = nparts;
  st->method = SG_PARTITION_AUTO;
  st->n_vertices = nv;
  st->n_fixed = g->n_bodies - nv;
  st->n_edges = g->n_edges;
  st->n_contacts = g->n_contacts;
  size_t np = (size_t)nparts;
  st->part_weight = sg_calloc(np, sizeof *st->part_weight, "part weights");
  st->part_bodies = sg_calloc(np, sizeof *st->part_bodies, "part sizes");
  st->part_boundary = sg_calloc(np, sizeof *st->part_boundary, "part boundaries");
  st->part_ghosts = sg_calloc(np, sizeof *st->part_ghosts, "part ghosts");
  st->part_neighbours = sg_calloc(np, sizeof *st->part_neighbours, "part neighbours");
  st->part_contacts = sg_calloc(np, sizeof *st->part_contacts, "part contacts");
  st->part_halo = sg_calloc(np, sizeof *st->part_halo, "part halo fractions");
  st->part_memory = sg_calloc(np, sizeof *st->part_memory, "part memory");
  /* vertices grouped by part (counting sort), and "last part that counted me" stamps */
  int *first = sg_calloc(np + 1, sizeof *first, "part offsets");
  int *order = sg_calloc((size_t)(nv > 0 ? nv : 1), sizeof *order, "vertices by part");
  int *ghost_stamp = sg_calloc((size_t)(nv > 0 ? nv : 1), sizeof *ghost_stamp, "ghost marks");
  int *part_stamp = sg_calloc(np, sizeof *part_stamp, "neighbour part marks");
  sg_err err = SG_OK;
  if (!st->part_weight || !st->part_bodies || !st->part_boundary || !st->part_ghosts || !st->part_neighbours ||
      !st->part_contacts || !st->part_halo || !st->part_memory || !first || !order || !ghost_stamp || !part_stamp) {
    err = SG_ERR_MEM;
    goto done;
  }
  for (int v = 0; v < nv; ++v) first[vpart[v] + 1]++;
  for (int p = 0; p < nparts; ++p) first[p + 1] += first[p];
  for (int v = 0; v < nv; ++v) order[first[vpart[v]] + (st->part_bodies[vpart[v]]++)] = v;
  for (int v = 0; v < nv; ++v) ghost_stamp[v] = -1;
  for (int p = 0; p < nparts; ++p) part_stamp[p] = -1;
  long long cut2 = 0, total = 0;
  for (int p = 0; p < nparts; ++p) {
    long long weight = 0, contacts = 0;
    int boundary = 0, ghosts = 0, neighbours = 0;
    for (int k = first[p]; k < first[p + 1]; ++k) {
      int v = order[k];
      weight += g->vwgt[v];
      long long wsum = 0;
      int on_boundary = 0;
      for (idx_t e = g->xadj[v]; e < g->xadj[v + 1]; ++e) {
        int u = (int)g->adjncy[e], q = vpart[u];
        long long w = g->adjwgt[e];
        wsum += w;
        if (q != p) {
          on_boundary = 1;
          cut2 += w;
          contacts += w; /* a cut contact lives on both ranks */
          if (ghost_stamp[u] != p) { ghost_stamp[u] = p; ghosts++; }
          if (part_stamp[q] != p) { part_stamp[q] = p; neighbours++; }
        } else if (u > v) {
          contacts += w; /* an internal contact once */
        }
      }
      contacts += g->vcontacts[v] - wsum; /* contacts with fixed bodies */
      boundary += on_boundary;
    }
    int nb = first[p + 1] - first[p];
    st->part_weight[p] = weight;
    st->part_boundary[p] = boundary;
    st->part_ghosts[p] = ghosts;
    st->part_neighbours[p] = neighbours;
    st->part_contacts[p] = contacts;
    st->part_halo[p] = nb > 0 ? (double)boundary / nb : 0.0;
    st->part_memory[p] = sg_partition_memory(nb, ghosts, st->n_fixed, contacts);
    total += weight;
  }
  st->edge_cut = cut2 / 2;
  st->total_weight = total;
  long long wmax = 0;
  st->halo_min = INFINITY; st->halo_max = 0; st->halo_mean = 0;
  st->memory_min = INFINITY; st->memory_max = 0; st->memory_mean = 0;
  for (int p = 0; p < nparts; ++p) {
    if (st->part_weight[p] > wmax) wmax = st->part_weight[p];
    st->empty_parts += st->part_bodies[p] == 0;
    st->halo_min = fmin(st->halo_min, st->part_halo[p]);
    st->halo_max = fmax(st->halo_max, st->part_halo[p]);
    st->halo_mean += st->part_halo[p] / nparts;
    st->memory_min = fmin(st->memory_min, st->part_memory[p]);
    st->memory_max = fmax(st->memory_max, st->part_memory[p]);
    st->memory_mean += st->part_memory[p] / nparts;
    if (st->part_neighbours[p] > st->neighbours_max) st->neighbours_max = st->part_neighbours[p];
  }
  st->imbalance = total > 0 ? (double)wmax * nparts / (double)total : 1.0;
done:
  free(first); free(order); free(ghost_stamp); free(part_stamp);
  if (err) sg_partition_stats_destroy(st);
  return err;
}

sg_err sg_partition_compute(const sg_scene *s, const sg_contacts *c, int nparts, int method, int seed, int *part,
                            sg_partition_stats *st) {
  return sg_partition_compute_weighted(s, c, NULL, nparts, method, seed, part, st);
}

sg_err sg_partition_compute_weighted(const sg_scene *s, const sg_contacts *c, const sg_body_weight *weight, int nparts,
                                     int method, int seed, int *part, sg_partition_stats *st) {
  if (st) memset(st, 0, sizeof *st);
  sg_partition_graph g;
  if (c) SG_CHECK(sg_partition_graph_from_contacts(s, c, &g));
  else SG_CHECK(sg_partition_graph_proximity(s, 0.0, &g));
  int *vpart = sg_calloc((size_t)(g.nvtx > 0 ? g.nvtx : 1), sizeof *vpart, "vertex parts");
  int used = method;
  sg_err err = vpart ? SG_OK : SG_ERR_MEM;
  if (!err && weight) err = sg_partition_graph_weigh(&g, s, weight);
  if (!err) err = sg_partition_graph_split(&g, nparts, method, seed, vpart, &used);
  if (!err) {
    for (int i = 0; i < s->n; ++i) part[i] = g.vertex_of_body[i] >= 0 ? vpart[g.vertex_of_body[i]] : -1;
    if (st) {
      err = sg_partition_graph_stats(&g, nparts, vpart, st);
      st->method = used;
    }
  }
  free(vpart);
  sg_partition_graph_destroy(&g);
  return err;
}

int sg_partition_needs_update(long step, long every, double measured_imbalance, double threshold) {
  if (every > 0 && step > 0 && step % every == 0) return 1;
  if (threshold > 0 && measured_imbalance > threshold) return 1; /* false for NaN */
  return 0;
}
