/* Shared by the FCLIB tests: PETSc/MPI set-up, the folder of shipped problems (argv[1]; the test is
 * skipped, exit code 77, when it is absent) and file names inside it. */
#ifndef SG_FCLIB_TEST_H
#define SG_FCLIB_TEST_H
#include <petscsys.h>
#include <stdio.h>
#include <sys/stat.h>
#include "signorini/fclib.h"
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

/* 1 when the folder of shipped FCLIB problems is there. */
static inline int fclib_dir_present(int argc, char **argv) {
  struct stat st;
  if (argc < 2 || stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
    printf("skipped: ../shared/fclib absent (%s)\n", argc < 2 ? "no folder given" : argv[1]);
    return 0;
  }
  return 1;
}

static inline const char *fclib_path(const char *dir, const char *name) {
  static char buf[4][1024];
  static int next;
  char *b = buf[next++ % 4];
  snprintf(b, 1024, "%s/%s", dir, name);
  return b;
}
#endif
