/* Partitioning of the subsystem graph on a 3D lattice of touching spheres (NX x NY x NZ on a ground
 * plane), in 4 and 8 parts, by recursive bisection and by k-way:
 *  - every moving body gets a part in [0, P), the plane gets -1, no part is empty;
 *  - imbalance (max/mean vertex weight) <= 1.05. k-way: METIS's default ufactor 30 allows 1.03.
 *    Recursive bisection: the default ufactor 1 allows 1.001 per bisection (plus 0.00005), so
 *    log2(8) = 3 levels compound to at most 1.001^3 = 1.003 when each bisection meets its target;
 *    a bisection can miss it by about one vertex (weight <= 6 + 7 = 13 against a half-part weight
 *    of >= 2,900 here, 0.45 %), which over 3 levels gives (1.001 + 0.0045)^3 < 1.017. 1.05 leaves
 *    room for both methods and is what the distributed solver is sized for;
 *  - the edge cut is at most twice the cut of the ideal slab partition (P slabs across the longest
 *    side: (P - 1) planes each cutting NY x NZ contacts of weight 1, i.e. 300 for P = 4 and 700 for
 *    P = 8; the best axis-aligned blocks cut 200 and 400, printed for reference);
 *  - the same call twice gives the same parts (fixed seed);
 *  - the statistics equal an independent recount from the contact list;
 *  - one part: zero cut, everyone in part 0.
 * Plus the CSR graph against a direct count (contacts, proximity, proximity across periodic
 * boundaries), and the update policy. */
#include <stdlib.h>
#include <string.h>
#include "signorini/signorini.h"
#include "signorini/partition.h"
#include "test_util.h"

#define NX 20
#define NY 20
#define NZ 5
#define R 0.01

static int lattice_body(int ix, int iy, int iz) { return 1 + ix + NX * (iy + NY * iz); } /* body 0: plane */

static void build_lattice(sg_scene *s) {
  CHECK_OK(sg_scene_create(s, NX * NY * NZ + 1, 1));
  const double zero[3] = {0, 0, 0}, size[3] = {R, 0, 0};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  for (int iz = 0; iz < NZ; ++iz)
    for (int iy = 0; iy < NY; ++iy)
      for (int ix = 0; ix < NX; ++ix) {
        double p[3] = {2 * R * ix, 2 * R * iy, R + 2 * R * iz}; /* touching: gap 0 */
        int idx;
        CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, 1000, p, NULL, NULL, &idx));
        CHECK(idx == lattice_body(ix, iy, iz));
      }
  s->friction[0] = 0.5;
  CHECK_OK(sg_scene_update_mass(s));
}

/* Statistics recounted from the contact list and the body parts, without the graph. */
static void recount(const sg_scene *s, const sg_contacts *c, const int *part, int P, const sg_partition_stats *st) {
  long long cut = 0, total = 0;
  long long *weight = calloc((size_t)P, sizeof *weight), *contacts = calloc((size_t)P, sizeof *contacts);
  int *bodies = calloc((size_t)P, sizeof *bodies), *boundary = calloc((size_t)P, sizeof *boundary);
  int *ghosts = calloc((size_t)P, sizeof *ghosts), *nbrs = calloc((size_t)P, sizeof *nbrs);
  unsigned char *adj = calloc((size_t)P * P, 1), *halo = calloc((size_t)s->n, 1);
  unsigned *ghost_of = calloc((size_t)s->n, sizeof *ghost_of); /* bit p: body is a ghost of part p */
  int n_fixed = 0;
  for (int i = 0; i < s->n; ++i) {
    if (s->fixed[i]) { n_fixed++; continue; }
    bodies[part[i]]++;
    weight[part[i]] += SG_PARTITION_DOF_WEIGHT;
  }
  for (int k = 0; k < c->n; ++k) {
    int a = c->c[k].a, b = c->c[k].b, pa = part[a], pb = part[b];
    if (pa >= 0) weight[pa]++;
    if (pb >= 0) weight[pb]++;
    if (pa >= 0) contacts[pa]++;
    if (pb >= 0 && pb != pa) contacts[pb]++;
    if (pa >= 0 && pb >= 0 && pa != pb) {
      cut++;
      halo[a] = halo[b] = 1;
      adj[pa * P + pb] = adj[pb * P + pa] = 1;
      ghost_of[b] |= 1u << pa;
      ghost_of[a] |= 1u << pb;
    }
  }
  for (int i = 0; i < s->n; ++i) {
    if (part[i] >= 0) boundary[part[i]] += halo[i];
    for (int p = 0; p < P; ++p) ghosts[p] += (ghost_of[i] >> p) & 1u;
  }
  long long wmax = 0;
  for (int p = 0; p < P; ++p) {
    total += weight[p];
    if (weight[p] > wmax) wmax = weight[p];
    for (int q = 0; q < P; ++q) nbrs[p] += adj[p * P + q];
    CHECK(st->part_weight[p] == weight[p]);
    CHECK(st->part_bodies[p] == bodies[p]);
    CHECK(st->part_boundary[p] == boundary[p]);
    CHECK(st->part_ghosts[p] == ghosts[p]);
    CHECK(st->part_neighbours[p] == nbrs[p]);
    CHECK(st->part_contacts[p] == contacts[p]);
    CHECK_NEAR(st->part_halo[p], bodies[p] ? (double)boundary[p] / bodies[p] : 0.0, 1e-15);
    CHECK_NEAR(st->part_memory[p], sg_partition_memory(bodies[p], ghosts[p], n_fixed, contacts[p]), 1e-6);
  }
  CHECK(st->edge_cut == cut);
  CHECK(st->total_weight == total);
  CHECK(st->n_fixed == n_fixed);
  CHECK_NEAR(st->imbalance, (double)wmax * P / (double)total, 1e-12);
  free(weight); free(contacts); free(bodies); free(boundary); free(ghosts); free(nbrs); free(adj); free(halo);
  free(ghost_of);
}

/* CSR invariants: symmetric, rows sorted, no self loop, weights as given by count(i, j). */
static void check_csr(const sg_partition_graph *g) {
  for (int v = 0; v < g->nvtx; ++v)
    for (idx_t e = g->xadj[v]; e < g->xadj[v + 1]; ++e) {
      idx_t u = g->adjncy[e];
      CHECK(u != v && u >= 0 && u < g->nvtx);
      if (e > g->xadj[v]) CHECK(g->adjncy[e - 1] < u);
      int found = 0;
      for (idx_t f = g->xadj[u]; f < g->xadj[u + 1]; ++f)
        if (g->adjncy[f] == v) found = g->adjwgt[f] == g->adjwgt[e];
      CHECK(found);
    }
  CHECK(g->xadj[g->nvtx] == 2 * g->n_edges);
}

int main(void) {
  sg_scene s;
  build_lattice(&s);
  const int n_moving = NX * NY * NZ;
  double margin = 0.2 * R;
  sg_broadphase bp = {0};
  sg_contacts c = {0};
  CHECK_OK(sg_find_contacts(&s, margin, 1.0 / 240.0, &bp, &c));
  sg_broadphase_destroy(&bp);
  long long expect_ss = (long long)(NX - 1) * NY * NZ + (long long)NX * (NY - 1) * NZ + (long long)NX * NY * (NZ - 1);
  printf("lattice %dx%dx%d: %d contacts (expected %lld sphere-sphere + %d sphere-plane)\n", NX, NY, NZ, c.n, expect_ss,
         NX * NY);
  CHECK(c.n == expect_ss + NX * NY);

  /* the contact graph */
  sg_partition_graph g;
  CHECK_OK(sg_partition_graph_from_contacts(&s, &c, &g));
  CHECK(g.nvtx == n_moving);
  CHECK(g.n_edges == expect_ss);
  CHECK(g.n_contacts == c.n);
  CHECK(g.connected == 1);
  CHECK(g.vertex_of_body[0] == -1);
  check_csr(&g);
  for (int iz = 0; iz < NZ; ++iz)
    for (int iy = 0; iy < NY; ++iy)
      for (int ix = 0; ix < NX; ++ix) {
        int v = g.vertex_of_body[lattice_body(ix, iy, iz)];
        int deg = (ix > 0) + (ix < NX - 1) + (iy > 0) + (iy < NY - 1) + (iz > 0) + (iz < NZ - 1);
        CHECK(g.xadj[v + 1] - g.xadj[v] == deg);
        CHECK(g.vwgt[v] == 6 + deg + (iz == 0));
      }
  sg_partition_graph_destroy(&g);

  /* the proximity graph: margin 1.5 R, so centres closer than 3.5 R: the 26 lattice neighbours
   * (2 R, 2.83 R, 3.46 R), not the next shell (4 R) */
  CHECK_OK(sg_partition_graph_proximity(&s, 0.0, &g));
  CHECK_NEAR(g.margin, 1.5 * R, 1e-15);
  long long expect_prox = 0;
  for (int iz = 0; iz < NZ; ++iz)
    for (int iy = 0; iy < NY; ++iy)
      for (int ix = 0; ix < NX; ++ix) {
        int deg = 0;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              int jx = ix + dx, jy = iy + dy, jz = iz + dz;
              if ((dx || dy || dz) && jx >= 0 && jx < NX && jy >= 0 && jy < NY && jz >= 0 && jz < NZ) deg++;
            }
        int v = g.vertex_of_body[lattice_body(ix, iy, iz)];
        CHECK(g.xadj[v + 1] - g.xadj[v] == deg);
        expect_prox += deg;
      }
  CHECK(g.n_edges == expect_prox / 2);
  check_csr(&g);
  printf("proximity graph: %lld edges (expected %lld), margin %g\n", g.n_edges, expect_prox / 2, g.margin);
  sg_partition_graph_destroy(&g);

  /* periodic along x and y with the lattice's own spacing (cell [-R, 2 R N - R)): every sphere has
   * its 9 neighbours in each layer it touches, across the cell's faces as inside, each edge once */
  s.period_lo[0] = s.period_lo[1] = -R;
  s.period_hi[0] = 2 * R * NX - R;
  s.period_hi[1] = 2 * R * NY - R;
  CHECK_OK(sg_partition_graph_proximity(&s, 0.0, &g));
  long long expect_periodic = 0;
  for (int iz = 0; iz < NZ; ++iz)
    for (int iy = 0; iy < NY; ++iy)
      for (int ix = 0; ix < NX; ++ix) {
        int layers = 1 + (iz > 0) + (iz < NZ - 1), v = g.vertex_of_body[lattice_body(ix, iy, iz)];
        CHECK(g.xadj[v + 1] - g.xadj[v] == 9 * layers - 1);
        expect_periodic += 9 * layers - 1;
      }
  CHECK(g.n_edges == expect_periodic / 2);
  check_csr(&g);
  printf("periodic proximity graph: %lld edges (expected %lld)\n", g.n_edges, expect_periodic / 2);
  sg_partition_graph_destroy(&g);
  memset(s.period_lo, 0, sizeof s.period_lo);
  memset(s.period_hi, 0, sizeof s.period_hi);

  /* partitions of the contact graph */
  int *part = malloc(sizeof(int) * (size_t)s.n), *part2 = malloc(sizeof(int) * (size_t)s.n);
  const int methods[2] = {SG_PARTITION_RB, SG_PARTITION_KWAY};
  for (int m = 0; m < 2; ++m)
    for (int P = 4; P <= 8; P *= 2) {
      sg_partition_stats st, st2;
      CHECK_OK(sg_partition_compute(&s, &c, P, methods[m], 7, part, &st));
      CHECK_OK(sg_partition_compute(&s, &c, P, methods[m], 7, part2, &st2));
      CHECK(memcmp(part, part2, sizeof(int) * (size_t)s.n) == 0);
      CHECK(st.edge_cut == st2.edge_cut);
      CHECK(st.method == methods[m]);
      CHECK(part[0] == -1);
      int bad = 0;
      for (int i = 1; i < s.n; ++i) bad += part[i] < 0 || part[i] >= P;
      CHECK(bad == 0);
      CHECK(st.empty_parts == 0);
      for (int p = 0; p < P; ++p) CHECK(st.part_bodies[p] > 0);
      long long slab = (long long)(P - 1) * NY * NZ, blocks = P == 4 ? 2LL * NY * NZ : 3LL * NY * NZ + NX * NZ;
      printf("%-4s P=%d: cut %lld (slabs %lld, blocks %lld), imbalance %.4f, halo %.3f/%.3f/%.3f, neighbours <= %d, "
             "memory %.0f..%.0f B\n",
             sg_partition_method_name(st.method), P, st.edge_cut, slab, blocks, st.imbalance, st.halo_min, st.halo_mean,
             st.halo_max, st.neighbours_max, st.memory_min, st.memory_max);
      CHECK(st.imbalance <= 1.05);
      CHECK(st.edge_cut <= 2 * slab);
      CHECK(st.edge_cut > 0);
      recount(&s, &c, part, P, &st);
      sg_partition_stats_destroy(&st);
      sg_partition_stats_destroy(&st2);
    }
  /* auto: recursive bisection up to 8 parts, k-way beyond */
  {
    sg_partition_stats st;
    CHECK_OK(sg_partition_compute(&s, &c, 8, SG_PARTITION_AUTO, 1, part, &st));
    CHECK(st.method == SG_PARTITION_RB);
    sg_partition_stats_destroy(&st);
    CHECK_OK(sg_partition_compute(&s, &c, 16, SG_PARTITION_AUTO, 1, part, &st));
    CHECK(st.method == SG_PARTITION_KWAY);
    CHECK(st.empty_parts == 0 && st.imbalance <= 1.05);
    recount(&s, &c, part, 16, &st);
    sg_partition_stats_destroy(&st);
  }
  /* proximity partition (c = NULL): valid and deterministic */
  {
    sg_partition_stats st;
    CHECK_OK(sg_partition_compute(&s, NULL, 4, SG_PARTITION_AUTO, 3, part, &st));
    CHECK_OK(sg_partition_compute(&s, NULL, 4, SG_PARTITION_AUTO, 3, part2, NULL));
    CHECK(memcmp(part, part2, sizeof(int) * (size_t)s.n) == 0);
    CHECK(st.empty_parts == 0 && st.imbalance <= 1.05);
    printf("proximity P=4: cut %lld, imbalance %.4f\n", st.edge_cut, st.imbalance);
    sg_partition_stats_destroy(&st);
  }
  /* one part: no METIS, zero cut, no halo */
  {
    sg_partition_stats st;
    CHECK_OK(sg_partition_compute(&s, &c, 1, SG_PARTITION_AUTO, 1, part, &st));
    CHECK(st.edge_cut == 0);
    CHECK(part[0] == -1);
    int bad = 0;
    for (int i = 1; i < s.n; ++i) bad += part[i] != 0;
    CHECK(bad == 0);
    CHECK_NEAR(st.imbalance, 1.0, 0);
    CHECK(st.part_ghosts[0] == 0 && st.part_neighbours[0] == 0 && st.halo_max == 0);
    CHECK(st.part_contacts[0] == c.n);
    recount(&s, &c, part, 1, &st);
    sg_partition_stats_destroy(&st);
  }
  /* errors: no part, more parts than bodies */
  CHECK(sg_partition_compute(&s, &c, 0, SG_PARTITION_AUTO, 1, part, NULL) == SG_ERR_ARG);
  CHECK(sg_partition_compute(&s, &c, n_moving + 1, SG_PARTITION_AUTO, 1, part, NULL) == SG_ERR_ARG);
  sg_error_clear();

  /* the repartitioning policy */
  CHECK(sg_partition_needs_update(0, 100, 1.0, 1.2) == 0);
  CHECK(sg_partition_needs_update(100, 100, 1.0, 1.2) == 1);
  CHECK(sg_partition_needs_update(150, 100, 1.0, 1.2) == 0);
  CHECK(sg_partition_needs_update(150, 100, 1.3, 1.2) == 1);
  CHECK(sg_partition_needs_update(150, 0, 1.3, 0) == 0);
  CHECK(sg_partition_needs_update(100, 0, 1.0, 1.2) == 0);
  CHECK(sg_partition_needs_update(7, -1, 2.0, 1.5) == 1);

  /* the memory constants follow the structs */
  printf("bytes: body %zu, subsystem %zu, contact %zu\n", (size_t)SG_PARTITION_BYTES_PER_BODY,
         (size_t)SG_PARTITION_BYTES_PER_SUBSYSTEM, (size_t)SG_PARTITION_BYTES_PER_CONTACT);
  CHECK(SG_PARTITION_BYTES_PER_BODY == 8 + 4 + 24 + 4 + 1 + 8 + 8 + 24 + 24 + 32 + 48);
  CHECK(SG_PARTITION_BYTES_PER_SUBSYSTEM == 3 * 4 + 36 * 8 + 6 * 8 + 8);
  CHECK(SG_PARTITION_BYTES_PER_CONTACT == sizeof(sg_contact) + 4 + 4 + 24 + 24 + 4 + 8 + 8 + 36 * 8 + 24);

  free(part); free(part2);
  sg_contacts_destroy(&c);
  sg_scene_destroy(&s);
  return sg_test_exit();
}
