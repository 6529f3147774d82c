/* The broad phase's exact test of a sphere with a wall of revolution (sg_pair_may_touch: the
 * sphere's distance to the wall less its displacement) accepts every sphere that comes within the
 * margin of the wall along the pair's relative straight-line motion (each displacement of
 * sg_pair_displacements, sampled; the wall in its pose at the start of the step): cylinder shells,
 * cones and rings, fixed, translating and turning (kinematic) about their own axis and about another,
 * with spheres inside, outside and on them, moving and still, with and without stops. It rejects the
 * grains far from every wall (a silo's shell is not a candidate of each grain inside), and a whole
 * search (sg_find_contacts, whose oversized bodies take a prefilter of the same test) gives exactly
 * the contacts of the O(N^2) loop over the pairs the exact test accepts. */
#include <math.h>
#include "signorini/signorini.h"
#include "test_util.h"

static const double dt = 1.0 / 240.0, margin = 0.002;

/* Wall k of three, posed at random; velocity: 0 still, 1 translating, 2 turning about its own axis,
 * 3 turning about another. */
static void add_wall(sg_scene *s, int k, int motion, unsigned long long *rng) {
  static const int shapes[3] = {SG_SHAPE_CYLINDER, SG_SHAPE_CONE, SG_SHAPE_DISK};
  const double size[3][3] = {{0.1, 0.08, 0}, {0.04, 0.1, 0.06}, {0.02, 0.09, 0}};
  double axis[3] = {sg_test_rand(rng, -1, 1), sg_test_rand(rng, -1, 1), sg_test_rand(rng, -1, 1)}, q[4], R[9];
  v3_normalize(axis);
  quat_from_axis_angle(q, axis, sg_test_rand(rng, 0, 3));
  quat_to_mat(R, q);
  const double pos[3] = {0.3 * k, 0, 0};
  double vel[6] = {0};
  if (motion == 1) v3_set(vel, 0.5, -1.0, 0.3);
  for (int a = 0; a < 3 && motion >= 2; ++a) vel[3 + a] = (motion == 2 ? R[3 * a + 2] : axis[a]) * 4.0; /* rad/s */
  CHECK_OK(sg_scene_add_body(s, shapes[k], size[k], 0, motion ? SG_KINEMATIC : SG_FIXED, 0, pos, q, vel, NULL));
}

/* A sphere near wall w: at meridian parameter t in [-0.2, 1.2], azimuth phi, off the meridian by up
 * to four radii on either side; or, one in eight, on the wall's axis. */
static void add_sphere_near(sg_scene *s, int w, unsigned long long *rng) {
  sg_geom g;
  sg_scene_geom(s, w, &g);
  double p0[2], p1[2];
  sg_revolved_meridian(&g, p0, p1);
  const double r = sg_test_rand(rng, 0.002, 0.01), t = sg_test_rand(rng, -0.2, 1.2), phi = sg_test_rand(rng, 0, 6.3);
  const double e[2] = {p1[0] - p0[0], p1[1] - p0[1]}, len = hypot(e[0], e[1]), off = sg_test_rand(rng, -4, 4) * r;
  double rho = p0[0] + t * e[0] - off * e[1] / len, z = p0[1] + t * e[1] + off * e[0] / len;
  if (sg_test_rand(rng, 0, 1) < 0.125) rho = 0;
  const double local[3] = {fabs(rho) * cos(phi), fabs(rho) * sin(phi), z};
  double x[3], v[6];
  m3_mul_v(x, g.R, local);
  v3_add(x, x, g.pos);
  for (int a = 0; a < 6; ++a) v[a] = sg_test_rand(rng, -2, 2) * (sg_test_rand(rng, 0, 1) < 0.3 ? 0 : 1);
  const double size[3] = {r, 0, 0};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, SG_MOVING, 2500, x, NULL, v, NULL));
}

/* Does sphere i come within the margin of wall w along one of the pair's displacements (sampled at
 * 201 points, a hair inside the margin)? */
static int comes_within_margin(const sg_scene *s, int w, int i, int stops) {
  sg_geom g;
  sg_scene_geom(s, w, &g);
  double d[3][3];
  const int nd = sg_pair_displacements(s, w, i, dt, stops, d);
  for (int k = 0; k < nd; ++k)
    for (int step = 0; step <= 200; ++step) {
      double x[3];
      v3_copy(x, s->state.pos + 3 * i);
      v3_axpy(x, step / 200.0, d[k]);
      if (sg_revolved_distance(&g, x) - s->size[3 * i] < margin * (1 - 1e-9)) return 1;
    }
  return 0;
}

/* Does the narrow phase at the pair's reach find a contact of bodies i < j? */
static int narrow_contact(const sg_scene *s, int i, int j, int stops) {
  sg_geom a, b;
  sg_manifold m;
  sg_scene_geom(s, i, &a);
  sg_scene_geom(s, j, &b);
  return sg_collide(&a, &b, sg_pair_reach(s, i, j, margin, dt, stops), &m) > 0;
}

static void check_walls(int motion, unsigned long long *rng) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 64, 1));
  for (int k = 0; k < 3; ++k) add_wall(&s, k, motion, rng);
  for (int n = 0; n < 3000; ++n) add_sphere_near(&s, n % 3, rng);
  for (int stops = 0; stops < 2; ++stops) {
    int approaches = 0, missed = 0, rejected = 0, on_axis_accepted = 0;
    for (int w = 0; w < 3; ++w)
      for (int i = 3; i < s.n; ++i) {
        const int near = comes_within_margin(&s, w, i, stops), exact = sg_pair_may_touch(&s, w, i, margin, dt, stops);
        approaches += near;
        missed += near && !exact;
        rejected += !exact;
        /* a sphere on a cylinder's axis is the shell's radius less its own and its reach away */
        double rel[3];
        v3_sub(rel, s.state.pos + 3 * i, s.state.pos);
        if (w == 0 && (i - 3) % 3 == 0 && s.shape[w] == SG_SHAPE_CYLINDER) {
          double R[9], axis[3];
          quat_to_mat(R, s.state.quat);
          m3_col(axis, R, 2);
          double radial = sqrt(fmax(0.0, v3_dot(rel, rel) - v3_dot(rel, axis) * v3_dot(rel, axis)));
          double reach = s.size[3 * i] + sg_pair_reach(&s, w, i, margin, dt, stops);
          on_axis_accepted += radial < 1e-6 && fabs(v3_dot(rel, axis)) < s.size[1] && s.size[0] - radial > 2 * reach && exact;
        }
      }
    printf("walls %s, stops %d: %d spheres come within the margin, %d of them rejected; %d of %d pairs rejected, %d on-axis accepted\n",
           motion == 0 ? "still" : motion == 1 ? "translating" : motion == 2 ? "turning about their axes" : "turning about another axis",
           stops, approaches, missed, rejected, 3 * (s.n - 3), on_axis_accepted);
    CHECK(approaches > 100);
    CHECK(missed == 0);
    CHECK(rejected > (s.n - 3)); /* most spheres are far from two of the three walls */
    CHECK(on_axis_accepted == 0);
  }
  /* a whole search: the walls' contacts of the O(N^2) loop over the pairs the exact test accepts */
  sg_broadphase bp = {.stops = 1};
  sg_contacts found = {0};
  CHECK_OK(sg_find_contacts(&s, margin, dt, &bp, &found));
  int wall_contacts = 0, expected = 0;
  for (int k = 0; k < found.n; ++k) wall_contacts += found.c[k].a < 3;
  for (int w = 0; w < 3; ++w)
    for (int i = 3; i < s.n; ++i) expected += sg_pair_may_touch(&s, w, i, margin, dt, 1) && narrow_contact(&s, w, i, 1);
  printf("  search: %d wall contacts, %d by the O(N^2) narrow phase\n", wall_contacts, expected);
  CHECK(wall_contacts == expected);
  sg_contacts_destroy(&found);
  sg_broadphase_destroy(&bp);
  sg_scene_destroy(&s);
}

int main(void) {
  unsigned long long rng = 2026;
  for (int motion = 0; motion < 4; ++motion) check_walls(motion, &rng);
  return sg_test_exit();
}
