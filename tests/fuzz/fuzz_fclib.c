/* Fuzz target: the FCLIB reader. Each input is an FCLIB problem file (HDF5), read as `signorini
 * fclib` reads it (sg_fclib_read, through its _fapl entry point with the bytes in memory), whose
 * errors must name the file; a problem it accepts goes on
 * to what the command does next with the indices and extents it was given: a global one to the
 * solvers' form (sg_fclib_to_problem) and to its scaled copy (sg_fclib_normalize), a small local
 * one to its global equivalent (sg_fclib_local_to_global, dense and cubic, so not for large ones),
 * and both through the residuals (sg_fclib_residuals, every matrix-vector product). Seeds: the
 * problems `run -fclib_dump_step` writes and those of ../shared/fclib. */
#include <stdlib.h>
#include <string.h>
#include "fuzz_target.h"
#include "io/read_fapl.h"

/* local_to_global factors a dense m x m matrix: above this m one input would take seconds. */
#define LOCAL_MAX_M 120

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  sg_fuzz_mpi_init();
  return 0;
}

static void use_global(const sg_fclib_problem *fp) {
  sg_problem p = {0};
  sg_fclib_map map = {0};
  sg_err err = sg_fclib_to_problem(fp, &p, &map);
  sg_fuzz_check_call("sg_fclib_to_problem", err);
  sg_problem_destroy(&p);
  sg_fclib_map_free(&map);
  sg_fclib_problem scaled;
  sg_fclib_scaling sc;
  err = sg_fclib_normalize(fp, &scaled, &sc);
  sg_fuzz_check_call("sg_fclib_normalize", err);
  if (!err && sc.applied) sg_fclib_free(&scaled);
}

static void use_local(const sg_fclib_problem *fp) {
  if (fp->m > LOCAL_MAX_M) return;
  sg_fclib_problem glob;
  double eps = 0, asym = 0;
  sg_err err = sg_fclib_local_to_global(fp, 1e-12, &glob, &eps, &asym);
  sg_fuzz_check_call("sg_fclib_local_to_global", err);
  if (!err) sg_fclib_free(&glob);
}

/* The residuals of v = 0, r = 0: every stored index is used once in each product. */
static void residuals(const sg_fclib_problem *fp) {
  double *v = calloc((size_t)fp->n + 1, sizeof *v), *r = calloc((size_t)fp->m + 1, sizeof *r);
  double *u = calloc((size_t)fp->m + 1, sizeof *u), nat = 0, dyn = 0;
  if (v && r && u) sg_fuzz_check_call("sg_fclib_residuals", sg_fclib_residuals(fp, v, r, &nat, &dyn, u));
  free(v);
  free(r);
  free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = sg_fuzz_write_file("problem.hdf5", data, size);
  sg_fclib_problem fp;
  sg_err err = sg_fclib_read_fapl(path, sg_fuzz_file_access(), &fp);
  /* `signorini fclib` prints the reader's message as it is: it must name the file */
  if (err && strcmp(sg_error_message(), "unknown error") && !strstr(sg_error_message(), path))
    sg_fuzz_fail("sg_fclib_read: an error that does not name the file: %s", sg_error_message());
  sg_fuzz_check_call("sg_fclib_read", err);
  if (err) return 0;
  if (fp.local) use_local(&fp);
  else use_global(&fp);
  residuals(&fp);
  sg_fclib_free(&fp);
  return 0;
}
