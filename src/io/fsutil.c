/* File-system steps around the HDF5 files: temporary names, early checks with plain reasons,
 * rename and removal. Rank 0 touches the file system; every rank gets the same result. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "signorini/io.h"

static int comm_rank(MPI_Comm comm) {
  int r;
  MPI_Comm_rank(comm, &r);
  return r;
}

char *sg_fs_tmp_name(MPI_Comm comm, const char *path, const char *suffix) {
  /* Rank 0's pid, so that every rank opens the same name. */
  long pid = (long)getpid();
  MPI_Bcast(&pid, 1, MPI_LONG, 0, comm);
  size_t len = strlen(path) + strlen(suffix) + 32;
  char *name = malloc(len);
  if (!name) {
    sg_error_set(SG_ERR_MEM, "out of memory for a temporary name beside %s", path);
    return NULL;
  }
  snprintf(name, len, "%s%s.%ld", path, suffix, pid);
  return name;
}

/* The directory part of path ("." when there is none). */
static void dir_of(const char *path, char *dir, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, len, ".");
  else if (slash == path) snprintf(dir, len, "/");
  else snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Open MPI's MPI-IO overflows a buffer on longer file names (and crashes): refuse them first. */
#define SG_MPIIO_PATH_MAX 200
static sg_err check_length(const char *path) {
  size_t len = strlen(path);
  if (len <= SG_MPIIO_PATH_MAX) return SG_OK;
  return sg_error_set(SG_ERR_IO, "file name %.40s...%s is %zu characters long, more than the %d that MPI-IO handles (use a shorter or relative path)",
                      path, path + len - 20, len, SG_MPIIO_PATH_MAX);
}

sg_err sg_fs_check_dir(MPI_Comm comm, const char *path) {
  sg_err err = SG_OK;
  if (comm_rank(comm) == 0 && (err = check_length(path))) return sg_error_collective(comm, err);
  if (comm_rank(comm) == 0) {
    char dir[4096];
    struct stat st;
    dir_of(path, dir, sizeof dir);
    if (stat(dir, &st) != 0)
      err = sg_error_set(SG_ERR_IO, "cannot write %s: directory %s does not exist", path, dir);
    else if (!S_ISDIR(st.st_mode))
      err = sg_error_set(SG_ERR_IO, "cannot write %s: %s is not a directory", path, dir);
    else if (access(dir, W_OK | X_OK) != 0)
      err = sg_error_set(SG_ERR_IO, "cannot write %s: directory %s is not writable", path, dir);
    else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
      err = sg_error_set(SG_ERR_IO, "cannot write %s: it is a directory", path);
  }
  return sg_error_collective(comm, err);
}

sg_err sg_fs_readable_file(const char *path) {
  struct stat st;
  SG_CHECK(check_length(path));
  if (stat(path, &st) != 0)
    return sg_error_set(SG_ERR_IO, "cannot open %s: %s", path, errno == ENOENT ? "no such file" : strerror(errno));
  if (S_ISDIR(st.st_mode)) return sg_error_set(SG_ERR_IO, "cannot open %s: it is a directory", path);
  /* a FIFO, a device or a socket would block the open or the reads */
  if (!S_ISREG(st.st_mode)) return sg_error_set(SG_ERR_IO, "cannot open %s: not a regular file", path);
  if (access(path, R_OK) != 0) return sg_error_set(SG_ERR_IO, "cannot open %s: permission denied", path);
  return SG_OK;
}

sg_err sg_fs_check_readable(MPI_Comm comm, const char *path) {
  return sg_error_collective(comm, comm_rank(comm) == 0 ? sg_fs_readable_file(path) : SG_OK);
}

sg_err sg_fs_rename(MPI_Comm comm, const char *from, const char *to) {
  sg_err err = SG_OK;
  if (comm_rank(comm) == 0 && rename(from, to) != 0)
    err = sg_error_set(SG_ERR_IO, "cannot write %s: renaming %s failed: %s", to, from, strerror(errno));
  return sg_error_collective(comm, err);
}

void sg_fs_remove(MPI_Comm comm, const char *path) {
  if (comm_rank(comm) == 0) unlink(path);
  /* Nobody goes on (and perhaps re-creates the name) before it is gone. */
  MPI_Barrier(comm);
}

sg_err sg_fs_write_atomic_local(const char *path, const char *text, size_t len) {
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (!tmp) return sg_error_set(SG_ERR_MEM, "out of memory writing %s", path);
  snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
  sg_err err = SG_OK;
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    err = sg_error_set(SG_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  } else {
    int bad = fwrite(text, 1, len, f) != len;
    bad |= fclose(f) != 0;
    if (bad) err = sg_error_set(SG_ERR_IO, "cannot write %s: short write (disk full?)", path);
    else if (rename(tmp, path) != 0)
      err = sg_error_set(SG_ERR_IO, "cannot write %s: rename failed: %s", path, strerror(errno));
    if (err) unlink(tmp);
  }
  free(tmp);
  return err;
}

/* path with its directory resolved (the file itself may not exist yet); 0 when the directory does
 * not resolve either. */
static int resolved(const char *path, char *out, size_t len) {
  const char *slash = strrchr(path, '/');
  char dir[4096], real[4096];
  dir_of(path, dir, sizeof dir);
  if (!realpath(dir, real)) return 0;
  snprintf(out, len, "%s/%s", real, slash ? slash + 1 : path);
  return 1;
}

sg_err sg_output_check_path(MPI_Comm comm, const char *path) { return sg_fs_check_dir(comm, path); }

int sg_fs_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char ra[8200], rb[8200];
  if (resolved(a, ra, sizeof ra) && resolved(b, rb, sizeof rb)) return !strcmp(ra, rb);
  return !strcmp(a, b);
}
