/* The link geoms of the /trees group (docs/FORMATS.md, "Trees"): optional columns /trees/geom_count
 * (per tree) and /trees/geom_link, geom_shape, geom_size, geom_position, geom_orientation (per geom,
 * tree after tree), read whole on every rank and written by rank 0 beside the trees' other columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "signorini/tree.h"

enum { G_LINK, G_SHAPE, G_SIZE, G_POS, G_QUAT, G_COUNT };
static const sg_tree_field gfields[G_COUNT] = {
    {"trees/geom_link", 0, 1}, {"trees/geom_shape", 0, 1}, {"trees/geom_size", 3, 0},
    {"trees/geom_position", 3, 0}, {"trees/geom_orientation", 4, 0}};

void sg_tree_geom_columns_free(sg_tree_geom_columns *c) {
  free(c->count);
  for (int f = 0; f < G_COUNT; ++f) free(c->col[f]);
  memset(c, 0, sizeof *c);
}

sg_err sg_tree_geoms_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, long long n_trees, sg_tree_geom_columns *c) {
  memset(c, 0, sizeof *c);
  if (!sg_h5_exists(loc, "trees/geom_count")) return SG_OK; /* no geoms */
  return sg_tree_counted_read(loc, prefix, file, dxpl, n_trees, "trees/geom_count", 0, SG_TREE_MAX_GEOMS, "geoms", gfields,
                              G_COUNT, &c->count, c->col, &c->n);
}

sg_err sg_tree_geoms_add(const sg_tree_geom_columns *c, long long tree, long long first, sg_tree *t) {
  if (!c->count) return SG_OK;
  const int *link = c->col[G_LINK], *shape = c->col[G_SHAPE];
  const double *size = c->col[G_SIZE], *pos = c->col[G_POS], *quat = c->col[G_QUAT];
  for (long long r = first; r < first + c->count[tree]; ++r) {
    sg_link_geom g = {.link = link[r], .shape = shape[r]};
    memcpy(g.size, size + 3 * r, sizeof g.size);
    memcpy(g.pos, pos + 3 * r, sizeof g.pos);
    memcpy(g.quat, quat + 4 * r, sizeof g.quat);
    SG_CHECK(sg_tree_add_geom(t, &g));
  }
  return SG_OK;
}

/* Column f of every geom of every tree, as doubles (HDF5 converts to the file's integer types). */
static void geom_column(const sg_scene *s, int f, double *out) {
  long long r = 0;
  for (int k = 0; k < s->n_trees; ++k)
    for (int g = 0; g < s->trees[k]->n_geoms; ++g, ++r) {
      const sg_link_geom *G = &s->trees[k]->geom[g];
      const double *src[G_COUNT] = {NULL, NULL, G->size, G->pos, G->quat};
      if (f == G_LINK) out[r] = G->link;
      else if (f == G_SHAPE) out[r] = G->shape;
      else memcpy(out + r * gfields[f].ncols, src[f], (size_t)gfields[f].ncols * sizeof *out);
    }
}

sg_err sg_tree_geoms_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl) {
  long long G = 0;
  for (int k = 0; k < s->n_trees; ++k) G += s->trees[k]->n_geoms;
  if (G == 0) return SG_OK; /* absent: no geoms */
  int rank;
  MPI_Comm_rank(comm, &rank);
  double *x = sg_calloc((size_t)(4 * G + s->n_trees) + 1, sizeof *x, "link geoms to write");
  sg_err err = sg_error_collective(comm, x ? SG_OK : SG_ERR_MEM);
  if (err) return err;
  for (int k = 0; k < s->n_trees; ++k) x[k] = s->trees[k]->n_geoms;
  err = sg_tree_column_write(comm, loc, file, "trees/geom_count", H5T_STD_I32LE, s->n_trees, 0, x, rank, dxpl);
  for (int f = 0; f < G_COUNT && !err; ++f) {
    geom_column(s, f, x);
    err = sg_tree_column_write(comm, loc, file, gfields[f].name, gfields[f].is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE, G, gfields[f].ncols, x, rank,
                       dxpl);
  }
  free(x);
  return err;
}
