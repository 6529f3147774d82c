/* `info`: a short summary of a scene or trajectory file, told apart by the root attribute kind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "io/read_fapl.h"
#include "signorini/io.h"
#include "signorini/tree.h"

static void print_scene(FILE *out, const sg_scene *s) {
  int count[SG_SHAPE_COUNT] = {0}, fixed = 0, kinematic = 0;
  for (int i = 0; i < s->n; ++i) {
    count[s->shape[i]]++;
    fixed += s->fixed[i] != SG_MOVING;
    kinematic += s->fixed[i] == SG_KINEMATIC;
  }
  fprintf(out, "  bodies: %d (", s->n);
  const char *sep = "";
  for (int k = 0; k < SG_SHAPE_COUNT; ++k) /* the shapes present */
    if (count[k]) {
      fprintf(out, "%s%s %d", sep, sg_shape_name(k), count[k]);
      sep = ", ";
    }
  fprintf(out, "), %d fixed", fixed);
  if (kinematic) fprintf(out, " (%d of them kinematic, %d motions)", kinematic, s->n_motions);
  fprintf(out, "\n");
  if (s->n_trees) { /* kinematic trees (tree.h): each one of the bodies above */
    int links = 0, dof = 0, geoms = 0, closures = 0;
    for (int k = 0; k < s->n_trees; ++k) {
      const sg_tree *t = s->trees[k];
      links += t->n_links, dof += t->nv, geoms += t->n_geoms, closures += t->n_closures;
    }
    fprintf(out, "  trees: %d (%d links, %d degrees of freedom, %d link geoms", s->n_trees, links, dof, geoms);
    if (closures) fprintf(out, ", %d loop closure%s", closures, closures > 1 ? "s" : "");
    fprintf(out, ")\n");
  }
  fprintf(out, "  materials: %d\n", s->n_materials);
  fprintf(out, "  gravity: (%g, %g, %g)\n", s->gravity[0], s->gravity[1], s->gravity[2]);
  if (s->run_options[0]) fprintf(out, "  run options: %s\n", s->run_options);
  double L[3];
  if (sg_scene_period(s, L)) {
    fprintf(out, "  periodic:");
    for (int d = 0; d < 3; ++d)
      if (L[d] > 0) fprintf(out, " %c in [%g, %g)", "xyz"[d], s->period_lo[d], s->period_hi[d]);
    fprintf(out, "\n");
  }
}

typedef struct {
  FILE *out;
  const char *path;
  sg_err err;
} attr_ctx;

/* Run options and other string attributes the writer attached (sg_traj_set_attr). */
static herr_t print_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  attr_ctx *c = data;
  if (!strcmp(name, "format_version") || !strcmp(name, "kind") || !strcmp(name, "complete")) return 0;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
  hid_t type = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
  int is_str = type >= 0 && H5Tget_class(type) == H5T_STRING;
  sg_h5_close(&type);
  sg_h5_close(&a);
  if (!is_str) return 0;
  char value[1024];
  int found;
  c->err = sg_h5_attr_read_str(loc, name, value, sizeof value, &found, c->path);
  if (c->err) return -1;
  if (c->out) fprintf(c->out, "  %s: %s\n", name, value);
  return 0;
}

static double total(const double *x, long long n) {
  double s = 0;
  for (long long i = 0; i < n; ++i) s += x[i];
  return s;
}

static double mean(const double *x, long long n) { return n > 0 ? total(x, n) / (double)n : 0; }

/* A 1-D series read as doubles when the file has it (*n = -1 when absent: an older file). */
static sg_err read_optional(hid_t file, const char *name, const char *path, hid_t dxpl, double **x, long long *n) {
  char shown[64];
  snprintf(shown, sizeof shown, "/%s", name);
  *x = NULL;
  *n = -1;
  if (!sg_h5_exists(file, name)) return SG_OK;
  return sg_h5_read_checked(file, name, shown, path, 0, 1, n, NULL, dxpl, (void **)x);
}

/* Bodies in the first and last frame, the ids used, and the logs of inserted and deleted bodies,
 * for the files that have them. */
static sg_err print_body_flow(hid_t file, const char *path, hid_t dxpl, FILE *out) {
  double *nb = NULL, *ni = NULL, *mi = NULL, *md = NULL;
  long long nf, nf2, n_ins, n_del;
  sg_err err = read_optional(file, "frames/n_bodies", path, dxpl, &nb, &nf);
  if (!err) err = read_optional(file, "frames/n_ids", path, dxpl, &ni, &nf2);
  if (!err) err = read_optional(file, "inserted/mass", path, dxpl, &mi, &n_ins);
  if (!err) err = read_optional(file, "deleted/mass", path, dxpl, &md, &n_del);
  if (!err && out && nf > 0 && nf2 == nf)
    fprintf(out, "  bodies in frames: %lld in the first, %lld in the last; ids used: %lld\n", (long long)nb[0],
            (long long)nb[nf - 1], (long long)ni[nf - 1]);
  if (!err && out && n_ins >= 0 && n_del >= 0)
    fprintf(out, "  inserted: %lld bodies, %.6g kg; deleted: %lld bodies, %.6g kg\n", n_ins, total(mi, n_ins), n_del,
            total(md, n_del));
  free(nb);
  free(ni);
  free(mi);
  free(md);
  return err;
}

static sg_err traj_info(hid_t file, const char *path, hid_t dxpl, FILE *out) {
  long long complete = 0;
  int found;
  SG_CHECK(sg_h5_attr_read_int(file, "complete", &complete, &found, path));
  if (!found) return sg_error_set(SG_ERR_FORMAT, "%s: missing root attribute complete", path);
  if (out) fprintf(out, "%s: signorini trajectory (format version %d)\n", path, SG_TRAJ_FORMAT_VERSION);
  hid_t g = sg_h5_exists(file, "scene") ? H5Gopen2(file, "scene", H5P_DEFAULT) : H5I_INVALID_HID;
  if (g < 0) return sg_error_set(SG_ERR_FORMAT, "%s: missing group /scene", path);
  sg_scene s;
  sg_err err = sg_scene_group_read(g, "/scene", path, dxpl, &s);
  sg_h5_close(&g);
  SG_CHECK(err);
  if (out) print_scene(out, &s);
  sg_scene_destroy(&s);

  double *times = NULL, *iters = NULL, *cres = NULL;
  long long nt = -1, ns = -1;
  err = sg_h5_read_checked(file, "frames/time", "/frames/time", path, 0, 1, &nt, NULL, dxpl, (void **)&times);
  if (!err) err = sg_h5_read_checked(file, "stats/iterations", "/stats/iterations", path, 0, 1, &ns, NULL, dxpl,
                                     (void **)&iters);
  if (!err) err = sg_h5_read_checked(file, "stats/contact_residual", "/stats/contact_residual", path, 0, 1, &ns,
                                     "(the length of /stats/iterations)", dxpl, (void **)&cres);
  if (!err && out) {
    if (nt > 0) fprintf(out, "  frames: %lld, time %g to %g\n", nt, times[0], times[nt - 1]);
    else fprintf(out, "  frames: 0\n");
    if (ns > 0)
      fprintf(out, "  steps: %lld, mean iterations %.4g, mean contact_residual %.4g\n", ns, mean(iters, ns),
              mean(cres, ns));
    else fprintf(out, "  steps: 0\n");
    fprintf(out, "  complete: %lld%s\n", complete, complete ? "" : " (the run did not finish)");
  }
  free(times);
  free(iters);
  free(cres);
  if (!err) err = print_body_flow(file, path, dxpl, out);
  if (!err) {
    attr_ctx c = {out, path, SG_OK};
    hsize_t idx = 0;
    err = sg_h5_check_object_header(file, path); /* H5Aiterate2 decodes every attribute message */
    if (!err && H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, &idx, print_attr, &c) < 0)
      err = c.err ? c.err : sg_error_set(SG_ERR_FORMAT, "%s: cannot list the root attributes", path);
  }
  return err;
}

/* A scene or checkpoint whose bodies entered and left: how many there are, and the next id. */
static void print_ids(FILE *out, const sg_scene *s) {
  fprintf(out, "  ids: %d bodies, ids up to %lld, next_gid %lld\n", s->n, s->n ? (long long)s->gid[s->n - 1] : -1LL,
          (long long)s->next_gid);
}

sg_err sg_file_info(MPI_Comm comm, const char *path, FILE *out) { return sg_file_info_fapl(comm, path, H5P_DEFAULT, out); }

sg_err sg_file_info_fapl(MPI_Comm comm, const char *path, hid_t access, FILE *out) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  FILE *o = rank == 0 ? out : NULL;
  hid_t file, dxpl = H5I_INVALID_HID;
  sg_err err = sg_h5_open_read(comm, path, access, &file);
  char kind[64];
  long long version = 0;
  if (!err) err = sg_h5_read_header(file, path, kind, sizeof kind, &version);
  if (!err && (dxpl = sg_h5_read_dxpl(file)) < 0) err = sg_error_set(SG_ERR_LIB, "%s: cannot set up HDF5 transfers", path);
  if (!err && (!kind[0] || !strcmp(kind, SG_KIND_SCENE))) {
    if (version != SG_SCENE_FORMAT_VERSION)
      err = sg_error_set(SG_ERR_FORMAT, "%s: scene format_version %lld is not supported (this build reads version %d)",
                         path, version, SG_SCENE_FORMAT_VERSION);
    sg_scene s;
    if (!err) err = sg_scene_group_read(file, "", path, dxpl, &s);
    if (!err) {
      if (o) fprintf(o, "%s: signorini scene (format version %lld)\n", path, version);
      if (o) print_scene(o, &s);
      if (o && sg_h5_exists(file, "bodies/gid")) print_ids(o, &s);
      sg_scene_destroy(&s);
    }
  } else if (!err && !strcmp(kind, "signorini-checkpoint")) {
    long long step = 0;
    int found = 0;
    sg_scene s;
    err = sg_h5_attr_read_int(file, "step", &step, &found, path);
    if (!err) err = sg_scene_group_read(file, "", path, dxpl, &s);
    if (!err) {
      if (o) fprintf(o, "%s: signorini checkpoint (format version %lld) at step %lld; restart with -restart %s\n", path,
                      version, step, path);
      if (o) print_scene(o, &s);
      if (o) print_ids(o, &s);
      sg_scene_destroy(&s);
    }
  } else if (!err && !strcmp(kind, SG_KIND_TRAJ)) {
    if (version != SG_TRAJ_FORMAT_VERSION)
      err = sg_error_set(SG_ERR_FORMAT, "%s: trajectory format_version %lld is not supported (this build reads version %d)",
                         path, version, SG_TRAJ_FORMAT_VERSION);
    if (!err) err = traj_info(file, path, dxpl, o);
  } else if (!err) {
    err = sg_error_set(SG_ERR_FORMAT, "%s: unknown kind '%s' (expected %s or %s)", path, kind, SG_KIND_SCENE,
                       SG_KIND_TRAJ);
  }
  sg_h5_close(&dxpl);
  sg_h5_close(&file);
  if (o) fflush(o);
  return sg_error_collective(comm, err);
}
