/* Narrow phase, boxes: box-plane corners, box-box face manifolds (aligned, rotated, overhanging,
 * reduced from 8 clip points), the edge-edge point, the margin rule, feature ids under small
 * perturbations, and random poses. */
#include "collision/narrow_internal.h"
#include "narrow_test_util.h"

static void centroid(const sg_manifold *m, double *c) {
  v3_set(c, 0, 0, 0);
  for (int i = 0; i < m->n; ++i) v3_axpy(c, 1.0 / m->n, m->p[i].point);
}

static void test_box_plane(void) {
  sg_geom plane = geom_make(SG_SHAPE_PLANE, 0, 0, 0, 0, 0, 0);
  sg_geom box = geom_make(SG_SHAPE_BOX, 0.5, 0.3, 0.2, 1.5, -2.0, 0.2 + 0.01);
  sg_manifold m;
  /* Resting 0.01 above the floor: the 4 bottom corners (vertex bit 2 = -z: ids 4..7). */
  CHECK(sg_collide(&box, &plane, 0.05, &m) == 4);
  CHECK(manifold_sane(&m, 0.05));
  for (int i = 0; i < m.n; ++i) {
    CHECK_NEAR(m.p[i].gap, 0.01, 1e-12);
    CHECK_NEAR(m.p[i].normal[2], 1.0, 0.0);
    CHECK_NEAR(m.p[i].point[2], 0.005, 1e-12); /* midway between corner and floor */
    CHECK(m.p[i].feature >= 4 && m.p[i].feature <= 7);
    CHECK(surface_mismatch(&box, &plane, &m.p[i]) < 1e-12);
  }
  CHECK(distinct_features(&m));
  double c[3];
  centroid(&m, c);
  CHECK_NEAR(c[0], 1.5, 1e-12);
  CHECK_NEAR(c[1], -2.0, 1e-12);
  /* Beyond the margin: nothing; penetrating: the same 4 corners with negative gaps. */
  CHECK(sg_collide(&box, &plane, 0.005, &m) == 0);
  box.pos[2] = 0.2 - 0.03;
  CHECK(sg_collide(&box, &plane, 0.0, &m) == 4);
  for (int i = 0; i < m.n; ++i) CHECK_NEAR(m.p[i].gap, -0.03, 1e-12);
  /* Tilted 0.3 rad about x: only the lower edge's 2 corners within a small margin. */
  geom_rotate(&box, 1, 0, 0, 0.3);
  box.pos[2] = 0.3 * sin(0.3) + 0.2 * cos(0.3) + 0.001; /* lowest corners 0.001 above */
  CHECK(sg_collide(&box, &plane, 0.01, &m) == 2);
  for (int i = 0; i < m.n; ++i) CHECK_NEAR(m.p[i].gap, 0.001, 1e-12);
}

/* A small cube (half 0.5) resting gap g above a larger slab (half 2, 2, 1) centred at the origin. */
static void resting_pair(sg_geom *top, sg_geom *bottom, double g) {
  *top = geom_make(SG_SHAPE_BOX, 0.5, 0.5, 0.5, 0.3, -0.2, 1.0 + 0.5 + g);
  *bottom = geom_make(SG_SHAPE_BOX, 2.0, 2.0, 1.0, 0, 0, 0);
}

static void test_box_on_box(void) {
  sg_geom a, b;
  sg_manifold m, w;
  for (int pass = 0; pass < 3; ++pass) {
    double g = pass == 0 ? 0.01 : (pass == 1 ? -0.02 : 0.0);
    resting_pair(&a, &b, g);
    CHECK(sg_collide(&a, &b, 0.05, &m) == 4);
    CHECK(manifold_sane(&m, 0.05));
    CHECK(distinct_features(&m));
    for (int i = 0; i < m.n; ++i) {
      CHECK_NEAR(m.p[i].gap, g, 1e-12);
      CHECK_NEAR(m.p[i].normal[2], 1.0, 1e-15); /* from the bottom box (B) up to A */
      CHECK_NEAR(m.p[i].point[2], 1.0 + 0.5 * g, 1e-12);
      CHECK(surface_mismatch(&a, &b, &m.p[i]) < 1e-12);
      /* the corners of the cube's bottom face */
      CHECK_NEAR(fabs(m.p[i].point[0] - 0.3), 0.5, 1e-12);
      CHECK_NEAR(fabs(m.p[i].point[1] + 0.2), 0.5, 1e-12);
    }
    double c[3];
    centroid(&m, c);
    CHECK_NEAR(c[0], 0.3, 1e-12);
    CHECK_NEAR(c[1], -0.2, 1e-12);
    /* Swapped: normals -z, same gaps (box-box is not swapped by the dispatch, so it recomputes:
     * same points to rounding). */
    CHECK(sg_collide(&b, &a, 0.05, &w) == 4);
    for (int i = 0; i < w.n; ++i) {
      CHECK_NEAR(w.p[i].normal[2], -1.0, 1e-15);
      CHECK_NEAR(w.p[i].gap, g, 1e-12);
      CHECK(surface_mismatch(&b, &a, &w.p[i]) < 1e-12);
    }
  }
  /* Margin: 0.03 apart is reported with margin 0.04 and not with 0.02. */
  resting_pair(&a, &b, 0.03);
  CHECK(sg_collide(&a, &b, 0.04, &m) == 4);
  CHECK(sg_collide(&a, &b, 0.02, &m) == 0);
}

static void test_rotated_box_on_box(void) {
  sg_geom a, b;
  sg_manifold m;
  resting_pair(&a, &b, -0.005);
  geom_rotate(&a, 0, 0, 1, M_PI / 4);
  CHECK(sg_collide(&a, &b, 0.01, &m) == 4);
  CHECK(manifold_sane(&m, 0.01));
  CHECK(distinct_features(&m));
  for (int i = 0; i < m.n; ++i) {
    CHECK_NEAR(m.p[i].gap, -0.005, 1e-12);
    CHECK_NEAR(m.p[i].normal[2], 1.0, 1e-15);
    CHECK(surface_mismatch(&a, &b, &m.p[i]) < 1e-12);
    /* corners of the turned cube: at half diagonal 0.5 sqrt 2 from its axis */
    double dx = m.p[i].point[0] - 0.3, dy = m.p[i].point[1] + 0.2;
    CHECK_NEAR(sqrt(dx * dx + dy * dy), 0.5 * sqrt(2.0), 1e-12);
  }
  double c[3];
  centroid(&m, c);
  CHECK_NEAR(c[0], 0.3, 1e-12);
  CHECK_NEAR(c[1], -0.2, 1e-12);
}

/* A cube tilted 10 degrees about x, its lowest edge 0.001 into the slab: 2 points on that edge
 * (the far edge is 2 sin 10 deg = 0.17 higher, beyond the margin). */
static void test_box_on_edge(void) {
  sg_geom a, b;
  sg_manifold m;
  resting_pair(&a, &b, 0);
  geom_rotate(&a, 1, 0, 0, 10 * M_PI / 180);
  double c = cos(10 * M_PI / 180), s = sin(10 * M_PI / 180);
  a.pos[2] = 1.0 + 0.5 * (c + s) - 0.001;
  CHECK(sg_collide(&a, &b, 0.01, &m) == 2);
  CHECK(manifold_sane(&m, 0.01));
  CHECK(distinct_features(&m));
  for (int i = 0; i < m.n; ++i) {
    CHECK_NEAR(m.p[i].gap, -0.001, 1e-12);
    CHECK_NEAR(m.p[i].normal[2], 1.0, 1e-12);
    CHECK_NEAR(fabs(m.p[i].point[0] - 0.3), 0.5, 1e-12); /* the two ends of the edge */
    CHECK(surface_mismatch(&a, &b, &m.p[i]) < 1e-12);
  }
}

static void test_overhang_and_reduction(void) {
  sg_manifold m;
  /* Cube overhanging the slab's +x edge (x = 2) by half its width: 4 points, all within the
   * overlap x in [1.7, 2]. */
  sg_geom a = geom_make(SG_SHAPE_BOX, 0.5, 0.5, 0.5, 2.0, 0, 1.5 - 0.01); /* x in [1.5, 2.5] */
  sg_geom b = geom_make(SG_SHAPE_BOX, 2.0, 2.0, 1.0, 0, 0, 0);
  CHECK(sg_collide(&a, &b, 0.0, &m) == 4);
  for (int i = 0; i < m.n; ++i) {
    CHECK_NEAR(m.p[i].gap, -0.01, 1e-12);
    CHECK(m.p[i].point[0] >= 1.5 - 1e-12 && m.p[i].point[0] <= 2.0 + 1e-12);
    CHECK(surface_mismatch(&a, &b, &m.p[i]) < 1e-12);
  }
  /* Two equal squares, one turned 45 degrees: the overlap is a regular octagon (8 clip points),
   * reduced to 4. The kept quadrilateral must cover at least half the octagon (the best inscribed
   * quadrilateral of a regular octagon covers 1/sqrt 2 = 71% of it). */
  a = geom_make(SG_SHAPE_BOX, 1.0, 1.0, 0.5, 0, 0, 0.5 + 0.5 - 0.02);
  geom_rotate(&a, 0, 0, 1, M_PI / 4);
  b = geom_make(SG_SHAPE_BOX, 1.0, 1.0, 0.5, 0, 0, 0);
  CHECK(sg_collide(&a, &b, 0.0, &m) == 4);
  CHECK(distinct_features(&m));
  double area = 0;
  /* area of the kept points' convex quadrilateral: order them by angle about the centre */
  double ang[4];
  int order[4] = {0, 1, 2, 3};
  for (int i = 0; i < 4; ++i) ang[i] = atan2(m.p[i].point[1], m.p[i].point[0]);
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      if (ang[order[j]] < ang[order[i]]) { int t = order[i]; order[i] = order[j]; order[j] = t; }
  for (int i = 0; i < 4; ++i) {
    const double *p = m.p[order[i]].point, *q = m.p[order[(i + 1) % 4]].point;
    area += 0.5 * (p[0] * q[1] - p[1] * q[0]);
  }
  double octagon = 8.0 * (sqrt(2.0) - 1.0); /* side 2: 2 (1 + sqrt 2) s^2 with s = 2 (sqrt 2 - 1) */
  printf("octagon reduction: kept area %.4f of %.4f\n", area, octagon);
  CHECK(area >= 0.5 * octagon);
  for (int i = 0; i < m.n; ++i) {
    CHECK_NEAR(m.p[i].gap, -0.02, 1e-12);
    CHECK(surface_mismatch(&a, &b, &m.p[i]) < 1e-12);
  }
}

/* The reduction alone: 8 points on a regular octagon of radius 1 with distinct gaps. The deepest
 * must survive, and the 4 kept points must span the octagon (area >= 1/sqrt 2 of it, the best an
 * inscribed quadrilateral can do, up to rounding). */
static void test_reduce(void) {
  sg_contact_point cand[8];
  double normal[3] = {0, 0, 1};
  for (int i = 0; i < 8; ++i) {
    double t = 2 * M_PI * i / 8 + 0.1;
    v3_set(cand[i].point, cos(t), sin(t), 0);
    v3_copy(cand[i].normal, normal);
    cand[i].gap = -0.01 * ((i * 5) % 8); /* deepest: i = 3 (-0.07) */
    cand[i].feature = (uint32_t)i;
  }
  sg_manifold m = {0};
  sg_narrow_reduce(cand, 8, normal, &m);
  CHECK(m.n == 4);
  CHECK(distinct_features(&m));
  int has_deepest = 0;
  for (int i = 0; i < m.n; ++i) has_deepest |= m.p[i].feature == 3;
  CHECK(has_deepest);
  double ang[4], area = 0;
  for (int i = 0; i < 4; ++i) ang[i] = fmod(atan2(m.p[i].point[1], m.p[i].point[0]) + 2 * M_PI, 2 * M_PI);
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      if (ang[j] < ang[i]) {
        double t = ang[i]; ang[i] = ang[j]; ang[j] = t;
      }
  for (int i = 0; i < 4; ++i) area += 0.5 * sin(fmod(ang[(i + 1) % 4] - ang[i] + 2 * M_PI, 2 * M_PI));
  double octagon = 8 * 0.5 * sin(M_PI / 4); /* 8 triangles of area sin(45 deg) / 2 */
  CHECK(area >= octagon / sqrt(2.0) - 1e-12);
  /* Up to 4 candidates pass through unchanged. */
  sg_manifold few = {0};
  sg_narrow_reduce(cand, 3, normal, &few);
  CHECK(few.n == 3 && few.p[2].feature == 2);
}

static void test_edge_edge(void) {
  /* Unit cubes turned 45 degrees about x (a, above) and about y (b): a's lowest edge runs along x,
   * b's highest along y, crossing above the origin. */
  sg_manifold m;
  double half_diag = 0.5 * sqrt(2.0);
  for (int pass = 0; pass < 2; ++pass) {
    double g = pass ? 0.01 : -0.01;
    sg_geom a = geom_make(SG_SHAPE_BOX, 0.5, 0.5, 0.5, 0, 0, 2 * half_diag + g);
    sg_geom b = geom_make(SG_SHAPE_BOX, 0.5, 0.5, 0.5, 0, 0, 0);
    geom_rotate(&a, 1, 0, 0, M_PI / 4);
    geom_rotate(&b, 0, 1, 0, M_PI / 4);
    CHECK(sg_collide(&a, &b, 0.02, &m) == 1);
    CHECK(manifold_sane(&m, 0.02));
    CHECK_NEAR(m.p[0].gap, g, 1e-12);
    CHECK_NEAR(m.p[0].normal[2], 1.0, 1e-12);
    CHECK_NEAR(m.p[0].point[0], 0.0, 1e-12);
    CHECK_NEAR(m.p[0].point[1], 0.0, 1e-12);
    CHECK_NEAR(m.p[0].point[2], half_diag + 0.5 * g, 1e-12);
    CHECK(surface_mismatch(&a, &b, &m.p[0]) < 1e-12);
    CHECK(sg_collide(&a, &b, 0.0, &m) == (g < 0 ? 1 : 0));
  }
}

/* Feature ids must survive a small change of pose (a warm start follows them). */
static void test_feature_stability(void) {
  sg_manifold m0, m1;
  for (int variant = 0; variant < 3; ++variant) {
    sg_geom a, b;
    resting_pair(&a, &b, -0.001);
    if (variant == 1) geom_rotate(&a, 0, 0, 1, M_PI / 4);
    if (variant == 2) { b = geom_make(SG_SHAPE_PLANE, 0, 0, 0, 0, 0, 1.0); }
    CHECK(sg_collide(&a, &b, 0.01, &m0) == 4);
    unsigned long long rng = 42 + (unsigned long long)variant;
    for (int trial = 0; trial < 20; ++trial) {
      sg_geom p = a;
      geom_turn(&p, sg_test_rand(&rng, -1, 1), sg_test_rand(&rng, -1, 1), sg_test_rand(&rng, -1, 1),
                sg_test_rand(&rng, -1e-4, 1e-4));
      for (int k = 0; k < 3; ++k) p.pos[k] += sg_test_rand(&rng, -1e-5, 1e-5);
      CHECK(sg_collide(&p, &b, 0.01, &m1) == 4);
      CHECK(same_features(&m0, &m1));
    }
  }
  /* The edge-edge contact keeps its id too. */
  double half_diag = 0.5 * sqrt(2.0);
  sg_geom a = geom_make(SG_SHAPE_BOX, 0.5, 0.5, 0.5, 0, 0, 2 * half_diag - 0.01);
  sg_geom b = geom_make(SG_SHAPE_BOX, 0.5, 0.5, 0.5, 0, 0, 0);
  geom_rotate(&a, 1, 0, 0, M_PI / 4);
  geom_rotate(&b, 0, 1, 0, M_PI / 4);
  CHECK(sg_collide(&a, &b, 0.0, &m0) == 1);
  geom_turn(&a, 0.3, 0.5, 0.8, 1e-3);
  a.pos[0] += 1e-3;
  CHECK(sg_collide(&a, &b, 0.0, &m1) == 1);
  CHECK(same_features(&m0, &m1));
}

/* Random poses: invariants, at most 4 points, every penetrating point (and every face point) has
 * its two surface points on the two boxes (1e-9: rounding of O(1) coordinates), and boxes that
 * visibly overlap (a corner 1e-6 inside the other box) always get a contact. */
static void test_box_random(void) {
  unsigned long long rng = 0xb0c5b0c5ULL;
  int contacts = 0, edge_points = 0;
  for (int it = 0; it < 3000; ++it) {
    sg_geom a = geom_make(SG_SHAPE_BOX, sg_test_rand(&rng, 0.1, 0.8), sg_test_rand(&rng, 0.1, 0.8),
                          sg_test_rand(&rng, 0.1, 0.8), 0, 0, 0);
    sg_geom b = geom_make(SG_SHAPE_BOX, sg_test_rand(&rng, 0.1, 0.8), sg_test_rand(&rng, 0.1, 0.8),
                          sg_test_rand(&rng, 0.1, 0.8), 0, 0, 0);
    geom_random_pose(&a, &rng, 0.8);
    geom_random_pose(&b, &rng, 0.8);
    double margin = sg_test_rand(&rng, 0, 0.1);
    sg_manifold m;
    int n = sg_collide(&a, &b, margin, &m);
    CHECK(manifold_sane(&m, margin));
    CHECK(n <= 4);
    CHECK(distinct_features(&m));
    if (n) ++contacts;
    for (int i = 0; i < n; ++i) {
      int edge = m.p[i].feature >= 8192;
      edge_points += edge;
      if (m.p[i].gap <= 0 || !edge) {
        double e = surface_mismatch(&a, &b, &m.p[i]);
        if (!(e < 1e-9)) fprintf(stderr, "pose %d point %d: surface mismatch %g\n", it, i, e);
        CHECK(e < 1e-9);
      }
    }
    int overlap = 0;
    for (int v = 0; v < 8; ++v) {
      double local[3], x[3];
      for (int k = 0; k < 3; ++k) local[k] = (v >> k & 1) ? -a.size[k] : a.size[k];
      m3_mul_v(x, a.R, local);
      v3_add(x, x, a.pos);
      if (box_signed_distance(&b, x) < -1e-6) overlap = 1;
    }
    if (overlap) CHECK(n > 0);
  }
  printf("box random: %d of 3000 poses in contact, %d edge-edge points\n", contacts, edge_points);
  CHECK(contacts > 300 && edge_points > 20);
}

int main(void) {
  test_box_plane();
  test_box_on_box();
  test_rotated_box_on_box();
  test_box_on_edge();
  test_overhang_and_reduction();
  test_reduce();
  test_edge_edge();
  test_feature_stability();
  test_box_random();
  return sg_test_exit();
}
