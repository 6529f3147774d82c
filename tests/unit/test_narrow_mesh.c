/* A sphere against a triangle mesh: on a tessellated plane, one contact at any point (face,
 * edge, vertex) with the plane's gap and normal, from above and from below; in a concave corner
 * one contact per face; over a convex ridge one contact at the edge; on a random folded surface
 * the deepest contact is the true distance (a search over every triangle) and every contact's
 * point lies on the mesh. */
#include "mesh_test_util.h"
#include "narrow_test_util.h"

static sg_geom mesh_geom(const sg_mesh *m) {
  sg_geom g = geom_make(SG_SHAPE_MESH, 0, 0, 0, 0, 0, 0);
  g.mesh = m;
  return g;
}

static void test_tessellated_plane(void) {
  sg_mesh *m = mesh_tessellated_square(6, 0.1);
  sg_geom w = mesh_geom(m);
  const double r = 0.05, pen = 1e-3;
  /* a face inside, the middle of an edge, a vertex where 4, 6 or 8 triangles meet, a diagonal */
  const double at[][2] = {{0.031, 0.017}, {0.05, 0.0}, {0.0, 0.0}, {0.1, 0.0}, {0.1, 0.1}, {0.05, 0.05}, {-0.15, 0.25}};
  for (size_t k = 0; k < sizeof at / sizeof at[0]; ++k)
    for (int side = -1; side <= 1; side += 2) {
      sg_geom s = geom_make(SG_SHAPE_SPHERE, r, 0, 0, at[k][0], at[k][1], side * (r - pen));
      sg_manifold out;
      int n = sg_collide(&s, &w, 0.01, &out);
      if (n != 1) fprintf(stderr, "point (%g, %g) side %d: %d contacts\n", at[k][0], at[k][1], side, n);
      CHECK(n == 1);
      CHECK_NEAR(out.p[0].gap, -pen, 1e-14);
      CHECK_NEAR(out.p[0].normal[2], side, 1e-14);
    }
  /* beside the mesh's border: the rim (a boundary edge) is the contact, its normal tilted */
  sg_geom s = geom_make(SG_SHAPE_SPHERE, r, 0, 0, 0.3 + 0.03, 0.01, 0.04);
  sg_manifold out;
  CHECK(sg_collide(&s, &w, 0.01, &out) == 1);
  CHECK_NEAR(out.p[0].gap, 0.0, 1e-14);
  CHECK_NEAR(out.p[0].normal[0], 0.6, 1e-14);
  sg_mesh_release(&m);
}

/* Two unit squares (4 triangles) folded along the x axis: angle > 0 lifts the y > 0 half. */
static sg_mesh *folded(double angle) {
  const double c = cos(angle), s = sin(angle);
  const double v[] = {-1, -1, 0, 1, -1, 0, 1, 0, 0, -1, 0, 0, 1, c, s, -1, c, s};
  const int t[] = {0, 1, 2, 0, 2, 3, 3, 2, 4, 3, 4, 5};
  sg_mesh *m = NULL;
  CHECK_OK(sg_mesh_build("fold", 6, v, 4, t, &m));
  return m;
}

static void test_corner_and_ridge(void) {
  /* concave: the y > 0 half turned up by 90 degrees, a wall; a sphere in the corner */
  sg_mesh *m = folded(0.5 * M_PI);
  sg_geom w = mesh_geom(m), s = geom_make(SG_SHAPE_SPHERE, 0.1, 0, 0, 0.2, -0.099, 0.099);
  sg_manifold out;
  CHECK(sg_collide(&s, &w, 0.01, &out) == 2);
  int up = 0, side = 0;
  for (int k = 0; k < out.n; ++k) {
    up += fabs(out.p[k].normal[2] - 1) < 1e-12;
    side += fabs(out.p[k].normal[1] + 1) < 1e-12;
    CHECK_NEAR(out.p[k].gap, -0.001, 1e-14);
  }
  CHECK(up == 1 && side == 1);
  sg_mesh_release(&m);
  /* convex: the y > 0 half turned down by 30 degrees, a ridge along x; a sphere over it */
  m = folded(-M_PI / 6);
  w = mesh_geom(m);
  s = geom_make(SG_SHAPE_SPHERE, 0.1, 0, 0, 0.3, 0.01, 0.0999);
  CHECK(sg_collide(&s, &w, 0.01, &out) == 1);
  CHECK(out.p[0].feature >= 4u && out.p[0].feature < 4u + (uint32_t)m->n_edges); /* an edge */
  CHECK_NEAR(out.p[0].gap, hypot(0.01, 0.0999) - 0.1, 1e-14);
  sg_mesh_release(&m);
}

/* A random height field, folded and turned: the deepest contact is the nearest triangle's. */
static void test_random_surface(void) {
  unsigned long long rng = 0x3e5bULL;
  const int n = 5, nv = (n + 1) * (n + 1);
  sg_mesh *flat = mesh_tessellated_square(n, 0.2);
  double *v = malloc(3 * (size_t)nv * sizeof *v);
  memcpy(v, flat->vertices, 3 * (size_t)nv * sizeof *v);
  for (int k = 0; k < nv; ++k) v[3 * k + 2] = sg_test_rand(&rng, -0.08, 0.08);
  sg_mesh *m = NULL;
  CHECK_OK(sg_mesh_build("bumps", nv, v, flat->n_triangles, flat->triangles, &m));
  sg_geom w = mesh_geom(m);
  geom_random_pose(&w, &rng, 0.3);
  int touched = 0;
  for (int it = 0; it < 400; ++it) {
    sg_geom s = geom_make(SG_SHAPE_SPHERE, sg_test_rand(&rng, 0.03, 0.15), 0, 0, 0, 0, 0);
    double local[3] = {sg_test_rand(&rng, -0.5, 0.5), sg_test_rand(&rng, -0.5, 0.5), sg_test_rand(&rng, -0.25, 0.25)};
    m3_mul_v(s.pos, w.R, local);
    v3_add(s.pos, s.pos, w.pos);
    double best = INFINITY, q[3], d[3];
    for (int t = 0; t < m->n_triangles; ++t) {
      sg_mesh_closest(m, t, local, q);
      v3_sub(d, local, q);
      best = fmin(best, v3_norm(d));
    }
    sg_manifold out;
    int got = sg_collide(&s, &w, 0.05, &out);
    CHECK(manifold_sane(&out, 0.05));
    if (best - s.size[0] < 0.05) {
      CHECK(got >= 1);
      if (got >= 1) CHECK_NEAR(manifold_min_gap(&out), best - s.size[0], 1e-12);
      touched++;
    } else {
      CHECK(got == 0);
    }
    CHECK(distinct_features(&out));
  }
  printf("random surface: %d of 400 spheres within reach\n", touched);
  CHECK(touched > 100);
  free(v);
  sg_mesh_release(&flat);
  sg_mesh_release(&m);
}

int main(void) {
  test_tessellated_plane();
  test_corner_and_ridge();
  test_random_surface();
  return sg_test_exit();
}
