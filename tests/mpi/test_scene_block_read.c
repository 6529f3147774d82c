/* sg_scene_read_block on 1-3 ranks against the whole read (sg_scene_read) of the same file:
 *  - a scene of 103 moving bodies (spheres, boxes, capsules; 2 materials) and 4 fixed bodies
 *    (plane, walls) at gids spread over the file: every moving body is held by exactly one rank,
 *    each body's fields (description, mass, inertia, state) are bitwise those of the whole read's
 *    body of the same gid, all held bodies (owned moving, every fixed one) in ascending gid; materials and gravity equal;
 *  - a 2-body scene (fewer bodies than ranks on 3 ranks: empty blocks take part);
 *  - bad input (NaN position of the last body, fixed flag 2 in the middle of the file, both
 *    written into a valid file with serial HDF5): every rank fails with the whole read's
 *    message, which names the body's global index. */
#include <hdf5.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "sim_util.h"

static void build(sg_scene *s, int big) {
  CHECK_OK(sg_scene_create(s, 16, 2));
  const double fr[4] = {0.3, 0.5, 0.5, 0.2};
  memcpy(s->friction, fr, sizeof fr);
  s->gravity[0] = 0.125;
  unsigned long long st = 12345;
  int n = big ? 107 : 2;
  for (int i = 0; i < n; ++i) {
    double size[3], pos[3], q[4], v[6], qn = 0;
    for (int k = 0; k < 3; ++k) pos[k] = sg_test_rand(&st, -1, 1);
    for (int k = 0; k < 4; ++k) {
      q[k] = sg_test_rand(&st, -1, 1);
      qn += q[k] * q[k];
    }
    for (int k = 0; k < 4; ++k) q[k] /= sqrt(qn);
    for (int k = 0; k < 6; ++k) v[k] = sg_test_rand(&st, -2, 2);
    for (int k = 0; k < 3; ++k) size[k] = sg_test_rand(&st, 0.01, 0.05);
    int fixed = big ? (i == 0 || i == 1 || i == 40 || i == 77) : i == 0;
    int shape = fixed ? (i == 0 ? SG_SHAPE_PLANE : SG_SHAPE_BOX) : i % 3;
    if (shape == SG_SHAPE_PLANE) memset(v, 0, sizeof v);
    CHECK_OK(sg_scene_add_body(s, shape, size, i % 2, fixed, sg_test_rand(&st, 500, 3000), pos, q, v, NULL));
  }
  CHECK_OK(sg_scene_update_mass(s));
}

#define SAME(a, b, n) (!memcmp((a), (b), (n) * sizeof *(a)))

/* Body i of b equals body gid of w, bit for bit. */
static int same_body(const sg_scene *b, int i, const sg_scene *w, int64_t gid) {
  if (gid < 0 || gid >= w->n || w->gid[gid] != gid) return 0;
  int j = (int)gid;
  return b->shape[i] == w->shape[j] && b->material[i] == w->material[j] && b->fixed[i] == w->fixed[j] &&
         SAME(b->size + 3 * i, w->size + 3 * j, 3) && SAME(b->density + i, w->density + j, 1) &&
         SAME(b->mass + i, w->mass + j, 1) && SAME(b->inertia + 3 * i, w->inertia + 3 * j, 3) &&
         SAME(b->state.pos + 3 * i, w->state.pos + 3 * j, 3) && SAME(b->state.quat + 4 * i, w->state.quat + 4 * j, 4) &&
         SAME(b->state.vel + 6 * i, w->state.vel + 6 * j, 6);
}

static void compare(const char *path, const char *what) {
  int rank, size;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  sg_scene w, b;
  CHECK_OK(sg_scene_read(PETSC_COMM_WORLD, path, &w));
  CHECK_OK(sg_scene_read_block(PETSC_COMM_WORLD, path, &b));
  CHECK(b.distributed == 1);
  CHECK(b.n_owned >= 0 && b.n_owned <= b.n);
  int n_moving = 0, n_fixed = 0;
  for (int j = 0; j < w.n; ++j) w.fixed[j] ? ++n_fixed : ++n_moving;
  /* layout: every body held (owned moving and all fixed) in ascending gid */
  int bad_body = 0, bad_order = 0, n_held_moving = 0;
  for (int i = 0; i < b.n; ++i) {
    if (!same_body(&b, i, &w, b.gid[i])) ++bad_body;
    if (i > 0 && b.gid[i] <= b.gid[i - 1]) ++bad_order;
    n_held_moving += !b.fixed[i];
  }
  CHECK(bad_body == 0);
  CHECK(bad_order == 0);
  CHECK(n_held_moving == b.n_owned);
  /* the fixed bodies are w's fixed bodies in order, so the same on every rank */
  int k = 0, fixed_ok = b.n - b.n_owned == n_fixed;
  for (int j = 0; j < w.n && fixed_ok; ++j)
    if (w.fixed[j]) {
      while (k < b.n && !b.fixed[k]) ++k;
      fixed_ok = k < b.n && b.gid[k++] == j;
    }
  CHECK(fixed_ok);
  CHECK(b.n_materials == w.n_materials && SAME(b.friction, w.friction, (size_t)w.n_materials * w.n_materials));
  CHECK(SAME(b.gravity, w.gravity, 3) && b.state.time == w.state.time && b.state.step == w.state.step);
  /* every moving body held by exactly one rank */
  int total = 0, *counts = calloc((size_t)size, sizeof *counts), *displs = calloc((size_t)size, sizeof *displs);
  MPI_Allreduce(&b.n_owned, &total, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD);
  CHECK(total == n_moving);
  MPI_Allgather(&b.n_owned, 1, MPI_INT, counts, 1, MPI_INT, PETSC_COMM_WORLD);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  int64_t *all = calloc((size_t)total + 1, sizeof *all);
  int64_t *mine = calloc((size_t)b.n_owned + 1, sizeof *mine);
  for (int i = 0, m = 0; i < b.n; ++i)
    if (!b.fixed[i]) mine[m++] = b.gid[i];
  MPI_Allgatherv(mine, b.n_owned, MPI_INT64_T, all, counts, displs, MPI_INT64_T, PETSC_COMM_WORLD);
  int *seen = calloc((size_t)w.n, sizeof *seen), once = 1;
  for (int i = 0; i < total; ++i)
    if (all[i] >= 0 && all[i] < w.n) seen[all[i]]++;
  for (int j = 0; j < w.n; ++j) once &= seen[j] == (w.fixed[j] ? 0 : 1);
  CHECK(once);
  int flags[3] = {bad_body, bad_order, !fixed_ok}, sum[3];
  MPI_Reduce(flags, sum, 3, MPI_INT, MPI_SUM, 0, PETSC_COMM_WORLD);
  if (rank == 0) {
    char owned[256] = "";
    for (int r = 0; r < size; ++r) snprintf(owned + strlen(owned), sizeof owned - strlen(owned), " %d", counts[r]);
    printf("%s, %d ranks: %d moving + %d fixed bodies; owned per rank:%s; moving held once: %s; "
           "bodies differing from the whole read: %d, misordered: %d, ranks with wrong fixed set: %d\n",
           what, size, n_moving, n_fixed, owned, once ? "yes" : "no", sum[0], sum[1], sum[2]);
  }
  free(counts);
  free(displs);
  free(all);
  free(mine);
  free(seen);
  sg_scene_destroy(&w);
  sg_scene_destroy(&b);
}

/* Overwrite one element of a dataset of a written file (serial HDF5 on rank 0). */
static void poke(const char *path, const char *dset, int row, int col, hid_t type, const void *value) {
  int rank;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Barrier(PETSC_COMM_WORLD);
  if (rank == 0) {
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT), d = H5Dopen2(f, dset, H5P_DEFAULT), fs = H5Dget_space(d);
    hsize_t start[2] = {(hsize_t)row, (hsize_t)col}, one[2] = {1, 1}; /* col is ignored by a 1-D dataset */
    hid_t ms = H5Screate_simple(1, one, NULL);
    CHECK(f >= 0 && d >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, one, NULL) >= 0);
    CHECK(H5Dwrite(d, type, ms, fs, H5P_DEFAULT, value) >= 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Fclose(f);
  }
  MPI_Barrier(PETSC_COMM_WORLD);
}

/* Both readers fail on every rank with the same message, which names `expect`. */
static void expect_error(const char *path, const char *expect) {
  int rank;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  sg_scene w, b;
  sg_error_clear();
  sg_err ew = sg_scene_read(PETSC_COMM_WORLD, path, &w);
  char whole[512];
  snprintf(whole, sizeof whole, "%s", sg_error_message());
  sg_error_clear();
  sg_err eb = sg_scene_read_block(PETSC_COMM_WORLD, path, &b);
  const char *msg = sg_error_message();
  int ok = ew == SG_ERR_FORMAT && eb == SG_ERR_FORMAT && !strcmp(msg, whole) && strstr(msg, expect) != NULL, all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
  if (!ok) fprintf(stderr, "rank %d: whole read %d '%s', block read %d '%s', expected '%s'\n", rank, ew, whole, eb, msg, expect);
  if (rank == 0) printf("bad input: %s -> every rank: %s\n", msg, all_ok ? "same message, names it" : "NO");
  CHECK(all_ok);
  CHECK(b.n == 0 && b.gid == NULL); /* nothing left allocated */
  sg_error_clear();
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  int rank, pid = (int)getpid();
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Bcast(&pid, 1, MPI_INT, 0, PETSC_COMM_WORLD);
  char path[256];
  snprintf(path, sizeof path, "/tmp/sg_scene_block_%d.h5", pid);

  sg_scene s;
  build(&s, 1);
  CHECK_OK(sg_scene_write(PETSC_COMM_WORLD, path, &s));
  compare(path, "107 bodies");
  sg_scene_destroy(&s);

  build(&s, 0);
  CHECK_OK(sg_scene_write(PETSC_COMM_WORLD, path, &s));
  compare(path, "2 bodies");
  sg_scene_destroy(&s);

  build(&s, 1);
  CHECK_OK(sg_scene_write(PETSC_COMM_WORLD, path, &s));
  double nan = NAN;
  poke(path, "/bodies/position", 106, 1, H5T_NATIVE_DOUBLE, &nan);
  expect_error(path, "body 106: NaN or Inf");
  CHECK_OK(sg_scene_write(PETSC_COMM_WORLD, path, &s));
  unsigned char two = 2;
  poke(path, "/bodies/fixed", 53, 0, H5T_NATIVE_UCHAR, &two);
  expect_error(path, "body 53 has value 2");
  sg_scene_destroy(&s);

  MPI_Barrier(PETSC_COMM_WORLD);
  if (rank == 0) unlink(path);
  return sim_finish();
}
