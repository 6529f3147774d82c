/* The `signorini` command line: generate | run | info (see ../shared GUIDE section 3, README). */
#include <petscsys.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "options_file.h"
#include "signorini/error.h"
#include "signorini/options.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: signorini generate <incline|stack|pile> [options] -o scene.h5\n"
          "       mpirun -np P signorini run scene.h5 -o out.h5 [options]\n"
          "       signorini info file.h5\n"
          "       signorini partition scene.h5 -parts P[,P2,...] [-method kway|rb] [-graph proximity|contacts]\n"
          "       signorini fclib problem.hdf5 [-solver subadmm] [-solver_tol T] [-write_solution]\n"
          "Options follow PETSc conventions (-name value, -options_file file); add -help to list them.\n");
}

int main(int argc, char **argv) {
  /* Positional words (command, scenario or file) are taken out before PETSc parses options. */
  const char *command = NULL, *target = NULL;
  char *rest[argc + 1];
  int nrest = 0;
  rest[nrest++] = argv[0];
  int k = 1;
  if (k < argc && argv[k][0] != '-') command = argv[k++];
  if (k < argc && argv[k][0] != '-') target = argv[k++];
  const char *stray = NULL;
  for (; k < argc; ++k) {
    /* a word that is neither an option nor the value right after one is a mistake (a forgotten -o) */
    if (argv[k][0] != '-' && argv[k - 1][0] != '-' && !stray)
      stray = argv[k];
    rest[nrest++] = argv[k];
  }
  rest[nrest] = NULL;
  char **pargv = rest;

  /* PETSc's own error dump (twenty lines) would bury the one-line message: silence it, and check
   * the -options_file arguments ourselves so that the message names the file. */
  PetscErrorPrintf = PetscErrorPrintfNone;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "signorini: error: cannot initialize MPI\n");
    return 1;
  }
  int rank0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank0);
  const char *options_file = NULL;
  for (int a = 1; a + 1 < nrest; ++a)
    if (!strcmp(rest[a], "-options_file")) {
      options_file = rest[a + 1];
      char why[4200] = "";
      int ok = rank0 == 0 ? sg_options_file_check(rest[a + 1], why, sizeof why) : 0;
      MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD); /* PETSc reads it on rank 0: its verdict for all */
      if (!ok) {
        if (rank0 == 0) fprintf(stderr, "signorini: error: %s\n", why);
        MPI_Finalize();
        return 1;
      }
    }
  if (PetscInitialize(&nrest, &pargv, NULL, NULL)) {
    if (rank0 == 0) {
      if (options_file)
        fprintf(stderr, "signorini: error: malformed options file %s (each line: -name [value])\n", options_file);
      else
        fprintf(stderr, "signorini: error: malformed options on the command line\n");
    }
    MPI_Finalize();
    return 1;
  }
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL); /* our own one-line messages instead */
  int rank;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  sg_err err = SG_OK;
  if (stray) {
    err = sg_error_set(SG_ERR_ARG, "unexpected argument '%s' (options start with '-'; the output is -o FILE)", stray);
  } else if (!command && sg_opt_help_requested()) {
    if (rank == 0) usage(stdout);
  } else if (!command) {
    if (rank == 0) usage(stderr);
    err = sg_error_set(SG_ERR_ARG, "missing command");
  } else if (!strcmp(command, "generate")) {
    err = sg_cmd_generate(PETSC_COMM_WORLD, target);
  } else if (!strcmp(command, "run")) {
    err = sg_cmd_run(PETSC_COMM_WORLD, target);
  } else if (!strcmp(command, "info")) {
    err = sg_cmd_info(PETSC_COMM_WORLD, target);
  } else if (!strcmp(command, "partition")) {
    err = sg_cmd_partition(PETSC_COMM_WORLD, target);
  } else if (!strcmp(command, "fclib")) {
    err = sg_cmd_fclib(PETSC_COMM_WORLD, target);
  } else if (!strcmp(command, "help") || !strcmp(command, "-help")) {
    if (rank == 0) usage(stdout);
  } else {
    if (rank == 0) usage(stderr);
    err = sg_error_set(SG_ERR_ARG, "unknown command '%s'", command);
  }
  err = sg_error_collective(PETSC_COMM_WORLD, err);
  if (err && rank == 0) fprintf(stderr, "signorini: error: %s\n", sg_error_message());
  PetscPopErrorHandler();
  PetscFinalize();
  MPI_Finalize();
  return err ? 1 : 0;
}
