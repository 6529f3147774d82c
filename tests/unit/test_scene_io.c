/* Scene files: a write/read round trip is bit-exact, and every malformed file is refused with a
 * non-zero code and a one-line message naming the file and the dataset or body at fault. */
#include "io_scratch.h"

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
  CHECK(s.n == 0 && s.pos == NULL);  /* nothing to free after a failed read */
  CHECK(h5_open_objects() == 0);
  sg_error_clear();
}

static void test_round_trip(void) {
  const char *p = fresh("round.h5");
  CHECK(scratch_count(".tmp.") == 0);
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
    CHECK(!memcmp(r.pos, base.pos, 3 * n * sizeof(double)));
    CHECK(!memcmp(r.quat, base.quat, 4 * n * sizeof(double)));
    CHECK(!memcmp(r.vel, base.vel, 6 * n * sizeof(double)));
    CHECK(!memcmp(r.mass, base.mass, n * sizeof(double)));
    CHECK(!memcmp(r.inertia, base.inertia, 3 * n * sizeof(double)));
    for (int i = 0; i < r.n; ++i) CHECK(r.gid[i] == i);
  }
  CHECK(!memcmp(r.friction, base.friction, 4 * sizeof(double)));
  CHECK(!memcmp(r.gravity, base.gravity, sizeof r.gravity));
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
  int bad_shape = 7;
  h5_poke(p, "/bodies/shape", H5T_NATIVE_INT, 5, 0, &bad_shape);
  expect_fail(p, SG_ERR_FORMAT, "body 5: unknown shape code 7");

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

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  scratch_make();
  make_scene(&base, 10);
  test_round_trip();
  test_malformed();
  test_write_errors();
  sg_scene_destroy(&base);
  scratch_remove();
  MPI_Finalize();
  return sg_test_exit();
}
