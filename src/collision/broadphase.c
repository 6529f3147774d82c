/* Broad phase on a uniform grid of swept boxes.
 *
 * The candidate test (sg_pair_may_touch) follows the relative motion of a pair, so the cells do
 * not grow with the sweep: they keep the static edge h = 2 r_max + margin, and each body of
 * typical size enters every cell that its swept box overlaps, the box around the segment from x
 * to x + dt (v - v_ref) grown by R + margin / 2. Any common velocity v_ref leaves relative
 * motion unchanged; the median velocity makes a flow that moves as one sweep almost nothing.
 * Two bodies that pass the test have overlapping swept boxes (at the time of their closest
 * approach their centres are within R_i + R_j + margin, so their boxes at that time overlap,
 * and each lies in its swept box). A pair is examined only in the cell that holds the lower
 * corner of the intersection of the two boxes, a cell both bodies entered: each pair once, with
 * no sort. Work and memory go with the cells entered and the pairs examined, about linear in N.
 * In a cell c both entered, that corner max(lo_i, lo_j) is c exactly where, axis by axis, c is
 * the lowest cell of one of them; each entry of a cell carries those three bits of its body
 * (corner_bits), so most candidates are dismissed without reading the other body; and a fourth, its
 * body's sg_broadphase.changed flag, which dismisses the pairs of two unflagged bodies alike.
 *
 * A body whose swept box would enter more than SG_MAX_CELLS cells goes up to a coarser level,
 * cells of edge 2^l h, the first where it enters no more. A body also looks up, without entering
 * them, the cells of each coarser level in use that its box overlaps, which finds its pairs with
 * the bodies there (examined in the cell of that level holding the lower corner, as above).
 *
 * Oversized bodies are tested against every body with the exact test: bodies much larger than
 * the median (planes, walls, floors), and the rare body too fast for the coarsest level.
 *
 * The kept list (sg_broadphase.skin): a pair that the exact test accepts has its bounding spheres
 * within r_i + r_j + margin somewhere along displacements of at most dt (|v_i| + |v_j|)
 * (sg_pair_displacements), so their centres at an earlier time x0 were within r_i + r_j + margin
 * + D_i + D_j, D = |x - x0| + dt |v|. The pairs of the grid's bodies within r_i + r_j + margin +
 * skin at x0 therefore hold every pair the grid would give while each D stays below skin / 2; the
 * exact test then picks the same pairs from them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/collision.h"
#include "signorini/la.h"

/* ---- the exact relative test ---- */

/* Does the segment p + t d, t in [0, 1], come within r of the origin? */
static int segment_within(const double *p, const double *d, double r) {
  double dd = v3_dot(d, d), t = 0, q[3];
  if (dd > 0) t = fmin(1.0, fmax(0.0, -v3_dot(p, d) / dd));
  v3_copy(q, p);
  v3_axpy(q, t, d);
  return v3_dot(q, q) < r * r;
}

/* Does the segment x + t d come within r of the half-space of plane k? */
static int plane_meets_segment(const sg_scene *s, int k, const double *x, const double *d, double r) {
  double R[9], n[3], rel[3];
  quat_to_mat(R, s->state.quat + 4 * k);
  m3_col(n, R, 2);
  v3_sub(rel, x, s->state.pos + 3 * k);
  double start = v3_dot(rel, n);
  return fmin(start, start + v3_dot(d, n)) < r;
}

/* Does the segment x + t d cross box k grown by r along each of its axes (a slab clip)? */
static int box_meets_segment(const sg_scene *s, int k, const double *x, const double *d, double r) {
  double R[9], rel[3], p[3], e[3];
  quat_to_mat(R, s->state.quat + 4 * k);
  v3_sub(rel, x, s->state.pos + 3 * k);
  m3t_mul_v(p, R, rel);
  m3t_mul_v(e, R, d);
  double t_in = 0, t_out = 1;
  for (int a = 0; a < 3; ++a) {
    double half = s->size[3 * k + a] + r;
    if (e[a] == 0) {
      if (fabs(p[a]) > half) return 0;
      continue;
    }
    double t1 = (-half - p[a]) / e[a], t2 = (half - p[a]) / e[a];
    t_in = fmax(t_in, fmin(t1, t2));
    t_out = fmin(t_out, fmax(t1, t2));
    if (t_in > t_out) return 0;
  }
  return 1;
}

/* Can a sphere centred on the segment x + t d come within r of wall of revolution k? Its distance
 * to the wall changes by at most |d| along the segment, so the start's distance less |d| bounds it
 * (padded beyond the roundings of the narrow phase, which measures the same distance). */
static int revolved_within(double dist, const double *d, double r) {
  const double reach = r + v3_norm(d);
  return dist < reach + 1e-9 * (reach + dist);
}

static int revolved_meets_segment(const sg_scene *s, int k, const double *x, const double *d, double r) {
  sg_geom wall;
  sg_scene_geom(s, k, &wall);
  return revolved_within(sg_revolved_distance(&wall, x), d, r);
}

/* A wall of revolution w and a sphere o (the pairs sg_scene_validate allows beside such walls). */
static int revolved_with_sphere(const sg_scene *s, int w, int o) {
  return sg_shape_is_revolved(s->shape[w]) && s->shape[o] == SG_SHAPE_SPHERE;
}

/* The test along one displacement d of j relative to i (i, j in canonical order). */
static int touches_along(const sg_scene *s, int i, int j, double ri, double rj, double margin, double dt, const double *d) {
  double back[3], p[3];
  v3_scale(back, d, -1.0);
  const double *xi = s->state.pos + 3 * i, *xj = s->state.pos + 3 * j;
  int plane_i = s->shape[i] == SG_SHAPE_PLANE, plane_j = s->shape[j] == SG_SHAPE_PLANE;
  /* a bounding sphere stays in place while its body turns; a turning (kinematic) plane sweeps by
   * its rotation at the body */
  if (plane_i || plane_j) {
    if (plane_i && plane_j) return 0;
    return plane_i ? plane_meets_segment(s, i, xj, d, rj + margin + sg_plane_turn_sweep(s, i, j, dt))
                   : plane_meets_segment(s, j, xi, back, ri + margin + sg_plane_turn_sweep(s, j, i, dt));
  }
  v3_sub(p, xj, xi);
  if (!segment_within(p, d, ri + rj + margin)) return 0;
  /* a box's faces turn with it: grow its slabs by its own rotation sweep */
  if (s->shape[i] == SG_SHAPE_BOX && !box_meets_segment(s, i, xj, d, rj + margin + sg_body_rotation_sweep(s, i, dt)))
    return 0;
  if (s->shape[j] == SG_SHAPE_BOX && !box_meets_segment(s, j, xi, back, ri + margin + sg_body_rotation_sweep(s, j, dt)))
    return 0;
  if (revolved_with_sphere(s, i, j) && !revolved_meets_segment(s, i, xj, d, rj + margin + sg_body_rotation_sweep(s, i, dt)))
    return 0;
  if (revolved_with_sphere(s, j, i) && !revolved_meets_segment(s, j, xi, back, ri + margin + sg_body_rotation_sweep(s, j, dt)))
    return 0;
  return 1;
}

/* The exact test with the bodies' bounding radii given (the grid keeps them). */
static int may_touch(const sg_scene *s, int i, int j, double ri, double rj, double margin, double dt, int stops) {
  if (i == j || (s->fixed[i] && s->fixed[j])) return 0;
  /* a tree's links carry no geoms yet (docs/ARCHITECTURE.md, "Trees"): its row touches nothing */
  if (s->kind[i] == SG_BODY_TREE || s->kind[j] == SG_BODY_TREE) return 0;
  if (s->gid[j] < s->gid[i]) { /* the same roundings in either order */
    int t = i; i = j; j = t;
    double r = ri; ri = rj; rj = r;
  }
  double dd[3][3];
  int nd = sg_pair_displacements(s, i, j, dt, stops, dd);
  for (int k = 0; k < nd; ++k)
    if (touches_along(s, i, j, ri, rj, margin, dt, dd[k])) return 1;
  return 0;
}

int sg_pair_may_touch(const sg_scene *s, int i, int j, double margin, double dt, int stops) {
  if (i == j) return 0;
  return may_touch(s, i, j, sg_body_bounding_radius(s, i), sg_body_bounding_radius(s, j), margin, dt, stops);
}

/* ---- the grid ---- */

/* A body is oversized when its bounding radius exceeds this multiple of the median radius. */
#define SG_BIG_FACTOR 4.0
/* Most cells a body enters; above, it goes to a coarser level (at most SG_MAX_LEVEL). */
#define SG_MAX_CELLS 64
#define SG_MAX_LEVEL 15

/* The element of rank n / 2 of x[0 .. n) (x is reordered): quickselect, linear on average. */
static double median_of(double *x, int n) {
  int lo = 0, hi = n - 1, k = n / 2;
  while (lo < hi) {
    double pivot = x[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (x[i] < pivot) i++;
      while (x[j] > pivot) j--;
      if (i <= j) { double t = x[i]; x[i++] = x[j]; x[j--] = t; }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return x[k];
}

/* Level in the top 4 bits, then 20 bits per axis, offset so that negative coordinates map to
 * positive ranges. Distant cells may share a key; a pair is still examined once, in the cell
 * of its lower corner, since no body spans 2^20 cells. */
static uint64_t cell_key(int level, const int64_t *c) {
  const int64_t off = 1 << 19, mask = (1 << 20) - 1;
  return (uint64_t)level << 60 | (uint64_t)((c[0] + off) & mask) << 40 | (uint64_t)((c[1] + off) & mask) << 20 |
         (uint64_t)((c[2] + off) & mask);
}

typedef struct {
  double lo[3], hi[3];
} box3;

typedef struct {
  box3 box;          /* swept box */
  int64_t lo[3], hi[3]; /* lowest and highest cell of its range on its level */
  double radius;     /* static bounding radius */
  int first_entry;   /* its cells: entry_cell[first_entry .. first_entry + n_entries) */
  int n_entries;
  int level;         /* grid level; -1: oversized, tested against every body */
} grid_body;

typedef struct {
  uint64_t key;
  int cell; /* -1: empty slot */
} cell_slot;

/* Scratch of the broad phase, kept between calls so that a step reuses the memory of the last.
 * Cells are numbered in the order they are first entered (bodies near each other in storage get
 * nearby numbers) and found by key in an open-addressing hash kept under half full. */
struct sg_broadphase_work {
  const sg_scene *s;
  double margin, dt, h;
  int stops;             /* sg_broadphase.stops */
  unsigned levels_used;  /* bit l set: some body entered level l */
  grid_body *body;
  int *big, n_big;       /* the oversized bodies */
  double *scratch;       /* medians */
  int *entry_cell;       /* the cells entered, body by body, in FOR_CELLS order */
  int *cell_body;        /* the entries of each cell, cell by cell, by ascending body: body << 4 | CHANGED_BIT | corner_bits */
  const unsigned char *changed; /* sg_broadphase.changed */
  int *count, *start;    /* bodies of cell k: cell_body[start[k] .. start[k] + count[k]) */
  int n_cells;
  cell_slot *slots;
  int n_slots, shift;    /* n_slots = 2^(64 - shift) */
  int cap_body, cap_big, cap_scratch, cap_entry_cell, cap_cell_body, cap_count, cap_start;
  /* the kept list: its pairs, and the bodies, margin and positions it was made for */
  int listing;           /* examine collects the static pairs within margin (+ skin) */
  int list_ok, list_n, n_list;
  double list_margin;
  int *list;
  double *x0;
  int64_t *gid0;
  unsigned char *big0;
  int cap_list, cap_x0, cap_gid0, cap_big0;
};
typedef struct sg_broadphase_work grid;

static void grid_free(grid *g) {
  if (!g) return;
  free(g->body); free(g->big); free(g->scratch); free(g->entry_cell); free(g->cell_body);
  free(g->count); free(g->start); free(g->slots);
  free(g->list); free(g->x0); free(g->gid0); free(g->big0);
  free(g);
}

/* ---- cell numbers ---- */

static sg_err slots_alloc(grid *g, int n_slots) {
  free(g->slots);
  g->n_slots = n_slots;
  g->shift = 64;
  for (int c = n_slots; c > 1; c >>= 1) g->shift--;
  g->slots = malloc((size_t)n_slots * sizeof *g->slots);
  if (!g->slots) return sg_error_set(SG_ERR_MEM, "out of memory for the broad-phase cells");
  for (int k = 0; k < n_slots; ++k) g->slots[k].cell = -1;
  return SG_OK;
}

/* The slot that holds key, or the empty slot where it goes. The key's bits are mixed first
 * (murmur3's finalizer): neighbouring cells must not crowd into neighbouring slots. */
static int slot_of(const grid *g, uint64_t key) {
  uint64_t h = key;
  h = (h ^ (h >> 33)) * 0xFF51AFD7ED558CCDULL;
  h = (h ^ (h >> 33)) * 0xC4CEB9FE1A85EC53ULL;
  int k = (int)((h ^ (h >> 33)) >> g->shift);
  while (g->slots[k].cell >= 0 && g->slots[k].key != key) k = (k + 1) & (g->n_slots - 1);
  return k;
}

static sg_err slots_grow(grid *g) {
  cell_slot *old = g->slots;
  int n_old = g->n_slots;
  g->slots = NULL;
  SG_CHECK(slots_alloc(g, 2 * n_old));
  for (int k = 0; k < n_old; ++k)
    if (old[k].cell >= 0) g->slots[slot_of(g, old[k].key)] = old[k];
  free(old);
  return SG_OK;
}

/* The number of the cell of key, a new one when first seen. */
static sg_err enter_cell(grid *g, uint64_t key, int *cell) {
  if (2 * (g->n_cells + 1) > g->n_slots) SG_CHECK(slots_grow(g));
  int k = slot_of(g, key);
  if (g->slots[k].cell < 0) {
    SG_CHECK(sg_grow((void **)&g->count, &g->cap_count, g->n_cells + 1, sizeof *g->count, "cell counts"));
    g->count[g->n_cells] = 0;
    g->slots[k] = (cell_slot){key, g->n_cells++};
  }
  *cell = g->slots[k].cell;
  return SG_OK;
}

/* Empty table, sized for about as many cells as the last call had (or two per body). */
static sg_err clear_cells(grid *g, int n_bodies) {
  int want = 16;
  while (want < 2 * n_bodies || want < 2 * g->n_cells) want *= 2;
  g->n_cells = 0;
  if (want > g->n_slots) return slots_alloc(g, want);
  for (int k = 0; k < g->n_slots; ++k) g->slots[k].cell = -1;
  return SG_OK;
}

/* ---- placing the bodies ---- */

/* Median of each velocity component over the moving bodies of typical size. */
static void median_velocity(grid *g, double *vref) {
  const sg_scene *s = g->s;
  for (int k = 0; k < 3; ++k) {
    int m = 0;
    for (int i = 0; i < s->n; ++i)
      if (g->body[i].level >= 0 && !s->fixed[i]) g->scratch[m++] = s->state.vel[6 * i + k];
    vref[k] = m ? median_of(g->scratch, m) : 0.0;
  }
}

/* Planes and bodies much larger than the median radius are oversized; the cell edge comes from
 * the others. */
static void classify_by_size(grid *g) {
  const sg_scene *s = g->s;
  int nfinite = 0;
  for (int i = 0; i < s->n; ++i) {
    g->body[i].radius = sg_body_bounding_radius(s, i);
    if (isfinite(g->body[i].radius)) g->scratch[nfinite++] = g->body[i].radius;
  }
  double median = nfinite ? median_of(g->scratch, nfinite) : 0.0, rmax = 0;
  for (int i = 0; i < s->n; ++i) {
    double r = g->body[i].radius;
    g->body[i].level = isfinite(r) && r <= SG_BIG_FACTOR * median ? 0 : -1;
    if (g->body[i].level == 0) rmax = fmax(rmax, r);
  }
  g->h = 2 * rmax + g->margin;
  if (!(g->h > 0)) g->h = 1;
}

/* Box around the segment x -> x + dt (v - vref), grown by R + margin / 2 (and a hair more, so
 * that rounding never makes it smaller than the exact test needs); with stops, a moving body's box
 * also holds x - dt vref, where it is in the grid's frame while the solve holds it still. */
static void swept_box(const grid *g, int i, const double *vref, box3 *b) {
  const sg_scene *s = g->s;
  double grow = g->body[i].radius + 0.5 * g->margin;
  for (int k = 0; k < 3; ++k) {
    double x = s->state.pos[3 * i + k], v = (s->fixed[i] == SG_FIXED ? 0.0 : s->state.vel[6 * i + k]) - vref[k];
    double end = x + g->dt * v, pad = grow + 1e-9 * (grow + fabs(x) + fabs(end));
    double still = g->stops && s->fixed[i] == SG_MOVING ? x - g->dt * vref[k] : x;
    b->lo[k] = fmin(fmin(x, end), still) - pad;
    b->hi[k] = fmax(fmax(x, end), still) + pad;
  }
}

/* Cells of the given level that a box overlaps: lo..hi on each axis; returns their number. */
static double cell_range(const grid *g, const box3 *b, int level, int64_t *lo, int64_t *hi) {
  double edge = ldexp(g->h, level), n_cells = 1;
  for (int k = 0; k < 3; ++k) {
    lo[k] = (int64_t)floor(b->lo[k] / edge);
    hi[k] = (int64_t)floor(b->hi[k] / edge);
    n_cells *= (double)(hi[k] - lo[k] + 1);
  }
  return n_cells;
}

/* Can the box's cells be numbered? (Not when it is not finite or astronomically far.) */
static int on_grid(const grid *g, const box3 *b) {
  for (int k = 0; k < 3; ++k)
    if (!(fabs(b->lo[k]) < 1e15 * g->h && fabs(b->hi[k]) < 1e15 * g->h)) return 0;
  return 1;
}

/* A cell entry's flag of a body of sg_broadphase.changed (set for every body when there is none). */
#define CHANGED_BIT 8

static int changed_bit(const grid *g, int i) { return !g->changed || g->changed[i] ? CHANGED_BIT : 0; }

/* Bit k set: cell c is the lowest of the range lo on axis k. */
static int corner_bits(const int64_t *c, const int64_t *lo) {
  return (c[0] == lo[0]) | (c[1] == lo[1]) << 1 | (c[2] == lo[2]) << 2;
}

#define FOR_CELLS(c, lo, hi)                       \
  for (c[2] = lo[2]; c[2] <= hi[2]; ++c[2])        \
    for (c[1] = lo[1]; c[1] <= hi[1]; ++c[1])      \
      for (c[0] = lo[0]; c[0] <= hi[0]; ++c[0])

/* Swept box and level of every body of typical size: the first level where it enters at most
 * SG_MAX_CELLS cells (a body too fast for every level, or off the grid, joins the oversized). */
static sg_err place_bodies(grid *g) {
  const sg_scene *s = g->s;
  double vref[3];
  median_velocity(g, vref);
  int n_entries = 0;
  g->levels_used = 0;
  for (int i = 0; i < s->n; ++i) {
    grid_body *b = &g->body[i];
    b->first_entry = n_entries;
    b->n_entries = 0;
    if (b->level < 0) continue;
    swept_box(g, i, vref, &b->box);
    double n_cells = 0;
    if (!on_grid(g, &b->box)) b->level = SG_MAX_LEVEL + 1;
    while (b->level <= SG_MAX_LEVEL && (n_cells = cell_range(g, &b->box, b->level, b->lo, b->hi)) > SG_MAX_CELLS) b->level++;
    if (b->level > SG_MAX_LEVEL) { b->level = -1; continue; }
    g->levels_used |= 1u << b->level;
    b->n_entries = (int)n_cells;
    if (n_entries > INT32_MAX / 2 - b->n_entries) return sg_error_set(SG_ERR_MEM, "too many broad-phase cells");
    n_entries += b->n_entries;
  }
  return sg_grow((void **)&g->entry_cell, &g->cap_entry_cell, n_entries + 1, sizeof *g->entry_cell, "grid entries");
}

/* Number every cell entered, and count the bodies in each. */
static sg_err count_cells(grid *g) {
  SG_CHECK(clear_cells(g, g->s->n));
  for (int i = 0; i < g->s->n; ++i) {
    const grid_body *b = &g->body[i];
    if (b->level < 0) continue;
    int64_t c[3];
    int *cell = g->entry_cell + b->first_entry;
    FOR_CELLS(c, b->lo, b->hi) {
      SG_CHECK(enter_cell(g, cell_key(b->level, c), cell));
      g->count[*cell++]++;
    }
  }
  return SG_OK;
}

/* The bodies of each cell, contiguous and ascending. */
static sg_err fill_cells(grid *g) {
  SG_CHECK(sg_grow((void **)&g->start, &g->cap_start, g->n_cells + 1, sizeof *g->start, "cell starts"));
  int total = 0;
  for (int k = 0; k < g->n_cells; ++k) {
    g->start[k] = total;
    total += g->count[k];
  }
  SG_CHECK(sg_grow((void **)&g->cell_body, &g->cap_cell_body, total + 1, sizeof *g->cell_body, "grid cell lists"));
  for (int i = 0; i < g->s->n; ++i) {
    const grid_body *b = &g->body[i];
    if (b->level < 0) continue;
    const int *cell = g->entry_cell + b->first_entry;
    int64_t c[3];
    const int flag = changed_bit(g, i);
    FOR_CELLS(c, b->lo, b->hi) g->cell_body[g->start[*cell++]++] = i << 4 | flag | corner_bits(c, b->lo);
  }
  for (int k = 0; k < g->n_cells; ++k) g->start[k] -= g->count[k];
  return SG_OK;
}

/* ---- pairs ---- */

static sg_err push_pair(sg_broadphase *bp, int i, int j) {
  SG_CHECK(sg_grow((void **)&bp->pairs, &bp->cap, 2 * (bp->n + 1), sizeof(int), "broad-phase pairs"));
  bp->pairs[2 * bp->n] = i < j ? i : j;
  bp->pairs[2 * bp->n + 1] = i < j ? j : i;
  bp->n++;
  return SG_OK;
}

/* Are the bounding spheres of i and j within margin (the list's: margin + skin) of each other, padded
 * beyond the roundings of the exact test and of the moves the list allows? */
static int within_reach(const grid *g, int i, int j) {
  const double *xi = g->s->state.pos + 3 * i, *xj = g->s->state.pos + 3 * j;
  const double reach = g->body[i].radius + g->body[j].radius + g->margin, d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};
  const double pad = 1e-9 * (reach + v3_norm(xi) + v3_norm(xj));
  return v3_dot(d, d) < (reach + pad) * (reach + pad);
}

/* Body i and body j, a body of a cell both entered that holds the lower corner of the overlap of
 * their swept boxes: the boxes must overlap and the exact test decide. */
static sg_err examine(const grid *g, int i, int j, sg_broadphase *bp) {
  const sg_scene *s = g->s;
  if (s->fixed[i] && s->fixed[j]) return SG_OK;
  const box3 *a = &g->body[i].box, *b = &g->body[j].box;
  for (int k = 0; k < 3; ++k)
    if (a->lo[k] > b->hi[k] || b->lo[k] > a->hi[k]) return SG_OK;
  if (g->listing ? within_reach(g, i, j) : may_touch(s, i, j, g->body[i].radius, g->body[j].radius, g->margin, g->dt, g->stops))
    SG_CHECK(push_pair(bp, i, j));
  return SG_OK;
}

/* Body i (corner bits and changed flag `bits` in this cell) against the bodies of the cell stored
 * after body `after`, each examined here only when the cell holds the lower corner of the two (on
 * every axis the lowest cell of one of them) and one of the two is flagged. */
static sg_err examine_cell(const grid *g, int i, int bits, int cell, int after, sg_broadphase *bp) {
  const int *entry = g->cell_body + g->start[cell];
  for (int m = g->count[cell] - 1; m >= 0 && entry[m] >> 4 > after; --m)
    if (((entry[m] | bits) & 7) == 7 && (entry[m] | bits) & CHANGED_BIT) SG_CHECK(examine(g, i, entry[m] >> 4, bp));
  return SG_OK;
}

/* Flagged body i (corner bits `corner` in this cell) against every other body of the cell, in either
 * order (with sg_broadphase.changed an unflagged body looks at no cell), but the flagged ones stored
 * before it, whose own look finds the pair. */
static sg_err examine_cell_flagged(const grid *g, int i, int corner, int cell, sg_broadphase *bp) {
  const int *entry = g->cell_body + g->start[cell];
  for (int m = 0; m < g->count[cell]; ++m) {
    const int j = entry[m] >> 4;
    if (j == i || (j < i && entry[m] & CHANGED_BIT)) continue;
    if (((entry[m] | corner) & 7) == 7) SG_CHECK(examine(g, i, j, bp));
  }
  return SG_OK;
}

/* Pairs of bodies of the same level: each body against the later bodies of the cells it entered
 * (with sg_broadphase.changed, each flagged body against the others). */
static sg_err same_level_pairs(const grid *g, sg_broadphase *bp) {
  for (int i = 0; i < g->s->n; ++i) {
    const grid_body *b = &g->body[i];
    if (b->level < 0 || !changed_bit(g, i)) continue;
    int64_t c[3];
    const int *cell = g->entry_cell + b->first_entry;
    FOR_CELLS(c, b->lo, b->hi) {
      const int corner = corner_bits(c, b->lo);
      SG_CHECK(g->changed ? examine_cell_flagged(g, i, corner, *cell++, bp) : examine_cell(g, i, CHANGED_BIT | corner, *cell++, i, bp));
    }
  }
  return SG_OK;
}

/* Pairs with the bodies of coarser levels: each body looks up the cells its box overlaps there. */
static sg_err cross_level_pairs(const grid *g, sg_broadphase *bp) {
  for (int i = 0; i < g->s->n; ++i) {
    const grid_body *b = &g->body[i];
    if (b->level < 0 || !(g->levels_used >> (b->level + 1))) continue; /* no coarser level in use */
    const int flag = changed_bit(g, i);
    for (int level = b->level + 1; level <= SG_MAX_LEVEL; ++level) {
      if (!(g->levels_used >> level & 1u)) continue;
      int64_t lo[3], hi[3], c[3];
      cell_range(g, &b->box, level, lo, hi);
      FOR_CELLS(c, lo, hi) {
        int cell = g->slots[slot_of(g, cell_key(level, c))].cell;
        if (cell >= 0) SG_CHECK(examine_cell(g, i, flag | corner_bits(c, lo), cell, -1, bp));
      }
    }
  }
  return SG_OK;
}

/* What an oversized body's prefilters of the exact test need, made once for all its pairs: a box's
 * centre, and by axis the world extent of a unit of its half sizes and of a unit of growth along its
 * axes (sum_c |R_ac|); a wall of revolution's geometry. */
typedef struct {
  int is_box, is_revolved;
  double sweep;                    /* its rotation sweep over the step */
  double extent[3], per_growth[3];
  sg_geom wall;
} oversized_bounds;

static void oversized_bounds_of(const sg_scene *s, int b, double dt, oversized_bounds *bb) {
  *bb = (oversized_bounds){.is_box = s->shape[b] == SG_SHAPE_BOX, .is_revolved = sg_shape_is_revolved(s->shape[b])};
  bb->sweep = sg_body_rotation_sweep(s, b, dt);
  if (bb->is_revolved) sg_scene_geom(s, b, &bb->wall);
  if (!bb->is_box) return;
  double R[9];
  quat_to_mat(R, s->state.quat + 4 * b);
  for (int a = 0; a < 3; ++a) {
    bb->extent[a] = bb->per_growth[a] = 0;
    for (int c = 0; c < 3; ++c) {
      bb->extent[a] += fabs(R[3 * a + c]) * s->size[3 * b + c];
      bb->per_growth[a] += fabs(R[3 * a + c]);
    }
  }
}

/* Does i's centre moving by d miss the world box around b's grown slabs? (Padded well beyond the
 * roundings of either computation.) */
static int misses_box_bounds(const grid *g, int b, const oversized_bounds *bb, int i, const double *d) {
  const sg_scene *s = g->s;
  double grow = g->body[i].radius + g->margin + bb->sweep;
  for (int a = 0; a < 3; ++a) {
    double x = s->state.pos[3 * i + a], c = s->state.pos[3 * b + a];
    double reach = bb->extent[a] + grow * bb->per_growth[a];
    double pad = 1e-9 * (reach + fabs(x) + fabs(c) + fabs(d[a]));
    if (fmin(x, x + d[a]) > c + reach + pad || fmax(x, x + d[a]) < c - reach - pad) return 1;
  }
  return 0;
}

/* Can the exact test accept box b with body i? False only when every segment that box_meets_segment
 * clips (i's centre moving by each displacement of the pair) misses the world box around b's
 * grown slabs; a plane i takes the plane test, not the box's. */
static int box_may_meet(const grid *g, int b, const oversized_bounds *bb, int i) {
  if (!bb->is_box || g->s->shape[i] == SG_SHAPE_PLANE) return 1;
  double d[3][3];
  int nd = sg_pair_displacements(g->s, b, i, g->dt, g->stops, d);
  for (int k = 0; k < nd; ++k)
    if (!misses_box_bounds(g, b, bb, i, d[k])) return 1;
  return 0;
}

/* Can the exact test accept wall of revolution b with body i? False only when the test that
 * revolved_meets_segment makes (from the same geometry: the same distances) rejects a sphere i along
 * every displacement of the pair. */
static int revolved_may_meet(const grid *g, int b, const oversized_bounds *bb, int i) {
  const sg_scene *s = g->s;
  if (!bb->is_revolved || s->shape[i] != SG_SHAPE_SPHERE) return 1;
  double d[3][3];
  int nd = sg_pair_displacements(s, b, i, g->dt, g->stops, d);
  const double dist = sg_revolved_distance(&bb->wall, s->state.pos + 3 * i);
  for (int k = 0; k < nd; ++k)
    if (revolved_within(dist, d[k], g->body[i].radius + g->margin + bb->sweep)) return 1;
  return 0;
}

/* Oversized bodies against every other body, pairs of two oversized bodies once. */
static sg_err oversized_pairs(grid *g, sg_broadphase *bp) {
  const sg_scene *s = g->s;
  g->n_big = 0;
  for (int i = 0; i < s->n; ++i)
    if (g->body[i].level < 0) g->big[g->n_big++] = i;
  for (int k = 0; k < g->n_big; ++k) {
    int b = g->big[k];
    oversized_bounds bb;
    oversized_bounds_of(s, b, g->dt, &bb);
    for (int i = 0; i < s->n; ++i) {
      if (i == b || (g->body[i].level < 0 && i < b) || !(changed_bit(g, i) | changed_bit(g, b))) continue;
      if (box_may_meet(g, b, &bb, i) && revolved_may_meet(g, b, &bb, i) && may_touch(s, i, b, g->body[i].radius, g->body[b].radius, g->margin, g->dt, g->stops))
        SG_CHECK(push_pair(bp, i, b));
    }
  }
  return SG_OK;
}

static sg_err grid_reserve(sg_broadphase *bp, const sg_scene *s) {
  if (!bp->work && !(bp->work = sg_calloc(1, sizeof *bp->work, "broad-phase scratch"))) return SG_ERR_MEM;
  grid *g = bp->work;
  if (s->n > INT32_MAX >> 4) /* a cell's entry holds the body's index above four bits */
    return sg_error_set(SG_ERR_MEM, "too many bodies on one rank for the broad phase (%d; at most %d)", s->n, INT32_MAX >> 4);
  SG_CHECK(sg_grow((void **)&g->body, &g->cap_body, s->n, sizeof *g->body, "grid bodies"));
  SG_CHECK(sg_grow((void **)&g->big, &g->cap_big, s->n, sizeof *g->big, "oversized bodies"));
  return sg_grow((void **)&g->scratch, &g->cap_scratch, s->n, sizeof *g->scratch, "broad-phase medians");
}

/* The pairs of the grid's bodies (classified by classify_by_size) into bp. */
static sg_err grid_pairs(grid *g, sg_broadphase *bp) {
  SG_CHECK(place_bodies(g));
  SG_CHECK(count_cells(g));
  SG_CHECK(fill_cells(g));
  SG_CHECK(same_level_pairs(g, bp));
  return cross_level_pairs(g, bp);
}

/* ---- the kept list ---- */

/* The largest D = |x - x0| + dt |v| of a body (the bound the list's header derives): a fixed
 * body's geometry does not sweep. */
static double moved_since_list(const grid *g, int i) {
  const sg_scene *s = g->s;
  const double *x = s->state.pos + 3 * i, *x0 = g->x0 + 3 * i, d[3] = {x[0] - x0[0], x[1] - x0[1], x[2] - x0[2]};
  return v3_norm(d) + (s->fixed[i] == SG_FIXED ? 0.0 : g->dt * v3_norm(s->state.vel + 6 * i));
}

/* Does the kept list hold every pair of this call: the same bodies in the same order, the same
 * oversized ones, the same margin, and every body of the grid within skin / 2 by D? */
static int list_holds(const grid *g, double skin) {
  const sg_scene *s = g->s;
  if (!g->list_ok || s->n != g->list_n || g->margin != g->list_margin) return 0;
  for (int i = 0; i < s->n; ++i) {
    const int big = g->body[i].level < 0;
    if (s->gid[i] != g->gid0[i] || big != g->big0[i] || (!big && !(moved_since_list(g, i) <= 0.5 * skin))) return 0;
  }
  return 1;
}

/* Would a list made now hold for this call (every body of the grid sweeps less than skin / 2)? */
static int list_may_start(const grid *g, double skin) {
  const sg_scene *s = g->s;
  for (int i = 0; i < s->n; ++i)
    if (g->body[i].level >= 0 && s->fixed[i] != SG_FIXED && !(g->dt * v3_norm(s->state.vel + 6 * i) <= 0.5 * skin))
      return 0;
  return 1;
}

/* The grid's static pairs within margin + skin as the kept list, with what it was made for (all of
 * them, whatever sg_broadphase.changed). The grid runs with that margin (cells wider by skin) and no sweep; the levels of this call's
 * classification are then restored. No list when a body the list should hold was left off that
 * grid (a position too far to number). */
static sg_err make_list(grid *g, sg_broadphase *bp, double skin) {
  const sg_scene *s = g->s;
  const double margin = g->margin, dt = g->dt, h = g->h;
  SG_CHECK(sg_grow((void **)&g->x0, &g->cap_x0, 3 * s->n, sizeof *g->x0, "contact list"));
  SG_CHECK(sg_grow((void **)&g->gid0, &g->cap_gid0, s->n, sizeof *g->gid0, "contact list"));
  SG_CHECK(sg_grow((void **)&g->big0, &g->cap_big0, s->n, sizeof *g->big0, "contact list"));
  for (int i = 0; i < s->n; ++i) g->big0[i] = g->body[i].level < 0;
  g->margin = margin + skin;
  g->h = h + skin; /* classify_by_size's 2 r_max + margin at the wider margin */
  g->dt = 0;
  g->listing = 1;
  g->changed = NULL; /* the list holds every pair; the call's filter applies to what it gives */
  sg_err err = grid_pairs(g, bp);
  g->changed = bp->changed;
  int all_placed = 1;
  for (int i = 0; i < s->n; ++i) {
    all_placed &= g->big0[i] || g->body[i].level >= 0;
    g->body[i].level = g->big0[i] ? -1 : 0;
  }
  g->margin = margin;
  g->h = h;
  g->dt = dt;
  g->listing = 0;
  SG_CHECK(err);
  if (!all_placed) {
    bp->n = 0;
    return SG_OK;
  }
  SG_CHECK(sg_grow((void **)&g->list, &g->cap_list, 2 * bp->n + 1, sizeof *g->list, "contact list"));
  if (bp->n) memcpy(g->list, bp->pairs, 2 * (size_t)bp->n * sizeof *g->list); /* no pairs: no array yet */
  g->n_list = bp->n;
  bp->n = 0;
  memcpy(g->x0, s->state.pos, 3 * (size_t)s->n * sizeof *g->x0);
  memcpy(g->gid0, s->gid, (size_t)s->n * sizeof *g->gid0);
  g->list_n = s->n;
  g->list_margin = margin;
  g->list_ok = 1;
  return SG_OK;
}

/* The pairs of the kept list that the exact test accepts. */
static sg_err pairs_from_list(const grid *g, sg_broadphase *bp) {
  const sg_scene *s = g->s;
  for (int k = 0; k < g->n_list; ++k) {
    const int i = g->list[2 * k], j = g->list[2 * k + 1];
    if (!(changed_bit(g, i) | changed_bit(g, j))) continue;
    if (may_touch(s, i, j, g->body[i].radius, g->body[j].radius, g->margin, g->dt, g->stops)) SG_CHECK(push_pair(bp, i, j));
  }
  return SG_OK;
}

/* The pairs of the grid's bodies from the kept list when it holds (made anew when none holds and
 * one made now would); returns 0 in *used when neither, for the grid to search. A periodic scene's
 * images come and go with the bodies' moves: it keeps none. */
static sg_err listed_pairs(grid *g, sg_broadphase *bp, int *used) {
  double period[3];
  *used = 0;
  if (!(bp->skin > 0) || sg_scene_period(g->s, period)) return SG_OK;
  if (!list_holds(g, bp->skin)) {
    g->list_ok = 0; /* made anew below, or searched whole until one is */
    if (!list_may_start(g, bp->skin)) return SG_OK;
    SG_CHECK(make_list(g, bp, bp->skin));
    if (!g->list_ok) return SG_OK;
    bp->lists_made++;
  }
  *used = 1;
  bp->listed++;
  return pairs_from_list(g, bp);
}

sg_err sg_broadphase_pairs(sg_broadphase *bp, const sg_scene *s, double margin, double dt) {
  bp->n = 0;
  if (s->n < 2) return SG_OK;
  SG_CHECK(grid_reserve(bp, s));
  grid *g = bp->work;
  g->s = s;
  g->margin = margin;
  g->dt = dt;
  g->stops = bp->stops;
  g->changed = bp->changed;
  bp->calls++;
  classify_by_size(g);
  int listed;
  SG_CHECK(listed_pairs(g, bp, &listed));
  if (!listed) SG_CHECK(grid_pairs(g, bp));
  return oversized_pairs(g, bp);
}

void sg_broadphase_destroy(sg_broadphase *bp) {
  free(bp->pairs);
  grid_free(bp->work);
  sg_pair_order_free(bp->order);
  memset(bp, 0, sizeof *bp);
}
