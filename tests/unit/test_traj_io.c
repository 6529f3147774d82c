/* Trajectory files: frames and per-step statistics read back exactly with the plain HDF5 API,
 * rows land at their global id whatever the order of the bodies in memory, `complete` is set
 * only by a successful close, nothing is left behind by a failed run, the .xmf references the
 * file by its base name, and `info` summarizes both kinds of file. */
#include "io_scratch.h"

#define N_FRAMES 4
#define N_STEPS 300 /* more than one block of buffered statistics */

static sg_scene base;

/* Whole dataset as double (or int) from a closed file, through serial HDF5. */
static void *read_all(const char *path, const char *name, hid_t memtype, size_t elem, hsize_t *dims, int *rank) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = f >= 0 ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
  CHECK(d >= 0);
  if (d < 0) {
    if (f >= 0) H5Fclose(f);
    return NULL;
  }
  hid_t sp = H5Dget_space(d);
  *rank = H5Sget_simple_extent_dims(sp, dims, NULL);
  size_t n = 1;
  for (int k = 0; k < *rank; ++k) n *= dims[k];
  void *buf = calloc(n ? n : 1, elem);
  CHECK(H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
  return buf;
}

static long long root_int_attr(const char *path, const char *name) {
  long long v = -1;
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  CHECK(a >= 0);
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_LLONG, &v);
    H5Aclose(a);
  }
  H5Fclose(f);
  return v;
}

static sg_step_stats stats_of(int k) {
  sg_step_stats st = {0};
  st.time = 0.001 * (k + 1);
  st.iterations = 3 + k % 17;
  st.residual_primal = 1e-9 * (k + 1);
  st.residual_dual = 2e-9 / (k + 1);
  st.contact_residual = 1.0 / (k + 3);
  st.n_contacts = k % 5;
  st.wall_seconds = 0.25 * k;
  st.converged = k % 7 != 0;
  st.max_penetration = 1e-4 * (k % 11);
  return st;
}

/* Body state at frame f, a function of (global id, frame, component). */
static double state(int64_t gid, int f, int c) { return 0.5 * (double)gid - 0.25 * f + 0.0625 * c; }

static void test_complete_run(void) {
  const char *out = scratch("run.h5");
  sg_scene s;
  make_scene(&s, 10);
  int n = s.n;
  /* Bodies held in memory in another order than their ids: rows must still land at their id. */
  for (int i = 0; i < n / 2; ++i) {
    int j = n - 1 - i;
    int64_t g = s.gid[i]; s.gid[i] = s.gid[j]; s.gid[j] = g;
  }
  double pos0[3] = {s.pos[0], s.pos[1], s.pos[2]};  /* body held first has gid n-1 */
  sg_traj_writer *w = NULL;
  CHECK_OK(sg_traj_open(MPI_COMM_WORLD, out, &s, &w));
  CHECK(file_exists(scratch("run.h5.partial")));
  CHECK(!file_exists(out));
  CHECK_OK(sg_traj_set_attr(w, "solver", "admm"));
  CHECK_OK(sg_traj_set_attr(w, "options", "-dt 0.001"));
  CHECK_OK(sg_traj_set_attr(w, "solver", "nsgs"));  /* replaced */
  sg_error_clear();
  CHECK(sg_traj_set_attr(w, "complete", "1") == SG_ERR_ARG);
  sg_error_clear();
  for (int f = 0; f < N_FRAMES; ++f) {
    s.time = 0.125 * f;
    for (int i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) s.pos[3 * i + c] = state(s.gid[i], f, c);
      for (int c = 0; c < 4; ++c) s.quat[4 * i + c] = state(s.gid[i], f, 10 + c);
      for (int c = 0; c < 6; ++c) s.vel[6 * i + c] = state(s.gid[i], f, 20 + c);
    }
    CHECK_OK(sg_traj_write_frame(w, &s));
  }
  for (int k = 0; k < N_STEPS; ++k) {
    sg_step_stats st = stats_of(k);
    CHECK_OK(sg_traj_write_stats(w, &st));
  }
  CHECK_OK(sg_traj_close(w, 1));
  CHECK(h5_open_objects() == 0);
  CHECK(file_exists(out));
  CHECK(!file_exists(scratch("run.h5.partial")));
  CHECK(scratch_count(".tmp.") == 0);
  CHECK(root_int_attr(out, "complete") == 1);
  CHECK(root_int_attr(out, "format_version") == 1);

  hsize_t dims[3];
  int rank;
  double *t = read_all(out, "/frames/time", H5T_NATIVE_DOUBLE, 8, dims, &rank);
  CHECK(rank == 1 && dims[0] == N_FRAMES);
  for (int f = 0; t && f < N_FRAMES; ++f) CHECK(t[f] == 0.125 * f);
  free(t);
  static const struct { const char *name; int cols, base; } fr[3] = {
      {"/frames/position", 3, 0}, {"/frames/orientation", 4, 10}, {"/frames/velocity", 6, 20}};
  for (int k = 0; k < 3; ++k) {
    double *x = read_all(out, fr[k].name, H5T_NATIVE_DOUBLE, 8, dims, &rank);
    CHECK(rank == 3 && dims[0] == N_FRAMES && dims[1] == (hsize_t)n && dims[2] == (hsize_t)fr[k].cols);
    int bad = 0;
    for (int f = 0; x && f < N_FRAMES; ++f)
      for (int g = 0; g < n; ++g)
        for (int c = 0; c < fr[k].cols; ++c)
          bad += x[((size_t)f * n + g) * fr[k].cols + c] != state(g, f, fr[k].base + c);
    CHECK(bad == 0);
    free(x);
  }
  /* The copy of the scene holds the initial state, row = global id. */
  double *p0 = read_all(out, "/scene/bodies/position", H5T_NATIVE_DOUBLE, 8, dims, &rank);
  CHECK(rank == 2 && dims[0] == (hsize_t)n && dims[1] == 3);
  if (p0) CHECK(!memcmp(p0 + 3 * (n - 1), pos0, sizeof pos0));
  free(p0);

  double *st_t = read_all(out, "/stats/time", H5T_NATIVE_DOUBLE, 8, dims, &rank);
  CHECK(rank == 1 && dims[0] == N_STEPS);
  int *it = read_all(out, "/stats/iterations", H5T_NATIVE_INT, 4, dims, &rank);
  double *cr = read_all(out, "/stats/contact_residual", H5T_NATIVE_DOUBLE, 8, dims, &rank);
  int *cv = read_all(out, "/stats/converged", H5T_NATIVE_INT, 4, dims, &rank);
  double *mp = read_all(out, "/stats/max_penetration", H5T_NATIVE_DOUBLE, 8, dims, &rank);
  int bad = 0;
  for (int k = 0; st_t && it && cr && cv && mp && k < N_STEPS; ++k) {
    sg_step_stats e = stats_of(k);
    bad += st_t[k] != e.time || it[k] != e.iterations || cr[k] != e.contact_residual || cv[k] != e.converged ||
           mp[k] != e.max_penetration;
  }
  CHECK(bad == 0);
  free(st_t); free(it); free(cr); free(cv); free(mp);

  /* The .xmf sits beside the file and names it relatively. */
  const char *xmf = scratch("run.xmf");
  CHECK(file_exists(xmf));
  FILE *xf = fopen(xmf, "r");
  static char text[1 << 16];
  size_t len = xf ? fread(text, 1, sizeof text - 1, xf) : 0;
  text[len] = 0;
  if (xf) fclose(xf);
  CHECK(strstr(text, "<Xdmf Version=\"3.0\"") != NULL);
  CHECK(strstr(text, "CollectionType=\"Temporal\"") != NULL);
  CHECK(strstr(text, ">run.h5:/frames/position<") != NULL);
  CHECK(strstr(text, scratch_dir) == NULL);
  int grids = 0;
  for (const char *c = text; (c = strstr(c, "TopologyType=\"Polyvertex\"")); ++c) ++grids;
  CHECK(grids == N_FRAMES);

  /* info on the trajectory and on a scene file. */
  char *msg = NULL;
  size_t msz = 0;
  FILE *mf = open_memstream(&msg, &msz);
  CHECK_OK(sg_file_info(MPI_COMM_WORLD, out, mf));
  fclose(mf);
  if (test_rank() == 0) {  /* the summary is printed by rank 0 only */
    printf("%s", msg);
    char line[128];
    snprintf(line, sizeof line, "bodies: %d (sphere 4, box 4, capsule 3, plane 1), 2 fixed", n);
    CHECK(strstr(msg, line) != NULL);
    CHECK(strstr(msg, "frames: 4, time 0 to 0.375") != NULL);
    CHECK(strstr(msg, "steps: 300") != NULL);
    CHECK(strstr(msg, "complete: 1") != NULL);
    CHECK(strstr(msg, "solver: nsgs") != NULL);
    CHECK(strstr(msg, "options: -dt 0.001") != NULL);
  } else {
    CHECK(msz == 0);
  }
  free(msg);
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, scratch("info_scene.h5"), &base));
  mf = open_memstream(&msg, &msz);
  CHECK_OK(sg_file_info(MPI_COMM_WORLD, scratch("info_scene.h5"), mf));
  fclose(mf);
  if (test_rank() == 0) {
    printf("%s", msg);
    CHECK(strstr(msg, "signorini scene") != NULL);
    CHECK(strstr(msg, "materials: 2") != NULL);
  }
  free(msg);
  CHECK(h5_open_objects() == 0);
  sg_scene_destroy(&s);
}

static void test_failed_run(void) {
  sg_traj_writer *w = NULL;
  CHECK_OK(sg_traj_open(MPI_COMM_WORLD, scratch("failed.h5"), &base, &w));
  CHECK_OK(sg_traj_write_frame(w, &base));
  sg_step_stats st = stats_of(0);
  CHECK_OK(sg_traj_write_stats(w, &st));
  CHECK_OK(sg_traj_close(w, 0));
  CHECK(!file_exists(scratch("failed.h5")));
  CHECK(!file_exists(scratch("failed.h5.partial")));
  CHECK(!file_exists(scratch("failed.xmf")));
  CHECK(h5_open_objects() == 0);

  /* A frame with another number of bodies than the trajectory was opened with. */
  CHECK_OK(sg_traj_open(MPI_COMM_WORLD, scratch("grown.h5"), &base, &w));
  sg_scene more;
  make_scene(&more, 11);
  sg_error_clear();
  CHECK(sg_traj_write_frame(w, &more) == SG_ERR_ARG);
  if (test_rank() == 0) printf("  frame with 13 bodies into 12 -> %s\n", sg_error_message());
  CHECK(strstr(sg_error_message(), "grown.h5") != NULL);
  sg_error_clear();
  CHECK_OK(sg_traj_close(w, 0));
  sg_scene_destroy(&more);
}

static void test_open_errors(void) {
  char p[300];
  snprintf(p, sizeof p, "%s/missing_dir/out.h5", scratch_dir);
  sg_traj_writer *w = (sg_traj_writer *)&base;  /* must be reset */
  sg_error_clear();
  int e = sg_traj_open(MPI_COMM_WORLD, p, &base, &w);
  if (test_rank() == 0) printf("  open in a missing folder -> %d: %s\n", e, sg_error_message());
  CHECK(e == SG_ERR_IO);
  CHECK(w == NULL);
  CHECK(strstr(sg_error_message(), p) != NULL);
  sg_error_clear();
  CHECK(h5_open_objects() == 0);

  /* info refuses what is not a signorini file. */
  const char *junk = scratch("junk.h5");
  write_other(junk, "garbage");
  e = sg_file_info(MPI_COMM_WORLD, junk, stdout);
  if (test_rank() == 0) printf("  info on a text file -> %d: %s\n", e, sg_error_message());
  CHECK(e != 0 && strstr(sg_error_message(), junk) != NULL);
  sg_error_clear();
  const char *plain = scratch("plain.h5");
  write_other(plain, NULL);
  e = sg_file_info(MPI_COMM_WORLD, plain, stdout);
  if (test_rank() == 0) printf("  info on an empty HDF5 file -> %d: %s\n", e, sg_error_message());
  CHECK(e == SG_ERR_FORMAT && strstr(sg_error_message(), plain) != NULL);
  sg_error_clear();
  CHECK(h5_open_objects() == 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  scratch_make();
  make_scene(&base, 10);
  test_complete_run();
  test_failed_run();
  test_open_errors();
  sg_scene_destroy(&base);
  scratch_remove();
  MPI_Finalize();
  return sg_test_exit();
}
