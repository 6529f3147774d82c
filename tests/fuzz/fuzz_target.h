/* What a fuzz target is, and the helpers the targets share (fuzz_util.c).
 *
 * A target has libFuzzer's signature, so the same file builds with the project's own driver
 * (fuzz_driver.c, gcc) and with `clang -fsanitize=fuzzer`. It must return 0 for every input: a
 * reader's refusal is the expected outcome of most inputs; what counts as a finding is a crash, a
 * sanitizer report, a hang, or a broken promise the target checks (sg_fuzz_fail: an error without a
 * message, an HDF5 handle left open, a file accepted by one reader and refused by its twin). */
#ifndef SG_FUZZ_TARGET_H
#define SG_FUZZ_TARGET_H
#include <stddef.h>
#include <stdint.h>
#include <hdf5.h>
#include "signorini/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Called once before the first input (both drivers); targets initialize MPI here. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* MPI on one rank, once per process, finalized at exit; HDF5's error printing off. */
void sg_fuzz_mpi_init(void);
/* The same and PETSc (for the options database), finalized at exit. */
void sg_fuzz_petsc_init(void);

/* The path of this process's scratch file named `name` (in a private mkdtemp folder removed at
 * exit: under $TMPDIR, else /dev/shm when it is a folder, else /tmp), holding the bytes
 * data[0..size): readers that take a path get each input through it. */
const char *sg_fuzz_write_file(const char *name, const uint8_t *data, size_t size);
/* An HDF5 file access list for the scratch file, for the readers' _fapl entry points
 * (src/io/read_fapl.h): the core driver, which reads the whole file into memory at the open, so
 * that an input costs one read and no MPI-IO open (the readers' own checks of the raw bytes read
 * the same file). Owned here, made by the first sg_fuzz_write_file, not counted as a leak. */
hid_t sg_fuzz_file_access(void);

/* A broken promise of the code under test: prints "fuzz: FINDING: <what>" and aborts, so that the
 * driver saves the input as a crash. */
void sg_fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The promises every reader call keeps: an error carries a recorded message, and no HDF5 object
 * (file, group, dataset, attribute, datatype) is left open. `what` names the call in a finding. */
void sg_fuzz_check_call(const char *what, sg_err err);
#endif
