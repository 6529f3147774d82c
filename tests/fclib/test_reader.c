/* The shipped FCLIB problems read with the sizes of ../shared/fclib/README.md, and the global
 * ones convert into one subsystem per rigid body (Box_Stacks 75, spheres-in-a-box 98; the
 * deformable CubeH8 keeps the blocks of its non-diagonal M, 2 of 81 unknowns). */
#include <stdlib.h>
#include "fclib_test.h"

static void check_global(const char *dir, const char *name, int n, int nc, int n_sub, int max_dof) {
  sg_fclib_problem fp;
  sg_problem p = {0};
  sg_fclib_map map = {0};
  const char *path = fclib_path(dir, name);
  int e = sg_fclib_read(path, &fp);
  CHECK_OK(e);
  if (e) return;
  CHECK(!fp.local);
  CHECK(fp.n == n);
  CHECK(fp.nc == nc);
  CHECK(fp.m == 3 * nc);
  CHECK(fp.M.m == n && fp.M.n == n && fp.H.m == n && fp.H.n == 3 * nc);
  e = sg_fclib_to_problem(&fp, &p, &map);
  CHECK_OK(e);
  int maxd = 0;
  for (int j = 0; !e && j < p.n_sub; ++j) if (p.sub_dof[j] > maxd) maxd = p.sub_dof[j];
  printf("%s: n = %d, contacts = %d, H entries = %d, subsystems = %d (largest %d), constraints = %d\n", name, fp.n,
         fp.nc, fp.H.nnz, p.n_sub, maxd, p.n_con);
  CHECK(p.n_sub == n_sub);
  CHECK(maxd == max_dof);
  CHECK(p.n_con == nc);
  CHECK(sg_problem_n_v(&p) == n);
  CHECK(sg_problem_n_rows(&p) == 3 * nc);
  /* the permutation is one: every FCLIB unknown appears once */
  int *seen = calloc((size_t)n, sizeof *seen), ok = 1;
  for (int k = 0; k < map.n; ++k) ok &= map.perm[k] >= 0 && map.perm[k] < n && !seen[map.perm[k]]++;
  CHECK(ok && map.n == n);
  free(seen);
  /* J v over the problem equals H^T v over the file, for a test vector */
  double *vf = calloc((size_t)n, sizeof *vf), *vp = calloc((size_t)n, sizeof *vp);
  double *y1 = calloc((size_t)fp.m, sizeof *y1), *y2 = calloc((size_t)fp.m, sizeof *y2);
  for (int k = 0; k < n; ++k) vf[k] = sin(1.0 + k);
  sg_fclib_map_to_problem(&map, vf, vp);
  sg_problem_apply_J(&p, vp, y1);
  sg_fclib_matvec(&fp.H, 1, vf, y2);
  double d = 0;
  for (int k = 0; k < fp.m; ++k) d = fmax(d, fabs(y1[k] - y2[k]));
  CHECK(d <= 1e-12);
  free(vf); free(vp); free(y1); free(y2);
  sg_problem_destroy(&p);
  sg_fclib_map_free(&map);
  sg_fclib_free(&fp);
}

int main(int argc, char **argv) {
  fclib_test_init(&argc, &argv);
  int missing = fclib_dir_missing(argc, argv);
  if (missing) return fclib_test_finish(missing);
  const char *dir = argv[1];
  check_global(dir, "Box_Stacks-i0122-82-5.hdf5", 450, 82, 75, 6);
  check_global(dir, "spheres-in-a-box-98-i10000-256-10.hdf5", 588, 256, 98, 6);
  check_global(dir, "CubeH8.hdf5", 162, 1, 2, 81);

  sg_fclib_problem fp;
  int e = sg_fclib_read(fclib_path(dir, "Capsules-i125-1213.hdf5"), &fp);
  CHECK_OK(e);
  if (!e) {
    printf("Capsules: local, contacts = %d, W %d x %d with %d entries\n", fp.nc, fp.W.m, fp.W.n, fp.W.nnz);
    CHECK(fp.local);
    CHECK(fp.nc == 286 && fp.m == 858 && fp.W.m == 858 && fp.W.n == 858);
    sg_problem p = {0};
    sg_fclib_map map;
    CHECK(sg_fclib_to_problem(&fp, &p, &map) == SG_ERR_ARG); /* no subsystem form */
    sg_error_clear();
    /* W (a Delassus operator H^T M^-1 H) is stored whole: as many entries below the diagonal as
     * above, and a positive diagonal. (Its values are symmetric only to ~1e-3 relative in this
     * file, so no exact symmetry is asserted.) */
    int lo = 0, up = 0, diag_ok = 1;
    for (int k = 0; k < fp.W.nnz; ++k) {
      if (fp.W.row[k] < fp.W.col[k]) ++up;
      else if (fp.W.row[k] > fp.W.col[k]) ++lo;
      else diag_ok &= fp.W.x[k] > 0;
    }
    printf("Capsules: W entries below / above the diagonal: %d / %d\n", lo, up);
    CHECK(lo == up && diag_ok);
    double *r = calloc(858, sizeof *r);
    double nat, dyn;
    for (int k = 0; k < 858; ++k) r[k] = 0;
    CHECK_OK(sg_fclib_residuals(&fp, NULL, r, &nat, &dyn, NULL));
    printf("Capsules: nat at r = 0: %.3e\n", nat);
    CHECK(nat > 0 && dyn == 0);
    free(r);
    sg_problem_destroy(&p);
    sg_fclib_free(&fp);
  }
  return fclib_test_finish(sg_test_exit());
}
