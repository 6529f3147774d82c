/* The loop closures of the /trees group (docs/FORMATS.md, "Trees"): optional columns
 * /trees/closure_count (per tree) and /trees/closure_link (2 links, -1 the world) and closure_point
 * (the two points, 6 numbers) per closure, tree after tree; read whole on every rank and written by
 * rank 0 beside the trees' other columns. */
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "signorini/tree.h"

enum { C_LINK, C_POINT, C_COUNT };
static const sg_tree_field cfields[C_COUNT] = {{"trees/closure_link", 2, 1}, {"trees/closure_point", 6, 0}};

void sg_tree_closure_columns_free(sg_tree_closure_columns *c) {
  free(c->count);
  for (int f = 0; f < C_COUNT; ++f) free(c->col[f]);
  memset(c, 0, sizeof *c);
}

sg_err sg_tree_closures_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, long long n_trees,
                             sg_tree_closure_columns *c) {
  memset(c, 0, sizeof *c);
  if (!sg_h5_exists(loc, "trees/closure_count")) return SG_OK; /* no closures */
  return sg_tree_counted_read(loc, prefix, file, dxpl, n_trees, "trees/closure_count", 0, SG_TREE_MAX_CLOSURES, "loop closures",
                              cfields, C_COUNT, &c->count, c->col, &c->n);
}

sg_err sg_tree_closures_add(const sg_tree_closure_columns *c, long long tree, long long first, sg_tree *t) {
  if (!c->count) return SG_OK;
  const int *link = c->col[C_LINK];
  const double *point = c->col[C_POINT];
  for (long long r = first; r < first + c->count[tree]; ++r) {
    sg_closure cl = {.link = {link[2 * r], link[2 * r + 1]}};
    memcpy(cl.point, point + 6 * r, sizeof cl.point);
    SG_CHECK(sg_tree_add_closure(t, &cl));
  }
  return SG_OK;
}

sg_err sg_tree_closures_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl) {
  long long n = 0;
  for (int k = 0; k < s->n_trees; ++k) n += s->trees[k]->n_closures;
  if (n == 0) return SG_OK; /* absent: no closures */
  int rank;
  MPI_Comm_rank(comm, &rank);
  double *x = sg_calloc((size_t)(6 * n + s->n_trees) + 1, sizeof *x, "loop closures to write");
  sg_err err = sg_error_collective(comm, x ? SG_OK : SG_ERR_MEM);
  if (err) return err;
  for (int k = 0; k < s->n_trees; ++k) x[k] = s->trees[k]->n_closures;
  err = sg_tree_column_write(comm, loc, file, "trees/closure_count", H5T_STD_I32LE, s->n_trees, 0, x, rank, dxpl);
  for (int f = 0; f < C_COUNT && !err; ++f) {
    long long r = 0;
    for (int k = 0; k < s->n_trees; ++k)
      for (int c = 0; c < s->trees[k]->n_closures; ++c, ++r) {
        const sg_closure *C = &s->trees[k]->closure[c];
        if (f == C_LINK) x[2 * r] = C->link[0], x[2 * r + 1] = C->link[1];
        else memcpy(x + 6 * r, C->point, sizeof C->point);
      }
    err = sg_tree_column_write(comm, loc, file, cfields[f].name, f == C_LINK ? H5T_STD_I32LE : H5T_IEEE_F64LE, n, cfields[f].ncols,
                               x, rank, dxpl);
  }
  free(x);
  return err;
}
