/* Fuzz target: the options parser. Each input is the text of an -options_file, taken the way
 * main.c takes it: checked first (sg_options_file_check), and when the check accepts it, read
 * into PETSc's options database as PETSc reads the file (PetscOptionsInsertFile), then parsed by
 * the project's option readers (src/core/options.c) through the options a run reads: the step's
 * (sg_step_params_from_options), the chosen solver's (sg_solver_set_from_options), -fclib_dump_*,
 * the size distribution's, and the unknown-option check.
 * The promise checked besides crashes: a file the check accepts is one PETSc reads without error.
 * PETSc reads the file on rank 0 alone and stops there on a line it rejects while the other ranks
 * wait (the hang of issue 17); the check exists so that this never happens.
 * Seeds: the options files of the tests and a few of every kind of line (make_seeds.sh). */
#include <petscsys.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/fclib_dump.h"
#include "app/options_file.h"
#include "fuzz_target.h"
#include "signorini/options.h"
#include "signorini/size_dist.h"
#include "signorini/solver.h"
#include "signorini/step.h"

static sg_scene g_scene; /* a sphere on a plane: what the step parameters are scaled by */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  sg_fuzz_petsc_init();
  const double ball[3] = {0.01, 0, 0}, plane[3] = {0, 0, 0}, up[3] = {0, 0, 0.02}, ground[3] = {0, 0, 0};
  const double q[4] = {1, 0, 0, 0}, v[6] = {0};
  if (sg_scene_create(&g_scene, 2, 1) || sg_scene_add_body(&g_scene, SG_SHAPE_SPHERE, ball, 0, 0, 1000, up, q, v, NULL) ||
      sg_scene_add_body(&g_scene, SG_SHAPE_PLANE, plane, 0, 1, 0, ground, q, v, NULL) || sg_scene_update_mass(&g_scene)) {
    fprintf(stderr, "fuzz: cannot make the scene: %s\n", sg_error_message());
    exit(1);
  }
  g_scene.friction[0] = 0.5;
  g_scene.gravity[2] = -9.81;
  g_scene.next_gid = 2;
  return 0;
}

/* The run's options, as cmd_run.c reads them (the first error stops, as there). */
static sg_err read_run_options(void) {
  char solver_names[256], solver[64], out[4096];
  double t_final;
  long every;
  sg_solver_list(solver_names, sizeof solver_names);
  SG_CHECK(sg_opt_string("-o", "out.h5", "trajectory output", out, sizeof out, NULL));
  SG_CHECK(sg_opt_choice("-solver", "subadmm", solver_names, "solver", solver, sizeof solver));
  SG_CHECK(sg_opt_real("-t_final", 1.0, 0.0, 1e9, "simulated time (s)", &t_final));
  SG_CHECK(sg_opt_int("-output_every", 4, 1, 1000000000, "write a frame every N steps", &every));
  sg_step_params prm;
  memset(&prm, 0, sizeof prm);
  SG_CHECK(sg_step_params_from_options(MPI_COMM_WORLD, &g_scene, &prm));
  sg_solver *s = NULL;
  SG_CHECK(sg_solver_create(MPI_COMM_WORLD, solver, &s));
  sg_err err = sg_solver_set_from_options(s);
  sg_solver_destroy(&s);
  SG_CHECK(err);
  sg_fclib_dump dump;
  SG_CHECK(sg_fclib_dump_options(&dump, out));
  sg_size_dist sizes;
  SG_CHECK(sg_size_from_options(0.01, &sizes));
  return sg_opt_check_unused();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = sg_fuzz_write_file("run.opts", data, size);
  char why[4200] = "";
  if (!sg_options_file_check(path, why, sizeof why)) {
    if (!why[0] || strpbrk(why, "\n\r")) sg_fuzz_fail("options file refused without a one-line reason: '%s'", why);
    return 0;
  }
  PetscOptionsClear(NULL);
  if (PetscOptionsInsertFile(PETSC_COMM_WORLD, NULL, path, PETSC_TRUE))
    sg_fuzz_fail("sg_options_file_check accepted an options file that PETSc refuses (a hang on several ranks)");
  /* -help would make the readers print their help text for every input */
  PetscOptionsClearValue(NULL, "-help");
  PetscOptionsClearValue(NULL, "-h");
  sg_opt_reset_registry();
  sg_fuzz_check_call("the run's option readers", read_run_options());
  PetscOptionsClear(NULL);
  return 0;
}
