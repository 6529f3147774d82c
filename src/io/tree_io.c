/* The /trees group of a scene file (docs/FORMATS.md, "Trees"): kinematic trees (tree.h), one row
 * per tree and one per link, their coordinates and velocities concatenated; read whole on every rank
 * (the trees are the same everywhere) and written by rank 0. Each tree names the row of /bodies
 * that is its body. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "signorini/tree.h"

/* Per-link columns. */
enum { T_PARENT, T_JOINT, T_POS, T_QUAT, T_AXIS, T_MASS, T_COM, T_INERTIA, T_COUNT };
static const sg_tree_field fields[T_COUNT] = {
    {"trees/parent", 0, 1}, {"trees/joint", 0, 1},     {"trees/joint_position", 3, 0}, {"trees/joint_orientation", 4, 0},
    {"trees/axis", 3, 0},   {"trees/mass", 0, 0},      {"trees/com", 3, 0},            {"trees/inertia", 6, 0}};

typedef struct {
  double *body, *q, *v, *limit, *pd;
  int *count;
  void *col[T_COUNT];
  long long n_trees, n_links;
} tree_columns;

static void columns_free(tree_columns *c) {
  free(c->body);
  free(c->q);
  free(c->v);
  free(c->limit);
  free(c->pd);
  free(c->count);
  for (int f = 0; f < T_COUNT; ++f) free(c->col[f]);
}

sg_err sg_tree_counted_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, long long n_trees,
                            const char *count_name, int lo, int hi, const char *item, const sg_tree_field *field,
                            int n_fields, int **count, void **cols, long long *total) {
  char shown[256], why[320];
  long long dims[2] = {n_trees, 0};
  snprintf(shown, sizeof shown, "%s/%s", prefix, count_name);
  snprintf(why, sizeof why, "(T = %lld trees from %s/trees/body)", n_trees, prefix);
  SG_CHECK(sg_h5_read_checked(loc, count_name, shown, file, 1, 1, dims, why, dxpl, (void **)count));
  *total = 0;
  for (long long k = 0; k < n_trees; ++k) {
    if ((*count)[k] < lo || (*count)[k] > hi)
      return sg_error_set(SG_ERR_FORMAT, "%s: dataset %s row %lld: %d %s, expected %d to %d", file, shown, k, (*count)[k],
                          item, lo, hi);
    *total += (*count)[k];
  }
  snprintf(why, sizeof why, "(%lld %s, the sum of %s)", *total, item, shown);
  for (int f = 0; f < n_fields; ++f) {
    long long d[2] = {*total, field[f].ncols};
    snprintf(shown, sizeof shown, "%s/%s", prefix, field[f].name);
    SG_CHECK(sg_h5_read_checked(loc, field[f].name, shown, file, field[f].is_int, field[f].ncols ? 2 : 1, d, why, dxpl,
                                &cols[f]));
  }
  return SG_OK;
}

/* /trees/body and /trees/link_count (T rows), then the per-link columns (L = sum of the counts). */
static sg_err read_columns(hid_t loc, const char *prefix, const char *file, hid_t dxpl, tree_columns *c) {
  char shown[256], why[320];
  long long dims[2] = {-1, 0};
  snprintf(shown, sizeof shown, "%s/trees/body", prefix);
  SG_CHECK(sg_h5_read_checked(loc, "trees/body", shown, file, 0, 1, dims, NULL, dxpl, (void **)&c->body));
  c->n_trees = dims[0];
  SG_CHECK(sg_tree_counted_read(loc, prefix, file, dxpl, c->n_trees, "trees/link_count", 1, SG_TREE_MAX_LINKS, "links",
                                fields, T_COUNT, &c->count, c->col, &c->n_links));
  snprintf(why, sizeof why, "(%lld links, the sum of %s/trees/link_count)", c->n_links, prefix);
  const char *optional[2] = {"trees/limit", "trees/pd"};
  double **out[2] = {&c->limit, &c->pd};
  for (int f = 0; f < 2; ++f) { /* joint limits, PD gains: absent, none */
    long long d[2] = {c->n_links, f == 0 ? 2 : 3};
    snprintf(shown, sizeof shown, "%s/%s", prefix, optional[f]);
    if (sg_h5_exists(loc, optional[f]))
      SG_CHECK(sg_h5_read_checked(loc, optional[f], shown, file, 0, 2, d, why, dxpl, (void **)out[f]));
  }
  return SG_OK;
}

/* Link l of the file (row r) into t->link[l]. */
static void fill_link(sg_link *L, const tree_columns *c, long long r) {
  const double *pos = c->col[T_POS], *quat = c->col[T_QUAT], *axis = c->col[T_AXIS], *mass = c->col[T_MASS];
  const double *com = c->col[T_COM], *inertia = c->col[T_INERTIA];
  L->parent = ((const int *)c->col[T_PARENT])[r];
  L->type = ((const int *)c->col[T_JOINT])[r];
  memcpy(L->pos, pos + 3 * r, sizeof L->pos);
  memcpy(L->quat, quat + 4 * r, sizeof L->quat);
  memcpy(L->axis, axis + 3 * r, sizeof L->axis);
  L->mass = mass[r];
  memcpy(L->com, com + 3 * r, sizeof L->com);
  memcpy(L->inertia, inertia + 6 * r, sizeof L->inertia);
  if (c->limit) memcpy(L->limit, c->limit + 2 * r, sizeof L->limit);
  if (c->pd) memcpy(L->pd, c->pd + 3 * r, sizeof L->pd);
}

/* The optional state (/trees/q, /trees/v: each tree's values one tree after the other), checked:
 * finite, the quaternions of spherical and free joints of unit length. */
static sg_err read_state(hid_t loc, const char *prefix, const char *file, hid_t dxpl, sg_scene *s, tree_columns *c) {
  long long nq = 0, nv = 0;
  for (int k = 0; k < s->n_trees; ++k) nq += s->trees[k]->nq, nv += s->trees[k]->nv;
  const char *names[2] = {"trees/q", "trees/v"};
  double **out[2] = {&c->q, &c->v};
  long long len[2] = {nq, nv};
  char shown[256];
  for (int f = 0; f < 2; ++f) {
    if (!sg_h5_exists(loc, names[f])) continue;
    snprintf(shown, sizeof shown, "%s/%s", prefix, names[f]);
    long long d[1] = {len[f]};
    SG_CHECK(sg_h5_read_checked(loc, names[f], shown, file, 0, 1, d, "(the trees' coordinates or velocities, summed)", dxpl,
                                (void **)out[f]));
  }
  for (int k = 0, oq = 0, ov = 0; k < s->n_trees; oq += s->trees[k]->nq, ov += s->trees[k]->nv, ++k) {
    sg_tree *t = s->trees[k];
    if (c->q) memcpy(t->q, c->q + oq, (size_t)t->nq * sizeof *t->q);
    if (c->v) memcpy(t->v, c->v + ov, (size_t)t->nv * sizeof *t->v);
    for (int j = 0; j < t->nq + t->nv; ++j)
      if (!isfinite(j < t->nq ? t->q[j] : t->v[j - t->nq]))
        return sg_error_set(SG_ERR_FORMAT, "%s: %s/trees/%s: tree of body %lld has a value that is not finite", file, prefix,
                            j < t->nq ? "q" : "v", (long long)t->body);
    for (int l = 0; l < t->n_links; ++l) {
      const sg_link *L = &t->link[l];
      if (L->type != SG_JOINT_SPHERICAL && L->type != SG_JOINT_FREE) continue;
      const double *qq = t->q + L->q_off + (L->type == SG_JOINT_FREE ? 3 : 0);
      if (fabs(sqrt(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]) - 1) > 1e-6)
        return sg_error_set(SG_ERR_FORMAT, "%s: %s/trees/q: tree of body %lld, link %d: the %s joint's quaternion is not of unit length",
                            file, prefix, (long long)t->body, l, sg_joint_name(L->type));
    }
  }
  return SG_OK;
}

/* Every tree names a moving body of the scene; on a replicated scene every body is here. */
static sg_err check_bodies(sg_scene *s, const char *file) {
  for (int k = 0; k < s->n_trees && !s->distributed; ++k)
    if (sg_scene_find_gid(s, s->n, s->trees[k]->body) < 0)
      return sg_error_set(SG_ERR_FORMAT, "%s: /trees/body: a tree names body %lld, which is not a body of the file", file,
                          (long long)s->trees[k]->body);
  return sg_scene_attach_trees(s, file);
}

sg_err sg_trees_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, sg_scene *s) {
  if (!sg_h5_exists(loc, "trees")) return SG_OK; /* optional */
  tree_columns c;
  memset(&c, 0, sizeof c);
  sg_tree_geom_columns gc;
  sg_tree_closure_columns cc;
  memset(&gc, 0, sizeof gc);
  memset(&cc, 0, sizeof cc);
  sg_err err = read_columns(loc, prefix, file, dxpl, &c);
  if (!err) err = sg_tree_geoms_read(loc, prefix, file, dxpl, c.n_trees, &gc);
  if (!err) err = sg_tree_closures_read(loc, prefix, file, dxpl, c.n_trees, &cc);
  long long row = 0, geom_row = 0, closure_row = 0;
  for (long long k = 0; k < c.n_trees && !err; ++k) {
    sg_tree *t = NULL;
    double g = c.body[k];
    if (!(g >= 0 && g < 9007199254740992.0 && g == floor(g)))
      err = sg_error_set(SG_ERR_FORMAT, "%s: %s/trees/body row %lld holds %.17g, not an id", file, prefix, k, g);
    if (!err) err = sg_tree_create(c.count[k], (int64_t)g, &t);
    for (int l = 0; l < c.count[k] && !err; ++l) fill_link(&t->link[l], &c, row + l);
    if (!err) err = sg_tree_geoms_add(&gc, k, geom_row, t);
    if (!err) err = sg_tree_closures_add(&cc, k, closure_row, t);
    if (!err) err = sg_tree_finish(t, file);
    if (!err && (err = sg_scene_add_tree(s, t))) sg_error_append(" (%s)", file);
    sg_tree_release(&t);
    row += c.count[k];
    geom_row += gc.count ? gc.count[k] : 0;
    closure_row += cc.count ? cc.count[k] : 0;
  }
  if (!err) err = read_state(loc, prefix, file, dxpl, s, &c);
  if (!err) err = check_bodies(s, file);
  columns_free(&c);
  sg_tree_geom_columns_free(&gc);
  sg_tree_closure_columns_free(&cc);
  return err;
}

sg_err sg_trees_check_held(MPI_Comm comm, const sg_scene *s, const char *file) {
  if (s->n_trees == 0) return SG_OK;
  int *held = sg_calloc((size_t)s->n_trees, sizeof *held, "trees held");
  sg_err err = sg_error_collective(comm, held ? SG_OK : SG_ERR_MEM);
  if (err) return err;
  for (int k = 0; k < s->n_trees; ++k) held[k] = sg_scene_find_gid(s, s->n, s->trees[k]->body) >= 0;
  MPI_Allreduce(MPI_IN_PLACE, held, s->n_trees, MPI_INT, MPI_MAX, comm);
  for (int k = 0; k < s->n_trees && !err; ++k)
    if (!held[k])
      err = sg_error_set(SG_ERR_FORMAT, "%s: /trees/body: a tree names body %lld, which is not a body of the file", file,
                         (long long)s->trees[k]->body);
  free(held);
  return err;
}

/* ---- writing ---- */

/* Column f of every link of every tree, as doubles (HDF5 converts to the file's integer types). */
static void link_column(const sg_scene *s, int f, double *out) {
  long long r = 0;
  for (int k = 0; k < s->n_trees; ++k)
    for (int l = 0; l < s->trees[k]->n_links; ++l, ++r) {
      const sg_link *L = &s->trees[k]->link[l];
      const double *src[T_COUNT] = {NULL, NULL, L->pos, L->quat, L->axis, &L->mass, L->com, L->inertia};
      if (f == T_PARENT) out[r] = L->parent;
      else if (f == T_JOINT) out[r] = L->type;
      else memcpy(out + r * (fields[f].ncols ? fields[f].ncols : 1), src[f], (size_t)(fields[f].ncols ? fields[f].ncols : 1) * sizeof *out);
    }
}

sg_err sg_tree_column_write(MPI_Comm comm, hid_t loc, const char *file, const char *name, hid_t ftype, long long rows, int ncols,
                            const double *x, int rank, hid_t dxpl) {
  hsize_t dims[2] = {(hsize_t)rows, (hsize_t)ncols};
  hid_t d = H5I_INVALID_HID;
  sg_err err = sg_h5_dataset_create(loc, name, ftype, ncols ? 2 : 1, dims, NULL, NULL, file, &d);
  if (!err) err = sg_h5_write_whole(comm, d, H5T_NATIVE_DOUBLE, rank == 0, x, dxpl, file, name);
  sg_h5_close(&d);
  return err;
}

/* /trees/limit and /trees/pd when some joint has limits or gains (x: room for 3 L numbers). */
static sg_err write_control(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, long long L, double *x, int rank,
                            hid_t dxpl) {
  int limited = 0, controlled = 0;
  for (int k = 0; k < s->n_trees; ++k)
    for (int l = 0; l < s->trees[k]->n_links; ++l) {
      const sg_link *lk = &s->trees[k]->link[l];
      limited |= lk->limit[0] > -INFINITY || lk->limit[1] < INFINITY;
      controlled |= lk->pd[0] != 0 || lk->pd[1] != 0;
    }
  sg_err err = SG_OK;
  for (int f = 0; f < 2 && !err; ++f) {
    if (!(f == 0 ? limited : controlled)) continue;
    const int w = f == 0 ? 2 : 3;
    long long r = 0;
    for (int k = 0; k < s->n_trees; ++k)
      for (int l = 0; l < s->trees[k]->n_links; ++l, ++r)
        memcpy(x + w * r, f == 0 ? s->trees[k]->link[l].limit : s->trees[k]->link[l].pd, (size_t)w * sizeof *x);
    err = sg_tree_column_write(comm, loc, file, f == 0 ? "trees/limit" : "trees/pd", H5T_IEEE_F64LE, L, w, x, rank, dxpl);
  }
  return err;
}

sg_err sg_trees_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl) {
  if (s->n_trees == 0) return SG_OK;
  int rank;
  MPI_Comm_rank(comm, &rank);
  long long L = 0, Q = 0, V = 0;
  for (int k = 0; k < s->n_trees; ++k) L += s->trees[k]->n_links, Q += s->trees[k]->nq, V += s->trees[k]->nv;
  double *x = sg_calloc((size_t)(6 * L + Q + V + s->n_trees) + 1, sizeof *x, "trees to write");
  sg_err err = sg_error_collective(comm, x ? SG_OK : SG_ERR_MEM);
  if (err) return err;
  for (int k = 0; k < s->n_trees; ++k) x[k] = (double)s->trees[k]->body;
  err = sg_tree_column_write(comm, loc, file, "trees/body", H5T_STD_I64LE, s->n_trees, 0, x, rank, dxpl);
  for (int k = 0; k < s->n_trees; ++k) x[k] = s->trees[k]->n_links;
  if (!err) err = sg_tree_column_write(comm, loc, file, "trees/link_count", H5T_STD_I32LE, s->n_trees, 0, x, rank, dxpl);
  for (int f = 0; f < T_COUNT && !err; ++f) {
    link_column(s, f, x);
    err = sg_tree_column_write(comm, loc, file, fields[f].name, fields[f].is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE, L, fields[f].ncols, x,
                       rank, dxpl);
  }
  long long oq = 0, ov = 0;
  for (int k = 0; k < s->n_trees; ++k) {
    memcpy(x + oq, s->trees[k]->q, (size_t)s->trees[k]->nq * sizeof *x);
    memcpy(x + Q + ov, s->trees[k]->v, (size_t)s->trees[k]->nv * sizeof *x);
    oq += s->trees[k]->nq, ov += s->trees[k]->nv;
  }
  if (!err) err = sg_tree_column_write(comm, loc, file, "trees/q", H5T_IEEE_F64LE, Q, 0, x, rank, dxpl);
  if (!err) err = sg_tree_column_write(comm, loc, file, "trees/v", H5T_IEEE_F64LE, V, 0, x + Q, rank, dxpl);
  if (!err) err = write_control(comm, loc, file, s, L, x, rank, dxpl);
  free(x);
  if (!err) err = sg_tree_geoms_write(comm, loc, file, s, dxpl);
  if (!err) err = sg_tree_closures_write(comm, loc, file, s, dxpl);
  return err;
}
