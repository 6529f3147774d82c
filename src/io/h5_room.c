/* Room on disk for the fill HDF5 writes inside a collective call (io_internal.h, sg_h5_room_*).
 * Under MPI-IO, HDF5 1.10 writes the fill of the chunks that a dataset's creation or extension
 * allocates in one collective write followed by a barrier; a rank whose part of that write meets a
 * full disk returns without the barrier, and the others wait in it for ever. Reserving the bytes
 * beforehand (rank 0, agreed) turns a full disk into an error that every rank sees before the call. */
#define _GNU_SOURCE /* fallocate, FALLOC_FL_KEEP_SIZE */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "io/io_internal.h"

/* Besides the chunks, HDF5 allocates the call's metadata (object header, chunk index nodes,
 * aggregator blocks) before them: a margin over the chunks' bytes. */
#define ROOM_MARGIN (64u << 10)

unsigned long long sg_h5_room_create(int rank, const hsize_t *dims, const hsize_t *chunk, hid_t ftype) {
  if (!chunk) return 0; /* contiguous datasets of ours have no fill */
  unsigned long long bytes = H5Tget_size(ftype);
  for (int k = 0; k < rank; ++k) bytes *= (dims[k] + chunk[k] - 1) / chunk[k] * chunk[k]; /* whole chunks */
  return bytes;
}

unsigned long long sg_h5_room_extend(hid_t dset, int axis, hsize_t n) {
  hsize_t dims[H5S_MAX_RANK], grown[H5S_MAX_RANK], chunk[H5S_MAX_RANK];
  hid_t dcpl = H5Dget_create_plist(dset), space = H5Dget_space(dset), type = H5Dget_type(dset);
  H5D_fill_time_t when = H5D_FILL_TIME_NEVER;
  int rank = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
  unsigned long long bytes = 0;
  /* an error here leaves the reservation at 0: the extension itself then reports it */
  if (rank > axis && dcpl >= 0 && type >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED &&
      H5Pget_chunk(dcpl, rank, chunk) == rank && H5Pget_fill_time(dcpl, &when) >= 0 && when != H5D_FILL_TIME_NEVER &&
      n > dims[axis]) {
    memcpy(grown, dims, (size_t)rank * sizeof *dims);
    grown[axis] = n;
    bytes = sg_h5_room_create(rank, grown, chunk, type) - sg_h5_room_create(rank, dims, chunk, type);
  }
  sg_h5_close(&type);
  sg_h5_close(&space);
  sg_h5_close(&dcpl);
  return bytes;
}

/* Reserve `len` bytes past the end of the file on disk, keeping the file's size: 0, or an errno.
 * ENOSPC when the disk is short; a file system without fallocate is asked for its free space instead. */
static int reserve(const char *tmp, unsigned long long len) {
  int fd = open(tmp, O_WRONLY);
  if (fd < 0) return errno;
  struct stat st;
  int e = fstat(fd, &st) != 0 ? errno : 0;
  if (!e && fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, (off_t)len) != 0) {
    e = errno;
    struct statvfs vfs;
    if ((e == EOPNOTSUPP || e == ENOSYS || e == EINVAL) && fstatvfs(fd, &vfs) == 0)
      e = (unsigned long long)vfs.f_bavail * vfs.f_frsize < len ? ENOSPC : 0;
  }
  close(fd);
  return e;
}

sg_err sg_h5_room_reserve(MPI_Comm comm, hid_t file, const char *tmp, const char *shown, const char *name,
                          unsigned long long bytes) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  sg_err err = SG_OK;
  size_t max_size = 0, min_clean = 0, cached = 0;
  int entries = 0;
  /* Metadata HDF5 allocated and has not written yet lies beyond the end of the file; its cache holds
   * it (with clean entries: a bound from above). HDF5 does not give its end of allocation under MPI-IO. */
  if (bytes > 0 && rank == 0 && H5Fget_mdc_size(file, &max_size, &min_clean, &cached, &entries) >= 0) {
    int e = reserve(tmp, bytes + cached + ROOM_MARGIN);
    if (e == ENOSPC || e == EDQUOT)
      err = sg_error_set(SG_ERR_IO, "cannot write %s: %s (reserving %llu bytes for dataset %s)", shown, strerror(e), bytes,
                         name);
  }
  return sg_error_collective(comm, err);
}

void sg_h5_room_release(MPI_Comm comm, const char *tmp) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  struct stat st;
  /* truncating to its own size frees the reserved blocks past the end; a failure only wastes them */
  if (rank == 0 && stat(tmp, &st) == 0 && truncate(tmp, st.st_size) != 0) {
  }
}
