/* The trees of a trajectory (tree.h): at every frame each link's origin, orientation and centre of
 * mass (/frames/link_position [T][L][3], /frames/link_orientation [T][L][4], /frames/link_com
 * [T][L][3], the links of every tree one tree after the other), the trees' coordinates
 * (/frames/tree_q [T][Q]) and, when trees have link geoms, each geom's centre and orientation
 * (/frames/geom_position [T][G][3], /frames/geom_orientation [T][G][4], laid out as /trees/geom_*), written by rank 0, which holds every tree's state (the trees are the same
 * on every rank after a step, src/hooks/tree_sync.c). Nothing is written when the scene has none. */
#include <stdlib.h>
#include <string.h>
#include "io/traj_internal.h"
#include "signorini/la.h"
#include "signorini/tree.h"

static const char *const names[SG_TRAJ_TREE_SETS] = {"frames/link_position", "frames/link_orientation", "frames/link_com",
                                                     "frames/tree_q", "frames/geom_position", "frames/geom_orientation"};

sg_err sg_traj_trees_open(MPI_Comm comm, hid_t file, hid_t dxpl, const char *path, const sg_scene *s, sg_traj_trees *tt) {
  memset(tt, 0, sizeof *tt);
  MPI_Comm_rank(comm, &tt->rank);
  tt->comm = comm;
  tt->dxpl = dxpl;
  tt->path = path;
  for (int k = 0; k < SG_TRAJ_TREE_SETS; ++k) tt->d[k] = H5I_INVALID_HID;
  for (int k = 0; k < s->n_trees; ++k)
    tt->n_links += s->trees[k]->n_links, tt->nq += s->trees[k]->nq, tt->n_geoms += s->trees[k]->n_geoms;
  if (s->n_trees == 0) return SG_OK;
  tt->buf = sg_calloc((size_t)(10 * tt->n_links + tt->nq + 7 * tt->n_geoms), sizeof *tt->buf, "tree frames");
  sg_err err = sg_error_collective(comm, tt->buf ? SG_OK : SG_ERR_MEM);
  const hsize_t G = (hsize_t)tt->n_geoms, cols[SG_TRAJ_TREE_SETS] = {3, 4, 3, 1, 3, 4},
                rows[SG_TRAJ_TREE_SETS] = {tt->n_links, tt->n_links, tt->n_links, tt->nq, G, G};
  for (int k = 0; k < (G ? SG_TRAJ_TREE_SETS : 4) && !err; ++k) {
    hsize_t dims[3] = {0, rows[k], cols[k]}, maxdims[3] = {H5S_UNLIMITED, rows[k], cols[k]}, chunk[3] = {1, rows[k], cols[k]};
    const int rank = k == 3 ? 2 : 3; /* tree_q: one row of numbers per frame */
    err = sg_error_collective(comm, sg_h5_dataset_create(file, names[k], H5T_IEEE_F64LE, rank, dims, maxdims, chunk, path, &tt->d[k]));
  }
  return err;
}

/* Tree t's geoms' centres and orientations (geom to world) at the kinematics k and link orientations lq. */
static void fill_geoms(const sg_tree *t, const sg_tree_kin *k, const double (*lq)[4], double *pos, double *quat) {
  for (int g = 0; g < t->n_geoms; ++g) {
    double R[9];
    sg_tree_geom_world(t, k, g, pos + 3 * g, R);
    quat_mul(quat + 4 * g, lq[t->geom[g].link], t->geom[g].quat);
  }
}

/* This frame's numbers of every link and tree, packed in the order of the datasets. */
static void fill(const sg_traj_trees *tt, const sg_scene *s) {
  double *pos = tt->buf, *quat = pos + 3 * tt->n_links, *com = quat + 4 * tt->n_links, *q = com + 3 * tt->n_links;
  double *gpos = q + tt->nq, *gquat = gpos + 3 * tt->n_geoms;
  long long l0 = 0, q0 = 0, g0 = 0;
  sg_tree_kin k;
  for (int j = 0; j < s->n_trees; ++j) {
    const sg_tree *t = s->trees[j];
    sg_tree_kinematics(t, t->q, &k);
    sg_tree_link_quats(t, t->q, (double (*)[4])(quat + 4 * l0));
    for (int l = 0; l < t->n_links; ++l) {
      memcpy(pos + 3 * (l0 + l), k.x[l], 3 * sizeof(double));
      memcpy(com + 3 * (l0 + l), k.c[l], 3 * sizeof(double));
    }
    memcpy(q + q0, t->q, (size_t)t->nq * sizeof *q);
    fill_geoms(t, &k, (const double (*)[4])(quat + 4 * l0), gpos + 3 * g0, gquat + 4 * g0);
    l0 += t->n_links;
    q0 += t->nq;
    g0 += t->n_geoms;
  }
}

/* Row f of dataset k from rank 0 (the others select nothing). */
static sg_err write_row(sg_traj_trees *tt, int k, hsize_t f, const double *x, hsize_t len) {
  const char *name = names[k];
  SG_CHECK(sg_error_collective(tt->comm, sg_h5_extend(tt->d[k], f + 1, tt->path, name)));
  hid_t fspace = H5Dget_space(tt->d[k]), mspace = H5Screate_simple(1, &len, NULL);
  hsize_t start[3] = {f, 0, 0}, count[3] = {1, 1, 1};
  int rank = fspace >= 0 ? H5Sget_simple_extent_dims(fspace, count, NULL) : -1;
  count[0] = 1;
  sg_err err = fspace < 0 || mspace < 0 || rank < 2 ? sg_error_set(SG_ERR_LIB, "%s: cannot query %s", tt->path, name) : SG_OK;
  if (!err && tt->rank != 0 && (H5Sselect_none(fspace) < 0 || H5Sselect_none(mspace) < 0))
    err = sg_error_set(SG_ERR_LIB, "%s: cannot select rows of %s", tt->path, name);
  if (!err && tt->rank == 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
    err = sg_error_set(SG_ERR_LIB, "%s: cannot select rows of %s", tt->path, name);
  err = sg_error_collective(tt->comm, err);
  if (!err && H5Dwrite(tt->d[k], H5T_NATIVE_DOUBLE, mspace, fspace, tt->dxpl, x) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot write dataset %s", tt->path, name);
  sg_h5_close(&mspace);
  sg_h5_close(&fspace);
  return sg_error_collective(tt->comm, err);
}

sg_err sg_traj_trees_frame(sg_traj_trees *tt, const sg_scene *s, hsize_t f) {
  if (tt->d[0] < 0) return SG_OK;
  if (tt->rank == 0) fill(tt, s);
  const hsize_t L = (hsize_t)tt->n_links, G = (hsize_t)tt->n_geoms,
                len[SG_TRAJ_TREE_SETS] = {3 * L, 4 * L, 3 * L, (hsize_t)tt->nq, 3 * G, 4 * G};
  const double *at = tt->buf;
  sg_err err = SG_OK;
  for (int k = 0; k < SG_TRAJ_TREE_SETS && !err; at += len[k], ++k)
    if (tt->d[k] >= 0) err = write_row(tt, k, f, at, len[k]);
  return err;
}

void sg_traj_trees_close(sg_traj_trees *tt) {
  for (int k = 0; k < SG_TRAJ_TREE_SETS; ++k) sg_h5_close(&tt->d[k]);
  free(tt->buf);
  tt->buf = NULL;
}
