/* FCLIB problems: reader (three sparse formats), conversion into sg_problem, Siconos residuals and
 * the /solution writer. See include/signorini/fclib.h and ../shared/fclib/README.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "io/read_fapl.h"
#include "signorini/cone.h"
#include "signorini/fclib.h"

/* --- reading ------------------------------------------------------------------------------------- */

static void matrix_free(sg_fclib_matrix *A) {
  free(A->row); free(A->col); free(A->x);
  memset(A, 0, sizeof *A);
}

void sg_fclib_free(sg_fclib_problem *fp) {
  matrix_free(&fp->M); matrix_free(&fp->H); matrix_free(&fp->W);
  free(fp->f); free(fp->w); free(fp->q); free(fp->mu);
  memset(fp, 0, sizeof *fp);
}

/* One integer stored as a one-element or a scalar dataset (FCLIB writers use both). */
static sg_err read_int1(hid_t g, const char *name, const char *shown, const char *file, long long *out) {
  if (!sg_h5_exists(g, name)) return sg_error_set(SG_ERR_FORMAT, "%s: missing dataset %s", file, shown);
  hid_t d = H5Dopen2(g, name, H5P_DEFAULT), space = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID, type = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
  sg_err err = d >= 0 && space >= 0 && type >= 0 ? SG_OK : sg_error_set(SG_ERR_FORMAT, "%s: cannot open dataset %s", file, shown);
  hssize_t points = err ? 0 : H5Sget_simple_extent_npoints(space);
  int rank = err ? 0 : H5Sget_simple_extent_ndims(space);
  if (!err && (rank > 1 || points != 1))
    err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s must hold one integer, it has %lld values", file, shown, (long long)points);
  if (!err && H5Tget_class(type) != H5T_INTEGER)
    err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s must hold an integer, not a value of another type", file, shown);
  char what[300];
  snprintf(what, sizeof what, "dataset %s", shown);
  if (!err) err = sg_h5_check_number_type(type, file, what);
  if (!err) err = sg_h5_check_storage(d, file, what);
  if (!err && H5Dread(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
    err = sg_error_set(SG_ERR_FORMAT, "%s: cannot read dataset %s", file, shown);
  sg_h5_close(&type);
  sg_h5_close(&space);
  sg_h5_close(&d);
  return err;
}

static sg_err read_array(hid_t g, const char *name, const char *shown, const char *file, int want_int,
                         long long want_len, long long *len, void **buf) {
  long long dims[1] = {want_len};
  SG_CHECK(sg_h5_read_checked(g, name, shown, file, want_int, 1, dims, NULL, H5P_DEFAULT, buf));
  if (len) *len = dims[0];
  return SG_OK;
}

/* The sparse matrix group `gname` (relative to g; `prefix` its absolute name), m x n. */
static sg_err read_matrix(hid_t g, const char *gname, const char *prefix, const char *file, long long want_m,
                          long long want_n, sg_fclib_matrix *A) {
  char name[128], shown[256];
  long long m, n, nz, lp, li, lx;
  int *p = NULL, *ix = NULL;
  double *x = NULL;
  sg_err err = SG_OK;
  memset(A, 0, sizeof *A);
#define NAME(leaf) (snprintf(name, sizeof name, "%s/%s", gname, leaf), \
                    snprintf(shown, sizeof shown, "%s/%s", prefix, leaf), name)
  if (!sg_h5_exists(g, gname)) return sg_error_set(SG_ERR_FORMAT, "%s: missing matrix group %s", file, prefix);
  SG_CHECK(read_int1(g, NAME("m"), shown, file, &m));
  SG_CHECK(read_int1(g, NAME("n"), shown, file, &n));
  SG_CHECK(read_int1(g, NAME("nz"), shown, file, &nz));
  if (m < 0 || n < 0 || m > 100000000 || n > 100000000)
    return sg_error_set(SG_ERR_FORMAT, "%s: matrix %s has impossible size %lld x %lld", file, prefix, m, n);
  if ((want_m >= 0 && m != want_m) || (want_n >= 0 && n != want_n))
    return sg_error_set(SG_ERR_FORMAT, "%s: matrix %s is %lld x %lld, expected %lld x %lld", file, prefix, m, n,
                        want_m >= 0 ? want_m : m, want_n >= 0 ? want_n : n);
  if (nz < -2) return sg_error_set(SG_ERR_FORMAT, "%s: dataset %s/nz = %lld (triplet >= 0, CSC -1, CSR -2)", file, prefix, nz);
  if ((err = read_array(g, NAME("p"), shown, file, 1, -1, &lp, (void **)&p))) goto fail;
  if ((err = read_array(g, NAME("i"), shown, file, 1, -1, &li, (void **)&ix))) goto fail;
  if ((err = read_array(g, NAME("x"), shown, file, 0, -1, &lx, (void **)&x))) goto fail;
  long long cnt;
  if (nz >= 0) {
    cnt = nz;
    if (lp < nz || li < nz || lx < nz) {
      err = sg_error_set(SG_ERR_FORMAT, "%s: matrix %s has nz = %lld triplets but p, i, x hold %lld, %lld, %lld",
                         file, prefix, nz, lp, li, lx);
      goto fail;
    }
  } else {
    long long outer = nz == -1 ? n : m; /* CSC: column pointers; CSR: row pointers */
    NAME("p");
    if (lp < outer + 1) {
      err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s has %lld pointers, expected %lld (%s)", file, shown, lp,
                         outer + 1, nz == -1 ? "compressed columns" : "compressed rows");
      goto fail;
    }
    if (p[0] != 0) {
      err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s starts at %d, expected 0", file, shown, p[0]);
      goto fail;
    }
    for (long long k = 0; k < outer; ++k)
      if (p[k + 1] < p[k]) {
        err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s decreases at %lld", file, shown, k + 1);
        goto fail;
      }
    cnt = p[outer];
    if (li < cnt || lx < cnt) {
      err = sg_error_set(SG_ERR_FORMAT, "%s: matrix %s has %lld entries but i, x hold %lld, %lld", file, prefix,
                         cnt, li, lx);
      goto fail;
    }
  }
  A->m = (int)m; A->n = (int)n; A->nnz = (int)cnt;
  A->row = malloc((size_t)(cnt ? cnt : 1) * sizeof(int));
  A->col = malloc((size_t)(cnt ? cnt : 1) * sizeof(int));
  A->x = malloc((size_t)(cnt ? cnt : 1) * sizeof(double));
  if (!A->row || !A->col || !A->x) {
    err = sg_error_set(SG_ERR_MEM, "%s: out of memory reading matrix %s", file, prefix);
    goto fail;
  }
  for (long long k = 0; k < cnt; ++k) A->x[k] = x[k];
  if (nz >= 0) {
    for (long long k = 0; k < cnt; ++k) { A->row[k] = ix[k]; A->col[k] = p[k]; }
  } else {
    long long outer = nz == -1 ? n : m;
    for (long long o = 0; o < outer; ++o)
      for (int k = p[o]; k < p[o + 1]; ++k) {
        if (nz == -1) { A->row[k] = ix[k]; A->col[k] = (int)o; }
        else { A->row[k] = (int)o; A->col[k] = ix[k]; }
      }
  }
  for (long long k = 0; k < cnt; ++k) {
    if (A->row[k] < 0 || A->row[k] >= m) {
      NAME(nz == -2 ? "p" : "i");
      err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s: entry %lld has row %d outside [0, %lld)", file, shown, k,
                         A->row[k], m);
      goto fail;
    }
    if (A->col[k] < 0 || A->col[k] >= n) {
      NAME(nz >= 0 ? "p" : nz == -1 ? "p" : "i");
      err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s: entry %lld has column %d outside [0, %lld)", file, shown,
                         k, A->col[k], n);
      goto fail;
    }
    if (!isfinite(A->x[k])) {
      NAME("x");
      err = sg_error_set(SG_ERR_NUMERIC, "%s: dataset %s: entry %lld is NaN or Inf", file, shown, k);
      goto fail;
    }
  }
#undef NAME
  free(p); free(ix); free(x);
  return SG_OK;
fail:
  free(p); free(ix); free(x);
  matrix_free(A);
  return err;
}

static sg_err read_vector(hid_t g, const char *name, const char *shown, const char *file, long long *lenp,
                          const char *why, double **out) {
  long long dims[1] = {*lenp};
  void *buf = NULL;
  SG_CHECK(sg_h5_read_checked(g, name, shown, file, 0, 1, dims, why, H5P_DEFAULT, &buf));
  long long len = *lenp = dims[0];
  double *v = buf;
  for (long long k = 0; k < len; ++k)
    if (!isfinite(v[k])) {
      free(v);
      return sg_error_set(SG_ERR_NUMERIC, "%s: dataset %s: entry %lld is NaN or Inf", file, shown, k);
    }
  if (!v) v = calloc(1, sizeof *v); /* empty: keep a valid pointer */
  *out = v;
  return SG_OK;
}

/* info/title: one string (fixed or variable length); absent -> "". Its extent and size are checked
 * before the read, which fills a buffer made for one string of that size. */
static sg_err read_title(hid_t g, const char *gname, const char *file, char *buf, size_t len) {
  buf[0] = 0;
  if (!sg_h5_exists(g, "info/title")) return SG_OK;
  char what[160];
  snprintf(what, sizeof what, "dataset %s/info/title", gname);
  hid_t d = H5Dopen2(g, "info/title", H5P_DEFAULT), mem = H5I_INVALID_HID;
  hid_t t = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID, space = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
  sg_err err = SG_OK;
  if (t < 0 || space < 0 || H5Tget_class(t) != H5T_STRING || H5Sget_simple_extent_npoints(space) != 1)
    err = sg_error_set(SG_ERR_FORMAT, "%s: %s must hold one string", file, what);
  int vlen = err ? 0 : H5Tis_variable_str(t) > 0;
  if (!err && !vlen) err = sg_h5_check_type_size(t, SG_H5_MAX_STRING, file, what);
  if (!err && vlen) err = sg_h5_check_vlen_string_type(t, file, what);
  if (!err) err = sg_h5_check_storage(d, file, what);
  if (!err && vlen) err = sg_h5_vlen_dset_check(d, file, what);
  if (!err && vlen) {
    char *s = NULL;
    mem = H5Tcopy(H5T_C_S1);
    if (mem >= 0 && H5Tset_size(mem, H5T_VARIABLE) >= 0 && H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s) >= 0 && s)
      snprintf(buf, len, "%s", s);
    if (s) H5free_memory(s);
  } else if (!err) {
    size_t sz = H5Tget_size(t);
    char *tmp = calloc(sz + 1, 1);
    mem = H5Tcopy(H5T_C_S1);
    if (tmp && mem >= 0 && H5Tset_size(mem, sz + 1) >= 0 && H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, tmp) >= 0)
      snprintf(buf, len, "%s", tmp);
    free(tmp);
  }
  sg_h5_close(&mem);
  sg_h5_close(&space);
  sg_h5_close(&t);
  sg_h5_close(&d);
  return err;
}

/* A mass matrix is symmetric; some FCLIB files (CubeH8, from LMGC90) store only one triangle.
 * When every off-diagonal entry lies in the same triangle, add the mirror image of each. */
static sg_err mirror_triangle(sg_fclib_matrix *A, const char *file) {
  int upper = 0, lower = 0;
  for (int k = 0; k < A->nnz; ++k) {
    upper += A->col[k] > A->row[k];
    lower += A->col[k] < A->row[k];
  }
  if (!(upper > 0) == !(lower > 0)) return SG_OK; /* both (full storage) or neither (diagonal) */
  int n_off = upper + lower, total = A->nnz + n_off;
  int *row = realloc(A->row, (size_t)total * sizeof *row), *col = NULL;
  if (row) A->row = row;
  col = row ? realloc(A->col, (size_t)total * sizeof *col) : NULL;
  if (col) A->col = col;
  double *x = col ? realloc(A->x, (size_t)total * sizeof *x) : NULL;
  if (!x) return sg_error_set(SG_ERR_MEM, "%s: out of memory mirroring /fclib_global/M", file);
  A->x = x;
  int at = A->nnz;
  for (int k = 0; k < A->nnz; ++k)
    if (A->row[k] != A->col[k]) {
      A->row[at] = A->col[k];
      A->col[at] = A->row[k];
      A->x[at] = A->x[k];
      ++at;
    }
  A->nnz = total;
  return SG_OK;
}

static sg_err read_open(hid_t f, const char *file, sg_fclib_problem *fp) {
  int global = sg_h5_exists(f, "fclib_global"), local = sg_h5_exists(f, "fclib_local");
  if (!global && !local) return sg_error_set(SG_ERR_FORMAT, "%s: neither /fclib_global nor /fclib_local (not an FCLIB problem)", file);
  const char *gname = global ? "/fclib_global" : "/fclib_local";
  hid_t g = H5Gopen2(f, gname, H5P_DEFAULT);
  if (g < 0) return sg_error_set(SG_ERR_FORMAT, "%s: %s is not a group", file, gname);
  sg_err err = sg_h5_check_object_header(g, file);
  char shown[128];
  long long dim;
  fp->local = !global;
  if (err || (err = read_title(g, gname, file, fp->title, sizeof fp->title))) goto done;
  snprintf(shown, sizeof shown, "%s/spacedim", gname);
  if (sg_h5_exists(g, "spacedim")) {
    if ((err = read_int1(g, "spacedim", shown, file, &dim))) goto done;
    if (dim != 3) { err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s = %lld, only 3 is supported", file, shown, dim); goto done; }
  }
  /* mu fixes the number of contacts */
  snprintf(shown, sizeof shown, "%s/vectors/mu", gname);
  long long len = -1;
  if ((err = read_vector(g, "vectors/mu", shown, file, &len, NULL, &fp->mu))) goto done;
  fp->nc = (int)len;
  for (int k = 0; k < fp->nc; ++k)
    if (fp->mu[k] < 0) { err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s: negative friction coefficient at %d", file, shown, k); goto done; }
  fp->m = 3 * fp->nc;
  char why[96];
  snprintf(why, sizeof why, "(3 x %d contacts from vectors/mu)", fp->nc);
  if (global) {
    if ((err = read_matrix(g, "M", "/fclib_global/M", file, -1, -1, &fp->M))) goto done;
    if (fp->M.m != fp->M.n) { err = sg_error_set(SG_ERR_FORMAT, "%s: matrix /fclib_global/M is %d x %d, not square", file, fp->M.m, fp->M.n); goto done; }
    fp->n = fp->M.n;
    if ((err = mirror_triangle(&fp->M, file))) goto done;
    if ((err = read_matrix(g, "H", "/fclib_global/H", file, fp->n, fp->m, &fp->H))) goto done;
    char whyf[64];
    snprintf(whyf, sizeof whyf, "(n = %d from M)", fp->n);
    len = fp->n;
    if ((err = read_vector(g, "vectors/f", "/fclib_global/vectors/f", file, &len, whyf, &fp->f))) goto done;
    len = fp->m;
    if ((err = read_vector(g, "vectors/w", "/fclib_global/vectors/w", file, &len, why, &fp->w))) goto done;
  } else {
    if ((err = read_matrix(g, "W", "/fclib_local/W", file, fp->m, fp->m, &fp->W))) goto done;
    len = fp->m;
    if ((err = read_vector(g, "vectors/q", "/fclib_local/vectors/q", file, &len, why, &fp->q))) goto done;
  }
done:
  sg_h5_close(&g);
  return err;
}

sg_err sg_fclib_read(const char *path, sg_fclib_problem *fp) { return sg_fclib_read_fapl(path, H5P_DEFAULT, fp); }

sg_err sg_fclib_read_fapl(const char *path, hid_t access, sg_fclib_problem *fp) {
  memset(fp, 0, sizeof *fp);
  SG_CHECK(sg_fs_readable_file(path));
  SG_CHECK(sg_h5_check_local_heaps(path));
  sg_h5_quiet();
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, access);
  if (f < 0) return sg_error_set(SG_ERR_FORMAT, "cannot open %s: not an HDF5 file", path);
  sg_err err = sg_h5_check_object_header(f, path); /* the root group's, before any lookup in it */
  if (!err) err = read_open(f, path, fp);
  sg_h5_close(&f);
  if (err) sg_fclib_free(fp);
  return err;
}

/* --- linear algebra --------------------------------------------------------------------------- */

void sg_fclib_matvec(const sg_fclib_matrix *A, int transpose, const double *x, double *y) {
  int ny = transpose ? A->n : A->m;
  for (int k = 0; k < ny; ++k) y[k] = 0;
  for (int k = 0; k < A->nnz; ++k) {
    if (transpose) y[A->col[k]] += A->x[k] * x[A->row[k]];
    else y[A->row[k]] += A->x[k] * x[A->col[k]];
  }
}

/* A sum of squares kept as scale^2 * ssq (LAPACK's dlassq), so that entries of 1e-300 or 1e300
 * neither vanish nor overflow when squared: otherwise a problem scaled by 1e-300 measures 0 at a
 * cold start, as if solved, and one scaled by 1e300 Inf. */
typedef struct {
  double scale, ssq;
} sumsq;

static void sumsq_add(sumsq *a, double x) {
  double ax = fabs(x);
  if (ax == 0) return;
  if (a->scale < ax) {
    a->ssq = 1 + a->ssq * (a->scale / ax) * (a->scale / ax);
    a->scale = ax;
  } else {
    a->ssq += (ax / a->scale) * (ax / a->scale);
  }
}

static double sumsq_norm(sumsq a) { return a.scale * sqrt(a.ssq); }

static double norm2(int n, const double *x) {
  sumsq a = {0, 0};
  for (int k = 0; k < n; ++k) sumsq_add(&a, x[k]);
  return sumsq_norm(a);
}

static double fmax3(double a, double b, double c) {
  double m = a > b ? a : b;
  return m > c ? m : c;
}

sg_err sg_fclib_residuals(const sg_fclib_problem *fp, const double *v, const double *r, double *nat,
                          double *dyn, double *u_out) {
  int m = fp->m, n = fp->n;
  double *u = sg_calloc((size_t)(m ? m : 1), sizeof *u, "FCLIB u");
  double *t = sg_calloc((size_t)(n ? n : 1), sizeof *t, "FCLIB M v");
  double *h = sg_calloc((size_t)(n ? n : 1), sizeof *h, "FCLIB H r");
  if (!u || !t || !h) { free(u); free(t); free(h); return SG_ERR_MEM; }
  double scale_extra = 0;
  if (fp->local) {
    sg_fclib_matvec(&fp->W, 0, r, u);
    for (int k = 0; k < m; ++k) u[k] += fp->q[k];
    scale_extra = norm2(m, fp->q);
  } else {
    sg_fclib_matvec(&fp->H, 1, v, u);
    for (int k = 0; k < m; ++k) u[k] += fp->w[k];
  }
  sumsq s = {0, 0};
  for (int c = 0; c < fp->nc; ++c) {
    const double *uc = u + 3 * c, *rc = r + 3 * c;
    double x[3], pr[3], ut = sqrt(uc[1] * uc[1] + uc[2] * uc[2]);
    x[0] = rc[0] - (uc[0] + fp->mu[c] * ut);
    x[1] = rc[1] - uc[1];
    x[2] = rc[2] - uc[2];
    sg_cone_project_euclid(fp->mu[c], x, pr);
    for (int k = 0; k < 3; ++k) sumsq_add(&s, rc[k] - pr[k]);
  }
  double den = fmax3(norm2(m, u), norm2(m, r), scale_extra);
  *nat = den > 0 ? sumsq_norm(s) / den : sumsq_norm(s);
  *dyn = 0;
  if (!fp->local) {
    sg_fclib_matvec(&fp->M, 0, v, t);
    sg_fclib_matvec(&fp->H, 0, r, h);
    double nMv = norm2(n, t), nHr = norm2(n, h);
    sumsq sd = {0, 0};
    for (int k = 0; k < n; ++k) sumsq_add(&sd, t[k] - h[k] - fp->f[k]);
    double dd = fmax3(norm2(n, fp->f), nMv, nHr);
    *dyn = dd > 0 ? sumsq_norm(sd) / dd : sumsq_norm(sd);
  }
  if (u_out) memcpy(u_out, u, (size_t)m * sizeof *u);
  free(u); free(t); free(h);
  return SG_OK;
}

/* --- conversion ------------------------------------------------------------------------------ */

static int uf_find(int *parent, int a) {
  while (parent[a] != a) {
    parent[a] = parent[parent[a]];
    a = parent[a];
  }
  return a;
}

static void uf_union(int *parent, int a, int b) {
  a = uf_find(parent, a);
  b = uf_find(parent, b);
  if (a == b) return;
  if (a < b) parent[b] = a;
  else parent[a] = b;
}

void sg_fclib_map_free(sg_fclib_map *map) {
  free(map->perm);
  memset(map, 0, sizeof *map);
}

void sg_fclib_map_to_fclib(const sg_fclib_map *map, const double *v_problem, double *v_fclib) {
  for (int k = 0; k < map->n; ++k) v_fclib[map->perm[k]] = v_problem[k];
}

void sg_fclib_map_to_problem(const sg_fclib_map *map, const double *v_fclib, double *v_problem) {
  for (int k = 0; k < map->n; ++k) v_problem[k] = v_fclib[map->perm[k]];
}

sg_err sg_fclib_to_problem(const sg_fclib_problem *fp, sg_problem *p, sg_fclib_map *map) {
  memset(map, 0, sizeof *map);
  if (fp->local)
    return sg_error_set(SG_ERR_ARG, "FCLIB local problem (u = W r + q, %d contacts): no subsystem form; "
                        "its residuals can be measured, solving it needs a solver for the local form", fp->nc);
  int n = fp->n, nc = fp->nc;
  const sg_fclib_matrix *M = &fp->M, *H = &fp->H;
  sg_err err = SG_OK;
  int *parent = NULL, *sub = NULL, *loc = NULL, *perm = NULL, *sub_n = NULL,
      *sub_off = NULL, *hstart = NULL, *hent = NULL, *subs = NULL, *slot = NULL;
  double *A = NULL, *b = NULL, *Jbuf = NULL;
  const double **Js = NULL;
  size_t *aoff = NULL;
  parent = sg_calloc((size_t)n + 1, sizeof *parent, "FCLIB components");
  sub = sg_calloc((size_t)n + 1, sizeof *sub, "FCLIB subsystem of each unknown");
  loc = sg_calloc((size_t)n + 1, sizeof *loc, "FCLIB local index");
  perm = sg_calloc((size_t)n + 1, sizeof *perm, "FCLIB permutation");
  hstart = sg_calloc((size_t)nc + 1, sizeof *hstart, "FCLIB H by contact");
  hent = sg_calloc((size_t)H->nnz + 1, sizeof *hent, "FCLIB H by contact");
  slot = sg_calloc((size_t)n + 1, sizeof *slot, "FCLIB pair slots");
  if (!parent || !sub || !loc || !perm || !hstart || !hent || !slot) { err = SG_ERR_MEM; goto done; }
  /* 1. components of M's sparsity graph (explicit zeros count as structure; they are what the file says) */
  for (int k = 0; k < n; ++k) parent[k] = k;
  for (int k = 0; k < M->nnz; ++k)
    if (M->row[k] != M->col[k]) uf_union(parent, M->row[k], M->col[k]);
  /* 2. rigid bodies: FCLIB stores no body structure, and a rigid body's diagonal mass matrix
   * falls apart into six components. When no component crosses a boundary of the aligned blocks
   * of six unknowns (3 translations, 3 rotations per body in 3D), each such block is one body. */
  if (n % 6 == 0) {
    int aligned = 1;
    for (int k = 0; k < n && aligned; ++k) aligned = uf_find(parent, k) / 6 == k / 6;
    if (aligned)
      for (int k = 0; k < n; ++k) if (k % 6) uf_union(parent, k - 1, k);
  }
  /* 3. subsystems in the order of their first unknown, unknowns ascending inside */
  int n_sub = 0;
  /* the root of a component is its smallest unknown (uf_union keeps the smaller one) */
  for (int k = 0; k < n; ++k) {
    int r = uf_find(parent, k);
    sub[k] = r == k ? n_sub++ : sub[r];
  }
  sub_n = sg_calloc((size_t)n_sub + 1, sizeof *sub_n, "FCLIB subsystem sizes");
  sub_off = sg_calloc((size_t)n_sub + 1, sizeof *sub_off, "FCLIB subsystem offsets");
  aoff = sg_calloc((size_t)n_sub + 1, sizeof *aoff, "FCLIB block offsets");
  if (!sub_n || !sub_off || !aoff) { err = SG_ERR_MEM; goto done; }
  for (int k = 0; k < n; ++k) loc[k] = sub_n[sub[k]]++;
  for (int j = 0; j < n_sub; ++j) {
    sub_off[j + 1] = sub_off[j] + sub_n[j];
    aoff[j + 1] = aoff[j] + (size_t)sub_n[j] * (size_t)sub_n[j];
  }
  for (int k = 0; k < n; ++k) perm[sub_off[sub[k]] + loc[k]] = k;
  A = sg_calloc(aoff[n_sub] + 1, sizeof *A, "FCLIB mass blocks");
  b = sg_calloc((size_t)n + 1, sizeof *b, "FCLIB right-hand side");
  if (!A || !b) { err = SG_ERR_MEM; goto done; }
  for (int k = 0; k < M->nnz; ++k) {
    int r = M->row[k], c = M->col[k], j = sub[r], d = sub_n[j];
    A[aoff[j] + (size_t)loc[r] * d + loc[c]] += M->x[k];
  }
  for (int k = 0; k < n; ++k) b[sub_off[sub[k]] + loc[k]] = fp->f[k];
  map->n = n;
  map->perm = perm;
  perm = NULL;
  for (int j = 0; j < n_sub; ++j)
    if ((err = sg_problem_add_subsystem(p, sub_n[j], A + aoff[j], b + sub_off[j], j, NULL))) goto done;
  /* 4. one contact constraint per FCLIB contact */
  for (int k = 0; k < H->nnz; ++k) hstart[H->col[k] / 3 + 1]++;
  for (int c = 0; c < nc; ++c) hstart[c + 1] += hstart[c];
  {
    int *fill = sg_calloc((size_t)nc + 1, sizeof *fill, "FCLIB H by contact");
    if (!fill) { err = SG_ERR_MEM; goto done; }
    for (int c = 0; c < nc; ++c) fill[c] = hstart[c];
    for (int k = 0; k < H->nnz; ++k) hent[fill[H->col[k] / 3]++] = k;
    free(fill);
  }
  subs = sg_calloc((size_t)n_sub + 1, sizeof *subs, "FCLIB pairs");
  Js = sg_calloc((size_t)n_sub + 1, sizeof *Js, "FCLIB pairs");
  if (!subs || !Js) { err = SG_ERR_MEM; goto done; }
  for (int j = 0; j < n; ++j) slot[j] = -1; /* slot per subsystem (n_sub <= n) */
  for (int c = 0; c < nc; ++c) {
    int np = 0;
    size_t jlen = 0;
    for (int q = hstart[c]; q < hstart[c + 1]; ++q) {
      int j = sub[H->row[hent[q]]];
      if (slot[j] < 0) { slot[j] = np; subs[np++] = j; jlen += 3 * (size_t)sub_n[j]; }
    }
    /* canonical pair order (ascending subsystem), whatever the order of H's entries */
    for (int a = 1; a < np; ++a)
      for (int q = a; q > 0 && subs[q - 1] > subs[q]; --q) {
        int t = subs[q]; subs[q] = subs[q - 1]; subs[q - 1] = t;
      }
    for (int k = 0; k < np; ++k) slot[subs[k]] = k;
    if (np == 0) {
      err = sg_error_set(SG_ERR_FORMAT, "matrix /fclib_global/H: the three columns of contact %d are empty (it touches no unknown)", c);
      goto done;
    }
    free(Jbuf);
    Jbuf = sg_calloc(jlen, sizeof *Jbuf, "FCLIB contact Jacobian");
    if (!Jbuf) { err = SG_ERR_MEM; goto done; }
    size_t off = 0;
    size_t joff[np];
    for (int k = 0; k < np; ++k) { joff[k] = off; Js[k] = Jbuf + off; off += 3 * (size_t)sub_n[subs[k]]; }
    for (int q = hstart[c]; q < hstart[c + 1]; ++q) {
      int e = hent[q], dof = H->row[e], j = sub[dof], rr = H->col[e] - 3 * c;
      Jbuf[joff[slot[j]] + (size_t)rr * sub_n[j] + loc[dof]] += H->x[e];
    }
    for (int k = 0; k < np; ++k) slot[subs[k]] = -1;
    err = sg_problem_add_constraint(p, SG_CON_CONTACT, fp->w + 3 * c, fp->mu[c], 0, 0, np, subs, Js, NULL);
    if (err) goto done;
  }
done:
  if (err) sg_fclib_map_free(map);
  free(parent); free(sub); free(loc); free(perm); free(sub_n); free(sub_off);
  free(hstart); free(hent); free(subs); free(slot); free(A); free(b); free(Jbuf); free(Js); free(aoff);
  return err;
}

/* --- solution writer --------------------------------------------------------------------------- */

static sg_err write_vec(hid_t g, const char *name, const char *file, int len, const double *x) {
  return sg_h5_write_vector(g, name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, len, x, file);
}

/* The copy with its /solution group, made in memory (HDF5 knows it as `name`) and written to
 * out_path atomically. */
static sg_err write_solution_copy(const char *in_path, const char *name, const char *out_path, const sg_fclib_problem *fp,
                                  const double *v, const double *u, const double *r) {
  hid_t f;
  SG_CHECK(sg_h5_mem_open(in_path, name, out_path, &f));
  sg_err err = SG_OK;
  hid_t g = H5I_INVALID_HID;
  if (sg_h5_exists(f, "solution") && H5Ldelete(f, "solution", H5P_DEFAULT) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot replace group /solution", out_path);
  if (!err && (g = H5Gcreate2(f, "solution", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot create group /solution", out_path);
  if (!err && v && !fp->local) err = write_vec(g, "v", out_path, fp->n, v);
  if (!err) err = write_vec(g, "u", out_path, fp->m, u);
  if (!err) err = write_vec(g, "r", out_path, fp->m, r);
  sg_h5_close(&g);
  return sg_h5_mem_save(&f, out_path, err);
}

/* Atomic: the copy is written under a temporary name and renamed once complete, so a failure
 * (a full disk) never leaves a truncated file under the final name (sg_h5_mem_save). */
sg_err sg_fclib_write_solution(const char *in_path, const char *out_path, const sg_fclib_problem *fp,
                               const double *v, const double *u, const double *r) {
  if (!strcmp(in_path, out_path)) return sg_error_set(SG_ERR_ARG, "%s: the solution goes into a copy, not the input", out_path);
  size_t n = strlen(out_path) + 32;
  char *name = malloc(n);
  if (!name) return sg_error_set(SG_ERR_MEM, "out of memory writing %s", out_path);
  snprintf(name, n, "%s.mem.%ld", out_path, (long)getpid());
  sg_err err = write_solution_copy(in_path, name, out_path, fp, v, u, r);
  free(name);
  return err;
}
