/* The broad phase's kept list (sg_broadphase.skin, the Verlet list of molecular dynamics): across a
 * sequence of calls on a moving scene, a broad phase that keeps its pairs gives exactly the pairs of
 * a whole grid search at every call. Random mixes of spheres, boxes and capsules, some fixed, three
 * kinematic spheres, a plane and a fixed wall; each "step" moves the bodies by dt v plus a jitter,
 * with slow velocities drawn every 20 steps (the bodies drift by several skins in between, so a list
 * kept too long misses pairs), now and then one fast body (the list cannot hold: a whole search,
 * then a new list) or a jump of one body past skin / 2 (the list no longer holds); each step calls
 * both searches plain and with the search that also stops each body of a pair. Checked: the same sorted pairs at every call, and
 * that the kept list answered most calls and was made again several times. */
#include <stdlib.h>
#include "signorini/signorini.h"
#include "test_util.h"

static int cmp_pair(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

/* Do two broad phases hold the same pairs (sorted here)? */
static int same_pairs(sg_broadphase *a, sg_broadphase *b) {
  qsort(a->pairs, (size_t)a->n, 2 * sizeof(int), cmp_pair);
  qsort(b->pairs, (size_t)b->n, 2 * sizeof(int), cmp_pair);
  if (a->n != b->n) return 0;
  for (int k = 0; k < 2 * a->n; ++k)
    if (a->pairs[k] != b->pairs[k]) return 0;
  return 1;
}

static void random_scene(sg_scene *s, unsigned long long *seed) {
  const double zero[3] = {0, 0, 0};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  const double wall[3] = {0.05, 0.6, 0.4}, wp[3] = {0.6, 0, 0.2};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_BOX, wall, 0, 1, 0, wp, NULL, NULL, NULL));
  for (int k = 0; k < 600; ++k) {
    int shape = k % 3;
    double r = sg_test_rand(seed, 0.01, 0.02);
    double size[3] = {r, shape == SG_SHAPE_BOX ? r * 0.7 : shape == SG_SHAPE_CAPSULE ? r : 0, shape == SG_SHAPE_BOX ? r * 1.3 : 0};
    double p[3] = {sg_test_rand(seed, -0.5, 0.5), sg_test_rand(seed, -0.5, 0.5), sg_test_rand(seed, 0.0, 0.4)};
    double axis[3] = {sg_test_rand(seed, -1, 1), sg_test_rand(seed, -1, 1), sg_test_rand(seed, -1, 1)}, q[4];
    v3_normalize(axis);
    quat_from_axis_angle(q, axis, sg_test_rand(seed, 0, 3));
    int fixed = k % 97 == 0 ? SG_FIXED : k % 251 == 5 ? SG_KINEMATIC : SG_MOVING;
    if (fixed == SG_KINEMATIC) shape = SG_SHAPE_SPHERE, size[1] = size[2] = 0;
    CHECK_OK(sg_scene_add_body(s, shape, size, 0, fixed, 1000, p, q, NULL, NULL));
  }
}

/* New velocities: slow (at most `slow` m/s) for the moving and kinematic bodies, with turning. */
static void draw_velocities(sg_scene *s, unsigned long long *seed, double slow) {
  for (int i = 0; i < s->n; ++i) {
    double *v = s->state.vel + 6 * i;
    for (int k = 0; k < 6; ++k) v[k] = s->fixed[i] == SG_FIXED ? 0 : sg_test_rand(seed, -slow, slow) / (k < 3 ? 1.7 : 0.02);
  }
}

int main(void) {
  unsigned long long seed = 5;
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 700, 1));
  random_scene(&s, &seed);
  const double margin = 0.004, skin = 0.008, dt = 1.0 / 240.0, slow = 0.2; /* dt |v| about skin / 20 */
  sg_broadphase kept = {.skin = skin}, whole = {0};
  int mismatches = 0, calls = 0;
  for (int step = 0; step < 60; ++step) {
    if (step % 20 == 0) draw_velocities(&s, &seed, slow); /* held for 20 steps: the bodies drift apart and together */
    const double v300 = s.state.vel[6 * 300];
    if (step % 13 == 7) s.state.vel[6 * 300] = 10.0; /* one fast body: no list holds */
    for (int stops = 0; stops <= 1; ++stops) {
      kept.stops = whole.stops = stops;
      CHECK_OK(sg_broadphase_pairs(&kept, &s, margin, dt));
      CHECK_OK(sg_broadphase_pairs(&whole, &s, margin, dt));
      mismatches += !same_pairs(&kept, &whole);
      calls++;
    }
    /* the step: moved by dt v (a fixed body stays), a jitter, and now and then a jump past skin / 2 */
    for (int i = 0; i < s.n; ++i) {
      if (s.fixed[i] == SG_FIXED) continue;
      for (int k = 0; k < 3; ++k) s.state.pos[3 * i + k] += dt * s.state.vel[6 * i + k] + sg_test_rand(&seed, -1e-5, 1e-5);
    }
    if (step % 11 == 4) s.state.pos[3 * 123] += 0.6 * skin;
    s.state.vel[6 * 300] = v300;
  }
  printf("%d calls, %d answered from the kept pairs, %d lists made, %d mismatches\n", calls, (int)kept.listed,
         (int)kept.lists_made, mismatches);
  CHECK(mismatches == 0);
  CHECK(kept.listed >= calls / 2);
  CHECK(kept.lists_made >= 5);
  CHECK(kept.listed < calls); /* some calls searched the whole grid */
  sg_broadphase_destroy(&kept);
  sg_broadphase_destroy(&whole);
  sg_scene_destroy(&s);
  return sg_test_exit();
}
