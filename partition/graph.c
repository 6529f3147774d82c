/* The subsystem graph in METIS's CSR form, from a contact list or from the proximity pairs of the
 * grid broad phase. Both go through one builder taking (body, body) pairs of weight 1: counts per
 * row, offsets, fill, then each row sorted and its duplicates (several contacts between the same
 * two bodies) merged into one weighted edge. O(N + pairs) memory, O(pairs log degree) time. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/collision.h"
#include "signorini/partition.h"

void sg_partition_graph_destroy(sg_partition_graph *g) {
  free(g->vertex_of_body); free(g->body_of_vertex);
  free(g->xadj); free(g->adjncy); free(g->adjwgt); free(g->vwgt); free(g->vcontacts);
  memset(g, 0, sizeof *g);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Sort a row by neighbour (entries packed as neighbour << 32 | weight) */
static void sort_row(uint64_t *r, int n) {
  if (n > 32) {
    qsort(r, (size_t)n, sizeof *r, cmp_u64);
    return;
  }
  for (int i = 1; i < n; ++i) {
    uint64_t v = r[i];
    int j = i - 1;
    while (j >= 0 && r[j] > v) { r[j + 1] = r[j]; --j; }
    r[j + 1] = v;
  }
}

/* Breadth-first search from vertex 0: is every vertex reached? */
static sg_err check_connected(sg_partition_graph *g) {
  g->connected = 1;
  if (g->nvtx <= 1) return SG_OK;
  int *queue = sg_calloc((size_t)g->nvtx, sizeof *queue, "graph search queue");
  unsigned char *seen = sg_calloc((size_t)g->nvtx, 1, "graph search marks");
  if (!queue || !seen) { free(queue); free(seen); return SG_ERR_MEM; }
  int head = 0, tail = 0;
  queue[tail++] = 0;
  seen[0] = 1;
  while (head < tail) {
    int v = queue[head++];
    for (idx_t k = g->xadj[v]; k < g->xadj[v + 1]; ++k) {
      int u = (int)g->adjncy[k];
      if (!seen[u]) { seen[u] = 1; queue[tail++] = u; }
    }
  }
  g->connected = tail == g->nvtx;
  free(queue); free(seen);
  return SG_OK;
}

/* pairs[2k], pairs[2k+1]: the two bodies of contact (or candidate pair) k, k < npairs. */
static sg_err build(const sg_scene *s, const int *pairs, long long npairs, sg_partition_graph *g) {
  int n = s->n;
  g->n_bodies = n;
  g->vertex_of_body = sg_calloc((size_t)(n > 0 ? n : 1), sizeof *g->vertex_of_body, "graph vertex map");
  if (!g->vertex_of_body) return SG_ERR_MEM;
  int nv = 0;
  for (int i = 0; i < n; ++i) g->vertex_of_body[i] = s->fixed[i] ? -1 : nv++;
  g->nvtx = nv;
  g->body_of_vertex = sg_calloc((size_t)(nv > 0 ? nv : 1), sizeof *g->body_of_vertex, "graph body map");
  g->xadj = sg_calloc((size_t)nv + 1, sizeof *g->xadj, "graph offsets");
  g->vwgt = sg_calloc((size_t)(nv > 0 ? nv : 1), sizeof *g->vwgt, "graph vertex weights");
  if (!g->body_of_vertex || !g->xadj || !g->vwgt) return SG_ERR_MEM;
  for (int i = 0; i < n; ++i)
    if (g->vertex_of_body[i] >= 0) g->body_of_vertex[g->vertex_of_body[i]] = i;

  /* counts: contacts per vertex (for its weight) and entries per row */
  long long *cnt = sg_calloc((size_t)nv + 1, sizeof *cnt, "graph row counts");
  long long *contacts = g->vcontacts = sg_calloc((size_t)(nv > 0 ? nv : 1), sizeof *contacts, "graph contact counts");
  if (!cnt || !contacts) { free(cnt); return SG_ERR_MEM; }
  g->n_contacts = 0;
  for (long long k = 0; k < npairs; ++k) {
    const int *p = pairs + 2 * k;
    int va = g->vertex_of_body[p[0]], vb = g->vertex_of_body[p[1]];
    if (va < 0 && vb < 0) continue;
    g->n_contacts++;
    if (va >= 0) contacts[va]++;
    if (vb >= 0 && vb != va) contacts[vb]++;
    if (va >= 0 && vb >= 0 && va != vb) { cnt[va]++; cnt[vb]++; }
  }
  sg_err err = sg_partition_graph_weigh(g, s, NULL);
  if (err) { free(cnt); return err; }
  /* METIS sums the entries in idx_t */
  long long entries = 0;
  for (int v = 0; v < nv; ++v) entries += cnt[v];
  if (entries > IDX_MAX) {
    free(cnt);
    return sg_error_set(SG_ERR_ARG, "partition: graph too large for METIS's %d-bit integers (%lld entries)",
                        IDXTYPEWIDTH, entries);
  }
  /* offsets and fill, packed (neighbour << 32 | 1) */
  uint64_t *packed = sg_calloc((size_t)(entries > 0 ? entries : 1), sizeof *packed, "graph entries");
  if (!packed) { free(cnt); return SG_ERR_MEM; }
  long long *pos = cnt; /* reused as fill positions */
  long long off = 0;
  for (int v = 0; v < nv; ++v) {
    long long c = cnt[v];
    pos[v] = off;
    off += c;
  }
  pos[nv] = off;
  for (long long k = 0; k < npairs; ++k) {
    const int *p = pairs + 2 * k;
    int va = g->vertex_of_body[p[0]], vb = g->vertex_of_body[p[1]];
    if (va < 0 || vb < 0 || va == vb) continue;
    packed[pos[va]++] = ((uint64_t)(uint32_t)vb << 32) | 1u;
    packed[pos[vb]++] = ((uint64_t)(uint32_t)va << 32) | 1u;
  }
  /* rows now end at pos[v]; row v starts at pos[v-1] (0 for v = 0). Sort, merge, compact. */
  g->adjncy = sg_calloc((size_t)(entries > 0 ? entries : 1), sizeof *g->adjncy, "graph adjacency");
  g->adjwgt = sg_calloc((size_t)(entries > 0 ? entries : 1), sizeof *g->adjwgt, "graph edge weights");
  if (!g->adjncy || !g->adjwgt) { free(cnt); free(packed); return SG_ERR_MEM; }
  long long start = 0, out = 0;
  g->xadj[0] = 0;
  for (int v = 0; v < nv; ++v) {
    long long end = pos[v];
    sort_row(packed + start, (int)(end - start));
    for (long long k = start; k < end;) {
      uint64_t nb = packed[k] >> 32;
      long long w = 0;
      while (k < end && (packed[k] >> 32) == nb) w += (long long)(packed[k++] & 0xffffffffu);
      g->adjncy[out] = (idx_t)nb;
      g->adjwgt[out] = (idx_t)w;
      out++;
    }
    g->xadj[v + 1] = (idx_t)out;
    start = end;
  }
  free(cnt);
  free(packed);
  g->n_edges = out / 2;
  return check_connected(g);
}

sg_err sg_partition_graph_weigh(sg_partition_graph *g, const sg_scene *s, const sg_body_weight *weight) {
  long long total = 0;
  for (int v = 0; v < g->nvtx; ++v) {
    const int i = g->body_of_vertex[v];
    const sg_body_weight bw = weight ? weight[i] : sg_body_kind_of(s, i)->partition_weight(s, i);
    long long w = bw.base + bw.per_contact * g->vcontacts[v];
    if (w > IDX_MAX)
      return sg_error_set(SG_ERR_ARG, "partition: body %d weighs too much for METIS's %d-bit integers", i, IDXTYPEWIDTH);
    g->vwgt[v] = (idx_t)w;
    total += w;
  }
  /* METIS sums the vertex weights in idx_t */
  if (total > IDX_MAX / 2)
    return sg_error_set(SG_ERR_ARG, "partition: graph too large for METIS's %d-bit integers (weight %lld)", IDXTYPEWIDTH, total);
  return SG_OK;
}

sg_err sg_partition_graph_from_contacts(const sg_scene *s, const sg_contacts *c, sg_partition_graph *g) {
  memset(g, 0, sizeof *g);
  g->source = SG_PARTITION_GRAPH_CONTACTS;
  for (int k = 0; k < c->n; ++k)
    if (c->c[k].a < 0 || c->c[k].a >= s->n || c->c[k].b < 0 || c->c[k].b >= s->n)
      return sg_error_set(SG_ERR_ARG, "partition: contact %d names body %d/%d outside the scene (%d bodies)", k,
                          c->c[k].a, c->c[k].b, s->n);
  int *pairs = sg_calloc((size_t)(c->n > 0 ? 2 * (size_t)c->n : 1), sizeof *pairs, "contact pairs");
  if (!pairs) return SG_ERR_MEM;
  for (int k = 0; k < c->n; ++k) {
    pairs[2 * k] = c->c[k].a;
    pairs[2 * k + 1] = c->c[k].b;
  }
  sg_err err = build(s, pairs, c->n, g);
  free(pairs);
  if (err) sg_partition_graph_destroy(g);
  return err;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The broad phase's pairs within margin; with periodic boundaries, those across them too (bodies
 * that touch through a boundary are neighbours as any others), searched on a copy of the scene since
 * the images are appended to the scene searched. */
static sg_err proximity_pairs(const sg_scene *s, double margin, sg_broadphase *bp) {
  double L[3];
  if (!sg_scene_period(s, L)) return sg_broadphase_pairs(bp, s, margin, 0.0);
  sg_scene copy;
  sg_images im = {0};
  sg_err err = sg_scene_create(&copy, s->n, s->n_materials);
  if (!err) err = sg_scene_copy_globals(&copy, s);
  for (int i = 0; i < s->n && !err; ++i) err = sg_scene_copy_body(&copy, s, i);
  if (!err) err = sg_broadphase_pairs_periodic(&copy, margin, bp, &im);
  sg_images_destroy(&im);
  sg_scene_destroy(&copy);
  return err;
}

sg_err sg_partition_graph_proximity(const sg_scene *s, double factor, sg_partition_graph *g) {
  memset(g, 0, sizeof *g);
  g->source = SG_PARTITION_GRAPH_PROXIMITY;
  if (!(factor > 0)) factor = SG_PARTITION_PROXIMITY_FACTOR;
  /* typical size: median bounding radius of the moving bodies */
  int nm = 0;
  for (int i = 0; i < s->n; ++i) nm += !s->fixed[i];
  double median = 0;
  if (nm > 0) {
    double *r = sg_calloc((size_t)nm, sizeof *r, "bounding radii");
    if (!r) return SG_ERR_MEM;
    int k = 0;
    for (int i = 0; i < s->n; ++i)
      if (!s->fixed[i]) r[k++] = sg_body_bounding_radius(s, i);
    qsort(r, (size_t)nm, sizeof *r, cmp_double);
    median = r[nm / 2];
    free(r);
  }
  g->margin = factor * median;
  sg_broadphase bp = {0};
  sg_err err = proximity_pairs(s, g->margin, &bp);
  if (!err) err = build(s, bp.pairs, bp.n, g);
  sg_broadphase_destroy(&bp);
  if (err) sg_partition_graph_destroy(g);
  return err;
}
