/* The subcommands of the `signorini` program. Each runs after PetscInitialize, with the
 * positional argument (scenario or file) already taken out of the option list. */
#ifndef SG_COMMANDS_H
#define SG_COMMANDS_H
#include <mpi.h>
#include "signorini/error.h"
sg_err sg_cmd_generate(MPI_Comm comm, const char *scenario);
sg_err sg_cmd_run(MPI_Comm comm, const char *scene_path);
sg_err sg_cmd_info(MPI_Comm comm, const char *path);
sg_err sg_cmd_partition(MPI_Comm comm, const char *scene_path);
sg_err sg_cmd_fclib(MPI_Comm comm, const char *path);
#endif
