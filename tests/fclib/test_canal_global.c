/* CANAL on the shipped global FCLIB problems from a cold start (v = 0, r = 0), measured with Siconos's
 * scale-invariant nat + dyn (README "Accuracy measure"). Acceptance: nat + dyn <= 1e-8 on every global
 * problem: Box_Stacks (75 bodies, 82 contacts), spheres-in-a-box (98 spheres, 256 contacts, more
 * contact rows than unknowns) and CubeH8 (one subsystem of 81 unknowns, M not diagonal). Each is
 * solved with -solver_tol 1e-12 (theta_p + theta_d, absolute) and at most 200 AL loops; the
 * iterations, the Newton steps and the time are printed. Measured (Release, one core, default
 * CG + block Jacobi with a direct nd-ordered Cholesky block): Box_Stacks 10 AL loops, 16 Newton
 * steps, nat + dyn 6.5e-11, 8 ms; spheres-in-a-box 30 loops, 288 Newton steps, 8.6e-11, 0.8 s;
 * CubeH8 4 loops, 4 Newton steps, 1.7e-10, 30 ms. */
#include <stdlib.h>
#include <string.h>
#include "fclib_test.h"
#include "signorini/solver.h"

int main(int argc, char **argv) {
  fclib_test_init(&argc, &argv);
  int missing = fclib_dir_missing(argc, argv);
  if (missing) return fclib_test_finish(missing);
  const char *dir = argv[1];
  const char *names[3] = {"Box_Stacks-i0122-82-5.hdf5", "spheres-in-a-box-98-i10000-256-10.hdf5", "CubeH8.hdf5"};
  for (int k = 0; k < 3; ++k) {
    double nat = INFINITY, dyn = INFINITY, secs = 0;
    int its = 0;
    CHECK_OK(fclib_solve("canal", dir, names[k], 1e-12, 200, &nat, &dyn, &its, &secs));
    CHECK(nat + dyn <= 1e-8);
  }
  return fclib_test_finish(sg_test_exit());
}
