/* Checkpoint files: a write/read round trip restores the state, step, time and warm start bit for
 * bit, by global id whatever the order of the bodies in memory; the scene fingerprint depends on
 * the static description only (and not on the order in memory), regions included; a new checkpoint
 * replaces the old one with nothing left beside it, a failed write leaves the old one; a checkpoint
 * is refused for another scene or when damaged, leaving the scene untouched; a checkpoint of a run
 * whose moving bodies partly left and partly entered (new ids) restores that body set into the
 * original scene, replicated or distributed, with next_gid and the hooks' state. Runs on any
 * number of ranks (mpiexec -n P). */
#include "io_scratch.h"
#include "signorini/exchange.h"

/* The extras of a checkpoint of a run that started from the scene `from`. */
static sg_checkpoint_extras extras(const sg_scene *from, const sg_warm_entry *w, int n_warm) {
  sg_checkpoint_extras x = {.scene_hash = sg_scene_hash(MPI_COMM_WORLD, from), .warm = w, .n_warm = n_warm};
  return x;
}

static sg_err write_ckpt(const char *p, const sg_scene *s, const sg_step_params *prm, const sg_warm_entry *w,
                         int n_warm) {
  sg_checkpoint_extras x = extras(s, w, n_warm);
  return sg_checkpoint_write(MPI_COMM_WORLD, p, s, prm, &x);
}

static sg_step_params params(void) {
  sg_step_params p = {.dt = 1.0 / 240.0, .theta = 0.25, .margin = 0.002, .erp = 0.2};
  return p;
}

/* Sorted entries with identities over the whole uint32 range of features. */
static sg_warm_entry *make_warm(int n, int n_bodies) {
  sg_warm_entry *w = calloc((size_t)(n ? n : 1), sizeof *w);
  unsigned long long seed = 99;
  for (int k = 0; k < n; ++k) {
    w[k].gid_a = k / 4;
    w[k].gid_b = (k / 4 + 1 + k % 2) % n_bodies;
    w[k].feature = (uint32_t)(k % 4) * 0x50000001u; /* up to 0xF0000003 */
    for (int r = 0; r < 3; ++r) w[k].lambda[r] = sg_test_rand(&seed, -1, 1);
  }
  /* sort by (gid_a, gid_b, feature) with a plain insertion sort */
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0; --j) {
      sg_warm_entry *x = &w[j - 1], *y = &w[j];
      int gt = x->gid_a != y->gid_a ? x->gid_a > y->gid_a : x->gid_b != y->gid_b ? x->gid_b > y->gid_b : x->feature > y->feature;
      if (!gt) break;
      sg_warm_entry t = *x; *x = *y; *y = t;
    }
  return w;
}

/* A scene with the same description as make_scene(n) and another state. */
static void make_other_state(sg_scene *s, int n_moving) {
  make_scene(s, n_moving);
  for (int i = 0; i < s->n; ++i) {
    s->state.pos[3 * i] += 1.0;
    s->state.vel[6 * i + 2] = -3.0;
  }
}

static int same_state(const sg_scene *a, const sg_scene *b) {
  size_t n = (size_t)a->n;
  return a->n == b->n && !memcmp(a->state.pos, b->state.pos, 3 * n * sizeof(double)) &&
         !memcmp(a->state.quat, b->state.quat, 4 * n * sizeof(double)) && !memcmp(a->state.vel, b->state.vel, 6 * n * sizeof(double));
}

static void test_round_trip(int n_warm) {
  const char *p = scratch("round.ckpt.h5");
  sg_step_params prm = params();
  sg_scene s, r;
  make_scene(&s, 10);
  s.state.step = 37;
  s.state.time = 37 * prm.dt;
  sg_warm_entry *w = make_warm(n_warm, s.n);
  CHECK_OK(write_ckpt(p, &s, &prm, w, n_warm));
  CHECK(scratch_count(".tmp") == 0);
  CHECK(h5_open_objects() == 0);

  make_other_state(&r, 10);
  CHECK(!same_state(&s, &r));
  sg_checkpoint_info info;
  CHECK_OK(sg_checkpoint_read(MPI_COMM_WORLD, p, "scene.h5", &r, &info));
  CHECK(same_state(&s, &r));
  CHECK(r.state.step == 37 && r.state.time == s.state.time && r.next_gid == s.n && info.next_gid == s.n);
  CHECK(info.step == 37 && info.time == s.state.time && info.dt == prm.dt && info.theta == prm.theta);
  CHECK(info.scene_hash == sg_scene_hash(MPI_COMM_WORLD, &s));
  CHECK(info.n_warm == n_warm && info.n_hook_state == 0 && info.hook_names[0] == 0);
  if (info.n_warm == n_warm && n_warm) CHECK(!memcmp(info.warm, w, (size_t)n_warm * sizeof *w));
  CHECK(h5_open_objects() == 0);
  if (test_rank() == 0) printf("  round trip with %d warm-start entries: ok\n", n_warm);
  sg_checkpoint_info_free(&info);
  free(w);
  sg_scene_destroy(&r);
  sg_scene_destroy(&s);
}

/* Bodies held in reverse order: the fingerprint is unchanged and rows land at their global id. */
static void test_by_gid(void) {
  sg_step_params prm = params();
  sg_scene s, r, ref;
  make_scene(&s, 9);
  make_scene(&ref, 9);
  uint64_t h = sg_scene_hash(MPI_COMM_WORLD, &s);
  int n = s.n;
  for (int i = 0; i < n / 2; ++i) { /* swap every field of bodies i and n-1-i */
    int j = n - 1 - i;
#define SWAP(arr, k)                                                                  \
  for (int c = 0; c < (k); ++c) {                                                     \
    __typeof__(arr[0]) t_ = arr[(k) * i + c];                                         \
    arr[(k) * i + c] = arr[(k) * j + c];                                              \
    arr[(k) * j + c] = t_;                                                            \
  }
    SWAP(s.gid, 1) SWAP(s.shape, 1) SWAP(s.size, 3) SWAP(s.material, 1) SWAP(s.fixed, 1) SWAP(s.density, 1)
    SWAP(s.mass, 1) SWAP(s.inertia, 3) SWAP(s.state.pos, 3) SWAP(s.state.quat, 4) SWAP(s.state.vel, 6)
#undef SWAP
  }
  CHECK(sg_scene_hash(MPI_COMM_WORLD, &s) == h);
  s.state.step = 5;
  s.state.time = 5 * prm.dt;
  const char *p = scratch("gid.ckpt.h5");
  CHECK_OK(write_ckpt(p, &s, &prm, NULL, 0));
  make_other_state(&r, 9);
  sg_checkpoint_info info;
  CHECK_OK(sg_checkpoint_read(MPI_COMM_WORLD, p, NULL, &r, &info));
  CHECK(same_state(&r, &ref)); /* in gid order again */
  CHECK(info.n_warm == 0);
  sg_checkpoint_info_free(&info);
  sg_scene_destroy(&ref);
  sg_scene_destroy(&r);
  sg_scene_destroy(&s);
}

static void test_hash(void) {
  sg_scene s;
  make_scene(&s, 6);
  uint64_t h0 = sg_scene_hash(MPI_COMM_WORLD, &s);
  /* the state is not part of the description */
  s.state.pos[3 * 4] += 0.5;
  s.state.vel[6 * 3] = 7;
  s.state.quat[4 * 2] = -s.state.quat[4 * 2];
  CHECK(sg_scene_hash(MPI_COMM_WORLD, &s) == h0);
  struct {
    const char *what;
    double *field;
  } edits[] = {{"size", &s.size[3 * 5 + 1]}, {"density", &s.density[4]}, {"friction", &s.friction[1]},
               {"gravity", &s.gravity[0]}};
  for (size_t k = 0; k < sizeof edits / sizeof edits[0]; ++k) {
    double keep = *edits[k].field;
    *edits[k].field = keep * 1.0000001 + 1e-9;
    uint64_t h = sg_scene_hash(MPI_COMM_WORLD, &s);
    if (test_rank() == 0) printf("  hash after changing %-8s %016llx (was %016llx)\n", edits[k].what, (unsigned long long)h, (unsigned long long)h0);
    CHECK(h != h0);
    *edits[k].field = keep;
  }
  s.material[3] ^= 1;
  CHECK(sg_scene_hash(MPI_COMM_WORLD, &s) != h0);
  s.material[3] ^= 1;
  s.shape[6] = SG_SHAPE_SPHERE == s.shape[6] ? SG_SHAPE_CAPSULE : SG_SHAPE_SPHERE;
  CHECK(sg_scene_hash(MPI_COMM_WORLD, &s) != h0);
  sg_scene_destroy(&s);
  make_scene(&s, 6);
  s.fixed[5] = 1;
  CHECK(sg_scene_hash(MPI_COMM_WORLD, &s) != h0);
  sg_scene_destroy(&s);
  make_scene(&s, 7); /* one more body */
  CHECK(sg_scene_hash(MPI_COMM_WORLD, &s) != h0);
  sg_scene_destroy(&s);

  /* the regions are part of the description: one more, or any field of one changed */
  make_scene(&s, 6);
  s.regions = calloc(1, sizeof *s.regions);
  s.n_regions = 1;
  s.regions[0] = (sg_region){.kind = SG_REGION_INFLOW, .lo = {0, 0, 1}, .hi = {1, 1, 2}, .rate = 10, .size = {.lo = 0.01, .hi = 0.02},
                             .density = 1000, .t_end = INFINITY, .seed = 5};
  uint64_t h1 = sg_scene_hash(MPI_COMM_WORLD, &s);
  CHECK(h1 != h0);
  s.regions[0].seed = 6;
  CHECK(sg_scene_hash(MPI_COMM_WORLD, &s) != h1);
  s.regions[0].seed = 5;
  s.regions[0].velocity[2] = -1e-300;
  CHECK(sg_scene_hash(MPI_COMM_WORLD, &s) != h1);
  s.regions[0].velocity[2] = 0;
  CHECK(sg_scene_hash(MPI_COMM_WORLD, &s) == h1);
  sg_scene_destroy(&s);
}

static long long step_of(const char *path) {
  long long v = -1;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t a = f >= 0 ? H5Aopen(f, "step", H5P_DEFAULT) : -1;
  CHECK(a >= 0);
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_LLONG, &v);
    H5Aclose(a);
  }
  if (f >= 0) H5Fclose(f);
  return v;
}

static void test_replace(void) {
  sg_step_params prm = params();
  sg_scene s;
  make_scene(&s, 4);
  const char *p = scratch("replace.ckpt.h5");
  s.state.step = 10;
  s.state.time = 10 * prm.dt;
  CHECK_OK(write_ckpt(p, &s, &prm, NULL, 0));
  s.state.step = 20;
  s.state.time = 20 * prm.dt;
  CHECK_OK(write_ckpt(p, &s, &prm, NULL, 0));
  CHECK(step_of(p) == 20);
  CHECK(scratch_count("replace") == 1);
  /* a write that fails leaves nothing beside the target and the previous checkpoint as it was */
  char bad[300];
  snprintf(bad, sizeof bad, "%s/missing_dir/c.h5", scratch_dir);
  sg_error_clear();
  CHECK(write_ckpt(bad, &s, &prm, NULL, 0) == SG_ERR_IO);
  CHECK(strstr(sg_error_message(), bad) != NULL);
  sg_error_clear();
  CHECK(sg_output_check_path(MPI_COMM_WORLD, bad) == SG_ERR_IO);
  sg_error_clear();
  CHECK_OK(sg_output_check_path(MPI_COMM_WORLD, p));
  CHECK(h5_open_objects() == 0);
  sg_scene_destroy(&s);
}

/* Reading `path` into make_other_state(n) fails with code and a one-line message containing `what`;
 * the scene keeps its state. */
static void expect_fail(const char *path, int n_moving, int code, const char *what) {
  sg_scene r, ref;
  make_other_state(&r, n_moving);
  make_other_state(&ref, n_moving);
  sg_checkpoint_info info;
  sg_error_clear();
  int e = sg_checkpoint_read(MPI_COMM_WORLD, path, "scene.h5", &r, &info);
  const char *m = sg_error_message();
  if (test_rank() == 0) printf("  %-22s -> %d: %s\n", what, e, m);
  CHECK(e == code);
  CHECK(strstr(m, what) != NULL);
  CHECK(strchr(m, '\n') == NULL);
  CHECK(info.warm == NULL && info.n_warm == 0 && info.hook_state == NULL);
  CHECK(same_state(&r, &ref) && r.state.step == 0);
  CHECK(h5_open_objects() == 0);
  sg_error_clear();
  sg_scene_destroy(&ref);
  sg_scene_destroy(&r);
}

static void test_refused(void) {
  sg_step_params prm = params();
  sg_scene s;
  make_scene(&s, 10);
  s.state.step = 3;
  s.state.time = 3 * prm.dt;
  sg_warm_entry *w = make_warm(12, s.n);
  const char *good = scratch("good.ckpt.h5");
  CHECK_OK(write_ckpt(good, &s, &prm, w, 12));
  expect_fail(good, 11, SG_ERR_ARG, "different scene");
  expect_fail(scratch("nothing.h5"), 10, SG_ERR_IO, "no such file");

  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, scratch("scene.h5"), &s));
  expect_fail(scratch("scene.h5"), 10, SG_ERR_FORMAT, "not a checkpoint");
  write_other(scratch("text.h5"), "text\n");
  expect_fail(scratch("text.h5"), 10, SG_ERR_FORMAT, "not an HDF5 file");

  const char *names[] = {"no_hash.ckpt.h5", "no_warm.ckpt.h5", "lambda.ckpt.h5", "nan.ckpt.h5", "feature.ckpt.h5"};
  for (int k = 0; k < 5; ++k) CHECK_OK(write_ckpt(scratch(names[k]), &s, &prm, w, 12));
  h5_edit(scratch("no_hash.ckpt.h5"), NULL, "state_hash", NULL, 0);
  expect_fail(scratch("no_hash.ckpt.h5"), 10, SG_ERR_FORMAT, "state_hash");
  h5_edit(scratch("no_warm.ckpt.h5"), "warm/gid_b", NULL, NULL, 0);
  expect_fail(scratch("no_warm.ckpt.h5"), 10, SG_ERR_FORMAT, "/warm/gid_b");
  double v = 0.125;
  h5_poke(scratch("lambda.ckpt.h5"), "warm/lambda", H5T_NATIVE_DOUBLE, 5, 1, &v);
  expect_fail(scratch("lambda.ckpt.h5"), 10, SG_ERR_FORMAT, "state_hash");
  v = NAN;
  h5_poke(scratch("nan.ckpt.h5"), "warm/lambda", H5T_NATIVE_DOUBLE, 5, 1, &v);
  expect_fail(scratch("nan.ckpt.h5"), 10, SG_ERR_FORMAT, "/warm/lambda");
  hsize_t dims[1] = {12};
  double bad_ids[12] = {0};
  bad_ids[7] = 99;
  h5_replace(scratch("feature.ckpt.h5"), "warm/gid_a", H5T_NATIVE_DOUBLE, 1, dims, bad_ids);
  expect_fail(scratch("feature.ckpt.h5"), 10, SG_ERR_FORMAT, "body 99");
  free(w);
  sg_scene_destroy(&s);
}

/* The scene `orig` after a run: moving bodies 3, 6 and 7 left, 12, 13 and 15 entered (14 and 16
 * entered and left too: next_gid 17), every state moved on; replicated, in ascending gid. */
static void make_evolved(sg_scene *run, const sg_scene *orig, const sg_step_params *prm) {
  CHECK_OK(sg_scene_create(run, orig->n + 3, orig->n_materials));
  CHECK_OK(sg_scene_copy_globals(run, orig));
  for (int i = 0; i < orig->n; ++i)
    if (orig->gid[i] != 3 && orig->gid[i] != 6 && orig->gid[i] != 7) CHECK_OK(sg_scene_copy_body(run, orig, i));
  const int64_t added[3] = {12, 13, 15};
  for (int k = 0; k < 3; ++k) {
    const double size[3] = {0.02 + 0.005 * k, 0, 0}, p[3] = {0.1 * k, 0.5, 1.0 + k}, v[6] = {0, 0, -1.0 - k, 0, 0, 0};
    int i;
    CHECK_OK(sg_scene_add_body(run, SG_SHAPE_SPHERE, size, k % 2, 0, 1500 + 100 * k, p, NULL, v, &i));
    run->gid[i] = added[k];
  }
  CHECK_OK(sg_scene_update_mass(run));
  for (int i = 0; i < run->n; ++i) {
    run->state.pos[3 * i + 2] += 0.25;
    run->state.vel[6 * i + 1] = 0.5 * i;
  }
  run->next_gid = 17;
  run->state.step = 40;
  run->state.time = 40 * prm->dt;
}

static int same_body(const sg_scene *a, int i, const sg_scene *b, int j) {
#define EQ(f, k) (!memcmp(a->f + (k) * i, b->f + (k) * j, (k) * sizeof *a->f))
  return a->gid[i] == b->gid[j] && EQ(shape, 1) && EQ(size, 3) && EQ(material, 1) && EQ(fixed, 1) && EQ(density, 1) &&
         EQ(mass, 1) && EQ(inertia, 3) && EQ(state.pos, 3) && EQ(state.quat, 4) && EQ(state.vel, 6);
#undef EQ
}

/* r (restored) holds ref's body set: every fixed body, and its block of the moving ones in gid
 * order when distributed (all of them when not), in ascending gid, each bit for bit ref's. */
static void check_body_set(const sg_scene *r, const sg_scene *ref, const char *what) {
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  long long moving = 0, k = 0, bad = 0, held = 0;
  for (int j = 0; j < ref->n; ++j) moving += !ref->fixed[j];
  long long lo = r->distributed ? moving * rank / P : 0, hi = r->distributed ? moving * (rank + 1) / P : moving;
  int i = 0;
  for (int j = 0; j < ref->n; ++j) {
    int mine = ref->fixed[j] || (k >= lo && k < hi);
    if (!ref->fixed[j]) k++;
    if (!mine) continue;
    if (i >= r->n || !same_body(r, i, ref, j)) bad++;
    i++;
  }
  for (int m = 0; m < r->n; ++m) held += !r->fixed[m];
  CHECK(i == r->n && bad == 0);
  CHECK(!r->distributed || r->n_owned == held);
  MPI_Allreduce(MPI_IN_PLACE, &held, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(held == (r->distributed ? moving : moving * P));
  CHECK(r->next_gid == 17 && r->state.step == ref->state.step && r->state.time == ref->state.time);
  if (test_rank() == 0)
    printf("  %-44s %d bodies held, %lld mismatched, next_gid %lld\n", what, r->n, bad, (long long)r->next_gid);
}

/* Restore path into a fresh copy of orig (distributed by blocks when `dist`) and check it. */
static void restore_and_check(const char *path, const sg_scene *ref, int dist, const int64_t *words,
                              const char *what) {
  sg_scene r;
  make_scene(&r, 10);
  if (dist) CHECK_OK(sg_scene_keep_block(MPI_COMM_WORLD, &r));
  sg_checkpoint_info info;
  CHECK_OK(sg_checkpoint_read(MPI_COMM_WORLD, path, "orig.h5", &r, &info));
  check_body_set(&r, ref, what);
  CHECK(r.distributed == dist);
  CHECK(info.next_gid == 17 && info.step == 40);
  CHECK(info.n_hook_state == 3 && info.hook_state && !memcmp(info.hook_state, words, 3 * sizeof *words));
  CHECK(!strcmp(info.hook_names, "outflow,inflow"));
  CHECK(info.n_warm == 2 && info.warm && info.warm[1].gid_a == 13 && info.warm[1].gid_b == 16);
  CHECK(h5_open_objects() == 0);
  sg_checkpoint_info_free(&info);
  sg_scene_destroy(&r);
}

static void test_body_set(void) {
  sg_step_params prm = params();
  sg_scene orig, run;
  make_scene(&orig, 10);
  make_evolved(&run, &orig, &prm);
  double half = 0.5;
  int64_t words[3] = {7, -3, 0};
  memcpy(&words[2], &half, sizeof half); /* a double, by its bits */
  sg_warm_entry w[2] = {{.gid_a = 0, .gid_b = 12, .lambda = {1, 0, 0}}, {.gid_a = 13, .gid_b = 16, .lambda = {2, 0, 0}}};
  sg_checkpoint_extras x = extras(&orig, w, 2); /* the run started from orig */
  x.hook_state = words;
  x.n_hook_state = 3;
  x.hook_names = "outflow,inflow";
  const char *pr = scratch("set_replicated.ckpt.h5"), *pd = scratch("set_distributed.ckpt.h5");
  CHECK_OK(sg_checkpoint_write(MPI_COMM_WORLD, pr, &run, &prm, &x));
  sg_scene dist;
  make_evolved(&dist, &orig, &prm);
  CHECK_OK(sg_scene_keep_block(MPI_COMM_WORLD, &dist)); /* each rank writes its moving bodies */
  x.n_warm = test_rank() == 0 ? 2 : 0;                   /* each entry from one rank */
  CHECK_OK(sg_checkpoint_write(MPI_COMM_WORLD, pd, &dist, &prm, &x));
  restore_and_check(pr, &run, 0, words, "replicated write, replicated restore:");
  restore_and_check(pr, &run, 1, words, "replicated write, distributed restore:");
  restore_and_check(pd, &run, 1, words, "distributed write, distributed restore:");

  /* a restart of a restart: its checkpoint carries the first scene's hash and the same body set */
  sg_scene r;
  make_scene(&r, 10);
  CHECK_OK(sg_scene_keep_block(MPI_COMM_WORLD, &r));
  sg_checkpoint_info info;
  CHECK_OK(sg_checkpoint_read(MPI_COMM_WORLD, pd, "orig.h5", &r, &info));
  x.n_warm = 0;
  const char *p2 = scratch("again.ckpt.h5");
  CHECK_OK(sg_checkpoint_write(MPI_COMM_WORLD, p2, &r, &prm, &x));
  x.n_warm = 2;
  sg_checkpoint_info_free(&info);
  sg_scene_destroy(&r);
  make_scene(&r, 10);
  CHECK_OK(sg_checkpoint_read(MPI_COMM_WORLD, p2, "orig.h5", &r, &info));
  check_body_set(&r, &run, "restart of a restart:");
  sg_checkpoint_info_free(&info);
  sg_scene_destroy(&r);

  /* the scene as the run left it is not the scene the run started from */
  sg_error_clear();
  sg_scene other;
  make_evolved(&other, &orig, &prm);
  int e = sg_checkpoint_read(MPI_COMM_WORLD, pr, "evolved.h5", &other, &info);
  if (test_rank() == 0) printf("  the evolved scene as the scene file -> %d: %s\n", e, sg_error_message());
  CHECK(e == SG_ERR_ARG && strstr(sg_error_message(), "different scene") && strstr(sg_error_message(), "evolved.h5"));
  CHECK(other.n == run.n && other.state.step == 40 && info.warm == NULL && info.hook_state == NULL);
  sg_error_clear();
  sg_scene_destroy(&other);

  /* hooks whose state differs between ranks cannot be written once for all */
  if (test_rank() == 1) words[0] = 8;
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  e = sg_checkpoint_write(MPI_COMM_WORLD, scratch("hooks_differ.ckpt.h5"), &dist, &prm, &x);
  CHECK(P == 1 ? e == SG_OK : e == SG_ERR_ARG && strstr(sg_error_message(), "differs between ranks"));
  sg_error_clear();
  sg_scene_destroy(&dist);
  sg_scene_destroy(&run);
  sg_scene_destroy(&orig);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  scratch_make();
  test_round_trip(0);
  test_round_trip(1);
  test_round_trip(40);
  test_by_gid();
  test_hash();
  test_replace();
  test_refused();
  test_body_set();
  scratch_remove();
  int rc = sg_test_exit();
  MPI_Finalize();
  return rc;
}
