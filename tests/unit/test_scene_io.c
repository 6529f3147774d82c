/* Scene files: a write/read round trip is bit-exact, and every malformed file is refused with a
 * non-zero code and a one-line message naming the file and the dataset or body at fault. A scene
 * whose ids have gaps (bodies entered and left) is written with /bodies/gid from a replicated or a
 * distributed scene and read back, whole and by blocks, as the same bodies by id with its next_gid;
 * bad ids are refused by both readers with the same message. Runs on any number of ranks. */
#include "io_scratch.h"
#include "signorini/exchange.h"

static sg_scene base;

/* A fresh valid scene file named `name` in the scratch folder. */
static const char *fresh(const char *name) {
  const char *p = scratch(name);
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, p, &base));
  return p;
}

/* Reading `path` fails with `code`, and the message contains the file name and `what`. */
static void expect_fail(const char *path, int code, const char *what) {
  sg_scene s;
  sg_error_clear();
  int e = sg_scene_read(MPI_COMM_WORLD, path, &s);
  const char *m = sg_error_message();
  if (test_rank() == 0) printf("  %-28s -> %d: %s\n", what, e, m);
  CHECK(e != 0);
  if (code) CHECK(e == code);
  CHECK(strstr(m, path) != NULL);
  CHECK(strstr(m, what) != NULL);
  CHECK(strchr(m, '\n') == NULL);
  CHECK(s.n == 0 && s.state.pos == NULL);  /* nothing to free after a failed read */
  CHECK(h5_open_objects() == 0);
  sg_error_clear();
}

/* Serial HDF5 peeks at a file: does dataset `name` exist; attribute next_gid of /bodies (-1: absent). */
static int has_dataset(const char *path, const char *name) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  int yes = f >= 0 && H5Lexists(f, name, H5P_DEFAULT) > 0;
  if (f >= 0) H5Fclose(f);
  return yes;
}

static long long next_gid_attr(const char *path) {
  long long v = -1;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0 && H5Aexists_by_name(f, "bodies", "next_gid", H5P_DEFAULT) > 0) {
    hid_t a = H5Aopen_by_name(f, "bodies", "next_gid", H5P_DEFAULT, H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_LLONG, &v);
    H5Aclose(a);
  }
  if (f >= 0) H5Fclose(f);
  return v;
}

/* Replace attribute next_gid of /bodies by one of memtype (rank 0, between barriers: no rank
 * still reads the file). */
static void set_next_gid_attr(const char *path, hid_t memtype, const void *value) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (test_rank() == 0) {
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), g = H5Gopen2(f, "bodies", H5P_DEFAULT);
    if (H5Aexists(g, "next_gid") > 0) H5Adelete(g, "next_gid");
    hid_t sp = H5Screate(H5S_SCALAR), a = H5Acreate2(g, "next_gid", memtype, sp, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, memtype, value) >= 0);
    H5Aclose(a);
    H5Sclose(sp);
    H5Gclose(g);
    H5Fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_round_trip(void) {
  const char *p = fresh("round.h5");
  CHECK(scratch_count(".tmp.") == 0);
  /* ids 0..N-1: the file is laid out as it always was, plus next_gid */
  CHECK(!has_dataset(p, "bodies/gid") && next_gid_attr(p) == base.n);
  sg_scene r;
  CHECK_OK(sg_scene_read(MPI_COMM_WORLD, p, &r));
  CHECK(r.n == base.n && r.n_materials == base.n_materials);
  if (r.n == base.n) {
    size_t n = (size_t)r.n;
    CHECK(!memcmp(r.shape, base.shape, n * sizeof(int)));
    CHECK(!memcmp(r.material, base.material, n * sizeof(int)));
    CHECK(!memcmp(r.fixed, base.fixed, n));
    CHECK(!memcmp(r.size, base.size, 3 * n * sizeof(double)));
    CHECK(!memcmp(r.density, base.density, n * sizeof(double)));
    CHECK(!memcmp(r.state.pos, base.state.pos, 3 * n * sizeof(double)));
    CHECK(!memcmp(r.state.quat, base.state.quat, 4 * n * sizeof(double)));
    CHECK(!memcmp(r.state.vel, base.state.vel, 6 * n * sizeof(double)));
    CHECK(!memcmp(r.mass, base.mass, n * sizeof(double)));
    CHECK(!memcmp(r.inertia, base.inertia, 3 * n * sizeof(double)));
    for (int i = 0; i < r.n; ++i) CHECK(r.gid[i] == i);
  }
  CHECK(!memcmp(r.friction, base.friction, 4 * sizeof(double)));
  CHECK(!memcmp(r.gravity, base.gravity, sizeof r.gravity));
  CHECK(r.next_gid == base.n);
  sg_scene_destroy(&r);
  CHECK(h5_open_objects() == 0);

  /* Writing over an existing scene replaces it (through the temporary name). */
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, p, &base));
  CHECK_OK(sg_scene_read(MPI_COMM_WORLD, p, &r));
  sg_scene_destroy(&r);
  CHECK(scratch_count(".tmp.") == 0);
}

static void test_malformed(void) {
  int n = base.n;
  expect_fail(scratch("absent.h5"), SG_ERR_IO, "no such file");

  const char *p = scratch("text.h5");
  write_other(p, "shape,size\n0,1\n");
  expect_fail(p, 0, "not an HDF5 file");

  p = fresh("missing.h5");
  h5_edit(p, "/bodies/density", NULL, NULL, 0);
  expect_fail(p, SG_ERR_FORMAT, "missing dataset /bodies/density");

  p = fresh("missing_group.h5");
  h5_edit(p, "/world", NULL, NULL, 0);
  expect_fail(p, SG_ERR_FORMAT, "missing dataset /world/gravity");

  char what[128];
  p = fresh("dims.h5");
  hsize_t d2[2] = {(hsize_t)n, 2};
  h5_replace(p, "/bodies/size", H5T_NATIVE_DOUBLE, 2, d2, NULL);
  snprintf(what, sizeof what, "dataset /bodies/size has shape [%d][2], expected [%d][3]", n, n);
  expect_fail(p, SG_ERR_FORMAT, what);

  p = fresh("rank.h5");
  hsize_t d1[1] = {(hsize_t)n};
  h5_replace(p, "/bodies/orientation", H5T_NATIVE_DOUBLE, 1, d1, NULL);
  expect_fail(p, SG_ERR_FORMAT, "/bodies/orientation has shape");

  p = fresh("inconsistent.h5");
  hsize_t dn[2] = {(hsize_t)n - 1, 3};
  h5_replace(p, "/bodies/position", H5T_NATIVE_DOUBLE, 2, dn, NULL);
  snprintf(what, sizeof what, "/bodies/position has shape [%d][3], expected [%d][3]", n - 1, n);
  expect_fail(p, SG_ERR_FORMAT, what);

  p = fresh("friction.h5");
  hsize_t dm[2] = {2, 3};
  h5_replace(p, "/materials/friction", H5T_NATIVE_DOUBLE, 2, dm, NULL);
  expect_fail(p, SG_ERR_FORMAT, "/materials/friction has shape [2][3]");

  p = fresh("float_shape.h5");
  h5_replace(p, "/bodies/shape", H5T_NATIVE_DOUBLE, 1, d1, NULL);
  expect_fail(p, SG_ERR_FORMAT, "/bodies/shape has floating-point values");

  p = fresh("nan.h5");
  double nan = NAN;
  h5_poke(p, "/bodies/position", H5T_NATIVE_DOUBLE, 3, 1, &nan);
  expect_fail(p, SG_ERR_FORMAT, "body 3");

  p = fresh("density.h5");
  double neg = -5;
  h5_poke(p, "/bodies/density", H5T_NATIVE_DOUBLE, 4, 0, &neg);
  expect_fail(p, SG_ERR_FORMAT, "body 4: density");

  p = fresh("shape.h5");
  int bad_shape = SG_SHAPE_COUNT;
  h5_poke(p, "/bodies/shape", H5T_NATIVE_INT, 5, 0, &bad_shape);
  expect_fail(p, SG_ERR_FORMAT, "body 5: unknown shape code 8");

  p = fresh("fixed.h5");
  unsigned char two = 2;
  h5_poke(p, "/bodies/fixed", H5T_NATIVE_UCHAR, 6, 0, &two);
  expect_fail(p, SG_ERR_FORMAT, "body 6 has value 2");

  p = fresh("material.h5");
  int bad_mat = 9;
  h5_poke(p, "/bodies/material", H5T_NATIVE_INT, 2, 0, &bad_mat);
  expect_fail(p, SG_ERR_FORMAT, "body 2: material 9");

  p = fresh("version.h5");
  h5_edit(p, NULL, NULL, "format_version", 2);
  expect_fail(p, SG_ERR_FORMAT, "format_version 2 is not supported");

  p = fresh("noversion.h5");
  h5_edit(p, NULL, "format_version", NULL, 0);
  expect_fail(p, SG_ERR_FORMAT, "missing root attribute format_version");

  p = fresh("empty.h5");
  static const char *body_sets[] = {"shape", "size", "material", "fixed", "density", "position", "orientation", "velocity"};
  static const int cols[] = {0, 3, 0, 0, 0, 3, 4, 6};
  for (int k = 0; k < 8; ++k) {
    char name[64];
    hsize_t dz[2] = {0, (hsize_t)cols[k]};
    snprintf(name, sizeof name, "/bodies/%s", body_sets[k]);
    h5_replace(p, name, k == 0 || k == 2 || k == 3 ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, cols[k] ? 2 : 1, dz, NULL);
  }
  expect_fail(p, SG_ERR_FORMAT, "no bodies");
}

/* base with gaps in its ids (4 i + i % 3: fixed bodies 0 and 5, moving ones from 10 to 39) and
 * next_gid 100, held in reverse order when `reversed` (a replicated scene may hold any order). */
static void make_gapped(sg_scene *s, int reversed) {
  CHECK_OK(sg_scene_create(s, base.n, base.n_materials));
  CHECK_OK(sg_scene_copy_globals(s, &base));
  for (int k = 0; k < base.n; ++k) {
    int i = reversed ? base.n - 1 - k : k;
    CHECK_OK(sg_scene_copy_body(s, &base, i));
    s->gid[k] = 4 * i + i % 3;
  }
  s->next_gid = 100;
}

/* r's bodies are those of ref (base with gapped ids) by id, bit for bit, in ascending id; over the
 * ranks (r distributed) or on each (r replicated) every body of ref once. */
static void check_same_bodies(const sg_scene *r, const char *what) {
  long long bad = 0, moving = 0;
  for (int i = 0; i < r->n; ++i) {
    int j = -1;
    for (int b = 0; b < base.n; ++b)
      if (4 * b + b % 3 == r->gid[i]) j = b;
    if (j < 0 || (i > 0 && r->gid[i] <= r->gid[i - 1])) { bad++; continue; }
#define EQ(f, k) (!memcmp(r->f + (k) * i, base.f + (k) * j, (k) * sizeof *r->f))
    bad += !(EQ(shape, 1) && EQ(size, 3) && EQ(material, 1) && EQ(fixed, 1) && EQ(density, 1) && EQ(mass, 1) &&
             EQ(inertia, 3) && EQ(state.pos, 3) && EQ(state.quat, 4) && EQ(state.vel, 6));
#undef EQ
    moving += !r->fixed[i];
  }
  if (r->distributed) MPI_Allreduce(MPI_IN_PLACE, &moving, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(bad == 0 && moving == base.n - 2 && r->next_gid == 100);
  if (test_rank() == 0) printf("  %-40s %d bodies here, %lld mismatched, next_gid %lld\n", what, r->n, bad, (long long)r->next_gid);
}

/* Read p whole and by blocks: the bodies of make_gapped. */
static void read_both(const char *p, const char *what) {
  char line[128];
  sg_scene r;
  CHECK_OK(sg_scene_read(MPI_COMM_WORLD, p, &r));
  snprintf(line, sizeof line, "%s, whole:", what);
  check_same_bodies(&r, line);
  CHECK(r.distributed == 0 && r.n == base.n);
  sg_scene_destroy(&r);
  CHECK_OK(sg_scene_read_block(MPI_COMM_WORLD, p, &r));
  snprintf(line, sizeof line, "%s, blocks:", what);
  check_same_bodies(&r, line);
  CHECK(r.distributed == 1 && r.n_owned == r.n - 2);
  sg_scene_destroy(&r);
  CHECK(h5_open_objects() == 0);
}

static void test_ids(void) {
  sg_scene s;
  make_gapped(&s, 1);
  const char *p = scratch("gaps.h5");
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, p, &s)); /* rank 0 writes every row */
  CHECK(has_dataset(p, "bodies/gid") && next_gid_attr(p) == 100);
  read_both(p, "gaps written from one rank");
  sg_scene_destroy(&s);

  make_gapped(&s, 0);
  CHECK_OK(sg_scene_keep_block(MPI_COMM_WORLD, &s)); /* each rank writes its moving bodies */
  p = scratch("gaps_dist.h5");
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, p, &s));
  read_both(p, "gaps written from every rank");

  /* next_gid is at least one past the largest id, in the file and read back */
  const long long above = 4 * (base.n - 1) + (base.n - 1) % 3 + 1;
  s.next_gid = 3;
  p = scratch("gaps_low.h5");
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, p, &s));
  CHECK(next_gid_attr(p) == above);
  long long low = 3;
  set_next_gid_attr(p, H5T_NATIVE_LLONG, &low); /* a hand-made file: the ids win */
  sg_scene r;
  CHECK_OK(sg_scene_read(MPI_COMM_WORLD, p, &r));
  CHECK(r.next_gid == above);
  sg_scene_destroy(&r);
  CHECK_OK(sg_scene_read_block(MPI_COMM_WORLD, p, &r));
  CHECK(r.next_gid == above);
  sg_scene_destroy(&r);
  sg_scene_destroy(&s);

  /* dense ids held in any order: rows by id, no /bodies/gid */
  make_gapped(&s, 1);
  for (int i = 0; i < s.n; ++i) s.gid[i] = s.n - 1 - i;
  p = scratch("dense_reversed.h5");
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, p, &s));
  CHECK(!has_dataset(p, "bodies/gid"));
  CHECK_OK(sg_scene_read(MPI_COMM_WORLD, p, &r));
  CHECK(r.n == base.n && !memcmp(r.state.pos, base.state.pos, 3 * (size_t)base.n * sizeof(double)) && r.next_gid == 100);
  sg_scene_destroy(&r);

  /* an id held twice is not written */
  s.gid[3] = s.gid[5];
  sg_error_clear();
  int e = sg_scene_write(MPI_COMM_WORLD, scratch("twice.h5"), &s);
  if (test_rank() == 0) printf("  write with an id held twice -> %d: %s\n", e, sg_error_message());
  CHECK(e == SG_ERR_ARG && strstr(sg_error_message(), "twice.h5") && strstr(sg_error_message(), "held twice"));
  CHECK(!file_exists(scratch("twice.h5")) && scratch_count(".tmp.") == 0);
  sg_error_clear();
  sg_scene_destroy(&s);
}

/* expect_fail, and the block reader fails on every rank with the same message. */
static void expect_fail_both(const char *path, const char *what) {
  expect_fail(path, SG_ERR_FORMAT, what);
  sg_scene s;
  int e = sg_scene_read_block(MPI_COMM_WORLD, path, &s);
  const char *m = sg_error_message();
  CHECK(e == SG_ERR_FORMAT && strstr(m, path) && strstr(m, what) && !strchr(m, '\n'));
  CHECK(s.n == 0 && s.state.pos == NULL && h5_open_objects() == 0);
  if (e != SG_ERR_FORMAT || !strstr(m, what)) fprintf(stderr, "  block read -> %d: %s\n", e, m);
  sg_error_clear();
}

static void test_bad_ids(void) {
  sg_scene s;
  make_gapped(&s, 0);
  int n = s.n;
  hsize_t dn[1] = {(hsize_t)n}, dm[1] = {(hsize_t)n - 1};
  double ids[64];
  for (int k = 0; k < n; ++k) ids[k] = 10.0 * k;
  const char *p = scratch("ids_bad.h5");
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, p, &s));
  sg_scene_destroy(&s);
  char what[128];

  h5_replace(p, "/bodies/gid", H5T_NATIVE_DOUBLE, 1, dn, ids); /* valid, as floats */
  sg_scene r;
  CHECK_OK(sg_scene_read(MPI_COMM_WORLD, p, &r));
  CHECK(r.n == n && r.gid[n - 1] == 10 * (n - 1) && r.next_gid == 10 * (n - 1) + 1); /* above the attribute 100 */
  sg_scene_destroy(&r);

  ids[2] = -1;
  h5_replace(p, "/bodies/gid", H5T_NATIVE_DOUBLE, 1, dn, ids);
  expect_fail_both(p, "dataset /bodies/gid: row 2 holds -1, not an id");
  ids[2] = 20;
  ids[4] = 2.5;
  h5_replace(p, "/bodies/gid", H5T_NATIVE_DOUBLE, 1, dn, ids);
  expect_fail_both(p, "dataset /bodies/gid: row 4 holds 2.5, not an id");
  ids[4] = 9007199254740992.0;
  h5_replace(p, "/bodies/gid", H5T_NATIVE_DOUBLE, 1, dn, ids);
  expect_fail_both(p, "row 4 holds 9007199254740992, not an id (a whole number in [0, 2^53))");
  ids[4] = 40;
  ids[n - 1] = ids[1]; /* a fixed body's id on the last (moving) body */
  ids[3] = ids[7] = 70;
  h5_replace(p, "/bodies/gid", H5T_NATIVE_DOUBLE, 1, dn, ids);
  expect_fail_both(p, "dataset /bodies/gid: id 10 appears twice");
  ids[n - 1] = 10.0 * (n - 1);
  h5_replace(p, "/bodies/gid", H5T_NATIVE_LLONG, 1, dn, NULL); /* all zeros */
  expect_fail_both(p, "dataset /bodies/gid: id 0 appears twice");
  h5_replace(p, "/bodies/gid", H5T_NATIVE_DOUBLE, 1, dm, ids);
  snprintf(what, sizeof what, "dataset /bodies/gid has shape [%d], expected [%d]", n - 1, n);
  expect_fail_both(p, what);
  ids[3] = 30;
  h5_replace(p, "/bodies/gid", H5T_NATIVE_DOUBLE, 1, dn, ids);
  long long neg = -5;
  set_next_gid_attr(p, H5T_NATIVE_LLONG, &neg);
  expect_fail_both(p, "attribute next_gid of /bodies is -5");
  double real = 7.5;
  set_next_gid_attr(p, H5T_NATIVE_DOUBLE, &real);
  expect_fail_both(p, "attribute next_gid must be an integer (on group /bodies)");
}

static void test_write_errors(void) {
  char p[300];
  snprintf(p, sizeof p, "%s/no/such/dir/scene.h5", scratch_dir);
  sg_error_clear();
  int e = sg_scene_write(MPI_COMM_WORLD, p, &base);
  if (test_rank() == 0) printf("  write into a missing folder -> %d: %s\n", e, sg_error_message());
  CHECK(e == SG_ERR_IO);
  CHECK(strstr(sg_error_message(), p) != NULL);
  CHECK(strstr(sg_error_message(), "does not exist") != NULL);
  sg_error_clear();
  CHECK(h5_open_objects() == 0);
}

/* The optional material tables (restitution, rolling friction) come back as written. */
static void test_material_tables(void) {
  sg_scene s, r;
  CHECK_OK(sg_scene_create(&s, 3, 2));
  const double zero[3] = {0, 0, 0}, size[3] = {0.01, 0, 0}, p1[3] = {0, 0, 0.01}, p2[3] = {0.1, 0, 0.01};
  const double f[4] = {0.5, 0.3, 0.3, 0.8}, e[4] = {0.1, 0.2, 0.2, 0.9}, mu_r[4] = {0.01, 0.02, 0.02, 0.125};
  memcpy(s.friction, f, sizeof f);
  memcpy(s.restitution, e, sizeof e);
  memcpy(s.rolling, mu_r, sizeof mu_r);
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000, p1, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 1, 0, 1000, p2, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  const char *p = scratch("tables.h5");
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, p, &s));
  CHECK_OK(sg_scene_read(MPI_COMM_WORLD, p, &r));
  CHECK(!memcmp(r.restitution, e, sizeof e) && !memcmp(r.rolling, mu_r, sizeof mu_r));
  sg_scene_destroy(&r);
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  scratch_make();
  make_scene(&base, 10);
  test_round_trip();
  test_material_tables();
  test_malformed();
  test_ids();
  test_bad_ids();
  test_write_errors();
  sg_scene_destroy(&base);
  scratch_remove();
  MPI_Finalize();
  return sg_test_exit();
}
