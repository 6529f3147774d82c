/* Serial HDF5 files written through memory (io_internal.h, sg_h5_mem_*): the FCLIB writers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "io/io_internal.h"

/* The core driver grows its image by this much at a time. */
#define MEM_INCREMENT (1 << 20)

static hid_t mem_fapl(void) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl >= 0 && H5Pset_fapl_core(fapl, MEM_INCREMENT, 0) < 0) H5Pclose(fapl), fapl = H5I_INVALID_HID;
  return fapl;
}

sg_err sg_h5_mem_create(const char *name, const char *shown, hid_t *file) {
  sg_h5_quiet();
  hid_t fapl = mem_fapl();
  *file = fapl >= 0 ? H5Fcreate(name, H5F_ACC_EXCL, H5P_DEFAULT, fapl) : H5I_INVALID_HID;
  if (fapl >= 0) H5Pclose(fapl);
  return *file >= 0 ? SG_OK : sg_error_set(SG_ERR_LIB, "cannot write %s: cannot make it in memory", shown);
}

/* The whole file at path, read into a new buffer. */
static sg_err slurp(const char *path, const char *shown, void **buf, size_t *len) {
  FILE *f = fopen(path, "rb");
  struct stat st;
  *buf = NULL;
  if (!f || fstat(fileno(f), &st) != 0 || st.st_size <= 0) {
    if (f) fclose(f);
    return sg_error_set(SG_ERR_IO, "cannot write %s: cannot read %s", shown, path);
  }
  *len = (size_t)st.st_size;
  *buf = malloc(*len);
  int ok = *buf && fread(*buf, 1, *len, f) == *len;
  fclose(f);
  if (!ok) {
    free(*buf);
    *buf = NULL;
    return sg_error_set(SG_ERR_IO, "cannot write %s: cannot read %s", shown, path);
  }
  return SG_OK;
}

sg_err sg_h5_mem_open(const char *path, const char *name, const char *shown, hid_t *file) {
  *file = H5I_INVALID_HID;
  void *buf = NULL;
  size_t len = 0;
  SG_CHECK(slurp(path, shown, &buf, &len));
  sg_h5_quiet();
  hid_t fapl = mem_fapl(); /* the image is copied into the list, and from it into the open file */
  if (fapl >= 0 && H5Pset_file_image(fapl, buf, len) >= 0) *file = H5Fopen(name, H5F_ACC_RDWR, fapl);
  if (fapl >= 0) H5Pclose(fapl);
  free(buf);
  return *file >= 0 ? SG_OK : sg_error_set(SG_ERR_IO, "cannot write %s: HDF5 cannot open a copy of %s", shown, path);
}

sg_err sg_h5_mem_save(hid_t *file, const char *path, sg_err err) {
  void *image = NULL;
  ssize_t len = err || *file < 0 || H5Fflush(*file, H5F_SCOPE_GLOBAL) < 0 ? -1 : H5Fget_file_image(*file, NULL, 0);
  if (len > 0 && (image = malloc((size_t)len)) && H5Fget_file_image(*file, image, (size_t)len) != len) len = -1;
  if (*file >= 0) H5Fclose(*file); /* memory only: nothing left to fail on a disk */
  *file = H5I_INVALID_HID;
  if (!err && (len <= 0 || !image)) err = sg_error_set(SG_ERR_LIB, "cannot write %s: cannot take its bytes from memory", path);
  if (!err) err = sg_fs_write_atomic_local(path, image, (size_t)len);
  free(image);
  return err;
}
