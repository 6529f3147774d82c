/* Trajectory files: frames and per-step statistics read back exactly with the plain HDF5 API,
 * rows land at their global id whatever the order of the bodies in memory, `complete` is set
 * only by a successful close, nothing is left behind by a failed run, the .xmf references the
 * file by its base name, and `info` summarizes both kinds of file. A body set that changes from
 * frame to frame (bodies leave, new ids enter, bodies move between ranks): NaN rows where absent,
 * /frames/present, n_bodies, n_ids, /ids, the event logs sorted and complete, the new statistics.
 * Runs on 1 rank here and on several as mpi/test_traj_ranks. */
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

static int h5_has(const char *path, const char *name) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  int has = f >= 0 && H5Lexists(f, name, H5P_DEFAULT) > 0;
  if (f >= 0) H5Fclose(f);
  return has;
}

/* First extent of a dataset (-1: missing). */
static long long dataset_rows(const char *path, const char *name) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = f >= 0 ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
  hsize_t dims[3] = {0};
  long long n = -1;
  if (d >= 0) {
    hid_t sp = H5Dget_space(d);
    if (H5Sget_simple_extent_dims(sp, dims, NULL) >= 1) n = (long long)dims[0];
    H5Sclose(sp);
    H5Dclose(d);
  }
  if (f >= 0) H5Fclose(f);
  return n;
}

/* Bodies per chunk of a [T][N][k] dataset (its second chunk extent; -1: not chunked). */
static long long chunk_rows(const char *path, const char *name) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = f >= 0 ? H5Dopen2(f, name, H5P_DEFAULT) : -1;
  hid_t pl = d >= 0 ? H5Dget_create_plist(d) : -1;
  hsize_t chunk[3] = {0};
  long long n = pl >= 0 && H5Pget_chunk(pl, 3, chunk) == 3 ? (long long)chunk[1] : -1;
  if (pl >= 0) H5Pclose(pl);
  if (d >= 0) H5Dclose(d);
  if (f >= 0) H5Fclose(f);
  return n;
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
  double pos0[3] = {s.state.pos[0], s.state.pos[1], s.state.pos[2]};  /* body held first has gid n-1 */
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
    s.state.time = 0.125 * f;
    for (int i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) s.state.pos[3 * i + c] = state(s.gid[i], f, c);
      for (int c = 0; c < 4; ++c) s.state.quat[4 * i + c] = state(s.gid[i], f, 10 + c);
      for (int c = 0; c < 6; ++c) s.state.vel[6 * i + c] = state(s.gid[i], f, 20 + c);
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
  /* A set that never changes: every row present, no events, one chunk per frame as before. */
  unsigned char *pr = read_all(out, "/frames/present", H5T_NATIVE_UCHAR, 1, dims, &rank);
  CHECK(rank == 2 && dims[0] == N_FRAMES && dims[1] == (hsize_t)n);
  long long *nb = read_all(out, "/frames/n_bodies", H5T_NATIVE_LLONG, 8, dims, &rank);
  long long *ni = read_all(out, "/frames/n_ids", H5T_NATIVE_LLONG, 8, dims, &rank);
  int absent = 0;
  for (int k = 0; pr && k < N_FRAMES * n; ++k) absent += pr[k] != 1;
  for (int f = 0; nb && ni && f < N_FRAMES; ++f) absent += nb[f] != n || ni[f] != n;
  CHECK(absent == 0);
  free(pr); free(nb); free(ni);
  CHECK(dataset_rows(out, "/inserted/gid") == 0 && dataset_rows(out, "/deleted/position") == 0);
  CHECK(chunk_rows(out, "/frames/velocity") == n);

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
  /* the fixed box wall (half extents 0.05 x 2 x 1 at (1, 0, 0.5)) drawn as 12 triangles, a corner
   * at (1.05, 2, 1.5); the plane is left out */
  CHECK(strstr(text, "<Grid Name=\"walls\"") != NULL);
  CHECK(strstr(text, "TopologyType=\"Triangle\" NumberOfElements=\"12\"") != NULL);
  CHECK(strstr(text, "\n1.05 2 1.5\n") != NULL);

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

  /* A frame may hold other ids than the first, but not one id twice: here id 4 on every rank
   * (distributed: each rank writes its moving bodies), and on every rank twice. */
  CHECK_OK(sg_traj_open(MPI_COMM_WORLD, scratch("twice.h5"), &base, &w));
  sg_scene twice;
  make_scene(&twice, 11);
  twice.distributed = 1;
  twice.gid[5] = 4;
  sg_error_clear();
  CHECK(sg_traj_write_frame(w, &twice) == SG_ERR_ARG);
  if (test_rank() == 0) printf("  frame with id 4 twice -> %s\n", sg_error_message());
  CHECK(strstr(sg_error_message(), "twice.h5") != NULL);
  sg_error_clear();
  CHECK_OK(sg_traj_close(w, 0));
  sg_scene_destroy(&twice);
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

/* --- a body set that changes between frames --------------------------------------------------- */
/* Five frames over a master scene of ids 0..19 (0 and 1 fixed): 3 and 7 leave after frame 0, 5
 * after frame 2; 12 enters after frame 0 and leaves after frame 1; 13..16 enter and stay; 17..19
 * enter and leave between two frames (never in a frame). next_gid: the extent of each frame. */
#define CH_FRAMES 5
static const int ch_next_gid[CH_FRAMES] = {12, 14, 18, 18, 20};

static int ch_present(int64_t g, int f) {
  if (g >= ch_next_gid[f]) return 0;
  if (g == 3 || g == 7) return f == 0;
  if (g == 5) return f <= 2;
  if (g == 12) return f == 1;
  return g < 17;
}

/* Between frames f - 1 and f: two steps at these times. */
static double ch_step_time(int f, int step) { return 0.125 * (f - 1) + 0.0625 * step; }
/* The interval (frame index f >= 1) in which id g enters, or 0 when it is in the first frame. */
static int ch_enters(int64_t g) {
  for (int f = 1; f < CH_FRAMES; ++f)
    if (g >= ch_next_gid[f - 1] && g < ch_next_gid[f]) return f;
  return 0;
}
/* The interval in which id g leaves, or 0 when it never leaves. */
static int ch_leaves(int64_t g) {
  for (int f = 1; f < CH_FRAMES; ++f)
    if (!ch_present(g, f) && (ch_present(g, f - 1) || (g >= 17 && ch_enters(g) == f))) return f;
  return 0;
}
/* The step of its interval in which id g enters (0: the first) or leaves (1: the second). */
static int ch_insert_step(int64_t g) { return (int)(g % 2) * (g < 17); }

/* The rank that holds moving body g in frame f: changes from frame to frame (migration). */
static int ch_owner(int64_t g, int f, int P) { return (int)((g + f) % P); }

/* This rank's part of frame f: every fixed body, its moving bodies, in a shuffled order; with the
 * frame's made-up state, or (with_state = 0) the valid one of `all` (the scene a file keeps). */
static void ch_frame_scene(const sg_scene *all, int f, int with_state, sg_scene *s) {
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  CHECK_OK(sg_scene_create(s, 0, 2));
  CHECK_OK(sg_scene_copy_globals(s, all));
  s->distributed = 1;
  s->next_gid = ch_next_gid[f];
  s->state.time = 0.125 * f;
  for (int k = 0; k < all->n; ++k) {
    int g = (7 * k + f) % all->n; /* not in id order */
    if (!ch_present(g, f) || (!all->fixed[g] && ch_owner(g, f, P) != test_rank())) continue;
    int i = s->n;
    CHECK_OK(sg_scene_copy_body(s, all, g));
    s->n_owned += !s->fixed[i];
    if (!with_state) continue;
    for (int c = 0; c < 3; ++c) s->state.pos[3 * i + c] = state(g, f, c);
    for (int c = 0; c < 4; ++c) s->state.quat[4 * i + c] = state(g, f, 10 + c);
    for (int c = 0; c < 6; ++c) s->state.vel[6 * i + c] = state(g, f, 20 + c);
  }
}

/* This rank's events of step `step` between frames f - 1 and f (each logged by one rank). */
static void ch_events(const sg_scene *all, int f, int step, sg_body_events *ins, sg_body_events *del) {
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  ins->n = del->n = 0;
  for (int g = 2; g < all->n; ++g) {
    if ((int)((3 * g) % P) != test_rank()) continue;
    double t = ch_step_time(f, step);
    if (ch_enters(g) == f && ch_insert_step(g) == step) CHECK_OK(sg_body_events_push(ins, all, g, t));
    if (ch_leaves(g) == f && step == 1) CHECK_OK(sg_body_events_push(del, all, g, t));
  }
}

static sg_step_stats ch_stats(int f, int step) {
  sg_step_stats st = stats_of(2 * f + step);
  st.n_bodies = 1000 + f;
  st.inserted = 10LL * f + step;
  st.deleted = 4000000000LL + f; /* needs 64 bits */
  st.inflow_waiting = step;
  st.mass_inserted = 0.5 * f;
  st.mass_deleted = 0.25 * step;
  return st;
}

static void ch_write(const sg_scene *all, const char *out) {
  sg_traj_writer *w = NULL;
  sg_scene s;
  ch_frame_scene(all, 0, 0, &s);
  CHECK_OK(sg_traj_open(MPI_COMM_WORLD, out, &s, &w));
  sg_scene_destroy(&s);
  ch_frame_scene(all, 0, 1, &s);
  CHECK_OK(sg_traj_write_frame(w, &s));
  sg_scene_destroy(&s);
  sg_body_events ins = {0}, del = {0};
  for (int f = 1; f < CH_FRAMES; ++f) {
    for (int step = 0; step < 2; ++step) {
      ch_events(all, f, step, &ins, &del);
      CHECK_OK(sg_traj_write_events(w, &ins, &del));
      sg_step_stats st = ch_stats(f, step);
      CHECK_OK(sg_traj_write_stats(w, &st));
    }
    ch_frame_scene(all, f, 1, &s);
    CHECK_OK(sg_traj_write_frame(w, &s));
    sg_scene_destroy(&s);
  }
  free(ins.ev);
  free(del.ev);
  CHECK_OK(sg_traj_close(w, SG_TRAJ_COMPLETE));
}

/* Frames: present rows hold the state, absent ones (ids above the frame's extent too) NaN. */
static void ch_check_frames(const char *out) {
  hsize_t dims[3];
  int rank, N = ch_next_gid[CH_FRAMES - 1];
  static const struct { const char *name; int cols, base; } fr[3] = {
      {"/frames/position", 3, 0}, {"/frames/orientation", 4, 10}, {"/frames/velocity", 6, 20}};
  for (int k = 0; k < 3; ++k) {
    double *x = read_all(out, fr[k].name, H5T_NATIVE_DOUBLE, 8, dims, &rank);
    CHECK(rank == 3 && dims[0] == CH_FRAMES && dims[1] == (hsize_t)N && dims[2] == (hsize_t)fr[k].cols);
    int bad = 0;
    for (int f = 0; x && f < CH_FRAMES; ++f)
      for (int g = 0; g < N; ++g)
        for (int c = 0; c < fr[k].cols; ++c) {
          double v = x[((size_t)f * N + g) * fr[k].cols + c];
          bad += ch_present(g, f) ? v != state(g, f, fr[k].base + c) : !isnan(v);
        }
    CHECK(bad == 0);
    free(x);
  }
  unsigned char *pr = read_all(out, "/frames/present", H5T_NATIVE_UCHAR, 1, dims, &rank);
  long long *nb = read_all(out, "/frames/n_bodies", H5T_NATIVE_LLONG, 8, dims, &rank);
  long long *ni = read_all(out, "/frames/n_ids", H5T_NATIVE_LLONG, 8, dims, &rank);
  int bad = 0;
  for (int f = 0; pr && nb && ni && f < CH_FRAMES; ++f) {
    long long count = 0;
    for (int g = 0; g < N; ++g) {
      count += ch_present(g, f);
      bad += pr[(size_t)f * N + g] != ch_present(g, f);
    }
    bad += nb[f] != count || ni[f] != ch_next_gid[f];
  }
  CHECK(bad == 0);
  if (nb && ni) printf("  changing set: bodies per frame %lld .. %lld, ids %lld .. %lld\n", nb[0], nb[CH_FRAMES - 1], ni[0], ni[CH_FRAMES - 1]);
  free(pr); free(nb); free(ni);
}

/* /ids: the description of every id present in some frame; fill values for the others. */
static void ch_check_ids(const sg_scene *all, const char *out) {
  hsize_t dims[3];
  int rank, N = ch_next_gid[CH_FRAMES - 1], bad = 0;
  long long *gid = read_all(out, "/ids/gid", H5T_NATIVE_LLONG, 8, dims, &rank);
  CHECK(rank == 1 && dims[0] == (hsize_t)N);
  int *shape = read_all(out, "/ids/shape", H5T_NATIVE_INT, 4, dims, &rank);
  unsigned char *fixed = read_all(out, "/ids/fixed", H5T_NATIVE_UCHAR, 1, dims, &rank);
  double *size = read_all(out, "/ids/size", H5T_NATIVE_DOUBLE, 8, dims, &rank);
  CHECK(rank == 2 && dims[0] == (hsize_t)N && dims[1] == 3);
  for (int g = 0; gid && shape && fixed && size && g < N; ++g) {
    int ever = 0;
    for (int f = 0; f < CH_FRAMES; ++f) ever |= ch_present(g, f);
    bad += gid[g] != g;
    bad += ever ? shape[g] != all->shape[g] || fixed[g] != all->fixed[g] || size[3 * g] != all->size[3 * g]
                : shape[g] != -1 || !isnan(size[3 * g]);
  }
  CHECK(bad == 0);
  free(gid); free(shape); free(fixed); free(size);
}

/* One event log: every event once, sorted by (time, gid), with the body's state and mass. */
static void ch_check_log(const sg_scene *all, const char *out, int inserted) {
  int expect[32], n = 0;
  double when[32];
  for (int f = 1; f < CH_FRAMES; ++f)
    for (int step = 0; step < 2; ++step)
      for (int g = 2; g < all->n; ++g)
        if (inserted ? ch_enters(g) == f && ch_insert_step(g) == step : ch_leaves(g) == f && step == 1) {
          when[n] = ch_step_time(f, step);
          expect[n++] = g;
        }
  char name[64];
  hsize_t dims[3];
  int rank, bad = 0;
  const char *group = inserted ? "inserted" : "deleted";
  snprintf(name, sizeof name, "/%s/gid", group);
  long long *gid = read_all(out, name, H5T_NATIVE_LLONG, 8, dims, &rank);
  CHECK(rank == 1 && dims[0] == (hsize_t)n);
  snprintf(name, sizeof name, "/%s/time", group);
  double *t = read_all(out, name, H5T_NATIVE_DOUBLE, 8, dims, &rank);
  snprintf(name, sizeof name, "/%s/mass", group);
  double *m = read_all(out, name, H5T_NATIVE_DOUBLE, 8, dims, &rank);
  snprintf(name, sizeof name, "/%s/velocity", group);
  double *v = read_all(out, name, H5T_NATIVE_DOUBLE, 8, dims, &rank);
  CHECK(rank == 2 && dims[1] == 6);
  for (int i = 0; gid && t && m && v && i < n; ++i)
    bad += gid[i] != expect[i] || t[i] != when[i] || m[i] != all->mass[expect[i]] ||
           memcmp(v + 6 * i, all->state.vel + 6 * expect[i], 6 * sizeof(double)) != 0;
  CHECK(bad == 0);
  printf("  %s: %d events, sorted by (time, gid)%s\n", group, n, bad ? ": WRONG" : "");
  free(gid); free(t); free(m); free(v);
  if (inserted) {
    int *shape = read_all(out, "/inserted/shape", H5T_NATIVE_INT, 4, dims, &rank);
    double *size = read_all(out, "/inserted/size", H5T_NATIVE_DOUBLE, 8, dims, &rank);
    bad = 0;
    for (int i = 0; shape && size && i < n; ++i)
      bad += shape[i] != all->shape[expect[i]] || size[3 * i + 1] != all->size[3 * expect[i] + 1];
    CHECK(bad == 0);
    free(shape); free(size);
  } else {
    CHECK(!h5_has(out, "/deleted/shape"));
  }
}

static void ch_check_stats(const char *out) {
  hsize_t dims[3];
  int rank, bad = 0, n = 2 * (CH_FRAMES - 1);
  long long *del = read_all(out, "/stats/deleted", H5T_NATIVE_LLONG, 8, dims, &rank);
  CHECK(rank == 1 && dims[0] == (hsize_t)n);
  long long *ins = read_all(out, "/stats/inserted", H5T_NATIVE_LLONG, 8, dims, &rank);
  long long *nb = read_all(out, "/stats/n_bodies", H5T_NATIVE_LLONG, 8, dims, &rank);
  long long *wt = read_all(out, "/stats/inflow_waiting", H5T_NATIVE_LLONG, 8, dims, &rank);
  double *mi = read_all(out, "/stats/mass_inserted", H5T_NATIVE_DOUBLE, 8, dims, &rank);
  double *md = read_all(out, "/stats/mass_deleted", H5T_NATIVE_DOUBLE, 8, dims, &rank);
  int *it = read_all(out, "/stats/iterations", H5T_NATIVE_INT, 4, dims, &rank);
  for (int k = 0; del && ins && nb && wt && mi && md && it && k < n; ++k) {
    sg_step_stats e = ch_stats(1 + k / 2, k % 2);
    bad += del[k] != e.deleted || ins[k] != e.inserted || nb[k] != e.n_bodies || wt[k] != e.inflow_waiting ||
           mi[k] != e.mass_inserted || md[k] != e.mass_deleted || it[k] != e.iterations;
  }
  CHECK(bad == 0);
  free(del); free(ins); free(nb); free(wt); free(mi); free(md); free(it);
  if (test_rank() == 0) { /* the 64-bit columns are stored as int64 */
    hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "/stats/deleted", H5P_DEFAULT);
    hid_t t = H5Dget_type(d);
    CHECK(H5Tequal(t, H5T_STD_I64LE) > 0);
    H5Tclose(t); H5Dclose(d); H5Fclose(f);
  }
}

/* The .xmf: one grid per frame over that frame's ids, with present and gid. */
static void ch_check_xmf(const char *xmf) {
  FILE *xf = fopen(xmf, "r");
  static char text[1 << 17];
  size_t len = xf ? fread(text, 1, sizeof text - 1, xf) : 0;
  text[len] = 0;
  if (xf) fclose(xf);
  int grids = 0;
  for (const char *c = text; (c = strstr(c, "TopologyType=\"Polyvertex\"")); ++c) ++grids;
  CHECK(grids == CH_FRAMES);
  CHECK(strstr(text, "NumberOfElements=\"12\"") != NULL && strstr(text, "NumberOfElements=\"20\"") != NULL);
  CHECK(strstr(text, "Name=\"present\"") != NULL && strstr(text, "Name=\"gid\"") != NULL);
  /* frame 1 shows 14 ids of the [5][20][3] positions */
  CHECK(strstr(text, "<DataItem Dimensions=\"3 3\" Format=\"XML\">1 0 0 1 1 1 1 14 3</DataItem>") != NULL);
  CHECK(strstr(text, "Dimensions=\"5 20 3\" NumberType=\"Float\"") != NULL);
}

static void test_changing_set(void) {
  const char *out = scratch("changing.h5");
  sg_scene all;
  make_scene(&all, 18); /* ids 0..19 */
  ch_write(&all, out);
  CHECK(h5_open_objects() == 0);
  CHECK(root_int_attr(out, "complete") == 1);
  ch_check_frames(out);
  ch_check_ids(&all, out);
  ch_check_log(&all, out, 1);
  ch_check_log(&all, out, 0);
  ch_check_stats(out);
  ch_check_xmf(scratch("changing.xmf"));
  char *msg = NULL;
  size_t msz = 0;
  FILE *mf = open_memstream(&msg, &msz);
  CHECK_OK(sg_file_info(MPI_COMM_WORLD, out, mf));
  fclose(mf);
  if (test_rank() == 0) {
    printf("%s", msg);
    CHECK(strstr(msg, "bodies in frames: 12 in the first, 13 in the last; ids used: 20") != NULL);
    CHECK(strstr(msg, "inserted: 8 bodies") != NULL && strstr(msg, "deleted: 7 bodies") != NULL);
  }
  free(msg);
  sg_scene_destroy(&all);
}

/* A kinematic wall (a box) moved between two frames: /walls/moving_triangles holds its 12 triangles
 * once, row f of /frames/wall_position its 8 corners at frame f (moved by exactly the box's
 * displacement), and the .xmf draws it in a temporal collection of its own. */
static void test_moving_walls(void) {
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  const double zero[3] = {0, 0, 0}, half[3] = {0.5, 0.25, 0.125}, at[3] = {1, 2, 3}, size[3] = {0.1, 0, 0};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_BOX, half, 0, SG_KINEMATIC, 0, at, NULL, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000, zero, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  s.next_gid = 2;
  const char *out = scratch("moving.h5");
  sg_traj_writer *w;
  CHECK_OK(sg_traj_open(MPI_COMM_WORLD, out, &s, &w));
  CHECK_OK(sg_traj_write_frame(w, &s));
  s.state.pos[0] += 0.75; /* the box slides along x */
  s.state.time = 0.5;
  CHECK_OK(sg_traj_write_frame(w, &s));
  CHECK_OK(sg_traj_close(w, SG_TRAJ_COMPLETE));
  hsize_t dims[3];
  int rank = 0;
  int *tri = read_all(out, "/walls/moving_triangles", H5T_NATIVE_INT, 4, dims, &rank);
  CHECK(tri && rank == 2 && dims[0] == 12 && dims[1] == 3);
  double *xyz = read_all(out, "/frames/wall_position", H5T_NATIVE_DOUBLE, 8, dims, &rank);
  CHECK(xyz && rank == 3 && dims[0] == 2 && dims[1] == 8 && dims[2] == 3);
  int exact = xyz != NULL;
  for (int v = 0; xyz && v < 8; ++v) {
    const double *a = xyz + 3 * v, *b = xyz + 24 + 3 * v;
    exact &= b[0] - a[0] == 0.75 && b[1] == a[1] && b[2] == a[2];
    exact &= fabs(a[0] - 1) == 0.5 && fabs(a[1] - 2) == 0.25 && fabs(a[2] - 3) == 0.125; /* the corners */
  }
  CHECK(exact);
  free(tri);
  free(xyz);
  FILE *xf = fopen(scratch("moving.xmf"), "r");
  static char text[1 << 16];
  size_t len = xf ? fread(text, 1, sizeof text - 1, xf) : 0;
  text[len] = 0;
  if (xf) fclose(xf);
  CHECK(strstr(text, "<Grid Name=\"moving walls\" GridType=\"Collection\" CollectionType=\"Temporal\">") != NULL);
  CHECK(strstr(text, "<Grid Name=\"moving walls 1\"") != NULL && strstr(text, "moving.h5:/walls/moving_triangles") != NULL);
  CHECK(strstr(text, "<Grid Name=\"walls\"") == NULL); /* no fixed wall */
  sg_scene_destroy(&s);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  scratch_make();
  make_scene(&base, 10);
  test_complete_run();
  test_failed_run();
  test_changing_set();
  test_moving_walls();
  test_open_errors();
  sg_scene_destroy(&base);
  scratch_remove();
  MPI_Finalize();
  return sg_test_exit();
}
