/* Shared by the FCLIB tests: PETSc/MPI set-up, the folder of shipped problems (argv[1]; without it
 * the test is skipped, exit code 77, on a developer's machine, and fails under CI, where a missing
 * folder means the tests did not run) and file names inside it. */
#ifndef SG_FCLIB_TEST_H
#define SG_FCLIB_TEST_H
#include <petscsys.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include "signorini/fclib.h"
#include "signorini/solver.h"
#include "test_util.h"

#define SG_TEST_SKIP 77

static inline void fclib_test_init(int *argc, char ***argv) {
  PetscInitialize(argc, argv, NULL, NULL);
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
}

static inline int fclib_test_finish(int code) {
  PetscPopErrorHandler();
  PetscFinalize();
  return code;
}

/* 0 when the folder of shipped FCLIB problems is there; else the exit code: a failure when the
 * environment variable CI is set (as CI sets it), a skip otherwise. */
static inline int fclib_dir_missing(int argc, char **argv) {
  struct stat st;
  if (argc >= 2 && stat(argv[1], &st) == 0 && S_ISDIR(st.st_mode)) return 0;
  const char *ci = getenv("CI");
  int required = ci && ci[0];
  printf("%s: ../shared/fclib absent (%s)\n", required ? "FAILED (CI is set)" : "skipped",
         argc < 2 ? "no folder given" : argv[1]);
  return required ? 1 : SG_TEST_SKIP;
}

static inline const char *fclib_path(const char *dir, const char *name) {
  static char buf[4][1024];
  static int next;
  char *b = buf[next++ % 4];
  snprintf(b, 1024, "%s/%s", dir, name);
  return b;
}
/* Solve problem `name` of dir with `solver` from a cold start (v = 0, r = 0) and measure Siconos's
 * nat and dyn; prints iterations (and refactorizations: CANAL's Newton steps), time, residuals.
 * Returns the solver's error code. */
static inline int fclib_solve(const char *solver, const char *dir, const char *name, double tol, int max_it, double *nat, double *dyn, int *its,
                 double *secs) {
  sg_fclib_problem fp;
  int e = sg_fclib_read(fclib_path(dir, name), &fp);
  CHECK_OK(e);
  if (e) return e;
  sg_problem p = {0};
  sg_fclib_map map;
  CHECK_OK(e = sg_fclib_to_problem(&fp, &p, &map));
  if (e) { sg_fclib_free(&fp); return e; }
  sg_solver *s = NULL;
  CHECK_OK(sg_solver_create(MPI_COMM_SELF, solver, &s));
  CHECK_OK(sg_solver_set_from_options(s));
  s->tol = tol;
  s->max_it = max_it;
  double *v = calloc((size_t)fp.n, sizeof *v), *vf = calloc((size_t)fp.n, sizeof *vf), *r = calloc((size_t)fp.m, sizeof *r);
  sg_solve_info info;
  double t0 = MPI_Wtime();
  e = sg_solver_solve(s, &p, v, r, &info);
  *secs = MPI_Wtime() - t0;
  *its = info.iterations;
  if (!e) {
    sg_fclib_map_to_fclib(&map, v, vf);
    CHECK_OK(sg_fclib_residuals(&fp, vf, r, nat, dyn, NULL));
    printf("%s, %s: tol %g: %d iterations, %d refactorizations (%s), %.4f s, nat %.3e, dyn %.3e, nat + dyn %.3e\n", solver,
           name, tol, info.iterations, info.refactorizations, info.converged ? "converged" : "not converged", *secs, *nat, *dyn,
           *nat + *dyn);
  }
  free(v); free(vf); free(r);
  sg_solver_destroy(&s);
  sg_problem_destroy(&p);
  sg_fclib_map_free(&map);
  sg_fclib_free(&fp);
  return e;
}

#endif
