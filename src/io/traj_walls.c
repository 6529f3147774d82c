/* The kinematic walls of a trajectory (a drum, a gate, a lifted tube), drawn at every frame for the
 * .xmf: rank 0, which holds every fixed and kinematic body, draws them (wall_surface.c) when the
 * trajectory opens and at each frame; their triangles go once to /walls/moving_triangles, their
 * vertices at frame f to row f of /frames/wall_position [T][V][3]. Nothing is written when the
 * scene has none. */
#include <string.h>
#include "io/traj_internal.h"

sg_err sg_traj_walls_open(MPI_Comm comm, hid_t file, hid_t dxpl, const char *path, const sg_scene *s, sg_traj_walls *mw) {
  int rank, counts[2] = {0, 0};
  MPI_Comm_rank(comm, &rank);
  memset(mw, 0, sizeof *mw);
  mw->comm = comm;
  mw->rank = rank;
  mw->dxpl = dxpl;
  mw->path = path;
  mw->d_xyz = H5I_INVALID_HID;
  sg_err err = rank == 0 ? sg_walls_surface(s, SG_KINEMATIC, &mw->surface) : SG_OK;
  counts[0] = mw->surface.n_vertices;
  counts[1] = mw->surface.n_triangles;
  SG_CHECK(sg_error_collective(comm, err));
  MPI_Bcast(counts, 2, MPI_INT, 0, comm);
  mw->n_vertices = counts[0];
  if (counts[1] == 0) return SG_OK;
  hid_t d = H5I_INVALID_HID;
  hsize_t tri[2] = {(hsize_t)counts[1], 3};
  err = sg_h5_dataset_create(file, "walls/moving_triangles", H5T_STD_I32LE, 2, tri, NULL, NULL, path, &d);
  if (!err) err = sg_h5_write_whole(comm, d, H5T_NATIVE_INT, rank == 0, mw->surface.tri, dxpl, path, "/walls/moving_triangles");
  sg_h5_close(&d);
  SG_CHECK(sg_error_collective(comm, err));
  hsize_t dims[3] = {0, (hsize_t)counts[0], 3}, maxdims[3] = {H5S_UNLIMITED, (hsize_t)counts[0], 3}, chunk[3] = {1, (hsize_t)counts[0], 3};
  return sg_error_collective(comm, sg_h5_dataset_create(file, "frames/wall_position", H5T_IEEE_F64LE, 3, dims, maxdims, chunk, path,
                                                        &mw->d_xyz));
}

/* Row f of /frames/wall_position from rank 0 (the others select nothing). */
static sg_err write_row(sg_traj_walls *mw, hsize_t f) {
  hid_t fspace = H5Dget_space(mw->d_xyz);
  hsize_t start[3] = {f, 0, 0}, count[3] = {1, (hsize_t)mw->n_vertices, 3}, len = 3 * (hsize_t)mw->n_vertices;
  hid_t mspace = H5Screate_simple(1, &len, NULL);
  sg_err err = fspace < 0 || mspace < 0 ? sg_error_set(SG_ERR_LIB, "%s: cannot query /frames/wall_position", mw->path) : SG_OK;
  if (!err && mw->rank != 0 && (H5Sselect_none(fspace) < 0 || H5Sselect_none(mspace) < 0))
    err = sg_error_set(SG_ERR_LIB, "%s: cannot select rows of /frames/wall_position", mw->path);
  if (!err && mw->rank == 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
    err = sg_error_set(SG_ERR_LIB, "%s: cannot select rows of /frames/wall_position", mw->path);
  err = sg_error_collective(mw->comm, err);
  if (!err && H5Dwrite(mw->d_xyz, H5T_NATIVE_DOUBLE, mspace, fspace, mw->dxpl, mw->surface.xyz) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot write dataset /frames/wall_position", mw->path);
  sg_h5_close(&mspace);
  sg_h5_close(&fspace);
  return sg_error_collective(mw->comm, err);
}

sg_err sg_traj_walls_frame(sg_traj_walls *mw, const sg_scene *s, hsize_t f) {
  if (mw->d_xyz < 0) return SG_OK;
  sg_err err = mw->rank == 0 ? sg_walls_surface(s, SG_KINEMATIC, &mw->surface) : SG_OK;
  if (!err && mw->rank == 0 && mw->surface.n_vertices != mw->n_vertices)
    err = sg_error_set(SG_ERR_ARG, "%s: the kinematic walls changed their vertex count (%d, was %d)", mw->path,
                       mw->surface.n_vertices, mw->n_vertices);
  SG_CHECK(sg_error_collective(mw->comm, err));
  SG_CHECK(sg_error_collective(mw->comm, sg_h5_extend(mw->d_xyz, f + 1, mw->path, "/frames/wall_position")));
  return write_row(mw, f);
}

void sg_traj_walls_close(sg_traj_walls *mw) {
  sg_h5_close(&mw->d_xyz);
  sg_surface_free(&mw->surface);
}
