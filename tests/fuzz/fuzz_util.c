/* Helpers the fuzz targets share (fuzz_target.h): MPI and PETSc once per process, the scratch
 * file each input goes through, and the checks made after every reader call. */
#define _GNU_SOURCE /* mkdtemp under strict C17 */
#include <hdf5.h>
#include <mpi.h>
#include <petscsys.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz_target.h"

static char g_dir[256];
static char g_path[320];
static long long g_baseline = -1; /* open HDF5 identifiers after HDF5's own start-up */
static hid_t g_access = H5I_INVALID_HID; /* the current input's in-memory file access list */

static long long open_ids(void);

static void remove_scratch(void) {
  if (g_access >= 0) H5Pclose(g_access);
  if (g_path[0]) unlink(g_path);
  if (g_dir[0]) rmdir(g_dir);
}

/* Under ASan, allocations made between the two calls on this thread are never reported as leaks. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
static void lsan_ignore_start(void) { __lsan_disable(); }
static void lsan_ignore_end(void) { __lsan_enable(); }
#else
static void lsan_ignore_start(void) {}
static void lsan_ignore_end(void) {}
#endif

static void finalize_mpi(void) {
  int done = 0;
  MPI_Finalized(&done);
  lsan_ignore_start(); /* nor what it leaves from its shutdown */
  if (!done) MPI_Finalize();
  lsan_ignore_end();
}

static void finalize_petsc(void) { PetscFinalize(); }

void sg_fuzz_mpi_init(void) {
  int up = 0;
  MPI_Initialized(&up);
  if (up) return;
  int argc = 0;
  char **argv = NULL;
  lsan_ignore_start(); /* what Open MPI keeps from its start-up is not the readers' */
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "fuzz: cannot initialize MPI\n");
    exit(1);
  }
  lsan_ignore_end();
  atexit(finalize_mpi);
  /* The readers print nothing of HDF5's; the stack dumps would only slow the run down. */
  H5open();
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  g_baseline = open_ids();
}

void sg_fuzz_petsc_init(void) {
  sg_fuzz_mpi_init();
  PetscBool up = PETSC_FALSE;
  PetscInitialized(&up);
  if (up) return;
  /* As main.c: no error dumps, errors come back as codes. No signal handler of PETSc's, so that a
   * crash reaches the driver (or the sanitizer) that saves the input. */
  PetscErrorPrintf = PetscErrorPrintfNone;
  PetscOptionsSetValue(NULL, "-no_signal_handler", NULL);
  if (PetscInitializeNoArguments()) {
    fprintf(stderr, "fuzz: cannot initialize PETSc\n");
    exit(1);
  }
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  atexit(finalize_petsc); /* runs before finalize_mpi (atexit order is last in, first out) */
}

/* Memory rather than a disk: each input is written once and read several times. */
static const char *scratch_parent(void) {
  const char *tmp = getenv("TMPDIR");
  struct stat st;
  if (tmp && tmp[0]) return tmp;
  return stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

/* The core driver reads the whole file into memory when it opens it, with no backing store
 * (nothing written back). Not a file image (H5Pset_file_image): HDF5 1.10's core driver refuses
 * an image whose name exists on disk, and the readers' raw-byte checks read that name. */
static void make_access(void) {
  g_access = H5Pcreate(H5P_FILE_ACCESS);
  if (g_access < 0 || H5Pset_fapl_core(g_access, 1 << 16, 0) < 0) {
    fprintf(stderr, "fuzz: cannot make the in-memory file access list\n");
    exit(1);
  }
  g_baseline = open_ids(); /* this list is the harness's, not a reader's leak */
}

hid_t sg_fuzz_file_access(void) { return g_access; }

const char *sg_fuzz_write_file(const char *name, const uint8_t *data, size_t size) {
  if (!g_dir[0]) {
    snprintf(g_dir, sizeof g_dir, "%s/sg_fuzz_XXXXXX", scratch_parent());
    if (!mkdtemp(g_dir)) {
      perror("fuzz: mkdtemp");
      exit(1);
    }
    atexit(remove_scratch);
  }
  if (g_path[0] && strcmp(strrchr(g_path, '/') + 1, name) != 0) unlink(g_path);
  snprintf(g_path, sizeof g_path, "%s/%s", g_dir, name);
  FILE *f = fopen(g_path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    perror("fuzz: writing the scratch file");
    exit(1);
  }
  if (g_access < 0) make_access();
  return g_path;
}

void sg_fuzz_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fuzz: FINDING: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  abort();
}

/* Open HDF5 identifiers of the kinds a reader creates and must close. Files, groups, datasets
 * and attributes hold the file open (a leaked one keeps serving its stale metadata to the next
 * H5Fopen of the same name); datatypes, dataspaces and property lists are memory. */
static long long open_ids(void) {
  long long n = (long long)H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  static const H5I_type_t kinds[] = {H5I_DATATYPE, H5I_DATASPACE, H5I_GENPROP_LST};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
    hsize_t m = 0;
    if (H5Inmembers(kinds[k], &m) >= 0) n += (long long)m;
  }
  return n;
}

void sg_fuzz_check_call(const char *what, sg_err err) {
  if (err && !strcmp(sg_error_message(), "unknown error"))
    sg_fuzz_fail("%s returned error %d without a message", what, err);
  long long n = open_ids();
  if (n > g_baseline) sg_fuzz_fail("%s left %lld HDF5 objects open (error %d: %s)", what, n - g_baseline, err,
                                 err ? sg_error_message() : "none");
  sg_error_clear();
}
