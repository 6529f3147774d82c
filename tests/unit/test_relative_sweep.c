/* Speculative contacts from relative motion (collision.h).
 *
 * 1. Random moving scenes (spheres, boxes, capsules of mixed sizes, some fixed, a plane and a wall,
 *    bodies moving together, at random, and fast enough to leave the grid), in the relative motion
 *    and with stops (each body also while the other stands still): the broad phase lists
 *    exactly the pairs that an O(N^2) loop with the exact test accepts; the exact test accepts
 *    every pair whose centres come within R_i + R_j + margin at a sampled time of the step, and
 *    only pairs within the static reach |x_j - x_i| < R_i + R_j + sg_pair_reach (what the ghosts
 *    rely on); sg_find_contacts equals the narrow phase of that O(N^2) loop with the same reach,
 *    whatever the order the bodies are stored in.
 * 2. A lattice of spheres (d = 2 mm) falling as one at 5 m/s, dt = 1/240, has the contacts and
 *    candidate pairs of the same lattice at rest, no more.
 * 3. A fast sphere meets a resting sphere, a plane or a wall in the step before it would penetrate
 *    them, also when it sweeps too many cells for the finest grid level, or for all; one passing
 *    by does not. A resting sphere meets a kinematic plane whose turn lifts its surface into it
 *    within the step, and not one whose turn lifts it less than the gap.
 * 4. The least gap of two spheres moving on straight lines (the recheck's measure, recheck.c)
 *    against closed forms: head on, grazing (where the first-order gap would report an overlap),
 *    through each other, apart, at rest.
 * 5. Two spheres' contact taken where they meet (sg_meet_spheres, -contact_meet_normal) against
 *    closed forms: head on and moving apart (unchanged), an oblique hit (the normal at the first
 *    touch), a miss (the normal at the closest approach, the gap the least gap), one still closing
 *    at the end of the step (the normal there); both lever arms along the normal, the point in the
 *    middle of the gap. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/signorini.h"
#include "test_util.h"

static const double dt = 1.0 / 240.0;

static int cmp_pair(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

static int cmp_contact(const void *a, const void *b) { return sg_contact_key_cmp(a, b); }

static void add_sphere(sg_scene *s, double r, const double *x, const double *v, int fixed) {
  const double size[3] = {r, 0, 0};
  double vel[6] = {0};
  if (v) memcpy(vel, v, 3 * sizeof(double));
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, fixed, 2500, x, NULL, vel, NULL));
}

/* ---- 1. brute-force agreement ---- */

static void random_velocity(unsigned long long *seed, int k, double *vel) {
  static const double together[3] = {0.4, -0.3, -5.0};
  for (int a = 0; a < 3; ++a) {
    switch (k % 4) {
      case 0: case 1: vel[a] = together[a]; break;                       /* a flow moving as one */
      case 2: vel[a] = sg_test_rand(seed, -2, 2); break;
      default: vel[a] = sg_test_rand(seed, -1, 1) * sg_test_rand(seed, 5, 40); /* fast */
    }
    vel[3 + a] = k % 3 == 0 ? sg_test_rand(seed, -60, 60) : 0.0;
  }
}

static void random_scene(sg_scene *s, unsigned long long *seed, int n) {
  CHECK_OK(sg_scene_create(s, n + 3, 1));
  const double zero[3] = {0, 0, 0}, wall[3] = {0.02, 0.4, 0.3}, wall_at[3] = {0.3, 0, 0.15};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_BOX, wall, 0, 1, 0, wall_at, NULL, NULL, NULL));
  /* a tilted wall that moves and turns (the oversized boxes' world-bounds prefilter) */
  const double tilted[3] = {0.015, 0.3, 0.2}, tilted_at[3] = {-0.1, 0.05, 0.1}, tilt_axis[3] = {0.6, 0.48, 0.64};
  const double tilted_vel[6] = {1.0, -0.5, 0.3, 2.0, 5.0, -3.0};
  double tilt[4];
  quat_from_axis_angle(tilt, tilt_axis, 0.7);
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_BOX, tilted, 0, SG_KINEMATIC, 0, tilted_at, tilt, tilted_vel, NULL));
  for (int k = 0; k < n; ++k) {
    int shape = k % 10 < 7 ? SG_SHAPE_SPHERE : k % 10 < 9 ? SG_SHAPE_BOX : SG_SHAPE_CAPSULE;
    double r = k % 97 == 5 ? 0.06 : sg_test_rand(seed, 0.004, 0.02); /* a few beyond the grid's size */
    double size[3] = {r, shape == SG_SHAPE_BOX ? 0.6 * r : shape == SG_SHAPE_CAPSULE ? 1.5 * r : 0,
                      shape == SG_SHAPE_BOX ? 1.4 * r : 0};
    double x[3] = {sg_test_rand(seed, -0.25, 0.25), sg_test_rand(seed, -0.25, 0.25), sg_test_rand(seed, -0.01, 0.3)};
    double axis[3] = {sg_test_rand(seed, -1, 1), sg_test_rand(seed, -1, 1), sg_test_rand(seed, -1, 1)}, q[4], vel[6];
    v3_normalize(axis);
    quat_from_axis_angle(q, axis, sg_test_rand(seed, 0, 3));
    random_velocity(seed, k, vel);
    CHECK_OK(sg_scene_add_body(s, shape, size, 0, k % 37 == 0, 1000, x, q, vel, NULL));
  }
}

/* Every pair the exact test accepts, and only those, once; none of two fixed bodies. */
static void check_pairs_exact(const sg_scene *s, sg_broadphase *bp, double margin) {
  const int stops = bp->stops;
  qsort(bp->pairs, (size_t)bp->n, 2 * sizeof(int), cmp_pair);
  int duplicates = 0, missing = 0, extra = 0, n_exact = 0;
  for (int k = 1; k < bp->n; ++k) duplicates += cmp_pair(bp->pairs + 2 * k - 2, bp->pairs + 2 * k) == 0;
  for (int i = 0; i < s->n; ++i)
    for (int j = i + 1; j < s->n; ++j) {
      int found = bsearch((int[2]){i, j}, bp->pairs, (size_t)bp->n, 2 * sizeof(int), cmp_pair) != NULL;
      int exact = sg_pair_may_touch(s, i, j, margin, dt, stops);
      CHECK(exact == sg_pair_may_touch(s, j, i, margin, dt, stops));
      n_exact += exact;
      missing += exact && !found;
      extra += found && !exact;
    }
  printf("  %d candidate pairs, %d by the O(N^2) exact test: %d missing, %d extra, %d duplicates\n", bp->n,
         n_exact, missing, extra, duplicates);
  CHECK(missing == 0 && extra == 0 && duplicates == 0);
}

/* The exact test against its defining bounds: sampled closest approach of the bounding spheres
 * (in the relative motion; with stops also with either moving body held still) implies
 * acceptance; acceptance implies the static reach. */
static void check_exact_test_bounds(const sg_scene *s, double margin, int stops) {
  int sampled_but_rejected = 0, beyond_reach = 0;
  for (int i = 0; i < s->n; ++i)
    for (int j = i + 1; j < s->n; ++j) {
      double ri = sg_body_bounding_radius(s, i), rj = sg_body_bounding_radius(s, j);
      if (!isfinite(ri) || !isfinite(rj) || (s->fixed[i] && s->fixed[j])) continue;
      int accepted = sg_pair_may_touch(s, i, j, margin, dt, stops), sampled = 0;
      int plain = s->shape[i] != SG_SHAPE_BOX && s->shape[j] != SG_SHAPE_BOX; /* boxes add slab tests */
      double vi[3] = {0}, vj[3] = {0}, p[3];
      if (!s->fixed[i]) v3_copy(vi, s->state.vel + 6 * i);
      if (!s->fixed[j]) v3_copy(vj, s->state.vel + 6 * j);
      for (int held = 0; held < (stops ? 3 : 1); ++held) { /* 1: i held still, 2: j */
        if ((held == 1 && s->fixed[i]) || (held == 2 && s->fixed[j])) continue;
        double wi = held == 1 ? 0 : 1, wj = held == 2 ? 0 : 1;
        for (int k = 0; k <= 100 && plain; ++k) {
          double t = dt * k / 100.0;
          for (int a = 0; a < 3; ++a)
            p[a] = (s->state.pos[3 * j + a] + t * wj * vj[a]) - (s->state.pos[3 * i + a] + t * wi * vi[a]);
          sampled |= v3_norm(p) < (ri + rj + margin) * (1 - 1e-9);
        }
      }
      v3_sub(p, s->state.pos + 3 * j, s->state.pos + 3 * i);
      sampled_but_rejected += sampled && !accepted;
      beyond_reach += accepted && !(v3_norm(p) < ri + rj + sg_pair_reach(s, i, j, margin, dt, stops));
    }
  printf("  exact test: %d sampled approaches rejected, %d accepted beyond the static reach\n", sampled_but_rejected,
         beyond_reach);
  CHECK(sampled_but_rejected == 0 && beyond_reach == 0);
}

/* The O(N^2) loop: every pair that the exact test accepts, narrow phase with the pair's reach. */
static void brute_force_contacts(const sg_scene *s, double margin, int stops, sg_contacts *out) {
  out->n = 0;
  for (int i = 0; i < s->n; ++i)
    for (int j = 0; j < s->n; ++j) {
      if (s->gid[i] >= s->gid[j] || !sg_pair_may_touch(s, i, j, margin, dt, stops)) continue;
      sg_geom gi, gj;
      sg_manifold m;
      sg_scene_geom(s, i, &gi);
      sg_scene_geom(s, j, &gj);
      sg_collide(&gi, &gj, sg_pair_reach(s, i, j, margin, dt, stops), &m);
      CHECK_OK(sg_grow((void **)&out->c, &out->cap, out->n + m.n + 1, sizeof *out->c, "contacts"));
      for (int p = 0; p < m.n; ++p)
        out->c[out->n++] = (sg_contact){.a = i, .b = j, .gid_a = s->gid[i], .gid_b = s->gid[j], .cp = m.p[p]};
    }
  qsort(out->c, (size_t)out->n, sizeof *out->c, cmp_contact);
}

/* Same contacts (identity, gap bit for bit); same local bodies when same_storage. */
static int count_differences(const sg_contacts *x, const sg_contacts *y, int same_storage) {
  if (x->n != y->n) return abs(x->n - y->n) + 1;
  int diff = 0;
  for (int k = 0; k < x->n; ++k) {
    const sg_contact *a = &x->c[k], *b = &y->c[k];
    diff += sg_contact_key_cmp(a, b) != 0 || a->cp.gap != b->cp.gap ||
            (same_storage && (a->a != b->a || a->b != b->b));
  }
  return diff;
}

/* The scene with its bodies stored in reverse order (global ids kept). */
static void reversed(const sg_scene *s, sg_scene *r) {
  CHECK_OK(sg_scene_create(r, s->n, s->n_materials));
  CHECK_OK(sg_scene_copy_globals(r, s));
  for (int i = s->n - 1; i >= 0; --i) CHECK_OK(sg_scene_copy_body(r, s, i));
}

static void test_brute_force_agreement(void) {
  const double margin = 0.002;
  for (int stops = 0; stops < 2; ++stops) {
    unsigned long long seed = 2024;
    for (int trial = 0; trial < 4; ++trial) {
      sg_scene s, r;
      random_scene(&s, &seed, 400 + 250 * trial);
      printf("random scene %d: %d bodies%s\n", trial, s.n, stops ? ", also each body while the other stands still" : "");
      sg_broadphase bp = {.stops = stops};
      CHECK_OK(sg_broadphase_pairs(&bp, &s, margin, dt));
      check_pairs_exact(&s, &bp, margin);
      check_exact_test_bounds(&s, margin, stops);
      sg_contacts found = {0}, brute = {0}, from_reversed = {0};
      CHECK_OK(sg_find_contacts(&s, margin, dt, &bp, &found));
      brute_force_contacts(&s, margin, stops, &brute);
      reversed(&s, &r);
      CHECK_OK(sg_find_contacts(&r, margin, dt, &bp, &from_reversed));
      int diff = count_differences(&found, &brute, 1), diff_order = count_differences(&found, &from_reversed, 0);
      printf("  %d contacts, brute force %d: %d differ; stored in reverse: %d differ\n", found.n, brute.n, diff,
             diff_order);
      CHECK(found.n > 0 && diff == 0 && diff_order == 0);
      sg_contacts_destroy(&found); sg_contacts_destroy(&brute); sg_contacts_destroy(&from_reversed);
      sg_broadphase_destroy(&bp);
      sg_scene_destroy(&s); sg_scene_destroy(&r);
    }
  }
}

/* ---- 2. a lattice falling as one ---- */

static void lattice(sg_scene *s, int side, double d, double spacing, const double *v) {
  CHECK_OK(sg_scene_create(s, side * side * side, 1));
  for (int k = 0; k < side * side * side; ++k) {
    double x[3] = {spacing * (k % side), spacing * (k / side % side), 0.05 + spacing * (k / side / side)};
    add_sphere(s, 0.5 * d, x, v, 0);
  }
}

static void test_lattice_moving_as_one(void) {
  const double d = 0.002, margin = 0.2 * 0.5 * d;
  const double fall[3] = {0, 0, -5}, drift[3] = {3, -2, -5};
  const double *moves[2] = {fall, drift};
  for (int m = 0; m < 2; ++m)
    for (int loose = 0; loose < 2; ++loose) {
      double spacing = loose ? 1.5 * d : d;
      sg_scene rest, moving;
      lattice(&rest, 12, d, spacing, NULL);
      lattice(&moving, 12, d, spacing, moves[m]);
      sg_broadphase bp_rest = {0}, bp_moving = {0};
      sg_contacts c_rest = {0}, c_moving = {0};
      CHECK_OK(sg_find_contacts(&rest, margin, dt, &bp_rest, &c_rest));
      CHECK_OK(sg_find_contacts(&moving, margin, dt, &bp_moving, &c_moving));
      printf("lattice 12^3, spacing %.1f d, v = (%g, %g, %g): %.3f contacts per sphere (at rest %.3f), "
             "%.3f candidates (at rest %.3f)\n", spacing / d, moves[m][0], moves[m][1], moves[m][2],
             (double)c_moving.n / moving.n, (double)c_rest.n / rest.n, (double)bp_moving.n / moving.n,
             (double)bp_rest.n / rest.n);
      CHECK(count_differences(&c_rest, &c_moving, 1) == 0);
      CHECK(bp_rest.n == bp_moving.n);
      CHECK(loose ? c_rest.n == 0 : c_rest.n == 3 * 12 * 12 * 11); /* face neighbours touch */
      sg_contacts_destroy(&c_rest); sg_contacts_destroy(&c_moving);
      sg_broadphase_destroy(&bp_rest); sg_broadphase_destroy(&bp_moving);
      sg_scene_destroy(&rest); sg_scene_destroy(&moving);
    }
}

/* ---- 3. a fast body is caught before it penetrates ---- */

enum { SPHERE_TARGET, PLANE_TARGET, WALL_TARGET, TILTING_PLANE_TARGET };
/* The tilting plane turns about the y axis through the origin: its surface at (x, y) rises at
 * TILT_RATE x m/s. */
#define TILT_RATE 25.0

/* Contacts of a sphere of radius r at x moving at v with a resting target at the origin (body 0:
 * a sphere, the plane z = 0, or a fixed wall x < 0.005), among resting spheres in a row (so that
 * the grid holds the scene). Returns the contacts with body 0 and their smallest gap. */
static int contacts_with_target(int target, const double *x, const double *v, double r, double *gap) {
  const double margin = 0.2 * r, zero[3] = {0, 0, 0}, wall[3] = {0.005, 0.5, 0.5};
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 64, 1));
  if (target == SPHERE_TARGET) add_sphere(&s, r, zero, NULL, 0);
  if (target == PLANE_TARGET || target == TILTING_PLANE_TARGET)
    CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  if (target == TILTING_PLANE_TARGET) { /* a kinematic plane turning at -TILT_RATE about y */
    s.fixed[0] = SG_KINEMATIC;
    s.state.vel[4] = -TILT_RATE;
  }
  if (target == WALL_TARGET) CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, wall, 0, 1, 0, zero, NULL, NULL, NULL));
  for (int k = 1; k <= 40; ++k) add_sphere(&s, r, (double[3]){-0.05 + 0.0025 * k, 0.01, r}, NULL, 0);
  add_sphere(&s, r, x, v, 0);
  sg_broadphase bp = {0};
  sg_contacts c = {0};
  CHECK_OK(sg_find_contacts(&s, margin, dt, &bp, &c));
  int n = 0;
  *gap = INFINITY;
  for (int k = 0; k < c.n; ++k)
    if (c.c[k].gid_a == 0 && c.c[k].gid_b == s.n - 1) { n++; *gap = fmin(*gap, c.c[k].cp.gap); }
  sg_contacts_destroy(&c);
  sg_broadphase_destroy(&bp);
  sg_scene_destroy(&s);
  return n;
}

static void test_fast_approach(void) {
  const double r = 0.001;
  struct {
    const char *what;
    int target, expect;
    double x[3], v[3];
  } cases[] = {
    {"falls onto a resting sphere, 10 mm gap, 5 m/s", SPHERE_TARGET, 1, {0, 0, 0.012}, {0, 0, -5}},
    {"falls onto a resting sphere, 30 mm gap, 5 m/s (out of reach)", SPHERE_TARGET, 0, {0, 0, 0.032}, {0, 0, -5}},
    {"shoots at a resting sphere, 0.34 m gap, 87 m/s (a coarser grid level)", SPHERE_TARGET, 1, {-0.2, 0.2, 0.2},
     {50, -50, -50}},
    {"shoots at a resting sphere, 3.5 km gap (too fast for every grid level)", SPHERE_TARGET, 1, {-2000, 2000, 2000},
     {5e5, -5e5, -5e5}},
    {"passes at the side of a resting sphere, 5 m/s", SPHERE_TARGET, 0, {-0.012, 0.004, 0}, {5, 0, 0}},
    {"falls onto the plane, 15 mm gap, 5 m/s", PLANE_TARGET, 1, {0.2, 0.2, 0.016}, {0, 0, -5}},
    {"rests 15 mm above the plane", PLANE_TARGET, 0, {0.2, 0.2, 0.016}, {0, 0, 0}},
    {"rests 15 mm above a plane that tilts up at 5 m/s under it", TILTING_PLANE_TARGET, 1, {0.2, 0.2, 0.016}, {0, 0, 0}},
    {"rests 15 mm above a plane that tilts up at 0.1 m/s under it", TILTING_PLANE_TARGET, 0, {0.004, 0, 0.016},
     {0, 0, 0}},
    {"flies at a wall, 15 mm gap, 5 m/s", WALL_TARGET, 1, {0.021, 0.1, 0.2}, {-5, 0, 0}},
    {"flies along a wall, 15 mm gap, 5 m/s", WALL_TARGET, 0, {0.021, 0.1, 0.2}, {0, -5, 0}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    double gap, travel = dt * v3_norm(cases[k].v);
    if (cases[k].target == TILTING_PLANE_TARGET) travel = dt * TILT_RATE * cases[k].x[0]; /* the surface's */
    int n = contacts_with_target(cases[k].target, cases[k].x, cases[k].v, r, &gap);
    printf("a sphere %s: %d contact(s), gap %.4g m, travel in the step %.4g m\n", cases[k].what, n, gap, travel);
    CHECK(n == cases[k].expect);
    if (cases[k].expect) CHECK(gap > 0 && gap < travel); /* open now, closed within the step */
  }
}

/* ---- 4. the least gap of two spheres along the step ---- */

static void test_spheres_least_gap(void) {
  const double radii = 2.0;
  struct {
    const char *what;
    double p[3], d[3], exact;
  } cases[] = {
    {"head on, ending 1 deep (the first order's answer)", {3, 0, 0}, {-2, 0, 0}, -1.0},
    /* the first order says 0.5 - 0.6 = -0.1; the closest approach is |p x d| / |d| = 7.5 / sqrt(9.36) */
    {"grazing, 0.5 apart, 0.6 closer along the normal and 3 sideways", {2.5, 0, 0}, {-0.6, 3, 0},
     7.5 / sqrt(9.36) - 2.0},
    {"through each other, apart again at the end", {3, 0, 0}, {-6, 0, 0}, -2.0},
    {"moving apart", {0, 3, 0}, {0, 1, 0}, 1.0},
    {"at rest", {0, 0, 2.25}, {0, 0, 0}, 0.25},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    double gap = sg_spheres_least_gap(cases[k].p, cases[k].d, radii);
    printf("two spheres %s: least gap %.15g (exact %.15g)\n", cases[k].what, gap, cases[k].exact);
    CHECK(fabs(gap - cases[k].exact) <= 1e-15 * 4);
  }
}

/* ---- 5. two spheres' contact where they meet ---- */

static void check_meet(const char *what, const double *xa, const double *d_a, const double *normal, double gap) {
  const double xb[3] = {0, 0, 0}, ra = 1.0, rb = 1.0;
  sg_contact c;
  memset(&c, 0, sizeof c);
  v3_sub(c.cp.normal, xa, xb); /* as the narrow phase gives it: along the centres */
  c.cp.gap = v3_norm(c.cp.normal) - ra - rb;
  v3_normalize(c.cp.normal);
  v3_copy(c.cp.point, xb); /* the middle of the gap */
  v3_axpy(c.cp.point, rb + 0.5 * c.cp.gap, c.cp.normal);
  sg_meet_spheres(xa, xb, ra, rb, d_a, &c);
  double la[3], lb[3], xa_point[3], xb_point[3], cross_a[3], cross_b[3], dn[3];
  sg_contact_point_of(&c, 0, xa_point);
  sg_contact_point_of(&c, 1, xb_point);
  v3_sub(la, xa_point, xa);
  v3_sub(lb, xb_point, xb);
  v3_cross(cross_a, la, c.cp.normal);
  v3_cross(cross_b, lb, c.cp.normal);
  v3_sub(dn, c.cp.normal, normal);
  printf("meet, %s: normal off by %.2e, gap %.15g (exact %.15g), levers off the normal %.1e %.1e\n", what, v3_norm(dn),
         c.cp.gap, gap, v3_norm(cross_a), v3_norm(cross_b));
  CHECK(v3_norm(dn) <= 1e-15 * 4);
  CHECK(fabs(c.cp.gap - gap) <= 1e-15 * 16);
  CHECK(v3_norm(cross_a) <= 1e-15 * 16 && v3_norm(cross_b) <= 1e-15 * 4);
  CHECK(v3_dot(la, c.cp.normal) < 0 && v3_dot(lb, c.cp.normal) > 0); /* A's lever points to B, B's to A */
  /* the point stays in the middle of the (new) gap, where the narrow phase puts it */
  CHECK(fabs(v3_dot(lb, c.cp.normal) - (rb + 0.5 * c.cp.gap)) <= 1e-15 * 8);
  CHECK(fabs(v3_dot(la, c.cp.normal) + (ra + 0.5 * c.cp.gap)) <= 1e-15 * 8);
}

static void test_meet_spheres(void) {
  const double s3 = sqrt(3.0), s17 = sqrt(17.0);
  /* head on: the touch is on the centre line */
  check_meet("head on", (double[3]){3, 0, 0}, (double[3]){-2, 0, 0}, (double[3]){1, 0, 0}, 1.0);
  check_meet("moving apart", (double[3]){3, 0, 0}, (double[3]){1, 0, 0}, (double[3]){1, 0, 0}, 1.0);
  /* |(-5 + 10 t, 1)| = 2 first at -5 + 10 t = -sqrt 3: n = (-sqrt 3, 1) / 2, gap = n . p - 2 */
  check_meet("oblique hit", (double[3]){-5, 1, 0}, (double[3]){10, 0, 0}, (double[3]){-s3 / 2, 0.5, 0}, (5 * s3 + 1) / 2 - 2);
  /* closest at t = 1/2, 2.5 apart: the start's centre line would give 3.59 - 5.59 = -2 at the end */
  check_meet("miss", (double[3]){-5, 2.5, 0}, (double[3]){10, 0, 0}, (double[3]){0, 1, 0}, 0.5);
  /* still closing at t = 1, at (1, 4): n = (1, 4) / sqrt 17, gap = 20 / sqrt 17 - 2 */
  check_meet("still closing", (double[3]){0, 5, 0}, (double[3]){1, -1, 0}, (double[3]){1 / s17, 4 / s17, 0}, 20 / s17 - 2);
}

int main(void) {
  test_spheres_least_gap();
  test_meet_spheres();
  test_brute_force_agreement();
  test_lattice_moving_as_one();
  test_fast_approach();
  return sg_test_exit();
}
