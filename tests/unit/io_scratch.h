/* Shared by the io tests: a scratch folder under /tmp, a small scene with every shape, and HDF5
 * edits that break a valid file in one place. The tests also run on several ranks (mpiexec):
 * rank 0 alone changes files, behind a barrier. */
#ifndef SG_IO_SCRATCH_H
#define SG_IO_SCRATCH_H
#include <dirent.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "signorini/signorini.h"
#include "test_util.h"

static char scratch_dir[64];

static inline int test_rank(void) {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

static inline void scratch_make(void) {
  snprintf(scratch_dir, sizeof scratch_dir, "/tmp/sg_io_test_XXXXXX");
  if (test_rank() == 0 && !mkdtemp(scratch_dir)) {
    perror("mkdtemp");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Bcast(scratch_dir, sizeof scratch_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* Full name of a file in the scratch folder (rotating buffers: several may be live at once). */
static inline const char *scratch(const char *name) {
  static char buf[8][256];
  static int next;
  char *b = buf[next++ % 8];
  snprintf(b, 256, "%s/%s", scratch_dir, name);
  return b;
}

static inline void scratch_remove(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (test_rank() != 0) return;
  DIR *d = opendir(scratch_dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlink(scratch(e->d_name));
    closedir(d);
  }
  rmdir(scratch_dir);
}

static inline int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* Number of scratch files whose name contains `part`. */
static inline int scratch_count(const char *part) {
  int n = 0;
  DIR *d = opendir(scratch_dir);
  if (!d) return 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, part)) ++n;
  closedir(d);
  return n;
}

/* Plane, fixed box wall, then spheres, boxes and capsules with random poses and velocities. */
static inline void make_scene(sg_scene *s, int n_moving) {
  unsigned long long seed = 1234;
  CHECK_OK(sg_scene_create(s, 2 + n_moving, 2));
  const double f[4] = {0.5, 0.3, 0.3, 0.8};
  memcpy(s->friction, f, sizeof f);
  s->gravity[0] = 0.125;
  s->gravity[1] = -0.25;
  s->gravity[2] = -9.81;
  const double zero[3] = {0, 0, 0}, wall[3] = {0.05, 2.0, 1.0}, wp[3] = {1.0, 0, 0.5};
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_BOX, wall, 1, 1, 0, wp, NULL, NULL, NULL));
  for (int k = 0; k < n_moving; ++k) {
    int shape = k % 3;
    double r = sg_test_rand(&seed, 0.01, 0.05);
    double size[3] = {r, shape == SG_SHAPE_BOX ? r * 0.7 : shape == SG_SHAPE_CAPSULE ? r : 0,
                      shape == SG_SHAPE_BOX ? r * 1.3 : 0};
    double p[3], v[6], axis[3], q[4];
    for (int c = 0; c < 3; ++c) p[c] = sg_test_rand(&seed, -1, 1);
    for (int c = 0; c < 6; ++c) v[c] = sg_test_rand(&seed, -2, 2);
    for (int c = 0; c < 3; ++c) axis[c] = sg_test_rand(&seed, -1, 1);
    v3_normalize(axis);
    quat_from_axis_angle(q, axis, sg_test_rand(&seed, 0, 3));
    CHECK_OK(sg_scene_add_body(s, shape, size, k % 2, 0, sg_test_rand(&seed, 500, 3000), p, q, v, NULL));
  }
  CHECK_OK(sg_scene_update_mass(s));
}

/* Replace dataset `name` of an existing file by one of the given type and shape (data may be
 * NULL: zeros). Plain serial HDF5, as a user's script would. */
static inline void h5_replace(const char *path, const char *name, hid_t memtype, int rank, const hsize_t *dims,
                       const void *data) {
  if (test_rank() != 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    return;
  }
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  CHECK(f >= 0);
  if (H5Lexists(f, name, H5P_DEFAULT) > 0) CHECK(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
  hid_t sp = H5Screate_simple(rank, dims, NULL);
  hid_t d = H5Dcreate2(f, name, memtype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  CHECK(d >= 0);
  size_t n = 1;
  for (int k = 0; k < rank; ++k) n *= dims[k];
  void *zeros = NULL;
  if (!data) data = zeros = calloc(n ? n : 1, 16);
  if (n) CHECK(H5Dwrite(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
  free(zeros);
  H5Dclose(d);
  H5Sclose(sp);
  H5Fclose(f);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Overwrite one element (row, col) of a 2-D or 1-D (ncols = 0) double or int dataset in place. */
static inline void h5_poke(const char *path, const char *name, hid_t memtype, hsize_t row, hsize_t col,
                    const void *value) {
  if (test_rank() != 0) {
    MPI_Barrier(MPI_COMM_WORLD);
    return;
  }
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  CHECK(d >= 0);
  hid_t fs = H5Dget_space(d);
  hsize_t start[2] = {row, col}, one[2] = {1, 1};
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, one, NULL);
  hid_t ms = H5Screate_simple(1, one, NULL);
  CHECK(H5Dwrite(d, memtype, ms, fs, H5P_DEFAULT, value) >= 0);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(d);
  H5Fclose(f);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Remove a link (dataset or group) or a root attribute, or set an int root attribute. */
static inline void h5_edit(const char *path, const char *del_link, const char *del_attr, const char *int_attr,
                           int value) {
  if (test_rank() == 0) {
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    if (del_link) CHECK(H5Ldelete(f, del_link, H5P_DEFAULT) >= 0);
    if (del_attr) CHECK(H5Adelete(f, del_attr) >= 0);
    if (int_attr) {
      hid_t a = H5Aopen(f, int_attr, H5P_DEFAULT);
      CHECK(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &value) >= 0);
      H5Aclose(a);
    }
    H5Fclose(f);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A plain text file (not HDF5), or with text NULL an empty HDF5 file with no attributes. */
static inline void write_other(const char *path, const char *text) {
  if (test_rank() == 0) {
    if (text) {
      FILE *f = fopen(path, "w");
      fputs(text, f);
      fclose(f);
    } else {
      H5Fclose(H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* No HDF5 object left open by the library under test. */
static inline long h5_open_objects(void) { return (long)H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL); }
#endif
