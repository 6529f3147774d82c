/* The grid broad phase misses no pair that a brute-force O(N^2) search finds: overlapping
 * margin-grown bounding spheres for bodies of ordinary size, and any pair with a narrow-phase
 * contact for the plane and the wall. Random mixes of spheres, boxes and capsules; no pair of two
 * fixed bodies; no duplicates. */
#include <stdlib.h>
#include "signorini/signorini.h"
#include "test_util.h"

static int cmp_pair(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

int main(void) {
  unsigned long long seed = 99;
  for (int trial = 0; trial < 6; ++trial) {
    sg_scene s;
    CHECK_OK(sg_scene_create(&s, 64, 1));
    const double zero[3] = {0, 0, 0};
    CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
    const double wall[3] = {0.05, 2.0, 1.0}, wp[3] = {1.0, 0, 0.5};
    CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, wall, 0, 1, 0, wp, NULL, NULL, NULL));
    int n = 300 + 200 * trial;
    for (int k = 0; k < n; ++k) {
      int shape = k % 3;
      double r = sg_test_rand(&seed, 0.01, 0.05);
      double size[3] = {r, shape == SG_SHAPE_BOX ? r * 0.7 : shape == SG_SHAPE_CAPSULE ? r : 0, shape == SG_SHAPE_BOX ? r * 1.3 : 0};
      double p[3] = {sg_test_rand(&seed, -1.2, 1.2), sg_test_rand(&seed, -1.2, 1.2), sg_test_rand(&seed, -0.1, 1.0)};
      double axis[3] = {sg_test_rand(&seed, -1, 1), sg_test_rand(&seed, -1, 1), sg_test_rand(&seed, -1, 1)}, q[4];
      v3_normalize(axis);
      quat_from_axis_angle(q, axis, sg_test_rand(&seed, 0, 3));
      CHECK_OK(sg_scene_add_body(&s, shape, size, 0, k % 50 == 0, 1000, p, q, NULL, NULL));
    }
    double margin = 0.01;
    sg_broadphase bp = {0};
    CHECK_OK(sg_broadphase_pairs(&bp, &s, margin, 0.0));
    qsort(bp.pairs, (size_t)bp.n, 2 * sizeof(int), cmp_pair);
    for (int k = 1; k < bp.n; ++k) CHECK(cmp_pair(bp.pairs + 2 * k - 2, bp.pairs + 2 * k) != 0);
    int missing = 0, both_fixed = 0;
    for (int i = 0; i < s.n; ++i)
      for (int j = i + 1; j < s.n; ++j) {
        double ri = sg_body_bounding_radius(&s, i), rj = sg_body_bounding_radius(&s, j);
        int found = bsearch((int[2]){i, j}, bp.pairs, (size_t)bp.n, 2 * sizeof(int), cmp_pair) != NULL;
        if (found && s.fixed[i] && s.fixed[j]) both_fixed++;
        if (s.fixed[i] && s.fixed[j]) continue;
        int must;
        if (!isfinite(ri) || !isfinite(rj) || ri > 0.5 || rj > 0.5) {
          /* plane or wall: the pair must be listed whenever the narrow phase finds a contact */
          sg_geom gi, gj;
          sg_manifold m;
          sg_scene_geom(&s, i, &gi);
          sg_scene_geom(&s, j, &gj);
          must = sg_collide(&gi, &gj, margin, &m) > 0;
        } else {
          double d[3];
          v3_sub(d, s.pos + 3 * i, s.pos + 3 * j);
          must = v3_norm(d) < ri + rj + margin;
        }
        if (must && !found) missing++;
      }
    printf("trial %d: %d bodies, %d pairs, %d missing, %d fixed-fixed\n", trial, s.n, bp.n, missing, both_fixed);
    CHECK(missing == 0);
    CHECK(both_fixed == 0);
    sg_broadphase_destroy(&bp);
    sg_scene_destroy(&s);
  }
  return sg_test_exit();
}
