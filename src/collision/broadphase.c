/* Broad phase on a uniform grid (cell lists). Bodies of typical size are binned by centre into
 * cubic cells of edge h = 2 r_max + margin, so two such bodies whose margin-grown bounding spheres
 * overlap always sit in the same or adjacent cells; each cell is looked up in a hash table, giving
 * O(N) work. The few oversized bodies (planes, walls, floors) are tested against every body with a
 * cheap exact-bound test instead of inflating the cells. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/collision.h"
#include "signorini/la.h"

/* A body is "oversized" when its bounding radius exceeds this multiple of the median radius. */
#define SG_BIG_FACTOR 4.0

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int64_t cell_key(int64_t ix, int64_t iy, int64_t iz) {
  /* 21 bits per axis, offset so that negative coordinates map to positive ranges. */
  const int64_t off = 1 << 20, mask = (1 << 21) - 1;
  return (((ix + off) & mask) << 42) | (((iy + off) & mask) << 21) | ((iz + off) & mask);
}

typedef struct {
  int64_t key;
  int body;
} keyed_body;

static int cmp_keyed(const void *a, const void *b) {
  const keyed_body *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->body > y->body) - (x->body < y->body);
}

static sg_err push_pair(sg_broadphase *bp, int i, int j) {
  SG_CHECK(sg_grow((void **)&bp->pairs, &bp->cap, 2 * (bp->n + 1), sizeof(int), "broad-phase pairs"));
  bp->pairs[2 * bp->n] = i < j ? i : j;
  bp->pairs[2 * bp->n + 1] = i < j ? j : i;
  bp->n++;
  return SG_OK;
}

/* Could a margin-grown sphere (centre x, radius r) touch oversized body k? Exact for planes,
 * an oriented-box bound for boxes, bounding spheres otherwise. */
static int big_may_touch(const sg_scene *s, int k, const double *x, double r, double margin) {
  const double *p = s->pos + 3 * k, *d = s->size + 3 * k;
  double R[9], rel[3], loc[3];
  quat_to_mat(R, s->quat + 4 * k);
  v3_sub(rel, x, p);
  switch (s->shape[k]) {
    case SG_SHAPE_PLANE: {
      double n[3];
      m3_col(n, R, 2);
      return v3_dot(rel, n) < r + margin;
    }
    case SG_SHAPE_BOX:
      m3t_mul_v(loc, R, rel);
      return fabs(loc[0]) < d[0] + r + margin && fabs(loc[1]) < d[1] + r + margin && fabs(loc[2]) < d[2] + r + margin;
    default:
      return v3_norm(rel) < sg_body_bounding_radius(s, k) + r + margin;
  }
}

/* Open-addressing hash from cell key to the first index of that cell in the sorted order. */
typedef struct {
  int64_t *keys;
  int *start, *count;
  int cap;
} cell_table;

static int table_find(const cell_table *t, int64_t key) {
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL;
  int slot = (int)(h >> 40) & (t->cap - 1);
  while (t->count[slot]) {
    if (t->keys[slot] == key) return slot;
    slot = (slot + 1) & (t->cap - 1);
  }
  return -1;
}

static void table_insert(cell_table *t, int64_t key, int start, int count) {
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL;
  int slot = (int)(h >> 40) & (t->cap - 1);
  while (t->count[slot]) slot = (slot + 1) & (t->cap - 1);
  t->keys[slot] = key;
  t->start[slot] = start;
  t->count[slot] = count;
}

sg_err sg_broadphase_pairs(sg_broadphase *bp, const sg_scene *s, double margin, double sweep_dt) {
  bp->n = 0;
  int n = s->n;
  if (n < 2) return SG_OK;
  double *radius = NULL, *sorted = NULL;
  keyed_body *kb = NULL;
  int *big = NULL, *is_big = NULL;
  cell_table t = {0};
  sg_err err = SG_OK;
  radius = sg_calloc((size_t)n, sizeof *radius, "radius");
  sorted = sg_calloc((size_t)n, sizeof *sorted, "sorted radii");
  is_big = sg_calloc((size_t)n, sizeof *is_big, "oversize flags");
  big = sg_calloc((size_t)n, sizeof *big, "oversized bodies");
  kb = sg_calloc((size_t)n, sizeof *kb, "grid keys");
  if (!radius || !sorted || !is_big || !big || !kb) { err = SG_ERR_MEM; goto done; }

  int nfinite = 0;
  for (int i = 0; i < n; ++i) {
    radius[i] = sg_body_bounding_radius(s, i);
    if (isfinite(radius[i])) {
      radius[i] += sweep_dt * sg_body_speed_bound(s, i);
      sorted[nfinite++] = radius[i];
    }
  }
  double median = 0;
  if (nfinite) {
    qsort(sorted, (size_t)nfinite, sizeof *sorted, cmp_double);
    median = sorted[nfinite / 2];
  }
  int n_big = 0, n_small = 0;
  double rmax = 0;
  for (int i = 0; i < n; ++i) {
    if (!isfinite(radius[i]) || radius[i] > SG_BIG_FACTOR * median) {
      is_big[i] = 1;
      big[n_big++] = i;
    } else if (radius[i] > rmax) {
      rmax = radius[i];
    }
  }
  double h = 2 * rmax + margin;
  if (!(h > 0)) h = 1;
  for (int i = 0; i < n; ++i) {
    if (is_big[i]) continue;
    const double *x = s->pos + 3 * i;
    kb[n_small].key = cell_key((int64_t)floor(x[0] / h), (int64_t)floor(x[1] / h), (int64_t)floor(x[2] / h));
    kb[n_small].body = i;
    n_small++;
  }
  qsort(kb, (size_t)n_small, sizeof *kb, cmp_keyed);

  /* cell table sized to a power of two at least twice the number of cells */
  t.cap = 16;
  while (t.cap < 2 * n_small) t.cap *= 2;
  t.keys = sg_calloc((size_t)t.cap, sizeof *t.keys, "cell keys");
  t.start = sg_calloc((size_t)t.cap, sizeof *t.start, "cell starts");
  t.count = sg_calloc((size_t)t.cap, sizeof *t.count, "cell counts");
  if (!t.keys || !t.start || !t.count) { err = SG_ERR_MEM; goto done; }
  for (int a = 0; a < n_small;) {
    int b = a;
    while (b < n_small && kb[b].key == kb[a].key) ++b;
    table_insert(&t, kb[a].key, a, b - a);
    a = b;
  }

  /* small-small: each body against later bodies of its cell and all bodies of 13 "forward" cells */
  for (int a = 0; a < n_small; ++a) {
    int i = kb[a].body;
    const double *xi = s->pos + 3 * i;
    int64_t ix = (int64_t)floor(xi[0] / h), iy = (int64_t)floor(xi[1] / h), iz = (int64_t)floor(xi[2] / h);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int same = dx == 0 && dy == 0 && dz == 0;
          /* forward half of the 26 neighbours: lexicographically positive offsets */
          int forward = dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx > 0)));
          if (!same && !forward) continue;
          int slot = table_find(&t, cell_key(ix + dx, iy + dy, iz + dz));
          if (slot < 0) continue;
          int first = t.start[slot], last = first + t.count[slot];
          if (same) first = a + 1;
          for (int c = first; c < last; ++c) {
            int j = kb[c].body;
            if (s->fixed[i] && s->fixed[j]) continue;
            double d[3];
            v3_sub(d, s->pos + 3 * j, xi);
            double reach = radius[i] + radius[j] + margin;
            if (v3_dot(d, d) < reach * reach)
              if ((err = push_pair(bp, i, j))) goto done;
          }
        }
  }
  /* oversized bodies against everything else */
  for (int k = 0; k < n_big; ++k) {
    int b = big[k];
    for (int i = 0; i < n; ++i) {
      if (i == b || (is_big[i] && i < b)) continue; /* big-big pairs once */
      if (s->fixed[i] && s->fixed[b]) continue;
      int touch;
      if (is_big[i] && !isfinite(radius[i]))
        touch = isfinite(radius[b]) ? big_may_touch(s, i, s->pos + 3 * b, radius[b], margin) : 0;
      else
        touch = big_may_touch(s, b, s->pos + 3 * i, radius[i], margin);
      if (touch && (err = push_pair(bp, i, b))) goto done;
    }
  }
done:
  free(radius); free(sorted); free(is_big); free(big); free(kb);
  free(t.keys); free(t.start); free(t.count);
  return err;
}

void sg_broadphase_destroy(sg_broadphase *bp) {
  free(bp->pairs);
  memset(bp, 0, sizeof *bp);
}
