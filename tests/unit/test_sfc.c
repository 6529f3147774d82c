/* The Hilbert-curve partition (partition/sfc.c):
 *  - the key is a Hilbert curve: on the 16 x 16 x 16 corner of the grid the keys are exactly
 *    0 .. 4095 (the curve fills that sub-cube first) and cells of consecutive keys are face
 *    neighbours (one coordinate differs by one), the property that makes a stretch of it compact;
 *  - on a 20 x 20 x 5 lattice of touching spheres cut into 4 and 8 parts (one rank): every part
 *    holds n/P bodies to one (equal weights: a cut falls between two bodies), no part is empty, and
 *    the contacts cut are at most twice the ideal slabs' (as asked of METIS in test_partition);
 *  - the same call gives the same parts whatever the order of the bodies in the scene (the owners
 *    must not depend on how the bodies are spread over the ranks). */
#include <stdlib.h>
#include <string.h>
#include "signorini/signorini.h"
#include "signorini/partition.h"
#include "signorini/partition_dist.h"
#include "test_util.h"

#define NX 20
#define NY 20
#define NZ 5
#define R 0.01

static void hilbert_is_a_curve(void) {
  enum { M = 16, CELLS = M * M * M };
  int *at = malloc(sizeof(int) * CELLS);
  for (int k = 0; k < CELLS; ++k) at[k] = -1;
  int outside = 0;
  for (int x = 0; x < M; ++x)
    for (int y = 0; y < M; ++y)
      for (int z = 0; z < M; ++z) {
        uint64_t key = sg_hilbert_key((uint32_t)x, (uint32_t)y, (uint32_t)z);
        if (key >= CELLS || at[key] >= 0) outside++;
        else at[key] = (x * M + y) * M + z;
      }
  CHECK(outside == 0);
  int jumps = 0;
  for (int k = 1; k < CELLS && !outside; ++k) {
    int a = at[k - 1], b = at[k];
    int dx = abs(a / (M * M) - b / (M * M)), dy = abs(a / M % M - b / M % M), dz = abs(a % M - b % M);
    jumps += dx + dy + dz != 1;
  }
  CHECK(jumps == 0);
  printf("Hilbert keys of the 16^3 corner: %d outside 0..4095 or repeated, %d non-neighbour steps\n", outside, jumps);
  free(at);
}

/* The lattice's spheres in the order given by perm (a lattice index per body); body 0 the plane. */
static void build_lattice(sg_scene *s, const int *perm) {
  CHECK_OK(sg_scene_create(s, NX * NY * NZ + 1, 1));
  const double zero[3] = {0, 0, 0}, size[3] = {R, 0, 0};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  for (int k = 0; k < NX * NY * NZ; ++k) {
    const int l = perm[k], ix = l % NX, iy = l / NX % NY, iz = l / (NX * NY);
    double p[3] = {2 * R * ix, 2 * R * iy, R + 2 * R * iz};
    CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, 1000, p, NULL, NULL, NULL));
    s->gid[s->n - 1] = l + 1;
  }
  CHECK_OK(sg_scene_update_mass(s));
}

/* Parts indexed by lattice index, from owners indexed by body. */
static void parts_by_lattice(const sg_scene *s, const int *owner, int *part) {
  for (int i = 1; i < s->n; ++i) part[s->gid[i] - 1] = owner[i];
}

static void check_parts(const int *part, int P) {
  const int n = NX * NY * NZ;
  int count[8] = {0};
  for (int l = 0; l < n; ++l) count[part[l]]++;
  int bad = 0;
  for (int p = 0; p < P; ++p) bad += abs(count[p] - n / P) > 1;
  CHECK(bad == 0);
  long long cut = 0; /* touching neighbours along x, y, z in different parts */
  for (int l = 0; l < n; ++l) {
    const int ix = l % NX, iy = l / NX % NY, iz = l / (NX * NY);
    cut += ix + 1 < NX && part[l] != part[l + 1];
    cut += iy + 1 < NY && part[l] != part[l + NX];
    cut += iz + 1 < NZ && part[l] != part[l + NX * NY];
  }
  const long long slabs = (long long)(P - 1) * NY * NZ;
  printf("P = %d: %d..%d bodies per part, cut %lld (slabs %lld)\n", P, count[0], count[P - 1], cut, slabs);
  CHECK(cut <= 2 * slabs);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  hilbert_is_a_curve();
  const int n = NX * NY * NZ;
  int *perm = malloc(sizeof(int) * n), *owner = malloc(sizeof(int) * (n + 1));
  int *part = malloc(sizeof(int) * n), *part_shuffled = malloc(sizeof(int) * n);
  for (int l = 0; l < n; ++l) perm[l] = l;
  sg_scene s, shuffled;
  build_lattice(&s, perm);
  srand(7);
  for (int l = n - 1; l > 0; --l) {
    int k = rand() % (l + 1), t = perm[l];
    perm[l] = perm[k];
    perm[k] = t;
  }
  build_lattice(&shuffled, perm);
  for (int P = 4; P <= 8; P += 4) {
    CHECK_OK(sg_partition_sfc(MPI_COMM_SELF, &s, P, owner));
    CHECK(owner[0] == -1);
    parts_by_lattice(&s, owner, part);
    check_parts(part, P);
    CHECK_OK(sg_partition_sfc(MPI_COMM_SELF, &shuffled, P, owner));
    parts_by_lattice(&shuffled, owner, part_shuffled);
    CHECK(memcmp(part, part_shuffled, sizeof(int) * n) == 0);
  }
  sg_scene_destroy(&s);
  sg_scene_destroy(&shuffled);
  free(perm); free(owner); free(part); free(part_shuffled);
  MPI_Finalize();
  return sg_test_exit();
}
