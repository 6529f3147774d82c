/* Benchmark: collision detection of a pour, speculative contacts from relative motion.
 *
 *   collision_pour [-n 20000] [-speed 5] [-rest 0.5] [-d 0.002] [-spacing 1.5] [-dt 0.0041666667]
 *                  [-repeats 3] [-old 1]
 *
 * A cubic lattice of n spheres of diameter d (loose by default: -spacing 1.5 d) stands on a
 * floor, its bottom layer touching it; the lowest fraction -rest of the spheres is at rest, the
 * others fall at -speed (m/s). The margin is the default of `signorini run`, 0.2 x the radius.
 * Prints candidate pairs and contacts per sphere; the time of sg_find_contacts and of
 * sg_broadphase_pairs (fastest of the repeats that follow a first call, as in the steps of a run)
 * and of the first call; and the peak resident memory (getrusage) before and after. With -old 1
 * it also counts, by a sweep over all pairs sorted by height, what the former absolute reach,
 * margin + dt (|v_i| + |v_j|), gives on the same scene (for spheres and a plane its candidates
 * and contacts are the same pairs), and the memory its pair and contact lists would need. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "bench_util.h"
#include "signorini/signorini.h"

typedef struct {
  int n, repeats, old;
  double speed, rest, d, spacing, dt;
} options;

static int parse(int argc, char **argv, options *o) {
  *o = (options){.n = 20000, .repeats = 3, .old = 1, .speed = 5, .rest = 0.5, .d = 0.002, .spacing = 1.5,
                 .dt = 1.0 / 240.0};
  for (int k = 1; k + 1 < argc; k += 2) {
    const char *name = argv[k], *value = argv[k + 1];
    if (!strcmp(name, "-n")) o->n = atoi(value);
    else if (!strcmp(name, "-repeats")) o->repeats = atoi(value);
    else if (!strcmp(name, "-old")) o->old = atoi(value);
    else if (!strcmp(name, "-speed")) o->speed = atof(value);
    else if (!strcmp(name, "-rest")) o->rest = atof(value);
    else if (!strcmp(name, "-d")) o->d = atof(value);
    else if (!strcmp(name, "-spacing")) o->spacing = atof(value);
    else if (!strcmp(name, "-dt")) o->dt = atof(value);
    else { fprintf(stderr, "collision_pour: unknown option %s\n", name); return 1; }
  }
  if (argc % 2 == 0) { fprintf(stderr, "collision_pour: option %s needs a value\n", argv[argc - 1]); return 1; }
  return o->n < 1 || o->repeats < 1 || !(o->d > 0) || !(o->spacing >= 1) || !(o->dt > 0);
}

/* Floor first (body 0), then the spheres layer by layer from the bottom. */
static sg_err build_pour(sg_scene *s, const options *o) {
  SG_CHECK(sg_scene_create(s, o->n + 1, 1));
  const double zero[3] = {0, 0, 0}, size[3] = {0.5 * o->d, 0, 0}, spacing = o->spacing * o->d;
  SG_CHECK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  int side = (int)ceil(cbrt((double)o->n)), n_rest = (int)(o->rest * o->n);
  for (int k = 0; k < o->n; ++k) {
    double x[3] = {spacing * (k % side), spacing * (k / side % side), 0.5 * o->d + spacing * (k / side / side)};
    double v[6] = {0, 0, k < n_rest ? 0.0 : -o->speed, 0, 0, 0};
    SG_CHECK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, 2500, x, NULL, v, NULL));
  }
  return sg_scene_update_mass(s);
}

typedef struct {
  double z;
  int body;
} height;

static int by_height(const void *a, const void *b) {
  const height *x = a, *y = b;
  return (x->z > y->z) - (x->z < y->z);
}

/* Pairs within the former absolute reach, swept by height: sphere pairs with |x_i - x_j| < 2 r + margin +
 * dt (|v_i| + |v_j|), and spheres within margin + dt |v| of the floor. */
static long old_reach_pairs(const sg_scene *s, double margin, double dt) {
  int n = s->n - 1;
  height *order = malloc((size_t)n * sizeof *order);
  if (!order) return -1;
  double vmax = 0, r = s->size[3];
  for (int k = 0; k < n; ++k) {
    order[k] = (height){s->state.pos[3 * (k + 1) + 2], k + 1};
    vmax = fmax(vmax, sg_body_speed_bound(s, k + 1));
  }
  qsort(order, (size_t)n, sizeof *order, by_height);
  long pairs = 0;
  for (int a = 0; a < n; ++a) {
    int i = order[a].body;
    const double *xi = s->state.pos + 3 * i;
    pairs += xi[2] - r < margin + dt * sg_body_speed_bound(s, i); /* the floor */
    for (int b = a + 1; b < n; ++b) {
      int j = order[b].body;
      const double *xj = s->state.pos + 3 * j;
      if (xj[2] - xi[2] >= 2 * r + margin + 2 * dt * vmax) break;
      double d[3], reach = 2 * r + margin + dt * (sg_body_speed_bound(s, i) + sg_body_speed_bound(s, j));
      v3_sub(d, xj, xi);
      pairs += v3_dot(d, d) < reach * reach;
    }
  }
  free(order);
  return pairs;
}

static sg_err run(const options *o) {
  sg_scene s;
  SG_CHECK(build_pour(&s, o));
  double margin = 0.2 * 0.5 * o->d, mem_scene = (bench_maxrss_kb() / 1024.0);
  sg_broadphase bp = {0};
  sg_contacts c = {0};
  double t_first = bench_now(), t_broad = INFINITY, t_all = INFINITY;
  sg_err err = sg_find_contacts(&s, margin, o->dt, &bp, &c);
  t_first = bench_now() - t_first;
  for (int k = 0; k < o->repeats && !err; ++k) { /* as the steps after the first: scratch reused */
    double t0 = bench_now();
    err = sg_broadphase_pairs(&bp, &s, margin, o->dt);
    double t1 = bench_now();
    if (!err) err = sg_find_contacts(&s, margin, o->dt, &bp, &c);
    double t2 = bench_now();
    t_broad = fmin(t_broad, t1 - t0);
    t_all = fmin(t_all, t2 - t1);
  }
  if (!err) {
    int floor_contacts = 0;
    for (int k = 0; k < c.n; ++k) floor_contacts += c.c[k].gid_a == 0;
    printf("pour: %d spheres, d = %g m, spacing %g d, %.0f%% at rest, the rest falling at %g m/s, dt = %g s, "
           "margin %g m\n", o->n, o->d, o->spacing, 100 * o->rest, o->speed, o->dt, margin);
    printf("relative motion: %.3f candidates per sphere, %.3f contacts per sphere (%d with the floor)\n",
           (double)bp.n / o->n, (double)c.n / o->n, floor_contacts);
    printf("  collision %.2f ms (broad phase %.2f ms), first call %.2f ms; peak memory %.1f MB, %.1f MB before "
           "collision\n", 1e3 * t_all, 1e3 * t_broad, 1e3 * t_first, (bench_maxrss_kb() / 1024.0), mem_scene);
    if (o->old) {
      long old = old_reach_pairs(&s, margin, o->dt);
      printf("former absolute reach: %.3f candidates = contacts per sphere, their pair and contact lists "
             "alone need %.1f MB\n", (double)old / o->n, old * (2 * sizeof(int) + sizeof(sg_contact)) / 1048576.0);
    }
  }
  sg_contacts_destroy(&c);
  sg_broadphase_destroy(&bp);
  sg_scene_destroy(&s);
  return err;
}

int main(int argc, char **argv) {
  options o;
  if (parse(argc, argv, &o)) {
    fprintf(stderr, "usage: collision_pour [-n 20000] [-speed 5] [-rest 0.5] [-d 0.002] [-spacing 1.5] "
                    "[-dt 0.0041666667] [-repeats 3] [-old 1]\n");
    return 1;
  }
  if (run(&o)) {
    fprintf(stderr, "collision_pour: %s\n", sg_error_message());
    return 1;
  }
  return 0;
}
