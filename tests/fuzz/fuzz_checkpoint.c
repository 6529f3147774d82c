/* Fuzz target: the checkpoint reader. Each input is a checkpoint file (HDF5), summarized as `info`
 * does (sg_file_info) and restored as `run -restart` does (sg_checkpoint_read) into the scene it
 * was written for. A restart needs that scene: SG_FUZZ_SCENE names the scene files of the seed
 * checkpoints (colon-separated, tests/fuzz/make_seeds.sh writes them beside the corpus), each
 * read once here; a checkpoint is tried against each scene until one is not refused as another
 * scene's (the only refusal of sg_checkpoint_read with SG_ERR_ARG). The checkpoint goes through the
 * readers' _fapl entry points with its bytes in memory (read_fapl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_target.h"
#include "io/read_fapl.h"

#define MAX_SCENES 8
static sg_scene g_scene[MAX_SCENES];
static char g_scene_path[MAX_SCENES][1024];
static int g_n_scenes;
static hid_t g_serial = H5I_INVALID_HID; /* the scenes, trusted files, read without MPI-IO */

static void read_scene(int k) {
  if (sg_scene_read_block_fapl(MPI_COMM_WORLD, g_scene_path[k], g_serial, &g_scene[k])) {
    fprintf(stderr, "fuzz: cannot read the scene %s: %s\n", g_scene_path[k], sg_error_message());
    exit(1);
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  sg_fuzz_mpi_init();
  if ((g_serial = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_fapl_sec2(g_serial) < 0) {
    fprintf(stderr, "fuzz: cannot make a file access list\n");
    exit(1);
  }
  const char *list = getenv("SG_FUZZ_SCENE");
  if (!list || !list[0]) {
    fprintf(stderr, "fuzz: set SG_FUZZ_SCENE to the scene file(s) of the seed checkpoints (a:b:c)\n");
    exit(1);
  }
  char buf[8192];
  snprintf(buf, sizeof buf, "%s", list);
  char *save = NULL;
  for (char *p = strtok_r(buf, ":", &save); p && g_n_scenes < MAX_SCENES; p = strtok_r(NULL, ":", &save)) {
    snprintf(g_scene_path[g_n_scenes], sizeof g_scene_path[0], "%s", p);
    read_scene(g_n_scenes++);
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = sg_fuzz_write_file("ckpt.h5", data, size);
  hid_t access = sg_fuzz_file_access();
  sg_fuzz_check_call("sg_file_info", sg_file_info_fapl(MPI_COMM_WORLD, path, access, NULL));
  for (int k = 0; k < g_n_scenes; ++k) {
    sg_checkpoint_info info;
    sg_err err = sg_checkpoint_read_fapl(MPI_COMM_WORLD, path, access, g_scene_path[k], &g_scene[k], &info);
    sg_fuzz_check_call("sg_checkpoint_read", err);
    if (err == SG_ERR_ARG) continue;
    if (!err) { /* the scene became the checkpoint's: back to the file's for the next input */
      sg_checkpoint_info_free(&info);
      sg_scene_destroy(&g_scene[k]);
      read_scene(k);
    }
    break;
  }
  return 0;
}
