/* Narrow phase, sphere against every shape: exact gaps and normals in hand-placed poses, the
 * margin rule, the coincident-centre fallback, and random poses checked against independent
 * distance computations. */
#include "narrow_test_util.h"

static void test_sphere_sphere(void) {
  sg_geom a = geom_make(SG_SHAPE_SPHERE, 0.5, 0, 0, 1.0, 2.0, 3.0);
  sg_geom b = geom_make(SG_SHAPE_SPHERE, 0.25, 0, 0, 1.3, 2.4, 3.0); /* distance 0.5 */
  sg_manifold m;
  CHECK(sg_collide(&a, &b, 0.0, &m) == 1);
  CHECK(manifold_sane(&m, 0.0));
  /* gap = distance - r1 - r2; everything is a few roundings of O(1) numbers: 1e-12. */
  CHECK_NEAR(m.p[0].gap, 0.5 - 0.5 - 0.25, 1e-12);
  /* normal from b toward a */
  CHECK_NEAR(m.p[0].normal[0], -0.6, 1e-12);
  CHECK_NEAR(m.p[0].normal[1], -0.8, 1e-12);
  CHECK_NEAR(m.p[0].normal[2], 0.0, 1e-12);
  /* midway between a's surface (a - 0.5 n) and b's surface (b + 0.25 n) */
  double on_a[3], on_b[3];
  v3_copy(on_a, a.pos);
  v3_axpy(on_a, -0.5, m.p[0].normal);
  v3_copy(on_b, b.pos);
  v3_axpy(on_b, 0.25, m.p[0].normal);
  for (int k = 0; k < 3; ++k) CHECK_NEAR(m.p[0].point[k], 0.5 * (on_a[k] + on_b[k]), 1e-12);
  CHECK(surface_mismatch(&a, &b, &m.p[0]) < 1e-12);

  /* Margin: gap exactly 1 (all numbers exact in binary) is reported only for margin > 1. */
  sg_geom c = geom_make(SG_SHAPE_SPHERE, 1, 0, 0, 0, 0, 0), d = geom_make(SG_SHAPE_SPHERE, 1, 0, 0, 3, 0, 0);
  CHECK(sg_collide(&c, &d, 1.0, &m) == 0);
  CHECK(sg_collide(&c, &d, 1.0 + 1e-9, &m) == 1);
  CHECK_NEAR(m.p[0].gap, 1.0, 1e-15);
  CHECK(sg_collide(&c, &d, 0.5, &m) == 0);

  /* Coincident centres: the fixed +z normal, gap = -(r1 + r2), no NaN. */
  sg_geom e = geom_make(SG_SHAPE_SPHERE, 0.3, 0, 0, 1, 1, 1), f = geom_make(SG_SHAPE_SPHERE, 0.2, 0, 0, 1, 1, 1);
  CHECK(sg_collide(&e, &f, 0.0, &m) == 1);
  CHECK(manifold_sane(&m, 0.0));
  CHECK_NEAR(m.p[0].normal[2], 1.0, 0.0);
  CHECK_NEAR(m.p[0].gap, -0.5, 1e-15);
}

static void test_sphere_plane(void) {
  /* Plane through (0, 0, 1) tilted 30 degrees about x; sphere centre 0.7 above it along the normal. */
  sg_geom plane = geom_make(SG_SHAPE_PLANE, 0, 0, 0, 0, 0, 1);
  geom_rotate(&plane, 1, 0, 0, M_PI / 6);
  double n[3];
  m3_col(n, plane.R, 2);
  sg_geom s = geom_make(SG_SHAPE_SPHERE, 0.5, 0, 0, 0.3, 0, 1);
  v3_axpy(s.pos, 0.7, n);
  sg_manifold m;
  CHECK(sg_collide(&s, &plane, 0.5, &m) == 1);
  CHECK(manifold_sane(&m, 0.5));
  CHECK_NEAR(m.p[0].gap, 0.2, 1e-12);
  for (int k = 0; k < 3; ++k) CHECK_NEAR(m.p[0].normal[k], n[k], 1e-15);
  CHECK(surface_mismatch(&s, &plane, &m.p[0]) < 1e-12);
  CHECK(sg_collide(&s, &plane, 0.1, &m) == 0);
  /* Swapped: the plane is A, so the normal points into the plane's solid side. */
  CHECK(sg_collide(&plane, &s, 0.5, &m) == 1);
  for (int k = 0; k < 3; ++k) CHECK_NEAR(m.p[0].normal[k], -n[k], 1e-15);
}

static void test_sphere_box(void) {
  /* Box with distinct half extents, rotated; positions given in its frame. */
  sg_geom box = geom_make(SG_SHAPE_BOX, 1.0, 2.0, 3.0, 0.5, -0.5, 0.25);
  geom_rotate(&box, 1, 2, 3, 0.7);
  double ax[3][3];
  for (int k = 0; k < 3; ++k) m3_col(ax[k], box.R, k);
  sg_geom s = geom_make(SG_SHAPE_SPHERE, 0.1, 0, 0, 0, 0, 0);
  sg_manifold m;

  /* Centre inside, 0.3 from the +y face (nearest): normal = +y axis, gap = -(0.3 + r). */
  double local_in[3] = {0.2, 1.7, 0.5};
  v3_copy(s.pos, box.pos);
  for (int k = 0; k < 3; ++k) v3_axpy(s.pos, local_in[k], ax[k]);
  CHECK(sg_collide(&s, &box, 0.0, &m) == 1);
  CHECK(manifold_sane(&m, 0.0));
  CHECK_NEAR(m.p[0].gap, -(0.3 + 0.1), 1e-12);
  for (int k = 0; k < 3; ++k) CHECK_NEAR(m.p[0].normal[k], ax[1][k], 1e-12);
  CHECK(surface_mismatch(&s, &box, &m.p[0]) < 1e-12);

  /* Outside beyond the +x,-z edge by (0.3, 0.4): distance 0.5, normal along (0.6, 0, -0.8). */
  double local_out[3] = {1.3, 0.5, -3.4};
  v3_copy(s.pos, box.pos);
  for (int k = 0; k < 3; ++k) v3_axpy(s.pos, local_out[k], ax[k]);
  CHECK(sg_collide(&s, &box, 1.0, &m) == 1);
  CHECK_NEAR(m.p[0].gap, 0.5 - 0.1, 1e-12);
  for (int k = 0; k < 3; ++k) CHECK_NEAR(m.p[0].normal[k], 0.6 * ax[0][k] - 0.8 * ax[2][k], 1e-12);
  CHECK(sg_collide(&s, &box, 0.3, &m) == 0);

  /* Centre exactly at the box centre: nearest face is -x/+x (smallest half extent), no NaN. */
  v3_copy(s.pos, box.pos);
  CHECK(sg_collide(&s, &box, 0.0, &m) == 1);
  CHECK(manifold_sane(&m, 0.0));
  CHECK_NEAR(m.p[0].gap, -(1.0 + 0.1), 1e-12);
  CHECK_NEAR(fabs(v3_dot(m.p[0].normal, ax[0])), 1.0, 1e-12);
}

static void test_sphere_capsule(void) {
  /* Capsule along x (local z turned onto x), half length 1, radius 0.2. */
  sg_geom cap = geom_make(SG_SHAPE_CAPSULE, 0.2, 1.0, 0, 0, 0, 0);
  geom_rotate(&cap, 0, 1, 0, M_PI / 2);
  sg_geom s = geom_make(SG_SHAPE_SPHERE, 0.3, 0, 0, 0.4, 0.0, 0.6);
  sg_manifold m;
  /* Beside the segment: distance 0.6 to the axis. */
  CHECK(sg_collide(&s, &cap, 0.5, &m) == 1);
  CHECK_NEAR(m.p[0].gap, 0.6 - 0.5, 1e-12);
  CHECK_NEAR(m.p[0].normal[2], 1.0, 1e-12);
  CHECK(surface_mismatch(&s, &cap, &m.p[0]) < 1e-12);
  /* Beyond the +x end: distance to the end point (1, 0, 0) is 0.5. */
  v3_set(s.pos, 1.3, 0.4, 0.0);
  CHECK(sg_collide(&s, &cap, 0.5, &m) == 1);
  CHECK_NEAR(m.p[0].gap, 0.5 - 0.5, 1e-12);
  CHECK_NEAR(m.p[0].normal[0], 0.6, 1e-12);
  CHECK_NEAR(m.p[0].normal[1], 0.8, 1e-12);
  /* Centre on the axis: pushed out sideways (normal perpendicular to the axis), no NaN. */
  v3_set(s.pos, 0.25, 0, 0);
  CHECK(sg_collide(&s, &cap, 0.0, &m) == 1);
  CHECK(manifold_sane(&m, 0.0));
  CHECK_NEAR(m.p[0].normal[0], 0.0, 1e-15);
  CHECK_NEAR(m.p[0].gap, -0.5, 1e-15);
}

/* Random poses: the reported gap equals the independent signed distance from the centre to the
 * other shape minus the radius. The searches are exact to rounding, so 1e-9 only covers
 * accumulated rounding on O(1) coordinates while being far below any geometric size (>= 0.05). */
static void test_sphere_random(void) {
  unsigned long long rng = 0x5eed1234abcdULL;
  int reported = 0, deep = 0;
  for (int it = 0; it < 4000; ++it) {
    int other = it % 4;
    sg_geom s = geom_make(SG_SHAPE_SPHERE, sg_test_rand(&rng, 0.05, 0.5), 0, 0, 0, 0, 0);
    sg_geom g = geom_make(other, sg_test_rand(&rng, 0.05, 0.8), sg_test_rand(&rng, 0.05, 0.8),
                          sg_test_rand(&rng, 0.05, 0.8), 0, 0, 0);
    if (other == SG_SHAPE_SPHERE) g.size[1] = g.size[2] = 0;
    if (other == SG_SHAPE_CAPSULE) g.size[2] = 0;
    geom_random_pose(&s, &rng, 1.0);
    geom_random_pose(&g, &rng, 1.0);
    double margin = sg_test_rand(&rng, 0.0, 0.3);
    double expected = shape_signed_distance(&g, s.pos) - s.size[0];
    sg_manifold m;
    int n = sg_collide(&s, &g, margin, &m);
    CHECK(n == m.n);
    CHECK(manifold_sane(&m, margin));
    if (n == 0) {
      CHECK(expected >= margin - 1e-9);
      continue;
    }
    ++reported;
    if (expected < 0) ++deep;
    CHECK(n == 1);
    CHECK_NEAR(m.p[0].gap, expected, 1e-9);
    if (other != SG_SHAPE_PLANE) CHECK(surface_mismatch(&s, &g, &m.p[0]) < 1e-9);
    /* Swapped order: same contact, normal flipped; exactly so when the dispatch swaps (different
     * shapes), to rounding (1e-12) when sphere-sphere recomputes it from the other side. */
    sg_manifold w;
    double tol = other == SG_SHAPE_SPHERE ? 1e-12 : 0.0, worst = 0;
    CHECK(sg_collide(&g, &s, margin, &w) == 1);
    worst = fabs(w.p[0].gap - m.p[0].gap);
    for (int k = 0; k < 3; ++k) {
      worst = fmax(worst, fabs(w.p[0].normal[k] + m.p[0].normal[k]));
      worst = fmax(worst, fabs(w.p[0].point[k] - m.p[0].point[k]));
    }
    CHECK(worst <= tol);
  }
  printf("sphere random: %d of 4000 poses in contact, %d penetrating\n", reported, deep);
  CHECK(reported > 400 && deep > 100); /* the poses exercise both regimes */
}

int main(void) {
  test_sphere_sphere();
  test_sphere_plane();
  test_sphere_box();
  test_sphere_capsule();
  test_sphere_random();
  return sg_test_exit();
}
