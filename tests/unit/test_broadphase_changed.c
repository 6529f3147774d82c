/* sg_broadphase.changed (the contact recheck's bodies whose motion the solve changed): the broad
 * phase gives exactly those of its pairs without flags that have a flagged body, through the grid
 * (with bodies fast enough for coarser levels), the oversized bodies (a plane, a box and a wall of
 * revolution) and the kept list; a kept list made during a flagged call still holds every pair. */
#include <stdlib.h>
#include "signorini/signorini.h"
#include "test_util.h"

static const double dt = 1.0 / 240.0, margin = 0.004;

static int cmp_pair(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

/* Walls, then n spheres in a 1 m cube; speeds: slow, or (one in `fast_every`) fast enough for a
 * coarser grid level. */
static void build(sg_scene *s, int n, int fast_every, unsigned long long *rng) {
  CHECK_OK(sg_scene_create(s, n + 3, 1));
  const double zero[3] = {0, 0, 0}, box[3] = {0.05, 0.6, 0.6}, box_at[3] = {0.55, 0.5, 0.5};
  const double shell[3] = {0.45, 0.5, 0}, shell_at[3] = {0.5, 0.5, 0.5};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, SG_FIXED, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_BOX, box, 0, SG_FIXED, 0, box_at, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_CYLINDER, shell, 0, SG_FIXED, 0, shell_at, NULL, NULL, NULL));
  for (int k = 0; k < n; ++k) {
    const double r = sg_test_rand(rng, 0.01, 0.03), size[3] = {r, 0, 0};
    const double x[3] = {sg_test_rand(rng, 0, 1), sg_test_rand(rng, 0, 1), sg_test_rand(rng, 0, 1)};
    const double speed = fast_every && k % fast_every == 0 ? 40.0 : 0.5;
    double v[6] = {0};
    for (int a = 0; a < 3; ++a) v[a] = sg_test_rand(rng, -speed, speed);
    CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, SG_MOVING, 2500, x, NULL, v, NULL));
  }
}

/* The pairs of one call, sorted. */
static int *pairs_of(sg_broadphase *bp, const sg_scene *s, const unsigned char *changed, int *n) {
  bp->changed = changed;
  CHECK_OK(sg_broadphase_pairs(bp, s, margin, dt));
  bp->changed = NULL;
  int *p = malloc(sizeof(int) * (2 * (size_t)bp->n + 2));
  for (int k = 0; k < 2 * bp->n; ++k) p[k] = bp->pairs[k];
  qsort(p, (size_t)bp->n, 2 * sizeof(int), cmp_pair);
  *n = bp->n;
  return p;
}

/* Is `part` (n_part pairs) exactly the pairs of `all` with a flagged body? */
static int filtered_equal(const int *all, int n_all, const int *part, int n_part, const unsigned char *changed) {
  int m = 0;
  for (int k = 0; k < n_all; ++k) {
    if (!changed[all[2 * k]] && !changed[all[2 * k + 1]]) continue;
    if (m >= n_part || cmp_pair(all + 2 * k, part + 2 * m)) return 0;
    ++m;
  }
  return m == n_part;
}

static void check_scene(const char *what, int fast_every, double skin, unsigned long long *rng) {
  sg_scene s;
  build(&s, 3000, fast_every, rng);
  unsigned char *changed = malloc((size_t)s.n);
  for (int i = 0; i < s.n; ++i) changed[i] = sg_test_rand(rng, 0, 1) < 0.15;
  changed[2] = 0; /* the shell unflagged: its pairs come through the spheres' flags */
  sg_broadphase full = {.stops = 1, .skin = skin}, part = {.stops = 1, .skin = skin};
  int n_all, n_part, n_again, n_whole;
  int *all = pairs_of(&full, &s, NULL, &n_all);
  int *flagged = pairs_of(&part, &s, changed, &n_part); /* with a skin: makes its list here */
  int *again = pairs_of(&part, &s, changed, &n_again); /* from that list */
  int *whole = pairs_of(&part, &s, NULL, &n_whole);    /* the list holds every pair */
  int n_flagged = 0;
  for (int k = 0; k < n_all; ++k) n_flagged += changed[all[2 * k]] || changed[all[2 * k + 1]];
  printf("%s: %d pairs, %d with a flagged body; flagged call %d, again %d, unflagged after %d (lists made %lld, "
         "answered from a list %lld)\n", what, n_all, n_flagged, n_part, n_again, n_whole, part.lists_made, part.listed);
  CHECK(n_all > 1000 && n_flagged > 100 && n_flagged < n_all);
  CHECK(filtered_equal(all, n_all, flagged, n_part, changed));
  CHECK(filtered_equal(all, n_all, again, n_again, changed));
  CHECK(n_whole == n_all);
  for (int k = 0; k < 2 * n_all && n_whole == n_all; ++k) CHECK(whole[k] == all[k]);
  if (skin > 0) CHECK(part.lists_made == 1 && part.listed == 3);
  free(all); free(flagged); free(again); free(whole); free(changed);
  sg_broadphase_destroy(&full);
  sg_broadphase_destroy(&part);
  sg_scene_destroy(&s);
}

int main(void) {
  unsigned long long rng = 77;
  check_scene("grid, one level", 0, 0.0, &rng);
  check_scene("grid, fast bodies on coarser levels", 7, 0.0, &rng);
  check_scene("kept list (slow bodies, skin 0.01 m)", 0, 0.01, &rng);
  return sg_test_exit();
}
