/* Fuzz target: the scene reader. Each input is a scene file (HDF5), read the three ways the
 * commands read one: whole on every rank (sg_scene_read), in blocks as `run` and `partition` do
 * (sg_scene_read_block), and summarized as `info` does (sg_file_info), each through its _fapl
 * entry point with the bytes in memory (read_fapl.h). Seeds: scenes that `signorini generate`
 * writes (tests/fuzz/make_seeds.sh). */
#include <stdio.h>
#include "fuzz_target.h"
#include "io/read_fapl.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  sg_fuzz_mpi_init();
  return 0;
}

/* The call's message when it refused the file ("" when it accepted it), kept for a finding: the
 * check clears it. */
static void refusal(sg_err e, char *why, size_t len) { snprintf(why, len, "%s", e ? sg_error_message() : ""); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = sg_fuzz_write_file("scene.h5", data, size);
  sg_scene whole, block;
  char why1[512], why2[512];
  hid_t access = sg_fuzz_file_access();
  sg_err e1 = sg_scene_read_fapl(MPI_COMM_WORLD, path, access, &whole);
  refusal(e1, why1, sizeof why1);
  sg_fuzz_check_call("sg_scene_read", e1);
  if (!e1) sg_scene_destroy(&whole);
  sg_err e2 = sg_scene_read_block_fapl(MPI_COMM_WORLD, path, access, &block);
  refusal(e2, why2, sizeof why2);
  sg_fuzz_check_call("sg_scene_read_block", e2);
  if (!e2) sg_scene_destroy(&block);
  /* The block reader promises the whole reader's validation (io.h): on one rank they must agree. */
  if (!e1 != !e2)
    sg_fuzz_fail("sg_scene_read %s the file%s%s and sg_scene_read_block %s it%s%s", e1 ? "refused" : "accepted",
                 e1 ? ": " : "", why1, e2 ? "refused" : "accepted", e2 ? ": " : "", why2);
  sg_fuzz_check_call("sg_file_info", sg_file_info_fapl(MPI_COMM_WORLD, path, access, NULL));
  return 0;
}
