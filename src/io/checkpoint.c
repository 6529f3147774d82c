/* Checkpoints (docs/FORMATS.md): the scene with its current body set and state (bodies enter and
 * leave, so the ids may have gaps), the step and time, next_gid, the warm start of the stepper, the
 * hooks' state, the run options a restart must keep, and two fingerprints: scene_hash of the scene
 * file the run started from (a restart must be given the same file) and state_hash over what the
 * restart restores (silent corruption of the data is refused).
 *
 * Written atomically: to "<path>.tmp.<pid>", flushed, closed and synced, then renamed over the
 * previous checkpoint, so a run killed at any moment leaves the last complete checkpoint intact.
 * Per-body data is written and read by global id and both fingerprints are sums of per-record
 * hashes, so nothing here depends on which rank holds which body. */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "io/read_fapl.h"
#include "signorini/io.h"
#include "signorini/tree.h"

#define SG_CKPT_FORMAT_VERSION 2
#define SG_KIND_CKPT "signorini-checkpoint"

/* --- fingerprints: FNV-1a 64 over little-endian encodings -------------------------------------- */

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv_bytes(uint64_t h, const unsigned char *b, size_t n) {
  for (size_t k = 0; k < n; ++k) {
    h ^= b[k];
    h *= FNV_PRIME;
  }
  return h;
}

/* An unsigned value of `bytes` bytes, least significant first (the same on every machine). */
static uint64_t fnv_le(uint64_t h, uint64_t v, int bytes) {
  unsigned char b[8];
  for (int k = 0; k < bytes; ++k) b[k] = (unsigned char)(v >> (8 * k));
  return fnv_bytes(h, b, (size_t)bytes);
}
static uint64_t fnv_i64(uint64_t h, int64_t v) { return fnv_le(h, (uint64_t)v, 8); }
static uint64_t fnv_i32(uint64_t h, int v) { return fnv_le(h, (uint64_t)(uint32_t)(int32_t)v, 4); }
static uint64_t fnv_f64s(uint64_t h, const double *x, int n) {
  for (int k = 0; k < n; ++k) {
    uint64_t bits;
    memcpy(&bits, &x[k], sizeof bits);
    h = fnv_le(h, bits, 8);
  }
  return h;
}

/* Sum (mod 2^64) over the ranks of per-record hashes: the same whatever the distribution. */
static uint64_t sum_over(MPI_Comm comm, uint64_t local) {
  uint64_t total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  return total;
}

/* Bodies counted once over the ranks: those whose rows this rank writes (sg_io_writes_body). */
static long long bodies_written(MPI_Comm comm, const sg_scene *s) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  long long mine = 0, total = 0;
  for (int i = 0; i < s->n; ++i) mine += sg_io_writes_body(rank, s, i);
  MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
  return total;
}

/* A body's description: id, shape, size, material, fixed flag (kinematic as 1 unless `kin2`,
 * the scene_hash's 2), density. */
static uint64_t description_hash(const sg_scene *s, int i, int kin2) {
  uint64_t h = fnv_i64(FNV_OFFSET, s->gid[i]);
  h = fnv_i32(h, s->shape[i]);
  h = fnv_f64s(h, s->size + 3 * i, 3);
  h = fnv_i32(h, s->material[i]);
  h = fnv_le(h, kin2 ? s->fixed[i] : s->fixed[i] != 0, 1);
  return fnv_f64s(h, &s->density[i], 1);
}

static uint64_t region_hash(uint64_t h, const sg_region *r) {
  h = fnv_i32(h, r->kind);
  h = fnv_i32(h, r->zone);
  h = fnv_f64s(h, r->lo, 3);
  h = fnv_f64s(h, r->hi, 3);
  h = fnv_f64s(h, r->point, 3);
  h = fnv_f64s(h, r->normal, 3);
  h = fnv_f64s(h, &r->rate, 1);
  h = fnv_i32(h, r->rate_unit);
  h = fnv_f64s(h, &r->size.lo, 1);
  h = fnv_f64s(h, &r->size.hi, 1);
  h = fnv_f64s(h, &r->density, 1);
  h = fnv_i32(h, r->material);
  h = fnv_f64s(h, r->velocity, 3);
  h = fnv_f64s(h, &r->t_start, 1);
  h = fnv_f64s(h, &r->t_end, 1);
  h = fnv_le(h, r->seed, 8);
  if (r->size.kind == SG_SIZE_UNIFORM) return h; /* as before other distributions existed */
  h = fnv_i32(h, r->size.kind);
  h = fnv_f64s(h, &r->size.median, 1);
  h = fnv_f64s(h, &r->size.sigma, 1);
  h = fnv_i32(h, r->size.n_classes);
  h = fnv_f64s(h, r->size.radius, SG_SIZE_CLASSES);
  return fnv_f64s(h, r->size.fraction, SG_SIZE_CLASSES);
}

/* A tree's model: its body, links (joints, inertias, limits, gains), geoms and loop closures (only
 * when it has some: the hash of a tree without is what it was before closures existed). Trees are the
 * same on every rank (tree.h), so they are hashed in order, not summed over ranks. */
static uint64_t tree_model_hash(uint64_t h, const sg_tree *t) {
  h = fnv_i64(h, t->body);
  h = fnv_i32(h, t->n_links);
  for (int l = 0; l < t->n_links; ++l) {
    const sg_link *k = &t->link[l];
    h = fnv_i32(h, k->parent);
    h = fnv_i32(h, k->type);
    h = fnv_f64s(h, k->pos, 3);
    h = fnv_f64s(h, k->quat, 4);
    h = fnv_f64s(h, k->axis, 3);
    h = fnv_f64s(h, &k->mass, 1);
    h = fnv_f64s(h, k->com, 3);
    h = fnv_f64s(h, k->inertia, 6);
    h = fnv_f64s(h, k->limit, 2);
    h = fnv_f64s(h, k->pd, 3);
  }
  h = fnv_i32(h, t->n_geoms);
  for (int g = 0; g < t->n_geoms; ++g) {
    const sg_link_geom *e = &t->geom[g];
    h = fnv_i32(h, e->link);
    h = fnv_i32(h, e->shape);
    h = fnv_f64s(h, e->size, 3);
    h = fnv_f64s(h, e->pos, 3);
    h = fnv_f64s(h, e->quat, 4);
  }
  if (t->n_closures) h = fnv_i32(h, t->n_closures);
  for (int c = 0; c < t->n_closures; ++c) {
    h = fnv_i32(h, t->closure[c].link[0]);
    h = fnv_i32(h, t->closure[c].link[1]);
    h = fnv_f64s(h, &t->closure[c].point[0][0], 6);
  }
  return h;
}

uint64_t sg_scene_hash(MPI_Comm comm, const sg_scene *s) {
  uint64_t sum = 0;
  int rank;
  MPI_Comm_rank(comm, &rank);
  for (int i = 0; i < s->n; ++i)
    if (sg_io_writes_body(rank, s, i)) sum += description_hash(s, i, 1);
  sum = sum_over(comm, sum);
  uint64_t h = fnv_i64(FNV_OFFSET, (int64_t)bodies_written(comm, s));
  h = fnv_le(h, sum, 8);
  h = fnv_i32(h, s->n_materials);
  h = fnv_f64s(h, s->friction, s->n_materials * s->n_materials);
  int elastic = 0; /* the table only when a pair has one: checkpoints from before it keep their hash */
  for (int k = 0; k < s->n_materials * s->n_materials; ++k) elastic |= s->restitution[k] != 0;
  if (elastic) h = fnv_f64s(h, s->restitution, s->n_materials * s->n_materials);
  if (sg_scene_has_rolling(s)) h = fnv_f64s(h, s->rolling, s->n_materials * s->n_materials); /* likewise */
  double L[3];
  if (sg_scene_period(s, L)) { /* likewise */
    h = fnv_f64s(h, s->period_lo, 3);
    h = fnv_f64s(h, s->period_hi, 3);
  }
  for (int k = 0; k < s->n_motions; ++k) { /* the same on every rank */
    const sg_motion *m = &s->motions[k];
    h = fnv_i64(h, m->body);
    h = fnv_i32(h, m->kind);
    h = fnv_f64s(h, m->velocity, 3);
    h = fnv_f64s(h, m->point, 3);
    h = fnv_f64s(h, &m->t_start, 1);
    h = fnv_f64s(h, &m->t_end, 1);
  }
  for (int k = 0; k < s->n_regions; ++k) h = region_hash(h, &s->regions[k]); /* the same on every rank */
  for (int k = 0; k < s->n_meshes; ++k) { /* the same on every rank */
    const sg_mesh *m = s->meshes[k];
    h = fnv_f64s(h, m->vertices, 3 * m->n_vertices);
    for (int j = 0; j < 3 * m->n_triangles; ++j) h = fnv_i32(h, m->triangles[j]);
  }
  for (int k = 0; k < s->n_trees; ++k) h = tree_model_hash(h, s->trees[k]); /* none: the hash of before */
  return fnv_f64s(h, s->gravity, 3);
}

static uint64_t warm_entry_hash(const sg_warm_entry *e) {
  uint64_t h = fnv_i64(FNV_OFFSET, e->gid_a);
  h = fnv_i64(h, e->gid_b);
  h = fnv_le(h, e->feature, 4);
  return fnv_f64s(h, e->lambda, 3);
}

/* What a restart restores besides the bodies: the same on every rank, except the warm start, of
 * which this rank counts `warm_here` entries (the others are another rank's copy). */
typedef struct {
  int64_t step;
  double time;
  const sg_warm_entry *warm;
  int warm_here;
  const int64_t *hooks;
  int n_hooks;
  const char *names;
  double penalty; /* the solver's warm penalty (0: none) */
} ckpt_state;

static uint64_t hooks_hash(uint64_t h, const ckpt_state *c) {
  h = fnv_i64(h, c->n_hooks);
  for (int k = 0; k < c->n_hooks; ++k) h = fnv_i64(h, c->hooks[k]);
  return fnv_bytes(h, (const unsigned char *)c->names, strlen(c->names));
}

/* next_gid as the file holds it: above every id, at least s->next_gid (collective). */
static int64_t next_gid_of(MPI_Comm comm, const sg_scene *s) {
  long long v = s->next_gid;
  for (int i = 0; i < s->n; ++i)
    if (s->gid[i] + 1 > v) v = s->gid[i] + 1;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_LONG_LONG, MPI_MAX, comm);
  return v;
}

/* Over what a restart restores: step, time, every body's description and state, next_gid, the
 * warm start, the hooks' state. */
static uint64_t state_hash(MPI_Comm comm, const sg_scene *s, const ckpt_state *c) {
  uint64_t bodies = 0, contacts = 0;
  int rank;
  MPI_Comm_rank(comm, &rank);
  for (int i = 0; i < s->n; ++i) {
    if (!sg_io_writes_body(rank, s, i)) continue;
    uint64_t h = description_hash(s, i, 0);
    h = fnv_f64s(h, s->state.pos + 3 * i, 3);
    h = fnv_f64s(h, s->state.quat + 4 * i, 4);
    bodies += fnv_f64s(h, s->state.vel + 6 * i, 6);
  }
  for (int k = 0; k < c->warm_here; ++k) contacts += warm_entry_hash(&c->warm[k]);
  bodies = sum_over(comm, bodies);
  contacts = sum_over(comm, contacts);
  long long nw = c->warm_here, nw_total = 0;
  MPI_Allreduce(&nw, &nw_total, 1, MPI_LONG_LONG, MPI_SUM, comm);
  uint64_t h = fnv_i64(FNV_OFFSET, c->step);
  h = fnv_f64s(h, &c->time, 1);
  h = fnv_i64(h, (int64_t)bodies_written(comm, s));
  h = fnv_le(h, bodies, 8);
  h = fnv_i64(h, next_gid_of(comm, s));
  h = fnv_i64(h, (int64_t)nw_total);
  h = fnv_le(h, contacts, 8);
  if (c->penalty != 0) h = fnv_f64s(h, &c->penalty, 1); /* files without one keep their fingerprint */
  for (int k = 0; k < s->n_trees; ++k) { /* the same on every rank: hashed in order */
    const sg_tree *t = s->trees[k];
    h = tree_model_hash(h, t);
    h = fnv_f64s(h, t->q, t->nq);
    h = fnv_f64s(h, t->v, t->nv);
  }
  return hooks_hash(h, c);
}

/* --- attributes of fixed types ------------------------------------------------------------------ */

static sg_err attr_write(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *value,
                         const char *file) {
  hid_t space = H5Screate(H5S_SCALAR), attr = H5I_INVALID_HID;
  sg_err err = SG_OK;
  if (space < 0 || (attr = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
      H5Awrite(attr, mtype, value) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot write attribute %s", file, name);
  sg_h5_close(&attr);
  sg_h5_close(&space);
  return err;
}

/* A required single-valued attribute of the given class, read as mtype. */
static sg_err attr_read(hid_t loc, const char *name, H5T_class_t cls, hid_t mtype, void *value,
                        const char *file) {
  SG_CHECK(sg_h5_check_object_header(loc, file)); /* H5Aexists decodes every attribute message */
  if (H5Aexists(loc, name) <= 0)
    return sg_error_set(SG_ERR_FORMAT, "%s: missing root attribute %s (not a complete checkpoint)", file, name);
  hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
  hid_t space = attr >= 0 ? H5Aget_space(attr) : H5I_INVALID_HID;
  hid_t type = attr >= 0 ? H5Aget_type(attr) : H5I_INVALID_HID;
  sg_err err = SG_OK;
  if (space < 0 || type < 0 || H5Sget_simple_extent_npoints(space) != 1)
    err = sg_error_set(SG_ERR_FORMAT, "%s: root attribute %s must hold a single value", file, name);
  else if (H5Tget_class(type) != cls)
    err = sg_error_set(SG_ERR_FORMAT, "%s: root attribute %s must be %s", file, name,
                       cls == H5T_FLOAT ? "a floating-point number" : "an integer");
  char what[300];
  snprintf(what, sizeof what, "root attribute %s", name);
  if (!err) err = sg_h5_check_number_type(type, file, what);
  if (!err && H5Aread(attr, mtype, value) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot read root attribute %s", file, name);
  sg_h5_close(&type);
  sg_h5_close(&space);
  sg_h5_close(&attr);
  return err;
}

/* --- writing ------------------------------------------------------------------------------------- */

/* Warm-start entries this rank writes: with a replicated scene every rank holds all of them and
 * rank 0 writes them; with a distributed one each rank is given those it keeps (each entry kept by
 * one rank) and writes them all (rows placed by MPI_Exscan). */
static int warm_rows_here(MPI_Comm comm, const sg_scene *s, int n_warm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  return s->distributed || rank == 0 ? n_warm : 0;
}

static sg_err write_warm(MPI_Comm comm, hid_t file, const char *path, const sg_warm_entry *warm, int mine,
                         hid_t dxpl) {
  long long cnt = mine, off = 0, total = 0;
  MPI_Exscan(&cnt, &off, 1, MPI_LONG_LONG, MPI_SUM, comm);
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) off = 0; /* MPI_Exscan leaves rank 0's result undefined */
  MPI_Allreduce(&cnt, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);

  int64_t *ga = malloc((size_t)(mine ? mine : 1) * sizeof *ga);
  int64_t *gb = malloc((size_t)(mine ? mine : 1) * sizeof *gb);
  uint32_t *feat = malloc((size_t)(mine ? mine : 1) * sizeof *feat);
  double *lam = malloc((size_t)(mine ? mine : 1) * 3 * sizeof *lam);
  int64_t *row = malloc((size_t)(mine ? mine : 1) * sizeof *row);
  sg_err err = SG_OK;
  if (!ga || !gb || !feat || !lam || !row)
    err = sg_error_set(SG_ERR_MEM, "%s: out of memory packing %d warm-start entries", path, mine);
  for (int k = 0; k < mine && !err; ++k) {
    ga[k] = warm[k].gid_a;
    gb[k] = warm[k].gid_b;
    feat[k] = warm[k].feature;
    memcpy(lam + 3 * k, warm[k].lambda, 3 * sizeof(double));
    row[k] = off + k;
  }
  err = sg_error_collective(comm, err);
  hsize_t dims[2] = {(hsize_t)total, 3};
  struct {
    const char *name;
    hid_t ftype, mtype;
    const void *data;
  } cols[3] = {{"warm/gid_a", H5T_STD_I64LE, H5T_NATIVE_INT64, ga},
               {"warm/gid_b", H5T_STD_I64LE, H5T_NATIVE_INT64, gb},
               {"warm/feature", H5T_STD_U32LE, H5T_NATIVE_UINT32, feat}};
  for (int c = 0; c < 3 && !err; ++c) {
    hid_t d;
    err = sg_h5_dataset_create(file, cols[c].name, cols[c].ftype, 1, dims, NULL, NULL, path, &d);
    /* an empty dataset takes no transfer (HDF5 refuses one); total is the same on every rank */
    if (!err && total > 0) err = sg_h5_write_range(comm, d, cols[c].mtype, (hsize_t)off, (hsize_t)mine, mine > 0, cols[c].data, dxpl,
                                      path, cols[c].name);
    sg_h5_close(&d);
  }
  if (!err) {
    hid_t d;
    err = sg_h5_dataset_create(file, "warm/lambda", H5T_IEEE_F64LE, 2, dims, NULL, NULL, path, &d);
    if (!err && total > 0)
      err = sg_error_collective(comm, sg_h5_write_rows(d, H5T_NATIVE_DOUBLE, -1, 3, mine, row, lam, dxpl, path, "warm/lambda"));
    sg_h5_close(&d);
  }
  free(ga);
  free(gb);
  free(feat);
  free(lam);
  free(row);
  return err;
}

/* Push a closed file's data to the disk before it replaces the previous checkpoint (rank 0). */
static sg_err sync_file(const char *tmp, const char *path) {
  int fd = open(tmp, O_RDONLY);
  if (fd < 0 || fsync(fd) != 0) {
    if (fd >= 0) close(fd);
    return sg_error_set(SG_ERR_IO, "cannot write %s: cannot sync %s to disk", path, tmp);
  }
  close(fd);
  return SG_OK;
}

static void sync_dir_of(const char *path) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == path) snprintf(dir, sizeof dir, "/");
  else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  int fd = open(dir, O_RDONLY);
  if (fd >= 0) {
    fsync(fd); /* best effort: the rename is already visible to every process */
    close(fd);
  }
}

/* /hooks/state (int64 words, written by rank 0: the same on every rank) with the hooks' names in
 * its attribute names. */
static sg_err write_hooks(MPI_Comm comm, hid_t file, const char *path, const ckpt_state *c, hid_t dxpl) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  hsize_t dims[1] = {(hsize_t)c->n_hooks};
  hid_t d;
  sg_err err = sg_h5_dataset_create(file, "hooks/state", H5T_STD_I64LE, 1, dims, NULL, NULL, path, &d);
  /* an empty dataset takes no transfer (HDF5 refuses one); n_hooks is the same on every rank */
  if (!err && c->n_hooks > 0)
    err = sg_h5_write_whole(comm, d, H5T_NATIVE_INT64, rank == 0, c->hooks, dxpl, path, "hooks/state");
  if (!err) err = sg_h5_attr_write_str(d, "names", c->names, path);
  sg_h5_close(&d);
  return err;
}

/* The hooks' state must be the same on every rank: it is written once and restored on any P. */
static sg_err check_hooks_agree(MPI_Comm comm, const char *path, const ckpt_state *c) {
  uint64_t h = hooks_hash(FNV_OFFSET, c), lo = h, hi = h;
  MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, comm);
  if (lo != hi) return sg_error_set(SG_ERR_ARG, "cannot write %s: the hooks' state differs between ranks", path);
  return SG_OK;
}

/* The root attributes: what the file is, where the run stood, its options, the fingerprints. */
static sg_err write_header(hid_t file, const char *path, const sg_scene *s, const sg_step_params *prm,
                           uint64_t shash, uint64_t xhash, double penalty) {
  int64_t step = s->state.step;
  sg_err err = sg_h5_attr_write_int(file, "format_version", SG_CKPT_FORMAT_VERSION, path);
  if (!err) err = sg_h5_attr_write_str(file, "kind", SG_KIND_CKPT, path);
  if (!err) err = attr_write(file, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, &step, path);
  if (!err) err = attr_write(file, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &s->state.time, path);
  if (!err) err = attr_write(file, "dt", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &prm->dt, path);
  if (!err) err = attr_write(file, "theta", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &prm->theta, path);
  if (!err) err = attr_write(file, "contact_margin", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &prm->margin, path);
  if (!err) err = attr_write(file, "contact_erp", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &prm->erp, path);
  if (!err) err = attr_write(file, "scene_hash", H5T_STD_U64LE, H5T_NATIVE_UINT64, &shash, path);
  if (!err) err = attr_write(file, "state_hash", H5T_STD_U64LE, H5T_NATIVE_UINT64, &xhash, path);
  if (!err) err = attr_write(file, "solver_penalty", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &penalty, path);
  return err;
}

/* Everything into the open file tmp: header, scene, warm start, hooks. */
static sg_err write_contents(MPI_Comm comm, hid_t file, const char *path, const sg_scene *s, const sg_step_params *prm,
                             uint64_t shash, const ckpt_state *c) {
  uint64_t xhash = state_hash(comm, s, c);
  hid_t dxpl = H5I_INVALID_HID;
  sg_err err = write_header(file, path, s, prm, shash, xhash, c->penalty);
  if (!err && (dxpl = sg_h5_dxpl()) < 0) err = sg_error_set(SG_ERR_LIB, "%s: cannot set up HDF5 transfers", path);
  err = sg_error_collective(comm, err);
  if (!err) err = sg_scene_group_write(comm, file, path, s, dxpl); /* collective errors */
  if (!err) err = sg_error_collective(comm, write_warm(comm, file, path, c->warm, c->warm_here, dxpl));
  if (!err) err = sg_error_collective(comm, write_hooks(comm, file, path, c, dxpl));
  sg_h5_close(&dxpl);
  return err;
}

sg_err sg_checkpoint_write(MPI_Comm comm, const char *path, const sg_scene *s, const sg_step_params *prm,
                           const sg_checkpoint_extras *x) {
  sg_h5_quiet();
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (sg_io_n_global(comm, s) < 1) return sg_error_set(SG_ERR_ARG, "cannot write %s: the scene has no bodies", path);
  ckpt_state c = {s->state.step, s->state.time, x->warm, warm_rows_here(comm, s, x->n_warm), x->hook_state, x->n_hook_state,
                  x->hook_names ? x->hook_names : "", x->solver_penalty};
  SG_CHECK(sg_error_collective(comm, check_hooks_agree(comm, path, &c)));
  char *tmp = sg_fs_tmp_name(comm, path, ".tmp");
  if (!tmp) return sg_error_collective(comm, SG_ERR_MEM);
  hid_t file = H5I_INVALID_HID;
  sg_err err = sg_error_collective(comm, sg_h5_create(comm, tmp, path, &file));
  int created = !err;
  if (!err) err = write_contents(comm, file, path, s, prm, x->scene_hash, &c);
  err = sg_h5_close_written(comm, &file, tmp, path, err, 0);
  if (!err && rank == 0) err = sync_file(tmp, path);
  err = sg_error_collective(comm, err);
  /* The previous checkpoint is replaced only now, in one step, by a complete file. */
  if (!err) err = sg_fs_rename(comm, tmp, path);
  if (!err && rank == 0) sync_dir_of(path);
  if (err && created) sg_fs_remove(comm, tmp);
  free(tmp);
  return err;
}

/* --- reading ------------------------------------------------------------------------------------- */

/* Open for reading, telling a file that is no HDF5 at all from one HDF5 cannot open any more. */
static sg_err open_checkpoint(MPI_Comm comm, const char *path, hid_t access, hid_t *file) {
  *file = H5I_INVALID_HID;
  SG_CHECK(sg_fs_check_readable(comm, path));
  SG_CHECK(sg_error_collective(comm, sg_h5_check_local_heaps(path)));
  sg_h5_quiet();
  hid_t fapl = access == H5P_DEFAULT ? sg_h5_fapl(comm) : access;
  if (fapl < 0) return sg_error_collective(comm, sg_error_set(SG_ERR_LIB, "cannot open %s: HDF5 MPI-IO file access setup failed", path));
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (fapl != access) H5Pclose(fapl);
  sg_err err = SG_OK;
  if (f < 0) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
      htri_t h5 = H5Fis_hdf5(path);
      err = h5 > 0 ? sg_error_set(SG_ERR_FORMAT, "%s: truncated or corrupted checkpoint (HDF5 cannot open it)", path)
                   : sg_error_set(SG_ERR_FORMAT, "%s: not a checkpoint (not an HDF5 file)", path);
    } else {
      err = SG_ERR_FORMAT;
    }
  }
  err = sg_error_collective(comm, err);
  if (!err) *file = f;
  return err;
}

/* /warm: identities read as numbers (exact below 2^53) and checked to be whole and in range: ids
 * up to next_gid - 1 (a contact may name a body that has left since; the stepper drops it). */
static sg_err read_warm(hid_t file, const char *path, long long n_bodies, hid_t dxpl, sg_warm_entry **out, int *n_out) {
  *out = NULL;
  *n_out = 0;
  static const char *names[3] = {"warm/gid_a", "warm/gid_b", "warm/feature"};
  double *col[3] = {NULL, NULL, NULL}, *lam = NULL;
  char shown[64];
  long long w = -1;
  sg_err err = SG_OK;
  for (int c = 0; c < 3 && !err; ++c) {
    long long dims[1] = {w};
    snprintf(shown, sizeof shown, "/%s", names[c]);
    err = sg_h5_read_checked(file, names[c], shown, path, 0, 1, dims, c ? "(W = entries of /warm/gid_a)" : NULL,
                             dxpl, (void **)&col[c]);
    w = dims[0];
  }
  if (!err) {
    long long dims[2] = {w, 3};
    err = sg_h5_read_checked(file, "warm/lambda", "/warm/lambda", path, 0, 2, dims,
                             "(W x 3, W = entries of /warm/gid_a)", dxpl, (void **)&lam);
  }
  if (!err && w > 1000000000LL) err = sg_error_set(SG_ERR_FORMAT, "%s: %lld warm-start entries is too many", path, w);
  sg_warm_entry *e = NULL;
  if (!err && w > 0 && !(e = calloc((size_t)w, sizeof *e)))
    err = sg_error_set(SG_ERR_MEM, "%s: out of memory reading %lld warm-start entries", path, w);
  for (long long k = 0; k < w && !err; ++k) {
    const double a = col[0][k], b = col[1][k], f = col[2][k];
    if (!(a >= 0 && a < (double)n_bodies && a == floor(a)) || !(b >= 0 && b < (double)n_bodies && b == floor(b)))
      err = sg_error_set(SG_ERR_FORMAT, "%s: warm-start entry %lld names body %g, not in [0, %lld) (/warm/gid_a, /warm/gid_b)",
                         path, k, !(a >= 0 && a < (double)n_bodies && a == floor(a)) ? a : b, n_bodies);
    else if (!(f >= 0 && f <= 4294967295.0 && f == floor(f)))
      err = sg_error_set(SG_ERR_FORMAT, "%s: dataset /warm/feature: entry %lld is %g, not a 32-bit feature id", path, k, f);
    for (int r = 0; r < 3 && !err; ++r)
      if (!isfinite(lam[3 * k + r]))
        err = sg_error_set(SG_ERR_FORMAT, "%s: dataset /warm/lambda: entry %lld is not finite", path, k);
    if (err) break;
    e[k].gid_a = (int64_t)a;
    e[k].gid_b = (int64_t)b;
    e[k].feature = (uint32_t)f;
    memcpy(e[k].lambda, lam + 3 * k, 3 * sizeof(double));
  }
  /* Written in order by one rank today; entries written by several ranks need not be. */
  if (!err && w > 1) {
    qsort(e, (size_t)w, sizeof *e, sg_warm_entry_cmp);
    for (long long k = 1; k < w && !err; ++k)
      if (!sg_warm_entry_cmp(&e[k - 1], &e[k]))
        err = sg_error_set(SG_ERR_FORMAT, "%s: /warm holds contact (%lld, %lld, feature %u) twice", path,
                           (long long)e[k].gid_a, (long long)e[k].gid_b, (unsigned)e[k].feature);
  }
  for (int c = 0; c < 3; ++c) free(col[c]);
  free(lam);
  if (err) {
    free(e);
    return err;
  }
  *out = e;
  *n_out = (int)w;
  return SG_OK;
}

static void fmt_scene_name(char *buf, size_t len, const char *scene_path) {
  if (scene_path) snprintf(buf, len, "%s", scene_path);
  else snprintf(buf, len, "the scene given");
}

void sg_checkpoint_info_free(sg_checkpoint_info *info) {
  free(info->warm);
  free(info->hook_state);
  info->warm = NULL;
  info->hook_state = NULL;
  info->n_warm = info->n_hook_state = 0;
}

/* The root attributes: kind, version, where the run stood and its options (*state_hash: the
 * stored fingerprint). */
static sg_err read_header(hid_t file, const char *path, sg_checkpoint_info *info, uint64_t *state) {
  char kind[64];
  long long version = 0, step = 0;
  sg_err err = sg_h5_read_header(file, path, kind, sizeof kind, &version);
  if (!err && strcmp(kind, SG_KIND_CKPT) != 0)
    err = sg_error_set(SG_ERR_FORMAT, "%s: not a checkpoint (kind is '%s', expected '%s')", path, kind, SG_KIND_CKPT);
  if (!err && version != SG_CKPT_FORMAT_VERSION)
    err = sg_error_set(SG_ERR_FORMAT, "%s: checkpoint format_version %lld is not supported (this build reads version %d)",
                       path, version, SG_CKPT_FORMAT_VERSION);
  if (!err) err = attr_read(file, "step", H5T_INTEGER, H5T_NATIVE_LLONG, &step, path);
  if (!err) err = attr_read(file, "time", H5T_FLOAT, H5T_NATIVE_DOUBLE, &info->time, path);
  if (!err) err = attr_read(file, "dt", H5T_FLOAT, H5T_NATIVE_DOUBLE, &info->dt, path);
  if (!err) err = attr_read(file, "theta", H5T_FLOAT, H5T_NATIVE_DOUBLE, &info->theta, path);
  if (!err) err = attr_read(file, "scene_hash", H5T_INTEGER, H5T_NATIVE_UINT64, &info->scene_hash, path);
  if (!err) err = attr_read(file, "state_hash", H5T_INTEGER, H5T_NATIVE_UINT64, state, path);
  /* optional: checkpoints written before the solver's penalty was carried have none */
  info->solver_penalty = 0;
  if (!err && H5Aexists(file, "solver_penalty") > 0)
    err = attr_read(file, "solver_penalty", H5T_FLOAT, H5T_NATIVE_DOUBLE, &info->solver_penalty, path);
  if (!err && !(isfinite(info->solver_penalty) && info->solver_penalty >= 0))
    err = sg_error_set(SG_ERR_FORMAT, "%s: invalid root attribute solver_penalty (%g)", path, info->solver_penalty);
  info->step = step;
  if (!err && (!isfinite(info->dt) || info->dt <= 0 || !isfinite(info->theta) || info->theta < 0 || info->theta >= 1))
    err = sg_error_set(SG_ERR_FORMAT, "%s: invalid run options in the checkpoint (dt %g, theta %g)", path, info->dt,
                       info->theta);
  /* The stepper's clock is step * dt exactly; anything else is not a file we wrote. */
  if (!err && (step < 0 || info->time != (double)step * info->dt))
    err = sg_error_set(SG_ERR_FORMAT, "%s: inconsistent checkpoint: time %.17g is not step %lld x dt %.17g", path,
                       info->time, step, info->dt);
  return err;
}

/* /hooks/state, whole on every rank (int64 words: doubles are stored by their bits, so no
 * conversion through double), and its attribute names. */
static sg_err read_hooks(hid_t file, const char *path, hid_t dxpl, sg_checkpoint_info *info) {
  if (!sg_h5_exists(file, "hooks/state")) return sg_error_set(SG_ERR_FORMAT, "%s: missing dataset /hooks/state", path);
  hid_t d = H5Dopen2(file, "hooks/state", H5P_DEFAULT);
  hid_t space = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID, type = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
  hsize_t n = 0;
  sg_err err = SG_OK;
  if (space < 0 || type < 0 || H5Sget_simple_extent_ndims(space) != 1 || H5Tget_class(type) != H5T_INTEGER)
    err = sg_error_set(SG_ERR_FORMAT, "%s: dataset /hooks/state must be a 1-D array of integers", path);
  if (!err) err = sg_h5_check_number_type(type, path, "dataset /hooks/state");
  if (!err) err = sg_h5_check_storage(d, path, "dataset /hooks/state");
  if (!err) H5Sget_simple_extent_dims(space, &n, NULL);
  if (!err && n > 100000000) err = sg_error_set(SG_ERR_FORMAT, "%s: dataset /hooks/state: %llu words is too many", path, (unsigned long long)n);
  if (!err && !(info->hook_state = calloc((size_t)n + 1, sizeof *info->hook_state)))
    err = sg_error_set(SG_ERR_MEM, "%s: out of memory reading dataset /hooks/state", path);
  if (!err && n > 0 && H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, dxpl, info->hook_state) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot read dataset /hooks/state", path);
  info->n_hook_state = (int)n;
  int found = 0;
  if (!err && (err = sg_h5_attr_read_str(d, "names", info->hook_names, sizeof info->hook_names, &found, path)))
    sg_error_append(" (on dataset /hooks/state)");
  if (!err && !found) err = sg_error_set(SG_ERR_FORMAT, "%s: missing attribute names of dataset /hooks/state", path);
  sg_h5_close(&type);
  sg_h5_close(&space);
  sg_h5_close(&d);
  return err;
}

/* The stored scene (validated like a scene file, in gid order), its next_gid (required here), the
 * warm start and the hooks' state, checked against state_hash. Collective. */
static sg_err read_body(MPI_Comm comm, hid_t file, const char *path, uint64_t stored, sg_scene *ck,
                        sg_checkpoint_info *info) {
  hid_t dxpl = sg_h5_read_dxpl(file);
  long long attr = -1;
  sg_err err = dxpl < 0 ? sg_error_set(SG_ERR_LIB, "%s: cannot set up HDF5 transfers", path) : SG_OK;
  if (!err) err = sg_scene_group_read(file, "", path, dxpl, ck);
  if (!err) err = sg_scene_next_gid_read(file, "", path, &attr);
  if (!err && attr < 0) err = sg_error_set(SG_ERR_FORMAT, "%s: missing attribute next_gid of /bodies", path);
  info->next_gid = ck->next_gid;
  if (!err) err = read_warm(file, path, ck->next_gid, dxpl, &info->warm, &info->n_warm);
  if (!err) err = read_hooks(file, path, dxpl, info);
  sg_h5_close(&dxpl);
  err = sg_error_collective(comm, err);
  if (err) return err;
  ckpt_state c = {info->step, info->time, info->warm, warm_rows_here(comm, ck, info->n_warm), info->hook_state,
                  info->n_hook_state, info->hook_names, info->solver_penalty};
  if (state_hash(comm, ck, &c) != stored)
    err = sg_error_set(SG_ERR_FORMAT, "%s: corrupted checkpoint: the state does not match its state_hash", path);
  return err; /* the same on every rank */
}

/* s's fixed bodies are the checkpoint's (fixed bodies never enter nor leave). */
static sg_err check_fixed(const sg_scene *s, const sg_scene *ck, const char *path, const char *sname) {
  int n_s = 0, n_ck = 0;
  for (int i = 0; i < ck->n; ++i) n_ck += ck->fixed[i] != 0;
  for (int i = 0; i < s->n; ++i) {
    if (!s->fixed[i]) continue;
    n_s++;
    int j = sg_scene_find_gid(ck, ck->n, s->gid[i]);
    if (j < 0 || !ck->fixed[j])
      return sg_error_set(SG_ERR_FORMAT, "%s: fixed body %lld of %s is not a fixed body of the checkpoint", path,
                          (long long)s->gid[i], sname);
  }
  if (n_s != n_ck)
    return sg_error_set(SG_ERR_FORMAT, "%s: %d fixed bodies, %s has %d", path, n_ck, sname, n_s);
  return SG_OK;
}

/* The restored scene: s's globals and fixed bodies (with the checkpoint's state), the checkpoint's
 * moving bodies of this rank's block [M r / P, M (r + 1) / P) in gid order (all of them when s is
 * replicated), in ascending gid. */
static sg_err restore(MPI_Comm comm, const sg_scene *s, const sg_scene *ck, const sg_checkpoint_info *info,
                      sg_scene *t) {
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  long long moving = 0, k = 0;
  for (int i = 0; i < ck->n; ++i) moving += !ck->fixed[i];
  long long lo = s->distributed ? moving * rank / P : 0, hi = s->distributed ? moving * (rank + 1) / P : moving;
  sg_err err = sg_scene_create(t, (int)(hi - lo) + (ck->n - (int)moving) + 8, s->n_materials);
  if (!err) err = sg_scene_copy_globals(t, s);
  for (int j = 0; j < ck->n && !err; ++j) {
    if (!ck->fixed[j]) {
      if (k >= lo && k < hi) err = sg_scene_copy_body(t, ck, j);
      k++;
      continue;
    }
    err = sg_scene_copy_body(t, s, sg_scene_find_gid(s, s->n, ck->gid[j]));
    int i = t->n - 1;
    if (!err) {
      memcpy(t->state.pos + 3 * i, ck->state.pos + 3 * j, 3 * sizeof(double));
      memcpy(t->state.quat + 4 * i, ck->state.quat + 4 * j, 4 * sizeof(double));
      memcpy(t->state.vel + 6 * i, ck->state.vel + 6 * j, 6 * sizeof(double));
    }
  }
  if (err) return err;
  sg_scene_trees_copy_state(t, ck); /* the trees' q and v at the checkpoint (tree.h) */
  t->state.step = info->step;
  t->state.time = info->time;
  t->next_gid = info->next_gid;
  t->distributed = s->distributed;
  t->n_owned = s->distributed ? (int)(hi - lo) : s->n_owned;
  return SG_OK;
}

sg_err sg_checkpoint_read(MPI_Comm comm, const char *path, const char *scene_path, sg_scene *s,
                          sg_checkpoint_info *info) {
  return sg_checkpoint_read_fapl(comm, path, H5P_DEFAULT, scene_path, s, info);
}

sg_err sg_checkpoint_read_fapl(MPI_Comm comm, const char *path, hid_t access, const char *scene_path, sg_scene *s,
                               sg_checkpoint_info *info) {
  memset(info, 0, sizeof *info);
  hid_t file;
  SG_CHECK(open_checkpoint(comm, path, access, &file));
  char sname[4200];
  uint64_t stored_state = 0;
  fmt_scene_name(sname, sizeof sname, scene_path);
  sg_scene ck, t;
  memset(&ck, 0, sizeof ck);
  memset(&t, 0, sizeof t);

  /* Header: what the file is, where the run stood, and the scene file it belongs to (s as read). */
  sg_err err = sg_error_collective(comm, read_header(file, path, info, &stored_state));
  if (!err) {
    uint64_t mine = sg_scene_hash(comm, s);
    if (mine != info->scene_hash)
      err = sg_error_set(SG_ERR_ARG, "%s was written for a different scene (hash %016" PRIx64 " vs %016" PRIx64 " of %s)",
                         path, info->scene_hash, mine, sname);
  }
  err = sg_error_collective(comm, err);
  if (!err) err = read_body(comm, file, path, stored_state, &ck, info);
  sg_h5_close(&file);
  if (!err) err = check_fixed(s, &ck, path, sname);
  if (!err) err = restore(comm, s, &ck, info, &t);
  err = sg_error_collective(comm, err);
  sg_scene_destroy(&ck);
  if (err) {
    sg_scene_destroy(&t);
    sg_checkpoint_info_free(info);
    return err;
  }
  sg_scene_destroy(s);
  *s = t;
  return SG_OK;
}
