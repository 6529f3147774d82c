/* CANAL on the shipped global FCLIB problems from a cold start (v = 0, r = 0), measured with Siconos's
 * scale-invariant nat + dyn (README "Accuracy measure"). Acceptance: nat + dyn <= 1e-8 on every global
 * problem: Box_Stacks (75 bodies, 82 contacts), spheres-in-a-box (98 spheres, 256 contacts, more
 * contact rows than unknowns) and CubeH8 (one subsystem of 81 unknowns, M not diagonal). Each is
 * solved with -solver_tol 1e-12 (theta_p + theta_d, absolute) and at most 200 AL loops; the
 * iterations, the Newton steps and the time are printed. Measured when written (Release, one core,
 * default CG + block Jacobi/ICC(0)): Box_Stacks 10 AL loops, 25 Newton steps, nat + dyn 6.3e-11,
 * 5 ms; spheres-in-a-box 30 loops, 323-327 Newton steps, nat + dyn 8.9e-11, ~10 s (1.2 s with
 * -canal_sub_pc_type cholesky: ICC(0) drops the fill of the contact coupling and CG then needs ~1000
 * iterations per step); CubeH8 4 loops, 4 Newton steps, nat + dyn 1.7e-10, 10 ms. */
#include <stdlib.h>
#include <string.h>
#include "fclib_test.h"
#include "signorini/solver.h"

static int solve(const char *dir, const char *name, double tol, int max_it, double *nat, double *dyn) {
  sg_fclib_problem fp;
  int e = sg_fclib_read(fclib_path(dir, name), &fp);
  CHECK_OK(e);
  if (e) return e;
  sg_problem p = {0};
  sg_fclib_map map;
  CHECK_OK(e = sg_fclib_to_problem(&fp, &p, &map));
  if (e) { sg_fclib_free(&fp); return e; }
  sg_solver *s = NULL;
  CHECK_OK(sg_solver_create(MPI_COMM_SELF, "canal", &s));
  CHECK_OK(sg_solver_set_from_options(s));
  s->tol = tol;
  s->max_it = max_it;
  double *v = calloc((size_t)fp.n, sizeof *v), *vf = calloc((size_t)fp.n, sizeof *vf), *r = calloc((size_t)fp.m, sizeof *r);
  sg_solve_info info;
  double t0 = MPI_Wtime();
  e = sg_solver_solve(s, &p, v, r, &info);
  double secs = MPI_Wtime() - t0;
  CHECK_OK(e);
  if (!e) {
    sg_fclib_map_to_fclib(&map, v, vf);
    CHECK_OK(sg_fclib_residuals(&fp, vf, r, nat, dyn, NULL));
    printf("canal, %s: tol %g: %d AL iterations, %d Newton steps (%s), beta %.3e, %.4f s, theta_p %.2e, theta_d %.2e, "
           "nat %.3e, dyn %.3e, nat + dyn %.3e\n",
           name, tol, info.iterations, info.refactorizations, info.converged ? "converged" : "not converged", info.beta, secs,
           info.residual_primal, info.residual_dual, *nat, *dyn, *nat + *dyn);
  }
  free(v); free(vf); free(r);
  sg_solver_destroy(&s);
  sg_problem_destroy(&p);
  sg_fclib_map_free(&map);
  sg_fclib_free(&fp);
  return e;
}

int main(int argc, char **argv) {
  fclib_test_init(&argc, &argv);
  if (!fclib_dir_present(argc, argv)) return fclib_test_finish(SG_TEST_SKIP);
  const char *dir = argv[1];
  const char *names[3] = {"Box_Stacks-i0122-82-5.hdf5", "spheres-in-a-box-98-i10000-256-10.hdf5", "CubeH8.hdf5"};
  for (int k = 0; k < 3; ++k) {
    double nat = INFINITY, dyn = INFINITY;
    CHECK_OK(solve(dir, names[k], 1e-12, 200, &nat, &dyn));
    CHECK(nat + dyn <= 1e-8);
  }
  return fclib_test_finish(sg_test_exit());
}
