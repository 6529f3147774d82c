/* The `signorini` command line: generate | run | info (see ../shared GUIDE section 3, README). */
#include <petscsys.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "signorini/error.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: signorini generate <incline|stack|pile> [options] -o scene.h5\n"
          "       mpirun -np P signorini run scene.h5 -o out.h5 [options]\n"
          "       signorini info file.h5\n"
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
  for (; k < argc; ++k) rest[nrest++] = argv[k];
  rest[nrest] = NULL;
  char **pargv = rest;

  if (PetscInitialize(&nrest, &pargv, NULL, NULL)) {
    fprintf(stderr, "signorini: error: cannot initialize PETSc/MPI\n");
    return 1;
  }
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL); /* our own one-line messages instead */
  int rank;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  sg_err err = SG_OK;
  if (!command) {
    if (rank == 0) usage(stderr);
    err = sg_error_set(SG_ERR_ARG, "missing command");
  } else if (!strcmp(command, "generate")) {
    err = sg_cmd_generate(PETSC_COMM_WORLD, target);
  } else if (!strcmp(command, "run")) {
    err = sg_cmd_run(PETSC_COMM_WORLD, target);
  } else if (!strcmp(command, "info")) {
    err = sg_cmd_info(PETSC_COMM_WORLD, target);
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
  return err ? 1 : 0;
}
