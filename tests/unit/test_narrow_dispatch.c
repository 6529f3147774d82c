/* Narrow-phase dispatch: the argument order only flips the normals (exactly, for pairs of
 * different shapes), plane-plane and unknown shapes give nothing, and degenerate placements
 * (coincident centres, identical bodies, zero-length capsules) never give NaN or non-unit normals. */
#include "narrow_test_util.h"

static sg_geom random_shape(int shape, unsigned long long *rng) {
  sg_geom g = geom_make(shape, sg_test_rand(rng, 0.1, 0.6), sg_test_rand(rng, 0.1, 0.6),
                        sg_test_rand(rng, 0.1, 0.6), 0, 0, 0);
  if (shape == SG_SHAPE_SPHERE) g.size[1] = g.size[2] = 0;
  if (shape == SG_SHAPE_CAPSULE) g.size[2] = 0;
  if (shape == SG_SHAPE_PLANE) g.size[0] = g.size[1] = g.size[2] = 0;
  geom_random_pose(&g, rng, 0.6);
  return g;
}

static void test_swap(void) {
  unsigned long long rng = 0xd15ba7c4ULL;
  int compared = 0;
  for (int it = 0; it < 4000; ++it) {
    int sa = (int)sg_test_rand(&rng, 0, 4), sb = (int)sg_test_rand(&rng, 0, 4);
    if (sa == sb || (sa == SG_SHAPE_PLANE && sb == SG_SHAPE_PLANE)) continue;
    sg_geom a = random_shape(sa, &rng), b = random_shape(sb, &rng);
    double margin = sg_test_rand(&rng, 0, 0.2);
    sg_manifold ab, ba;
    int n = sg_collide(&a, &b, margin, &ab);
    CHECK(n == ab.n);
    CHECK(sg_collide(&b, &a, margin, &ba) == n);
    CHECK(manifold_sane(&ab, margin) && manifold_sane(&ba, margin));
    int same = 1;
    for (int i = 0; i < n && i < ba.n; ++i) {
      same = same && ab.p[i].gap == ba.p[i].gap && ab.p[i].feature == ba.p[i].feature;
      for (int k = 0; k < 3; ++k)
        same = same && ab.p[i].point[k] == ba.p[i].point[k] && ab.p[i].normal[k] == -ba.p[i].normal[k];
    }
    if (!same) fprintf(stderr, "pose %d (%s, %s): swapped manifold differs\n", it, sg_shape_name(sa), sg_shape_name(sb));
    CHECK(same);
    compared += n > 0;
  }
  printf("swap: %d manifolds compared\n", compared);
  CHECK(compared > 500);
}

static void test_no_pair(void) {
  sg_geom p = geom_make(SG_SHAPE_PLANE, 0, 0, 0, 0, 0, 0), q = geom_make(SG_SHAPE_PLANE, 0, 0, 0, 0, 0, 0.5);
  sg_manifold m;
  m.n = 7;
  CHECK(sg_collide(&p, &q, 1.0, &m) == 0 && m.n == 0);
  sg_geom s = geom_make(SG_SHAPE_SPHERE, 1, 0, 0, 0, 0, 0), bad = geom_make(SG_SHAPE_COUNT, 1, 1, 1, 0, 0, 0);
  m.n = 7;
  CHECK(sg_collide(&s, &bad, 1.0, &m) == 0 && m.n == 0);
  bad.shape = -1;
  CHECK(sg_collide(&bad, &s, 1.0, &m) == 0 && m.n == 0);
}

/* Every pair with both bodies at the same place, same and different orientations, and with a
 * zero-length capsule: finite values and unit normals. Overlapping solids must give a contact. */
static void test_degenerate(void) {
  unsigned long long rng = 99;
  for (int sa = 0; sa < SG_SHAPE_COUNT; ++sa)
    for (int sb = 0; sb < SG_SHAPE_COUNT; ++sb) {
      if (sa == SG_SHAPE_PLANE && sb == SG_SHAPE_PLANE) continue;
      if (sg_shape_is_revolved(sa) || sg_shape_is_revolved(sb) || sa == SG_SHAPE_MESH || sb == SG_SHAPE_MESH)
        continue; /* hollow walls: test_narrow_revolved, test_narrow_mesh */
      for (int variant = 0; variant < 4; ++variant) {
        sg_geom a = random_shape(sa, &rng), b = random_shape(sb, &rng);
        v3_copy(b.pos, a.pos);
        if (variant == 0) memcpy(b.R, a.R, sizeof a.R);
        if (variant == 1) { a.size[0] = a.size[1] = a.size[2] = b.size[0] = b.size[1] = b.size[2] = 0.3; memcpy(b.R, a.R, sizeof a.R); }
        if (variant == 3) {
          if (sa == SG_SHAPE_CAPSULE) a.size[1] = 0;
          if (sb == SG_SHAPE_CAPSULE) b.size[1] = 0;
        }
        if (sa == SG_SHAPE_PLANE) a.size[0] = a.size[1] = a.size[2] = 0;
        if (sb == SG_SHAPE_PLANE) b.size[0] = b.size[1] = b.size[2] = 0;
        sg_manifold m;
        int n = sg_collide(&a, &b, 0.0, &m);
        if (!manifold_sane(&m, 0.0)) fprintf(stderr, "degenerate %s-%s variant %d\n", sg_shape_name(sa), sg_shape_name(sb), variant);
        CHECK(manifold_sane(&m, 0.0));
        CHECK(n >= 1); /* the centres coincide: the solids overlap */
        CHECK(distinct_features(&m));
      }
    }
}

int main(void) {
  test_swap();
  test_no_pair();
  test_degenerate();
  return sg_test_exit();
}
