/* Inflow: before each step's exchange, the spheres due by the end of the step (rate x elapsed time
 * of the region's window, in bodies or kg) are inserted at random positions of the region's box
 * where they overlap nothing: no fixed body, no moving body of any rank, no sphere inserted before
 * them. Every rank draws the same numbers (a counter-based generator keyed by the seed, the body's
 * index in the inflow and the step) and takes the same decisions, so the same bodies enter
 * whatever the number of ranks; each is then held by one rank (the one whose bodies are nearest)
 * and gets the next global id. A body that finds no room waits for a later step, in order; the
 * region reports when it becomes full and when it has room again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/collision.h"
#include "signorini/hooks.h"

#define ATTEMPTS 30           /* random positions tried per body and step */
#define CLEARANCE 0.01        /* smallest gap at insertion, as a fraction of the radius */
#define MAX_WAITING_COUNTED 1000000

typedef struct {
  int region;
  int64_t n_inserted; /* bodies inserted so far: the next one is body n_inserted of the inflow */
  double mass_inserted;
  int full;           /* the last step left bodies waiting (reported when it changes) */
  double *near;       /* bounding spheres (x, y, z, R) of the moving bodies near the box, every rank's */
  int n_near, cap_near;
  int *walls, n_walls, cap_walls; /* fixed bodies that may reach into the box */
  double *placed;     /* (x, y, z, r) of the spheres inserted in this step */
  int n_placed, cap_placed;
  double *boxes;      /* per rank: the box of its moving bodies (lo, hi), empty when lo > hi */
  int cap_boxes;
} inflow;

static uint64_t mix(uint64_t z) { /* splitmix64's finalizer */
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* A uniform number in [0, 1) from (seed, body, step, attempt, coordinate): no generator state. */
static double draw(uint64_t seed, int64_t body, int64_t step, int attempt, int coord) {
  uint64_t h = mix(seed);
  h = mix(h ^ (uint64_t)body);
  h = mix(h ^ (uint64_t)step);
  h = mix(h ^ ((uint64_t)attempt << 2 | (uint64_t)coord));
  return (double)(h >> 11) * 0x1.0p-53;
}

static double body_radius(const sg_region *r, int64_t j) {
  return sg_size_sample(&r->size, draw(r->seed, j, -1, 0, 3));
}

/* Is body j (mass m_j; mass_before inserted before it) due by time t? */
static int is_due(const sg_region *r, double t, int64_t j, double mass_before, double m_j) {
  if (t <= r->t_start) return 0;
  double target = r->rate * (fmin(t, r->t_end) - r->t_start) * (1 + 1e-12); /* exact multiples stay due */
  if (r->rate_unit == SG_RATE_BODIES) return (double)(j + 1) <= target;
  return mass_before + 0.5 * m_j <= target;
}

static int sphere_meets_box(const double *c, double rad, const double *lo, const double *hi) {
  double d2 = 0;
  for (int d = 0; d < 3; ++d) {
    double e = c[d] < lo[d] ? lo[d] - c[d] : c[d] > hi[d] ? c[d] - hi[d] : 0;
    d2 += e * e;
  }
  return d2 <= rad * rad;
}

/* Every rank's moving bodies that may reach into the box, as bounding spheres, on every rank;
 * the fixed bodies that may (held everywhere). Collective. */
static sg_err gather_near(inflow *f, const sg_region *r, const sg_hook_context *ctx) {
  const sg_scene *s = ctx->s;
  int n = 0, P;
  MPI_Comm_size(ctx->comm, &P);
  double *mine = sg_calloc((size_t)4 * ctx->n_held + 4, sizeof *mine, "inflow neighbours");
  int *cnt = sg_calloc((size_t)P, sizeof *cnt, "inflow counts"), *dsp = sg_calloc((size_t)P + 1, sizeof *dsp, "inflow counts");
  sg_err err = mine && cnt && dsp ? SG_OK : SG_ERR_MEM;
  f->n_walls = 0;
  for (int i = 0; i < ctx->n_held && !err; ++i) {
    double R = sg_body_bounding_radius(s, i);
    if (!sphere_meets_box(s->state.pos + 3 * i, R + r->size.hi, r->lo, r->hi)) continue;
    if (s->fixed[i]) {
      err = sg_grow((void **)&f->walls, &f->cap_walls, f->n_walls + 1, sizeof(int), "inflow walls");
      if (!err) f->walls[f->n_walls++] = i;
      continue;
    }
    memcpy(mine + 4 * n, s->state.pos + 3 * i, 3 * sizeof(double));
    mine[4 * n++ + 3] = R;
  }
  err = sg_error_collective(ctx->comm, err);
  if (!err) {
    int m = 4 * n;
    MPI_Allgather(&m, 1, MPI_INT, cnt, 1, MPI_INT, ctx->comm);
    for (int k = 0; k < P; ++k) dsp[k + 1] = dsp[k] + cnt[k];
    err = sg_error_collective(ctx->comm, sg_grow((void **)&f->near, &f->cap_near, dsp[P] + 4, sizeof(double), "inflow neighbours"));
  }
  if (!err) {
    MPI_Allgatherv(mine, 4 * n, MPI_DOUBLE, f->near, cnt, dsp, MPI_DOUBLE, ctx->comm);
    f->n_near = dsp[P] / 4;
  }
  free(mine); free(cnt); free(dsp);
  return err;
}

/* Per rank, the box of the moving bodies it holds (lo > hi: none). Collective. */
static sg_err gather_boxes(inflow *f, const sg_hook_context *ctx) {
  int P;
  MPI_Comm_size(ctx->comm, &P);
  double box[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < ctx->n_held; ++i) {
    if (ctx->s->fixed[i]) continue;
    for (int d = 0; d < 3; ++d) {
      box[d] = fmin(box[d], ctx->s->state.pos[3 * i + d]);
      box[3 + d] = fmax(box[3 + d], ctx->s->state.pos[3 * i + d]);
    }
  }
  SG_CHECK(sg_error_collective(ctx->comm, sg_grow((void **)&f->boxes, &f->cap_boxes, 6 * P, sizeof(double), "inflow boxes")));
  MPI_Allgather(box, 6, MPI_DOUBLE, f->boxes, 6, MPI_DOUBLE, ctx->comm);
  return SG_OK;
}

/* The rank to hold a body inserted at x: the one whose bodies' box is nearest (lowest rank on a
 * tie); the next id modulo P when no rank holds a moving body. */
static int pick_owner(const inflow *f, int P, const double *x, int64_t gid) {
  int best = -1;
  double best_d = INFINITY;
  for (int q = 0; q < P; ++q) {
    const double *b = f->boxes + 6 * q;
    if (b[0] > b[3]) continue;
    double d2 = 0;
    for (int d = 0; d < 3; ++d) {
      double e = x[d] < b[d] ? b[d] - x[d] : x[d] > b[3 + d] ? x[d] - b[3 + d] : 0;
      d2 += e * e;
    }
    if (d2 < best_d) { best_d = d2; best = q; }
  }
  return best >= 0 ? best : (int)(gid % P);
}

static int spheres_clear(const double *x, double rad, const double *sph, int n) {
  for (int k = 0; k < n; ++k) {
    const double *o = sph + 4 * k;
    double dx = x[0] - o[0], dy = x[1] - o[1], dz = x[2] - o[2], reach = rad * (1 + CLEARANCE) + o[3];
    if (dx * dx + dy * dy + dz * dz < reach * reach) return 0;
  }
  return 1;
}

/* Does a sphere at x clear every body near the box (walls by their exact shape)? */
static int room_at(const inflow *f, const sg_scene *s, const double *x, double rad) {
  if (!spheres_clear(x, rad, f->near, f->n_near) || !spheres_clear(x, rad, f->placed, f->n_placed)) return 0;
  sg_geom g = {.shape = SG_SHAPE_SPHERE, .size = {rad, 0, 0}, .R = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
  memcpy(g.pos, x, sizeof g.pos);
  for (int k = 0; k < f->n_walls; ++k) {
    sg_geom w;
    sg_manifold m;
    sg_scene_geom(s, f->walls[k], &w);
    if (sg_collide(&g, &w, CLEARANCE * rad, &m) > 0) return 0;
  }
  return 1;
}

/* A free position for body j in this step, or 0 when ATTEMPTS draws found none. */
static int find_room(const inflow *f, const sg_region *r, const sg_scene *s, int64_t j, double rad, double *x) {
  for (int a = 0; a < ATTEMPTS; ++a) {
    for (int d = 0; d < 3; ++d)
      x[d] = r->lo[d] + rad + (r->hi[d] - r->lo[d] - 2 * rad) * draw(r->seed, j, s->state.step, a, d);
    if (room_at(f, s, x, rad)) return 1;
  }
  return 0;
}

/* Body j enters at x: held by its owner, logged there, and given the next id everywhere. */
static sg_err insert(inflow *f, const sg_region *r, const sg_hook_context *ctx, const double *x, double rad) {
  sg_scene *s = ctx->s;
  int rank, P;
  MPI_Comm_rank(ctx->comm, &rank);
  MPI_Comm_size(ctx->comm, &P);
  int64_t gid = s->next_gid++;
  SG_CHECK(sg_grow((void **)&f->placed, &f->cap_placed, 4 * (f->n_placed + 1), sizeof(double), "inflow placements"));
  memcpy(f->placed + 4 * f->n_placed, x, 3 * sizeof(double));
  f->placed[4 * f->n_placed++ + 3] = rad;
  if (pick_owner(f, P, x, gid) != rank) return SG_OK;
  const double size[3] = {rad, 0, 0}, vel[6] = {r->velocity[0], r->velocity[1], r->velocity[2], 0, 0, 0};
  int i;
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, r->material, SG_MOVING, r->density, x, NULL, vel, &i));
  s->gid[i] = gid;
  if (s->distributed) s->n_owned++;
  SG_CHECK(sg_body_update_mass(s, i));
  return sg_body_events_push(ctx->inserted, s, i, ctx->t0);
}

/* Bodies due and not inserted (counted up to a bound). */
static long long count_waiting(const sg_region *r, double t, int64_t j, double mass) {
  long long w = 0;
  for (; w < MAX_WAITING_COUNTED; ++w, ++j) {
    double m = sg_sphere_mass(r->density, body_radius(r, j));
    if (!is_due(r, t, j, mass, m)) break;
    mass += m;
  }
  return w;
}

static void report_fullness(inflow *f, const sg_hook_context *ctx, long long waiting) {
  int rank;
  MPI_Comm_rank(ctx->comm, &rank);
  int full = waiting > 0;
  if (full != f->full && rank == 0) {
    if (full) printf("signorini: inflow region %d is full at t = %.6g s: %lld bodies wait for room\n", f->region, ctx->t0, waiting);
    else printf("signorini: inflow region %d has room again at t = %.6g s\n", f->region, ctx->t0);
    fflush(stdout);
  }
  f->full = full;
}

static sg_err inflow_run(sg_hook *h, sg_hook_stage stage, const sg_hook_context *ctx) {
  (void)stage;
  inflow *f = h->data;
  const sg_region *r = &ctx->s->regions[f->region];
  double m_next = sg_sphere_mass(r->density, body_radius(r, f->n_inserted));
  if (!is_due(r, ctx->t1, f->n_inserted, f->mass_inserted, m_next)) { /* the same answer on every rank */
    report_fullness(f, ctx, 0);
    return SG_OK;
  }
  SG_CHECK(gather_near(f, r, ctx));
  SG_CHECK(gather_boxes(f, ctx));
  f->n_placed = 0;
  sg_err err = SG_OK;
  for (;;) {
    int64_t j = f->n_inserted;
    double rad = body_radius(r, j), m = sg_sphere_mass(r->density, rad), x[3];
    if (!is_due(r, ctx->t1, j, f->mass_inserted, m) || !find_room(f, r, ctx->s, j, rad, x)) break;
    err = insert(f, r, ctx, x, rad);
    if (err) break;
    f->n_inserted++;
    f->mass_inserted += m;
    ctx->tally->inserted++;
    ctx->tally->mass_inserted += m;
  }
  long long waiting = count_waiting(r, ctx->t1, f->n_inserted, f->mass_inserted);
  ctx->tally->waiting += waiting;
  report_fullness(f, ctx, waiting);
  return sg_error_collective(ctx->comm, err);
}

static void inflow_save(const sg_hook *h, int64_t *w) {
  const inflow *f = h->data;
  w[0] = f->n_inserted;
  memcpy(&w[1], &f->mass_inserted, sizeof(double));
  w[2] = f->full;
}

static sg_err inflow_load(sg_hook *h, const int64_t *w) {
  inflow *f = h->data;
  double mass;
  memcpy(&mass, &w[1], sizeof mass);
  if (w[0] < 0 || !(mass >= 0) || !isfinite(mass) || (w[2] != 0 && w[2] != 1))
    return sg_error_set(SG_ERR_FORMAT, "inflow region %d: invalid saved state (%lld bodies, %g kg)", f->region,
                        (long long)w[0], mass);
  f->n_inserted = w[0];
  f->mass_inserted = mass;
  f->full = (int)w[2];
  return SG_OK;
}

static void inflow_destroy(sg_hook *h) {
  inflow *f = h->data;
  if (f) {
    free(f->near);
    free(f->walls);
    free(f->placed);
    free(f->boxes);
  }
  free(f);
  h->data = NULL;
}

static const sg_hook_ops inflow_ops = {
    .name = "inflow",
    .mask = SG_HOOK_BEFORE_EXCHANGE,
    .run = inflow_run,
    .destroy = inflow_destroy,
    .n_state = 3,
    .save = inflow_save,
    .load = inflow_load,
};

sg_err sg_hook_inflow_add(sg_hook_list *l, const sg_scene *s, int region) {
  (void)s;
  inflow *f = sg_calloc(1, sizeof *f, "inflow hook");
  if (!f) return SG_ERR_MEM;
  f->region = region;
  sg_err err = sg_hooks_add(l, &inflow_ops, f);
  if (err) free(f);
  return err;
}
