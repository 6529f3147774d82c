/* Write an sg_problem as an FCLIB global problem, so that a step of a simulation can be solved again
 * outside the run (signorini fclib, bench/solvers, Siconos) and compared between solvers. The layout
 * is the one our reader takes (../shared/fclib/README.md): M = block-diagonal A, H = J^T, f = b,
 * w = e, mu, matrices in compressed columns. Every entry of each dense block A_j is written, zeros
 * included, so that the connected components of M's sparsity graph are exactly the subsystems and
 * sg_fclib_to_problem gives back the same blocks, bit for bit. Serial (one rank), atomic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "signorini/fclib.h"

static sg_err write_ints(hid_t g, const char *name, const char *file, long long len, const int *x) {
  return sg_h5_write_vector(g, name, H5T_NATIVE_INT, H5T_STD_I32LE, len, x, file);
}

static sg_err write_doubles(hid_t g, const char *name, const char *file, long long len, const double *x) {
  return sg_h5_write_vector(g, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, len, x, file);
}

static sg_err write_int1(hid_t g, const char *name, const char *file, int value) {
  return write_ints(g, name, file, 1, &value);
}

/* A fixed-length string as a scalar dataset (FCLIB's info/title, description, math_info). */
static sg_err write_string(hid_t g, const char *name, const char *file, const char *s) {
  hid_t t = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), lcpl = H5Pcreate(H5P_LINK_CREATE), d = H5I_INVALID_HID;
  sg_err err = SG_OK;
  if (t < 0 || space < 0 || lcpl < 0 || H5Tset_size(t, strlen(s) + 1) < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0 ||
      (d = H5Dcreate2(g, name, t, space, lcpl, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
      H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot write dataset %s", file, name);
  sg_h5_close(&d);
  sg_h5_close(&lcpl);
  sg_h5_close(&space);
  sg_h5_close(&t);
  return err;
}

/* A compressed-column matrix group (nz = -1, nzmax = number of entries). */
static sg_err write_csc(hid_t g, const char *name, const char *file, int m, int n, const int *colptr,
                        const int *rowind, const double *x) {
  char leaf[64];
  int nnz = colptr[n];
#define LEAF(s) (snprintf(leaf, sizeof leaf, "%s/%s", name, s), leaf)
  SG_CHECK(write_int1(g, LEAF("m"), file, m));
  SG_CHECK(write_int1(g, LEAF("n"), file, n));
  SG_CHECK(write_int1(g, LEAF("nz"), file, -1));
  SG_CHECK(write_int1(g, LEAF("nzmax"), file, nnz));
  SG_CHECK(write_ints(g, LEAF("p"), file, (long long)n + 1, colptr));
  SG_CHECK(write_ints(g, LEAF("i"), file, nnz, rowind));
  SG_CHECK(write_doubles(g, LEAF("x"), file, nnz, x));
#undef LEAF
  return SG_OK;
}

/* M = diag(A_j): column c of subsystem j holds rows sub_off[j] .. + dof, M[r][c] = A_j[r][c]. */
static sg_err write_M(hid_t g, const char *file, const sg_problem *p) {
  int n = sg_problem_n_v(p);
  long long nnz = 0;
  for (int j = 0; j < p->n_sub; ++j) nnz += (long long)p->sub_dof[j] * p->sub_dof[j];
  int *cp = sg_calloc((size_t)n + 1, sizeof *cp, "FCLIB M pointers");
  int *ri = sg_calloc((size_t)nnz + 1, sizeof *ri, "FCLIB M rows");
  double *x = sg_calloc((size_t)nnz + 1, sizeof *x, "FCLIB M values");
  sg_err err = (!cp || !ri || !x) ? SG_ERR_MEM : SG_OK;
  for (int j = 0, at = 0; !err && j < p->n_sub; ++j) {
    int d = p->sub_dof[j], o = p->sub_off[j];
    const double *A = p->A + p->sub_aoff[j];
    for (int c = 0; c < d; ++c) {
      for (int r = 0; r < d; ++r) { ri[at] = o + r; x[at] = A[r * d + c]; ++at; }
      cp[o + c + 1] = at;
    }
  }
  if (!err) err = write_csc(g, "M", file, n, n, cp, ri, x);
  free(cp); free(ri); free(x);
  return err;
}

/* H = J^T (n x m): column = constraint row, its entries the pairs' unknowns, pairs in ascending
 * subsystem order (the order the reader rebuilds them in). */
static sg_err write_H(hid_t g, const char *file, const sg_problem *p) {
  int n = sg_problem_n_v(p), m = sg_problem_n_rows(p);
  long long nnz = 0;
  for (int i = 0; i < p->n_con; ++i)
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) nnz += 3LL * p->sub_dof[p->pair_sub[q]];
  int *cp = sg_calloc((size_t)m + 1, sizeof *cp, "FCLIB H pointers");
  int *ri = sg_calloc((size_t)nnz + 1, sizeof *ri, "FCLIB H rows");
  double *x = sg_calloc((size_t)nnz + 1, sizeof *x, "FCLIB H values");
  int *order = sg_calloc((size_t)p->con_pair[p->n_con] + 1, sizeof *order, "FCLIB pair order");
  sg_err err = (!cp || !ri || !x || !order) ? SG_ERR_MEM : SG_OK;
  for (int i = 0, at = 0; !err && i < p->n_con; ++i) {
    int q0 = p->con_pair[i], np = p->con_pair[i + 1] - q0, *ord = order + q0;
    for (int a = 0; a < np; ++a) ord[a] = q0 + a;
    for (int a = 1; a < np; ++a) /* insertion sort by subsystem: a contact touches one or two */
      for (int b = a; b > 0 && p->pair_sub[ord[b - 1]] > p->pair_sub[ord[b]]; --b) {
        int t = ord[b]; ord[b] = ord[b - 1]; ord[b - 1] = t;
      }
    for (int rr = 0; rr < 3; ++rr) {
      int col = p->con_row[i] + rr;
      for (int a = 0; a < np; ++a) {
        int q = ord[a], j = p->pair_sub[q], d = p->sub_dof[j];
        double buf[SG_COMPACT_BLOCK];
        const double *J = sg_problem_pair_block(p, i, q, buf);
        for (int k = 0; k < d; ++k) { ri[at] = p->sub_off[j] + k; x[at] = J[rr * d + k]; ++at; }
      }
      cp[col + 1] = at;
    }
  }
  if (!err) err = write_csc(g, "H", file, n, m, cp, ri, x);
  free(cp); free(ri); free(x); free(order);
  return err;
}

static sg_err write_global(hid_t f, const char *file, const sg_problem *p, const char *title, const char *description) {
  hid_t g = H5Gcreate2(f, "fclib_global", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return sg_error_set(SG_ERR_IO, "%s: cannot create group /fclib_global", file);
  sg_err err = write_int1(g, "spacedim", file, 3);
  if (!err) err = write_M(g, file, p);
  if (!err) err = write_H(g, file, p);
  if (!err) err = write_doubles(g, "vectors/f", file, sg_problem_n_v(p), p->b);
  if (!err) err = write_doubles(g, "vectors/w", file, sg_problem_n_rows(p), p->e);
  if (!err) err = write_doubles(g, "vectors/mu", file, p->n_con, p->mu);
  if (!err) err = write_string(g, "info/title", file, title ? title : "");
  if (!err) err = write_string(g, "info/description", file, description ? description : "");
  if (!err) err = write_string(g, "info/math_info", file, "M v = H r + f, u = H^T v + w, contact rows normal first");
  sg_h5_close(&g);
  return err;
}

sg_err sg_fclib_write_problem(const char *path, const sg_problem *p, const char *title, const char *description) {
  for (int i = 0; i < p->n_con; ++i)
    if (p->kind[i] != SG_CON_CONTACT)
      return sg_error_set(SG_ERR_ARG, "cannot write %s: constraint %d is a %s row, and FCLIB holds contacts only", path, i,
                          sg_con_kind_name(p->kind[i]));
  if (p->n_con == 0)
    return sg_error_set(SG_ERR_ARG, "cannot write %s: the problem has no contact (an FCLIB problem needs at least one)", path);
  size_t len = strlen(path) + 32;
  char *name = malloc(len);
  if (!name) return sg_error_set(SG_ERR_MEM, "out of memory for a temporary name beside %s", path);
  snprintf(name, len, "%s.mem.%ld", path, (long)getpid()); /* HDF5's name for the file in memory */
  hid_t f;
  sg_err err = sg_h5_mem_create(name, path, &f);
  if (!err) err = write_global(f, path, p, title, description);
  err = sg_h5_mem_save(&f, path, err); /* atomic: a temporary name, then the rename */
  free(name);
  return err;
}
