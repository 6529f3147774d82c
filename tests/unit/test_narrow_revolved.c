/* A sphere against walls of revolution (cylinder, cone, disk with a hole): the reported point
 * is the closest point of the wall, found independently by a search over the wall's surface;
 * the normal points from the wall to the centre on the centre's side; rims are features 1 and 2;
 * the argument order only flips the normal; exact cases (a sphere inside a silo's shell, on its
 * floor, over its orifice's edge, inside a hopper) give the analytic gap. */
#include "narrow_test_util.h"

/* The wall's point at meridian parameter t and azimuth phi, in world. */
static void wall_point(const sg_geom *g, double t, double phi, double *x) {
  double p0[2], p1[2];
  sg_revolved_meridian(g, p0, p1);
  double rho = p0[0] + t * (p1[0] - p0[0]), z = p0[1] + t * (p1[1] - p0[1]);
  double local[3] = {rho * cos(phi), rho * sin(phi), z};
  m3_mul_v(x, g->R, local);
  v3_add(x, x, g->pos);
}

/* Distance from x to the wall by a grid search over (t, phi) refined by golden sections in t at
 * the best azimuth (the closest point lies in x's meridian, so the azimuth grid only seeds it). */
static double wall_distance_search(const sg_geom *g, const double *x) {
  double best = INFINITY;
  for (int a = 0; a < 720; ++a) {
    double phi = 2 * M_PI * a / 720, y[3];
    for (int k = 0; k <= 200; ++k) {
      wall_point(g, k / 200.0, phi, y);
      v3_sub(y, y, x);
      best = fmin(best, v3_norm(y));
    }
  }
  return best;
}

static sg_geom random_wall(int shape, unsigned long long *rng) {
  double a = sg_test_rand(rng, 0.3, 1.0), b = sg_test_rand(rng, 0.3, 1.0), c = sg_test_rand(rng, 0.2, 0.8);
  sg_geom g = shape == SG_SHAPE_CYLINDER ? geom_make(shape, a, c, 0, 0, 0, 0)
              : shape == SG_SHAPE_CONE   ? geom_make(shape, a, b, c, 0, 0, 0)
                                         : geom_make(shape, 0.5 * fmin(a, b), fmax(a, b), 0, 0, 0, 0);
  geom_random_pose(&g, rng, 0.5);
  return g;
}

/* Random walls and spheres: the gap is the searched distance minus the radius (to the search's
 * resolution), the wall's point lies on the wall, the normal is the unit vector to the centre. */
static void test_closest_point(void) {
  unsigned long long rng = 0x5e1f0ULL;
  int found = 0;
  for (int it = 0; it < 150; ++it) {
    int shape = SG_SHAPE_CYLINDER + it % 3;
    sg_geom w = random_wall(shape, &rng), s = geom_make(SG_SHAPE_SPHERE, sg_test_rand(&rng, 0.05, 0.3), 0, 0, 0, 0, 0);
    geom_random_pose(&s, &rng, 1.2);
    sg_manifold m;
    if (sg_collide(&s, &w, 10.0, &m) != 1) { CHECK(0); continue; }
    CHECK(manifold_sane(&m, 10.0));
    const sg_contact_point *c = &m.p[0];
    double on_wall[3], to_centre[3];
    v3_copy(on_wall, c->point);
    v3_axpy(on_wall, -0.5 * c->gap, c->normal);
    v3_sub(to_centre, s.pos, on_wall);
    double dist = wall_distance_search(&w, s.pos);
    /* the grid's spacing bounds the search's excess over the true distance */
    CHECK(c->gap + s.size[0] <= dist + 1e-12);
    CHECK_NEAR(c->gap + s.size[0], dist, 2e-4);
    CHECK_NEAR(v3_norm(to_centre), c->gap + s.size[0], 1e-12);
    double along = v3_dot(to_centre, c->normal);
    CHECK_NEAR(along, v3_norm(to_centre), 1e-12);
    found++;
  }
  CHECK(found == 150);
}

static void check_contact(const sg_geom *s, const sg_geom *w, double gap, const double *normal, uint32_t feature) {
  sg_manifold m, back;
  CHECK(sg_collide(s, w, 0.01, &m) == 1);
  CHECK_NEAR(m.p[0].gap, gap, 1e-14);
  for (int k = 0; k < 3; ++k) CHECK_NEAR(m.p[0].normal[k], normal[k], 1e-14);
  CHECK(m.p[0].feature == feature);
  CHECK(sg_collide(w, s, 0.01, &back) == 1);
  for (int k = 0; k < 3; ++k) CHECK(back.p[0].normal[k] == -m.p[0].normal[k]);
}

/* A silo: shell of radius 0.5 from z = 0 to 1, floor at z = 0 with an orifice of radius 0.1, a
 * hopper below narrowing from 0.5 to 0.1. Spheres of radius 0.05 touching each. */
static void test_silo_cases(void) {
  sg_geom shell = geom_make(SG_SHAPE_CYLINDER, 0.5, 0.5, 0, 0, 0, 0.5);
  sg_geom floor = geom_make(SG_SHAPE_DISK, 0.1, 0.5, 0, 0, 0, 0);
  sg_geom hopper = geom_make(SG_SHAPE_CONE, 0.1, 0.5, 0.2, 0, 0, -0.2);
  const double r = 0.05, in_x[3] = {-1, 0, 0}, up[3] = {0, 0, 1}, down[3] = {0, 0, -1};
  sg_geom s = geom_make(SG_SHAPE_SPHERE, r, 0, 0, 0.449, 0, 0.3); /* inside the shell, 0.001 off it */
  check_contact(&s, &shell, 0.001, in_x, 0);
  s = geom_make(SG_SHAPE_SPHERE, r, 0, 0, 0.552, 0, 0.3); /* outside it */
  const double out_x[3] = {1, 0, 0};
  check_contact(&s, &shell, 0.002, out_x, 0);
  s = geom_make(SG_SHAPE_SPHERE, r, 0, 0, 0, 0.3, 0.0495); /* resting on the floor, 0.5 mm in */
  check_contact(&s, &floor, -0.0005, up, 0);
  s = geom_make(SG_SHAPE_SPHERE, r, 0, 0, 0, 0.3, -0.0505); /* under the floor */
  check_contact(&s, &floor, 0.0005, down, 0);
  /* over the orifice's edge: the closest point is the rim at radius 0.1 */
  s = geom_make(SG_SHAPE_SPHERE, r, 0, 0, 0.1 - 0.03, 0, 0.04);
  const double rim_n[3] = {-0.6, 0, 0.8};
  check_contact(&s, &floor, 0.0, rim_n, 1);
  /* in the middle of the orifice: too far from the rim */
  s = geom_make(SG_SHAPE_SPHERE, r, 0, 0, 0, 0, 0);
  sg_manifold m;
  CHECK(sg_collide(&s, &floor, 0.01, &m) == 0);
  /* inside the hopper: slope 0.4 / 0.4, so the inward normal is (-1, 0, 1)/sqrt 2 */
  const double cone_n[3] = {-M_SQRT1_2, 0, M_SQRT1_2};
  double foot_x = 0.3, foot_z = -0.2, d = r + 0.001; /* foot of the normal on the cone at rho 0.3 */
  s = geom_make(SG_SHAPE_SPHERE, r, 0, 0, foot_x + d * cone_n[0], 0, foot_z + d * cone_n[2]);
  sg_manifold c;
  CHECK(sg_collide(&s, &hopper, 0.01, &c) == 1);
  CHECK_NEAR(c.p[0].gap, 0.001, 1e-14);
  for (int k = 0; k < 3; ++k) CHECK_NEAR(c.p[0].normal[k], cone_n[k], 1e-14);
  /* a sphere on the axis of a full disk: the normal is the disk's, whatever the side */
  sg_geom plate = geom_make(SG_SHAPE_DISK, 0, 0.5, 0, 0, 0, 0);
  s = geom_make(SG_SHAPE_SPHERE, r, 0, 0, 0, 0, 0.04);
  check_contact(&s, &plate, -0.01, up, 1);
}

/* The wall turned and moved: the contact turns and moves with it (rigid invariance). */
static void test_pose_invariance(void) {
  sg_geom w = geom_make(SG_SHAPE_CONE, 0.2, 0.6, 0.3, 0, 0, 0), s = geom_make(SG_SHAPE_SPHERE, 0.1, 0, 0, 0.3, 0.1, 0.05);
  sg_manifold m0, m1;
  CHECK(sg_collide(&s, &w, 0.1, &m0) == 1);
  double q[4], axis[3] = {0.3, -0.5, 0.8}, shift[3] = {1.5, -2, 0.25};
  v3_normalize(axis);
  quat_from_axis_angle(q, axis, 1.1);
  quat_to_mat(w.R, q);
  v3_copy(w.pos, shift);
  double p[3];
  m3_mul_v(p, w.R, s.pos);
  v3_add(s.pos, p, shift);
  CHECK(sg_collide(&s, &w, 0.1, &m1) == 1);
  CHECK_NEAR(m1.p[0].gap, m0.p[0].gap, 1e-14);
  double n[3];
  m3_mul_v(n, w.R, m0.p[0].normal);
  for (int k = 0; k < 3; ++k) CHECK_NEAR(m1.p[0].normal[k], n[k], 1e-14);
}

int main(void) {
  test_closest_point();
  test_silo_cases();
  test_pose_invariance();
  return sg_test_exit();
}
