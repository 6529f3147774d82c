/* The /meshes group of a scene file (docs/FORMATS.md): the triangle meshes that SG_SHAPE_MESH
 * bodies name by index, stored once however many bodies use them. Read whole on every rank (the
 * model is the same everywhere), written by rank 0:
 *   /meshes/vertex_count [M] int64, /meshes/triangle_count [M] int64,
 *   /meshes/vertices [sum V][3] float64 (body frame, m), /meshes/triangles [sum T][3] int32
 *   (vertex indices within their mesh), the meshes one after the other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"

/* Counts of the M meshes; their sums checked against the extents before the big reads. */
static sg_err read_counts(hid_t loc, const char *prefix, const char *file, hid_t dxpl, long long *m, int **nv, int **nt,
                          long long *sum_v, long long *sum_t) {
  char shown[256];
  long long dims = -1;
  snprintf(shown, sizeof shown, "%s/meshes/vertex_count", prefix);
  SG_CHECK(sg_h5_read_checked(loc, "meshes/vertex_count", shown, file, 1, 1, &dims, NULL, dxpl, (void **)nv));
  *m = dims;
  snprintf(shown, sizeof shown, "%s/meshes/triangle_count", prefix);
  SG_CHECK(sg_h5_read_checked(loc, "meshes/triangle_count", shown, file, 1, 1, &dims, "(M meshes from meshes/vertex_count)", dxpl,
                              (void **)nt));
  *sum_v = *sum_t = 0;
  for (long long k = 0; k < *m; ++k) {
    if ((*nv)[k] < 3 || (*nt)[k] < 1)
      return sg_error_set(SG_ERR_FORMAT, "%s: %s/meshes: mesh %lld has %d vertices and %d triangles (at least 3 and 1)", file, prefix,
                          k, (*nv)[k], (*nt)[k]);
    *sum_v += (*nv)[k];
    *sum_t += (*nt)[k];
  }
  if (*sum_v > 1000000000LL || *sum_t > 1000000000LL)
    return sg_error_set(SG_ERR_FORMAT, "%s: %s/meshes: %lld vertices, %lld triangles is too many", file, prefix, *sum_v, *sum_t);
  return SG_OK;
}

static sg_err build_meshes(const char *file, long long m, const int *nv, const int *nt, const double *v, const int *t, sg_scene *s) {
  long long v0 = 0, t0 = 0;
  sg_err err = SG_OK;
  for (long long k = 0; k < m && !err; ++k) {
    char name[64];
    snprintf(name, sizeof name, "%lld of %.40s", k, file);
    sg_mesh *mesh = NULL;
    err = sg_mesh_build(name, nv[k], v + 3 * v0, nt[k], t + 3 * t0, &mesh);
    if (!err) err = sg_scene_add_mesh(s, mesh, NULL);
    sg_mesh_release(&mesh);
    v0 += nv[k];
    t0 += nt[k];
  }
  return err;
}

sg_err sg_meshes_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, sg_scene *s) {
  if (!sg_h5_exists(loc, "meshes")) return SG_OK; /* optional */
  int *nv = NULL, *nt = NULL, *t = NULL;
  double *v = NULL;
  long long m = 0, sum_v = 0, sum_t = 0;
  char shown[256], why[128];
  sg_err err = read_counts(loc, prefix, file, dxpl, &m, &nv, &nt, &sum_v, &sum_t);
  long long vdims[2] = {sum_v, 3}, tdims[2] = {sum_t, 3};
  snprintf(shown, sizeof shown, "%s/meshes/vertices", prefix);
  snprintf(why, sizeof why, "(the sum of meshes/vertex_count)");
  if (!err) err = sg_h5_read_checked(loc, "meshes/vertices", shown, file, 0, 2, vdims, why, dxpl, (void **)&v);
  snprintf(shown, sizeof shown, "%s/meshes/triangles", prefix);
  snprintf(why, sizeof why, "(the sum of meshes/triangle_count)");
  if (!err) err = sg_h5_read_checked(loc, "meshes/triangles", shown, file, 1, 2, tdims, why, dxpl, (void **)&t);
  if (!err) err = build_meshes(file, m, nv, nt, v, t, s);
  free(nv);
  free(nt);
  free(v);
  free(t);
  return err;
}

static sg_err write_one(MPI_Comm comm, hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank2, hsize_t rows, const void *data, int write,
                        hid_t dxpl, const char *file) {
  hsize_t dims[2] = {rows, 3};
  hid_t d;
  sg_err err = sg_h5_dataset_create(loc, name, ftype, rank2 ? 2 : 1, dims, NULL, NULL, file, &d);
  if (!err) err = sg_h5_write_whole(comm, d, mtype, write, data, dxpl, file, name);
  sg_h5_close(&d);
  return err;
}

sg_err sg_meshes_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl) {
  if (s->n_meshes == 0) return SG_OK;
  int rank;
  MPI_Comm_rank(comm, &rank);
  const int m = s->n_meshes;
  long long sv = 0, st = 0;
  for (int k = 0; k < m; ++k) {
    sv += s->meshes[k]->n_vertices;
    st += s->meshes[k]->n_triangles;
  }
  int64_t *counts = malloc(2 * (size_t)m * sizeof *counts);
  double *v = malloc((size_t)sv * 3 * sizeof *v);
  int *t = malloc((size_t)st * 3 * sizeof *t);
  sg_err err = sg_error_collective(comm, counts && v && t ? SG_OK : sg_error_set(SG_ERR_MEM, "out of memory writing meshes"));
  for (int k = 0, v0 = 0, t0 = 0; k < m && !err; ++k) {
    const sg_mesh *mesh = s->meshes[k];
    counts[k] = mesh->n_vertices;
    counts[m + k] = mesh->n_triangles;
    memcpy(v + 3 * (size_t)v0, mesh->vertices, 3 * (size_t)mesh->n_vertices * sizeof *v);
    memcpy(t + 3 * (size_t)t0, mesh->triangles, 3 * (size_t)mesh->n_triangles * sizeof *t);
    v0 += mesh->n_vertices;
    t0 += mesh->n_triangles;
  }
  if (!err) err = write_one(comm, loc, "meshes/vertex_count", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, (hsize_t)m, counts, rank == 0, dxpl, file);
  err = sg_error_collective(comm, err);
  if (!err) err = write_one(comm, loc, "meshes/triangle_count", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, (hsize_t)m, counts + m, rank == 0, dxpl, file);
  err = sg_error_collective(comm, err);
  if (!err) err = write_one(comm, loc, "meshes/vertices", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, (hsize_t)sv, v, rank == 0, dxpl, file);
  err = sg_error_collective(comm, err);
  if (!err) err = write_one(comm, loc, "meshes/triangles", H5T_STD_I32LE, H5T_NATIVE_INT, 1, (hsize_t)st, t, rank == 0, dxpl, file);
  err = sg_error_collective(comm, err);
  free(counts);
  free(v);
  free(t);
  return err;
}
