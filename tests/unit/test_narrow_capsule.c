/* Narrow phase, capsules: against a plane (2 ends), against a capsule (crossing: 1 point,
 * parallel: the 2 overlap ends), against a box (lying on a face: 2 points; on an edge: 1), margin
 * rule, feature ids under small perturbations, and random poses checked against independent
 * segment distances. */
#include "narrow_test_util.h"

/* Capsule of radius r and half length h lying along world x (local z turned onto x). */
static sg_geom capsule_along_x(double r, double h, double x, double y, double z) {
  sg_geom g = geom_make(SG_SHAPE_CAPSULE, r, h, 0, x, y, z);
  geom_rotate(&g, 0, 1, 0, M_PI / 2);
  return g;
}

static void test_capsule_plane(void) {
  sg_geom plane = geom_make(SG_SHAPE_PLANE, 0, 0, 0, 0, 0, 0);
  sg_geom cap = capsule_along_x(0.1, 0.5, 0.2, 0.3, 0.1 + 0.02);
  sg_manifold m;
  CHECK(sg_collide(&cap, &plane, 0.05, &m) == 2);
  CHECK(manifold_sane(&m, 0.05));
  CHECK(distinct_features(&m));
  for (int i = 0; i < 2; ++i) {
    CHECK_NEAR(m.p[i].gap, 0.02, 1e-12);
    CHECK_NEAR(m.p[i].normal[2], 1.0, 0.0);
    CHECK_NEAR(fabs(m.p[i].point[0] - 0.2), 0.5, 1e-12); /* under the two ends */
    CHECK_NEAR(m.p[i].point[2], 0.01, 1e-12);
    CHECK(surface_mismatch(&cap, &plane, &m.p[i]) < 1e-12);
  }
  CHECK(sg_collide(&cap, &plane, 0.01, &m) == 0);
  /* Standing upright: only the lower end. */
  sg_geom up = geom_make(SG_SHAPE_CAPSULE, 0.1, 0.5, 0, 0, 0, 0.6 - 0.01);
  CHECK(sg_collide(&up, &plane, 0.05, &m) == 1);
  CHECK_NEAR(m.p[0].gap, -0.01, 1e-12);
  CHECK(m.p[0].feature == 0);
}

static void test_capsule_capsule(void) {
  sg_manifold m, w;
  /* Crossing at right angles, a above b by 0.35 between axes: one point, gap = 0.35 - r1 - r2. */
  sg_geom a = capsule_along_x(0.1, 1.0, 0.2, 0.1, 0.35);
  sg_geom b = geom_make(SG_SHAPE_CAPSULE, 0.2, 1.0, 0, 0, 0, 0);
  geom_rotate(&b, 1, 0, 0, M_PI / 2); /* along y */
  CHECK(sg_collide(&a, &b, 0.1, &m) == 1);
  CHECK(manifold_sane(&m, 0.1));
  CHECK_NEAR(m.p[0].gap, 0.35 - 0.3, 1e-12);
  CHECK_NEAR(m.p[0].normal[2], 1.0, 1e-12);
  CHECK_NEAR(m.p[0].point[0], 0.0, 1e-12);
  CHECK_NEAR(m.p[0].point[1], 0.1, 1e-12);
  CHECK(surface_mismatch(&a, &b, &m.p[0]) < 1e-12);
  CHECK(sg_collide(&a, &b, 0.04, &m) == 0);
  /* Axes touching: the common perpendicular, turned toward a; no NaN. */
  a.pos[2] = 0.0;
  CHECK(sg_collide(&a, &b, 0.0, &m) == 1);
  CHECK(manifold_sane(&m, 0.0));
  CHECK_NEAR(m.p[0].gap, -0.3, 1e-12);
  CHECK_NEAR(fabs(m.p[0].normal[2]), 1.0, 1e-12);
  CHECK(sg_collide(&b, &a, 0.0, &w) == 1); /* the other order flips it */
  CHECK_NEAR(w.p[0].normal[2], -m.p[0].normal[2], 1e-12);

  /* Parallel, side by side 0.25 apart in y, shifted 0.6 along x: points at both ends of the
   * overlap x in [-0.4, 1.0]. Anti-parallel (b turned end for end) gives the same. */
  for (int flip = 0; flip < 2; ++flip) {
    a = capsule_along_x(0.1, 1.0, 0.6, 0.25, 0);
    b = capsule_along_x(0.1, 1.0, 0, 0, 0);
    if (flip) geom_rotate(&b, 0, 1, 0, -M_PI / 2);
    CHECK(sg_collide(&a, &b, 0.1, &m) == 2);
    CHECK(manifold_sane(&m, 0.1));
    CHECK(distinct_features(&m));
    double xs[2];
    for (int i = 0; i < 2; ++i) {
      CHECK_NEAR(m.p[i].gap, 0.05, 1e-12);
      CHECK_NEAR(m.p[i].normal[1], 1.0, 1e-12);
      CHECK(surface_mismatch(&a, &b, &m.p[i]) < 1e-12);
      xs[i] = m.p[i].point[0];
    }
    CHECK_NEAR(fmin(xs[0], xs[1]), -0.4, 1e-12);
    CHECK_NEAR(fmax(xs[0], xs[1]), 1.0, 1e-12);
  }
  /* Collinear overlapping axes: a perpendicular fallback, both points, no NaN. */
  a = capsule_along_x(0.1, 1.0, 0.5, 0, 0);
  b = capsule_along_x(0.1, 1.0, 0, 0, 0);
  CHECK(sg_collide(&a, &b, 0.0, &m) == 2);
  CHECK(manifold_sane(&m, 0.0));
  for (int i = 0; i < m.n; ++i) {
    CHECK_NEAR(m.p[i].normal[0], 0.0, 1e-15);
    CHECK_NEAR(m.p[i].gap, -0.2, 1e-15);
  }
  /* Parallel but end to end (no overlap): one point between the facing ends. */
  a = capsule_along_x(0.1, 1.0, 2.3, 0, 0);
  CHECK(sg_collide(&a, &b, 0.2, &m) == 1);
  CHECK_NEAR(m.p[0].gap, 0.1, 1e-12);
  CHECK_NEAR(m.p[0].normal[0], 1.0, 1e-12);
}

/* A box of half extents (1, 0.5, 0.25) at the origin and a capsule of radius 0.1 along x. */
static void test_box_capsule(void) {
  sg_geom box = geom_make(SG_SHAPE_BOX, 1.0, 0.5, 0.25, 0, 0, 0);
  sg_manifold m, w;
  /* Lying on the top face, inside its outline: 2 points at the capsule ends. */
  for (int pass = 0; pass < 2; ++pass) {
    double g = pass ? -0.02 : 0.01;
    sg_geom cap = capsule_along_x(0.1, 0.4, 0.3, 0.1, 0.25 + 0.1 + g);
    CHECK(sg_collide(&box, &cap, 0.05, &m) == 2);
    CHECK(manifold_sane(&m, 0.05));
    CHECK(distinct_features(&m));
    for (int i = 0; i < 2; ++i) {
      CHECK_NEAR(m.p[i].gap, g, 1e-12);
      CHECK_NEAR(m.p[i].normal[2], -1.0, 1e-12); /* from the capsule (B) down into the box (A) */
      CHECK_NEAR(fabs(m.p[i].point[0] - 0.3), 0.4, 1e-12);
      CHECK_NEAR(m.p[i].point[2], 0.25 + 0.5 * g, 1e-12);
      CHECK(surface_mismatch(&box, &cap, &m.p[i]) < 1e-12);
    }
    /* Capsule first: the same points, normals up. */
    CHECK(sg_collide(&cap, &box, 0.05, &w) == 2);
    for (int i = 0; i < 2; ++i) {
      CHECK(w.p[i].gap == m.p[i].gap && w.p[i].feature == m.p[i].feature);
      CHECK(w.p[i].normal[2] == -m.p[i].normal[2]);
    }
  }
  /* Overhanging the +x edge: 2 points, the outer one clipped at the edge x = 1. */
  sg_geom cap = capsule_along_x(0.1, 0.4, 1.1, 0, 0.25 + 0.1 + 0.01);
  CHECK(sg_collide(&box, &cap, 0.05, &m) == 2);
  for (int i = 0; i < 2; ++i) CHECK_NEAR(m.p[i].gap, 0.01, 1e-12);
  CHECK_NEAR(fmax(m.p[0].point[0], m.p[1].point[0]), 1.0, 1e-9);
  CHECK_NEAR(fmin(m.p[0].point[0], m.p[1].point[0]), 0.7, 1e-12);
  /* Longer than the box, lying across it along y: clipped at both long edges y = -0.5, 0.5. */
  cap = geom_make(SG_SHAPE_CAPSULE, 0.1, 2.0, 0, 0.2, 0, 0.25 + 0.1 - 0.01);
  geom_rotate(&cap, 1, 0, 0, M_PI / 2);
  CHECK(sg_collide(&box, &cap, 0.0, &m) == 2);
  for (int i = 0; i < 2; ++i) {
    CHECK_NEAR(m.p[i].gap, -0.01, 1e-12);
    CHECK_NEAR(fabs(m.p[i].point[1]), 0.5, 1e-9);
    CHECK(surface_mismatch(&box, &cap, &m.p[i]) < 1e-9);
  }
  /* Sunk into the top face (axis below the face by 0.05): still 2 points, gap = -(0.05 + r). */
  cap = capsule_along_x(0.1, 0.4, 0, 0, 0.25 - 0.05);
  CHECK(sg_collide(&box, &cap, 0.0, &m) == 2);
  for (int i = 0; i < 2; ++i) {
    CHECK_NEAR(m.p[i].gap, -0.15, 1e-12);
    CHECK_NEAR(m.p[i].normal[2], -1.0, 1e-12);
    CHECK(surface_mismatch(&box, &cap, &m.p[i]) < 1e-12);
  }
  /* Standing upright on the face: one point under the lower end. */
  cap = geom_make(SG_SHAPE_CAPSULE, 0.1, 0.4, 0, 0.5, 0.2, 0.25 + 0.5 + 0.01);
  CHECK(sg_collide(&box, &cap, 0.05, &m) == 1);
  CHECK_NEAR(m.p[0].gap, 0.01, 1e-12);
  /* Draped over the box's top +x edge (along y) at 45 degrees: touches the edge only. */
  cap = geom_make(SG_SHAPE_CAPSULE, 0.1, 0.6, 0, 1.0, 0, 0.25);
  geom_rotate(&cap, 0, 1, 0, -M_PI / 4); /* axis along (-1, 0, 1)/sqrt 2 */
  double shift = 0.1 + 0.01;             /* axis this far from the edge, along (1, 0, 1)/sqrt 2 */
  cap.pos[0] += shift / sqrt(2.0);
  cap.pos[2] += shift / sqrt(2.0);
  CHECK(sg_collide(&box, &cap, 0.05, &m) == 1);
  CHECK_NEAR(m.p[0].gap, 0.01, 1e-12);
  CHECK_NEAR(m.p[0].normal[0], -1 / sqrt(2.0), 1e-12); /* from the capsule (B) into the box (A) */
  CHECK_NEAR(m.p[0].normal[2], -1 / sqrt(2.0), 1e-12);
  CHECK(surface_mismatch(&box, &cap, &m.p[0]) < 1e-12);
  /* Same, but the segment crosses into the box past the edge: one penetrating edge point. */
  cap.pos[0] -= 2 * shift / sqrt(2.0);
  cap.pos[2] -= 2 * shift / sqrt(2.0);
  CHECK(sg_collide(&box, &cap, 0.0, &m) == 1);
  CHECK_NEAR(m.p[0].gap, -shift - 0.1, 1e-12);
  CHECK(surface_mismatch(&box, &cap, &m.p[0]) < 1e-12);
}

static void test_capsule_feature_stability(void) {
  sg_geom box = geom_make(SG_SHAPE_BOX, 1.0, 0.5, 0.25, 0, 0, 0);
  sg_geom plane = geom_make(SG_SHAPE_PLANE, 0, 0, 0, 0, 0, 0.25);
  sg_geom other = capsule_along_x(0.1, 1.0, 0.1, 0.1, 0.25 + 0.1);
  sg_geom base = capsule_along_x(0.1, 0.4, 0.3, 0.1, 0.25 + 0.1 - 0.002);
  const sg_geom *targets[3] = {&box, &plane, &other};
  unsigned long long rng = 7;
  for (int t = 0; t < 3; ++t) {
    sg_geom lying = base;
    if (t == 2) lying.pos[2] = 0.25 + 0.1 - 0.002 + 0.2; /* on top of the other capsule */
    sg_manifold m0, m1;
    CHECK(sg_collide(&lying, targets[t], 0.01, &m0) == 2);
    for (int trial = 0; trial < 20; ++trial) {
      sg_geom p = lying;
      geom_turn(&p, sg_test_rand(&rng, -1, 1), sg_test_rand(&rng, -1, 1), sg_test_rand(&rng, -1, 1),
                sg_test_rand(&rng, -1e-4, 1e-4));
      for (int k = 0; k < 3; ++k) p.pos[k] += sg_test_rand(&rng, -1e-5, 1e-5);
      CHECK(sg_collide(&p, targets[t], 0.01, &m1) == 2);
      CHECK(same_features(&m0, &m1));
    }
  }
}

/* Random poses. Capsule-capsule: the smallest gap equals the searched segment distance minus the
 * radii. Box-capsule, separated segment: the smallest gap equals the searched segment-box
 * distance minus r; segment inside the box: the push-out is at least the deepest point's depth.
 * The searches are exact to rounding, so 1e-9 covers rounding on O(1) coordinates only.
 * Capsule-plane: the lower end's gap (1e-12, a dot product). */
static void test_capsule_random(void) {
  unsigned long long rng = 0xcab5u;
  int cc = 0, bc_sep = 0, bc_pen = 0, two = 0;
  for (int it = 0; it < 3000; ++it) {
    int kind = it % 3; /* 0: capsule-capsule, 1: box-capsule, 2: capsule-plane */
    sg_geom cap = geom_make(SG_SHAPE_CAPSULE, sg_test_rand(&rng, 0.05, 0.3), sg_test_rand(&rng, 0.0, 0.8), 0, 0, 0, 0);
    sg_geom g;
    if (kind == 0) g = geom_make(SG_SHAPE_CAPSULE, sg_test_rand(&rng, 0.05, 0.3), sg_test_rand(&rng, 0.0, 0.8), 0, 0, 0, 0);
    else if (kind == 1)
      g = geom_make(SG_SHAPE_BOX, sg_test_rand(&rng, 0.1, 0.8), sg_test_rand(&rng, 0.1, 0.8), sg_test_rand(&rng, 0.1, 0.8), 0, 0, 0);
    else g = geom_make(SG_SHAPE_PLANE, 0, 0, 0, 0, 0, 0);
    geom_random_pose(&cap, &rng, 0.8);
    geom_random_pose(&g, &rng, 0.8);
    double margin = sg_test_rand(&rng, 0, 0.2);
    sg_manifold m;
    int n = sg_collide(&cap, &g, margin, &m);
    CHECK(manifold_sane(&m, margin));
    CHECK(distinct_features(&m));
    CHECK(n <= (kind == 0 ? 3 : 2));
    if (n == 2) ++two;
    double p0[3], p1[3];
    capsule_ends(&cap, p0, p1);
    double expected, tol;
    if (kind == 0) {
      double q0[3], q1[3];
      capsule_ends(&g, q0, q1);
      expected = segment_segment_distance_search(p0, p1, q0, q1) - cap.size[0] - g.size[0];
      tol = 1e-9;
      cc += n > 0;
    } else if (kind == 1) {
      double d = segment_box_distance_search(p0, p1, &g);
      if (d < 0) {
        /* Segment inside the box: any separating push is at least the deepest point's depth. */
        CHECK(n > 0);
        if (n) CHECK(manifold_min_gap(&m) <= d - cap.size[0] + 1e-9);
        ++bc_pen;
        continue;
      }
      expected = d - cap.size[0];
      tol = 1e-9;
      bc_sep += n > 0;
    } else {
      expected = fmin(shape_signed_distance(&g, p0), shape_signed_distance(&g, p1)) - cap.size[0];
      tol = 1e-12;
    }
    if (n == 0) {
      CHECK(expected >= margin - tol);
      continue;
    }
    double got = manifold_min_gap(&m);
    if (!(fabs(got - expected) <= tol))
      fprintf(stderr, "pose %d (kind %d): min gap %.15g, expected %.15g\n", it, kind, got, expected);
    CHECK(fabs(got - expected) <= tol);
    /* Surface points: the other shape's lies on its surface. The capsule's is on its surface for
     * a single point; with 2 points (a clip end or segment end), the end's sphere touches, which
     * lies on or inside the capsule (the segment may rise away from that end). */
    for (int i = 0; i < n; ++i) {
      double on_cap[3], on_other[3];
      v3_copy(on_cap, m.p[i].point);
      v3_axpy(on_cap, 0.5 * m.p[i].gap, m.p[i].normal);
      v3_copy(on_other, m.p[i].point);
      v3_axpy(on_other, -0.5 * m.p[i].gap, m.p[i].normal);
      double e_other = fabs(shape_signed_distance(&g, on_other));
      double d_cap = shape_signed_distance(&cap, on_cap);
      int ok = e_other < 1e-9 && (n == 1 ? fabs(d_cap) < 1e-9 : d_cap < 1e-9);
      if (!ok) fprintf(stderr, "pose %d (kind %d) point %d/%d: off surfaces by %g, %g\n", it, kind, i, n, e_other, d_cap);
      CHECK(ok);
    }
  }
  printf("capsule random: %d capsule-capsule contacts, box-capsule %d separated / %d inside, %d two-point\n",
         cc, bc_sep, bc_pen, two);
  CHECK(cc > 100 && bc_sep > 100 && bc_pen > 50);
}

int main(void) {
  test_capsule_plane();
  test_capsule_capsule();
  test_box_capsule();
  test_capsule_feature_stability();
  test_capsule_random();
  return sg_test_exit();
}
