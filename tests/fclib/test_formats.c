/* The reader on a synthetic global problem written three ways (CSparse triplets, compressed
 * columns, compressed rows): identical matrices and identical sg_problem conversions. Then broken
 * files -- out-of-range indices in each format, decreasing pointers, a vector of the wrong length,
 * a missing dataset, a floating-point count -- are rejected with a message naming the file and the
 * dataset; counts stored as scalar datasets are read as well as one-element ones. Does not need
 * ../shared/fclib. */
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fclib_test.h"

typedef struct { int r, c; double x; } entry;

/* 7 unknowns: M couples {0,1,2}, {3,4} and {5,6} (three subsystems); 2 contacts. */
static const entry M_e[] = {{0, 0, 4}, {1, 1, 5}, {2, 2, 6}, {3, 3, 3}, {4, 4, 4}, {5, 5, 5}, {6, 6, 6},
                            {0, 1, 1}, {1, 0, 1}, {1, 2, 0.5}, {2, 1, 0.5}, {3, 4, 0.3}, {4, 3, 0.3},
                            {5, 6, -0.2}, {6, 5, -0.2}};
static const entry H_e[] = {{0, 0, 1}, {1, 1, 1}, {3, 0, -1}, {3, 2, 0.5}, {5, 3, 1},
                            {6, 4, 1}, {2, 3, -1}, {2, 5, 0.7}, {4, 1, 0.2}};
#define NM ((int)(sizeof M_e / sizeof M_e[0]))
#define NH ((int)(sizeof H_e / sizeof H_e[0]))

static void wint(hid_t g, const char *name, const int *v, int n) {
  hsize_t d[1] = {(hsize_t)n};
  hid_t s = H5Screate_simple(1, d, NULL);
  hid_t ds = H5Dcreate2(g, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (n) H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(ds);
  H5Sclose(s);
}

/* How write_matrix stores its counts m and n: 0 one-element datasets, 1 scalar datasets (both
 * are FCLIB), 2 a floating-point scalar (refused). */
static int g_count_form = 0;

static void wcount(hid_t g, const char *name, int v) {
  if (g_count_form == 0) { wint(g, name, &v, 1); return; }
  hid_t s = H5Screate(H5S_SCALAR);
  double x = v;
  hid_t ds = H5Dcreate2(g, name, g_count_form == 1 ? H5T_STD_I32LE : H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g_count_form == 1) H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v);
  else H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &x);
  H5Dclose(ds);
  H5Sclose(s);
}

static void wdbl(hid_t g, const char *name, const double *v, int n) {
  hsize_t d[1] = {(hsize_t)n};
  hid_t s = H5Screate_simple(1, d, NULL);
  hid_t ds = H5Dcreate2(g, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (n) H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
  H5Dclose(ds);
  H5Sclose(s);
}

static int by_col(const void *a, const void *b) {
  const entry *x = a, *y = b;
  return x->c != y->c ? (x->c > y->c) - (x->c < y->c) : (x->r > y->r) - (x->r < y->r);
}
static int by_row(const void *a, const void *b) {
  const entry *x = a, *y = b;
  return x->r != y->r ? (x->r > y->r) - (x->r < y->r) : (x->c > y->c) - (x->c < y->c);
}

/* format: 0 triplet, -1 CSC, -2 CSR. bad_index: entry whose stored index is pushed out of range. */
static void write_matrix(hid_t parent, const char *name, int m, int n, const entry *in, int cnt, int format,
                         int bad_index, int bad_pointer) {
  entry *e = malloc((size_t)cnt * sizeof *e);
  memcpy(e, in, (size_t)cnt * sizeof *e);
  if (format == -1) qsort(e, (size_t)cnt, sizeof *e, by_col);
  if (format == -2) qsort(e, (size_t)cnt, sizeof *e, by_row);
  hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int one[1];
  wcount(g, "m", m);
  wcount(g, "n", n);
  one[0] = format == 0 ? cnt : format; wint(g, "nz", one, 1);
  one[0] = cnt; wint(g, "nzmax", one, 1);
  int *p = calloc((size_t)cnt + (size_t)(m > n ? m : n) + 2, sizeof *p), *ix = calloc((size_t)cnt + 1, sizeof *ix);
  double *x = calloc((size_t)cnt + 1, sizeof *x);
  int np = cnt;
  for (int k = 0; k < cnt; ++k) x[k] = e[k].x;
  if (format == 0) {
    for (int k = 0; k < cnt; ++k) { ix[k] = e[k].r; p[k] = e[k].c; }
    if (bad_index) ix[cnt / 2] = m; /* row = i: one past the last row */
  } else {
    int outer = format == -1 ? n : m;
    for (int k = 0; k < cnt; ++k) {
      int o = format == -1 ? e[k].c : e[k].r;
      p[o + 1]++;
      ix[k] = format == -1 ? e[k].r : e[k].c;
    }
    for (int o = 0; o < outer; ++o) p[o + 1] += p[o];
    np = outer + 1;
    if (bad_index) ix[cnt / 2] = format == -1 ? m : n;
    if (bad_pointer) p[2] = p[1] - 1; /* column 1 would end before it starts */
  }
  wint(g, "p", p, np);
  wint(g, "i", ix, cnt);
  wdbl(g, "x", x, cnt);
  H5Gclose(g);
  free(p); free(ix); free(x); free(e);
}

typedef struct { int format, bad_M, bad_H, bad_pointer, short_f, no_w; } variant;

static void write_problem(const char *path, variant v) {
  hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t g = H5Gcreate2(f, "fclib_global", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  write_matrix(g, "M", 7, 7, M_e, NM, v.format, v.bad_M, 0);
  write_matrix(g, "H", 7, 6, H_e, NH, v.format, v.bad_H, v.bad_pointer);
  hid_t vec = H5Gcreate2(g, "vectors", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  double fv[7] = {0.1, -0.2, 0.3, -9.81, 0.5, -0.6, 0.7}, w[6] = {0.01, 0, 0, -0.02, 0.1, 0}, mu[2] = {0.3, 0.5};
  wdbl(vec, "f", fv, v.short_f ? 6 : 7);
  if (!v.no_w) wdbl(vec, "w", w, 6);
  wdbl(vec, "mu", mu, 2);
  H5Gclose(vec);
  int three = 3;
  wint(g, "spacedim", &three, 1);
  H5Gclose(g);
  H5Fclose(f);
}

static int same_problem(const sg_problem *a, const sg_problem *b) {
  if (a->n_sub != b->n_sub || a->n_con != b->n_con) return 0;
  int nv = sg_problem_n_v(a), na = a->sub_aoff[a->n_sub], np = a->con_pair[a->n_con], nr = sg_problem_n_rows(a);
  if (memcmp(a->sub_dof, b->sub_dof, (size_t)a->n_sub * sizeof(int)) || memcmp(a->A, b->A, (size_t)na * sizeof(double)) ||
      memcmp(a->b, b->b, (size_t)nv * sizeof(double)) || memcmp(a->e, b->e, (size_t)nr * sizeof(double)) ||
      memcmp(a->mu, b->mu, (size_t)a->n_con * sizeof(double)) ||
      memcmp(a->pair_sub, b->pair_sub, (size_t)np * sizeof(int)) || memcmp(a->con_pair, b->con_pair, (size_t)(a->n_con + 1) * sizeof(int)))
    return 0;
  int nj = 0;
  for (int q = 0; q < np; ++q) nj += 3 * a->sub_dof[a->pair_sub[q]];
  return !memcmp(a->J, b->J, (size_t)nj * sizeof(double));
}

static void dense(const sg_fclib_matrix *A, double *out) {
  memset(out, 0, (size_t)A->m * A->n * sizeof *out);
  for (int k = 0; k < A->nnz; ++k) out[A->row[k] * A->n + A->col[k]] += A->x[k];
}

/* The read fails and its message names the file and contains `what`. */
static void expect_reject(const char *path, variant v, const char *what) {
  write_problem(path, v);
  sg_fclib_problem fp;
  sg_err e = sg_fclib_read(path, &fp);
  const char *msg = sg_error_message();
  printf("format %d: rejected (%d): %s\n", v.format, e, e ? msg : "(accepted!)");
  CHECK(e != SG_OK);
  if (e) {
    CHECK(strstr(msg, path) != NULL);
    CHECK(strstr(msg, what) != NULL);
  } else {
    sg_fclib_free(&fp);
  }
  sg_error_clear();
}

int main(int argc, char **argv) {
  fclib_test_init(&argc, &argv);
  char dir[] = "/tmp/sg_fclib_test_XXXXXX";
  if (!mkdtemp(dir)) { perror("mkdtemp"); return fclib_test_finish(1); }
  char path[3][256], bad[256];
  const int formats[3] = {0, -1, -2};
  sg_fclib_problem fp[3];
  sg_problem pr[3];
  sg_fclib_map map[3];
  memset(pr, 0, sizeof pr);
  double dM[3][49], dH[3][42];
  for (int k = 0; k < 3; ++k) {
    snprintf(path[k], sizeof path[k], "%s/format%d.hdf5", dir, -formats[k]);
    write_problem(path[k], (variant){formats[k], 0, 0, 0, 0, 0});
    CHECK_OK(sg_fclib_read(path[k], &fp[k]));
    CHECK(fp[k].n == 7 && fp[k].nc == 2 && fp[k].m == 6);
    CHECK(fp[k].M.nnz == NM && fp[k].H.nnz == NH);
    dense(&fp[k].M, dM[k]);
    dense(&fp[k].H, dH[k]);
    CHECK_OK(sg_fclib_to_problem(&fp[k], &pr[k], &map[k]));
    printf("format %d: %d subsystems, %d constraints, %d pairs\n", formats[k], pr[k].n_sub, pr[k].n_con,
           pr[k].con_pair[pr[k].n_con]);
    CHECK(pr[k].n_sub == 3);
    CHECK(pr[k].n_con == 2 && pr[k].con_pair[1] == 2 && pr[k].con_pair[2] == 4);
  }
  /* the written entries come back in the right places */
  for (int k = 0; k < NM; ++k) CHECK(dM[0][M_e[k].r * 7 + M_e[k].c] == M_e[k].x);
  for (int k = 0; k < NH; ++k) CHECK(dH[0][H_e[k].r * 6 + H_e[k].c] == H_e[k].x);
  for (int k = 1; k < 3; ++k) {
    CHECK(!memcmp(dM[0], dM[k], sizeof dM[0]));
    CHECK(!memcmp(dH[0], dH[k], sizeof dH[0]));
    CHECK(same_problem(&pr[0], &pr[k]));
    CHECK(!memcmp(map[0].perm, map[k].perm, 7 * sizeof(int)));
  }
  /* dyn is zero for v = M^{-1}(f + H r) built by hand: M v - H r - f with v solving the 3 blocks */
  {
    double r[6] = {1, 0.1, -0.2, 0.5, 0, 0.1}, v[7], rhs[7], nat, dyn;
    sg_fclib_matvec(&fp[0].H, 0, r, rhs);
    for (int k = 0; k < 7; ++k) rhs[k] += fp[0].f[k];
    /* Jacobi iterations converge: M is strictly diagonally dominant */
    for (int k = 0; k < 7; ++k) v[k] = 0;
    for (int it = 0; it < 200; ++it) {
      double nv[7];
      for (int i = 0; i < 7; ++i) {
        double s = rhs[i];
        for (int j = 0; j < 7; ++j) if (j != i) s -= dM[0][i * 7 + j] * v[j];
        nv[i] = s / dM[0][i * 7 + i];
      }
      memcpy(v, nv, sizeof v);
    }
    CHECK_OK(sg_fclib_residuals(&fp[0], v, r, &nat, &dyn, NULL));
    printf("hand-made v: nat %.3e, dyn %.3e\n", nat, dyn);
    CHECK(dyn <= 1e-14);
  }
  for (int k = 0; k < 3; ++k) {
    sg_problem_destroy(&pr[k]);
    sg_fclib_map_free(&map[k]);
    sg_fclib_free(&fp[k]);
    unlink(path[k]);
  }

  snprintf(bad, sizeof bad, "%s/bad.hdf5", dir);
  expect_reject(bad, (variant){0, 0, 1, 0, 0, 0}, "/fclib_global/H/i");   /* triplet row = i out of range */
  expect_reject(bad, (variant){0, 1, 0, 0, 0, 0}, "/fclib_global/M/i");
  expect_reject(bad, (variant){-1, 0, 1, 0, 0, 0}, "/fclib_global/H/i");  /* CSC row index */
  expect_reject(bad, (variant){-2, 0, 1, 0, 0, 0}, "/fclib_global/H/i");  /* CSR column index */
  expect_reject(bad, (variant){-1, 0, 0, 1, 0, 0}, "/fclib_global/H/p");  /* decreasing pointers */
  expect_reject(bad, (variant){0, 0, 0, 0, 1, 0}, "/fclib_global/vectors/f");
  expect_reject(bad, (variant){0, 0, 0, 0, 0, 1}, "/fclib_global/vectors/w");
  /* counts in scalar datasets are FCLIB too; a floating-point count is refused for what it is */
  g_count_form = 1;
  write_problem(bad, (variant){0, 0, 0, 0, 0, 0});
  sg_fclib_problem scalar;
  CHECK_OK(sg_fclib_read(bad, &scalar));
  CHECK(scalar.n == 7 && scalar.m == 6 && scalar.M.nnz == NM);
  sg_fclib_free(&scalar);
  g_count_form = 2;
  expect_reject(bad, (variant){0, 0, 0, 0, 0, 0}, "/fclib_global/M/m must hold an integer");
  unlink(bad);
  rmdir(dir);
  return fclib_test_finish(sg_test_exit());
}
