/* signorini info file.h5 */
#include "commands.h"
#include "signorini/io.h"
#include "signorini/options.h"

sg_err sg_cmd_info(MPI_Comm comm, const char *path) {
  SG_CHECK(sg_opt_check_unused());
  if (!path) return sg_error_set(SG_ERR_ARG, "info: missing file name");
  return sg_file_info(comm, path, stdout);
}
