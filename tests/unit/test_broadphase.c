/* The grid broad phase of a static scene (dt = 0) lists exactly the pairs that the exact test
 * (sg_pair_may_touch) of an O(N^2) loop accepts, and every pair with a narrow-phase contact within
 * the margin. Random mixes of spheres, boxes and capsules with a plane and a wall; no pair of two
 * fixed bodies; no duplicates. Moving scenes: test_relative_sweep.c. */
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
    int missing = 0, extra = 0, both_fixed = 0;
    for (int i = 0; i < s.n; ++i)
      for (int j = i + 1; j < s.n; ++j) {
        int found = bsearch((int[2]){i, j}, bp.pairs, (size_t)bp.n, 2 * sizeof(int), cmp_pair) != NULL;
        if (found && s.fixed[i] && s.fixed[j]) both_fixed++;
        if (s.fixed[i] && s.fixed[j]) continue;
        /* listed whenever the narrow phase finds a contact, and exactly when the exact test accepts */
        sg_geom gi, gj;
        sg_manifold m;
        sg_scene_geom(&s, i, &gi);
        sg_scene_geom(&s, j, &gj);
        int narrow = sg_collide(&gi, &gj, margin, &m) > 0, exact = sg_pair_may_touch(&s, i, j, margin, 0.0, 0);
        if ((narrow || exact) && !found) missing++;
        if (found && !exact) extra++;
      }
    printf("trial %d: %d bodies, %d pairs, %d missing, %d not accepted by the exact test, %d fixed-fixed\n", trial,
           s.n, bp.n, missing, extra, both_fixed);
    CHECK(missing == 0);
    CHECK(extra == 0);
    CHECK(both_fixed == 0);
    sg_broadphase_destroy(&bp);
    sg_scene_destroy(&s);
  }
  return sg_test_exit();
}
