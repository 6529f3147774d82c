/* HDF5 plumbing for the io files: property lists, attributes, dataset creation, checked reads
 * and collective row writes by global id. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "io/io_internal.h"

void sg_h5_quiet(void) {
  /* Our messages replace HDF5's error stack dump, which would be printed once per rank. */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

hid_t sg_h5_fapl(MPI_Comm comm) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return fapl;
  if (H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0) {
    H5Pclose(fapl);
    return H5I_INVALID_HID;
  }
  return fapl;
}

hid_t sg_h5_dxpl(void) {
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  if (dxpl < 0) return dxpl;
  if (H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0) {
    H5Pclose(dxpl);
    return H5I_INVALID_HID;
  }
  return dxpl;
}

hid_t sg_h5_read_dxpl(hid_t file) {
  hid_t fapl = H5Fget_access_plist(file);
  int mpi = fapl >= 0 && H5Pget_driver(fapl) == H5FD_MPIO;
  if (fapl >= 0) H5Pclose(fapl);
  return mpi ? sg_h5_dxpl() : H5Pcreate(H5P_DATASET_XFER);
}

void sg_h5_close(hid_t *id) {
  if (*id < 0) return;
  switch (H5Iget_type(*id)) {
    case H5I_FILE: H5Fclose(*id); break;
    case H5I_GROUP: H5Gclose(*id); break;
    case H5I_DATASET: H5Dclose(*id); break;
    case H5I_DATASPACE: H5Sclose(*id); break;
    case H5I_DATATYPE: H5Tclose(*id); break;
    case H5I_ATTR: H5Aclose(*id); break;
    case H5I_GENPROP_LST: H5Pclose(*id); break;
    default: break;
  }
  *id = H5I_INVALID_HID;
}

sg_err sg_h5_open_read(MPI_Comm comm, const char *path, hid_t access, hid_t *file) {
  *file = H5I_INVALID_HID;
  SG_CHECK(sg_fs_check_readable(comm, path));
  SG_CHECK(sg_h5_check_local_heaps(path)); /* every rank reads the same file: the same verdict */
  sg_h5_quiet();
  hid_t fapl = access == H5P_DEFAULT ? sg_h5_fapl(comm) : access;
  if (fapl < 0) return sg_error_set(SG_ERR_LIB, "cannot open %s: HDF5 MPI-IO file access setup failed", path);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (fapl != access) H5Pclose(fapl);
  if (f < 0) return sg_error_set(SG_ERR_FORMAT, "cannot open %s: not an HDF5 file", path);
  sg_err err = sg_h5_check_object_header(f, path); /* the root group's, before any lookup in it */
  if (err) {
    H5Fclose(f);
    return err;
  }
  *file = f;
  return SG_OK;
}

sg_err sg_h5_create(MPI_Comm comm, const char *tmp_path, const char *shown_path, hid_t *file) {
  *file = H5I_INVALID_HID;
  SG_CHECK(sg_fs_check_dir(comm, shown_path));
  sg_h5_quiet();
  hid_t fapl = sg_h5_fapl(comm);
  if (fapl < 0) return sg_error_set(SG_ERR_LIB, "cannot write %s: HDF5 MPI-IO file access setup failed", shown_path);
  hid_t f = H5Fcreate(tmp_path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  if (f < 0) return sg_error_set(SG_ERR_IO, "cannot write %s: cannot create %s", shown_path, tmp_path);
  *file = f;
  return SG_OK;
}

sg_err sg_h5_close_written(MPI_Comm comm, hid_t *file, const char *tmp, const char *shown, sg_err err, int discard) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (!discard) {
    err = sg_error_collective(comm, err);
    if (!err && *file >= 0 && H5Fflush(*file, H5F_SCOPE_GLOBAL) < 0)
      err = sg_error_set(SG_ERR_IO, "cannot write %s: flushing %s failed (disk full?)", shown, tmp);
    err = sg_error_collective(comm, err);
  }
  if ((err || discard) && *file >= 0) {
    if (rank == 0 && truncate(tmp, 0) != 0) { /* nothing more to do: the close may fail, as before */
    }
    MPI_Barrier(comm); /* no rank's close flushes before the room is made */
  }
  if (discard) {
    if (*file >= 0) H5Fclose(*file);
    *file = H5I_INVALID_HID;
    return SG_OK;
  }
  if (*file >= 0 && H5Fclose(*file) < 0 && !err)
    err = sg_error_set(SG_ERR_IO, "cannot write %s: closing %s failed (disk full?)", shown, tmp);
  *file = H5I_INVALID_HID;
  return sg_error_collective(comm, err);
}

int sg_h5_exists(hid_t loc, const char *name) {
  char buf[512];
  size_t len = strlen(name);
  if (len == 0 || len >= sizeof buf) return 0;
  memcpy(buf, name, len + 1);
  /* H5Lexists fails (rather than answering 0) when an intermediate group is missing. */
  for (size_t k = 1; k <= len; ++k) {
    if (buf[k] != '/' && buf[k] != 0) continue;
    char c = buf[k];
    buf[k] = 0;
    htri_t e = H5Lexists(loc, buf, H5P_DEFAULT);
    buf[k] = c;
    if (e <= 0) return 0;
  }
  return 1;
}

/* --- attributes --------------------------------------------------------------------------------- */

/* ftype in the file, mtype in memory (the same for types that have no fixed layout). */
static sg_err attr_write(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *value, const char *file) {
  /* Rewriting replaces the attribute, so a later value may have another type or length. */
  if (H5Aexists(loc, name) > 0 && H5Adelete(loc, name) < 0)
    return sg_error_set(SG_ERR_LIB, "%s: cannot replace attribute %s", file, name);
  hid_t space = H5Screate(H5S_SCALAR), attr = H5I_INVALID_HID;
  sg_err err = SG_OK;
  if (space < 0 || (attr = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT)) < 0 ||
      H5Awrite(attr, mtype, value) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot write attribute %s", file, name);
  sg_h5_close(&attr);
  sg_h5_close(&space);
  return err;
}

sg_err sg_h5_attr_write_int(hid_t loc, const char *name, long long value, const char *file) {
  int v = (int)value;
  return attr_write(loc, name, H5T_NATIVE_INT, H5T_NATIVE_INT, &v, file);
}

sg_err sg_h5_attr_write_i64(hid_t loc, const char *name, int64_t value, const char *file) {
  return attr_write(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, file);
}

sg_err sg_h5_attr_write_str(hid_t loc, const char *name, const char *value, const char *file) {
  /* Variable-length UTF-8: h5py reads it back as a Python str. */
  hid_t type = H5Tcopy(H5T_C_S1);
  if (type < 0 || H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, H5T_CSET_UTF8) < 0) {
    sg_h5_close(&type);
    return sg_error_set(SG_ERR_LIB, "%s: cannot make a string type for attribute %s", file, name);
  }
  sg_err err = attr_write(loc, name, type, type, &value, file);
  sg_h5_close(&type);
  return err;
}

sg_err sg_h5_check_type_size(hid_t type, size_t max_bytes, const char *file, const char *what) {
  size_t size = H5Tget_size(type);
  if (size == 0 || size > max_bytes)
    return sg_error_set(SG_ERR_FORMAT, "%s: %s has values of %zu bytes (at most %zu expected: a corrupted type)", file,
                        what, size, max_bytes);
  return SG_OK;
}

sg_err sg_h5_check_vlen_string_type(hid_t type, const char *file, const char *what) {
  /* The type HDF5 builds for a string of one-byte characters, with the stored padding and charset:
   * H5Tequal compares the base types too. */
  hid_t plain = H5Tcopy(H5T_C_S1);
  int same = plain >= 0 && H5Tset_size(plain, H5T_VARIABLE) >= 0 && H5Tset_cset(plain, H5Tget_cset(type)) >= 0 &&
             H5Tset_strpad(plain, H5Tget_strpad(type)) >= 0 && H5Tequal(plain, type) > 0;
  sg_h5_close(&plain);
  if (!same)
    return sg_error_set(SG_ERR_FORMAT, "%s: %s is a variable-length string whose characters are not one byte "
                        "(a corrupted type)", file, what);
  return SG_OK;
}

/* A contiguous dataset's bytes lie in the file: an extent and a stored size that both claim more
 * than the file holds (tests/fuzz: fuzz_fclib, 4e9 values in a 22 KB file) are a corrupted header, not
 * a size to allocate. An unwritten one (no address) would be read as fill values: no larger than the
 * file either. */
static sg_err contiguous_in_file(hid_t dset, hsize_t need, const char *file, const char *what) {
  hid_t f = H5Iget_file_id(dset);
  hsize_t fsize = 0;
  const int known = f >= 0 && H5Fget_filesize(f, &fsize) >= 0;
  sg_h5_close(&f);
  if (!known) return SG_OK;
  const haddr_t off = H5Dget_offset(dset);
  const int outside = off == HADDR_UNDEF ? need > fsize : (off > fsize || need > fsize - off);
  if (outside)
    return sg_error_set(SG_ERR_FORMAT, "%s: %s claims %llu bytes, past the end of the %llu-byte file (a corrupted file)", file,
                        what, (unsigned long long)need, (unsigned long long)fsize);
  return SG_OK;
}

sg_err sg_h5_check_storage(hid_t dset, const char *file, const char *what) {
  hid_t dcpl = H5Dget_create_plist(dset), space = H5Dget_space(dset), type = H5Dget_type(dset);
  H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
  hssize_t points = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  size_t size = type >= 0 ? H5Tget_size(type) : 0;
  hsize_t have = H5Dget_storage_size(dset);
  sg_h5_close(&type);
  sg_h5_close(&space);
  sg_h5_close(&dcpl);
  if (layout == H5D_LAYOUT_ERROR || points < 0 || size == 0)
    return sg_error_set(SG_ERR_FORMAT, "%s: cannot query %s", file, what);
  if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS) return SG_OK;
  /* points * size, refused when it overflows: no file holds that many bytes */
  if (points > 0 && (hsize_t)points > (hsize_t)-1 / size)
    return sg_error_set(SG_ERR_FORMAT, "%s: %s claims %lld values of %zu bytes (a corrupted extent)", file, what,
                        (long long)points, size);
  hsize_t need = (hsize_t)points * size;
  if (have < need)
    return sg_error_set(SG_ERR_FORMAT, "%s: %s stores %llu bytes, its extent needs %llu (a truncated or corrupted file)",
                        file, what, (unsigned long long)have, (unsigned long long)need);
  if (layout == H5D_CONTIGUOUS) return contiguous_in_file(dset, need, file, what);
  return SG_OK;
}

/* A standard layout: an integer whose bits fill its bytes, an IEEE float of 4 or 8 bytes. HDF5 takes
 * the bit fields from the file too, and converts by them: a precision or an offset past the value's
 * bytes makes it read past its buffers (a bus error in H5T__conv_i_f, found by tests/fuzz). */
static int standard_layout(hid_t type) {
  H5T_class_t cls = H5Tget_class(type);
  if (cls == H5T_ENUM) {
    hid_t base = H5Tget_super(type);
    int ok = base >= 0 && H5Tget_class(base) == H5T_INTEGER && standard_layout(base);
    sg_h5_close(&base);
    return ok;
  }
  size_t size = H5Tget_size(type), prec = H5Tget_precision(type);
  if (H5Tget_offset(type) != 0 || prec != 8 * size) return 0;
  if (cls == H5T_INTEGER) return 1;
  size_t spos, epos, esize, mpos, msize;
  if (cls != H5T_FLOAT || H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0) return 0;
  if (size == 4) return spos == 31 && epos == 23 && esize == 8 && mpos == 0 && msize == 23 && H5Tget_ebias(type) == 127;
  return size == 8 && spos == 63 && epos == 52 && esize == 11 && mpos == 0 && msize == 52 && H5Tget_ebias(type) == 1023;
}

sg_err sg_h5_check_number_type(hid_t type, const char *file, const char *what) {
  SG_CHECK(sg_h5_check_type_size(type, SG_H5_MAX_NUMBER, file, what));
  if (!standard_layout(type))
    return sg_error_set(SG_ERR_FORMAT, "%s: %s has a non-standard number type (a corrupted type: bit fields "
                        "outside its %zu bytes, or not IEEE)", file, what, H5Tget_size(type));
  return SG_OK;
}

/* Open attribute `name` holding a single element; *found = 0 when absent. */
static sg_err attr_open_single(hid_t loc, const char *name, int *found, const char *file, hid_t *attr,
                               hid_t *type) {
  *attr = *type = H5I_INVALID_HID;
  *found = 0;
  SG_CHECK(sg_h5_check_object_header(loc, file)); /* H5Aexists decodes every attribute message */
  *found = H5Aexists(loc, name) > 0;
  if (!*found) return SG_OK;
  *attr = H5Aopen(loc, name, H5P_DEFAULT);
  hid_t space = *attr >= 0 ? H5Aget_space(*attr) : H5I_INVALID_HID;
  hssize_t np = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  sg_h5_close(&space);
  *type = *attr >= 0 ? H5Aget_type(*attr) : H5I_INVALID_HID;
  if (*type < 0 || np != 1) {
    sg_h5_close(type);
    sg_h5_close(attr);
    return sg_error_set(SG_ERR_FORMAT, "%s: attribute %s must hold a single value", file, name);
  }
  return SG_OK;
}

sg_err sg_h5_attr_read_int(hid_t loc, const char *name, long long *value, int *found, const char *file) {
  hid_t attr, type;
  SG_CHECK(attr_open_single(loc, name, found, file, &attr, &type));
  if (!*found) return SG_OK;
  sg_err err = SG_OK;
  char what[300];
  snprintf(what, sizeof what, "attribute %s", name);
  if (H5Tget_class(type) != H5T_INTEGER)
    err = sg_error_set(SG_ERR_FORMAT, "%s: attribute %s must be an integer", file, name);
  if (!err) err = sg_h5_check_number_type(type, file, what);
  if (!err && H5Aread(attr, H5T_NATIVE_LLONG, value) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot read attribute %s", file, name);
  sg_h5_close(&type);
  sg_h5_close(&attr);
  return err;
}

sg_err sg_h5_attr_read_str(hid_t loc, const char *name, char *buf, size_t len, int *found,
                           const char *file) {
  hid_t attr, type, mem = H5I_INVALID_HID;
  SG_CHECK(attr_open_single(loc, name, found, file, &attr, &type));
  if (!*found) return SG_OK;
  sg_err err = SG_OK;
  char what[300];
  snprintf(what, sizeof what, "attribute %s", name);
  buf[0] = 0;
  if (H5Tget_class(type) != H5T_STRING) {
    err = sg_error_set(SG_ERR_FORMAT, "%s: attribute %s must be a string", file, name);
  } else if (H5Tis_variable_str(type) > 0) {
    char *s = NULL;
    mem = H5Tcopy(H5T_C_S1);
    if ((err = sg_h5_check_vlen_string_type(type, file, what)) ||
        (err = sg_h5_vlen_attr_check(loc, name, file, what))) {
      /* refused before HDF5 follows the reference */
    } else if (mem < 0 || H5Tset_size(mem, H5T_VARIABLE) < 0 || H5Tset_cset(mem, H5Tget_cset(type)) < 0 ||
        H5Aread(attr, mem, &s) < 0) {
      err = sg_error_set(SG_ERR_IO, "%s: cannot read attribute %s", file, name);
    } else if (s) {
      snprintf(buf, len, "%s", s);
    }
    if (s) H5free_memory(s);
  } else if (!(err = sg_h5_check_type_size(type, SG_H5_MAX_STRING, file, what))) {
    /* Fixed length: read into a buffer one longer so the copy is always terminated. */
    size_t sz = H5Tget_size(type);
    char *tmp = calloc(sz + 1, 1);
    mem = H5Tcopy(H5T_C_S1);
    if (!tmp || mem < 0 || H5Tset_size(mem, sz + 1) < 0 || H5Tset_cset(mem, H5Tget_cset(type)) < 0 ||
        H5Aread(attr, mem, tmp) < 0)
      err = sg_error_set(SG_ERR_IO, "%s: cannot read attribute %s", file, name);
    else
      snprintf(buf, len, "%s", tmp);
    free(tmp);
  }
  sg_h5_close(&mem);
  sg_h5_close(&type);
  sg_h5_close(&attr);
  return err;
}

/* --- datasets ------------------------------------------------------------------------------------ */

sg_err sg_h5_dataset_create_filled(hid_t loc, const char *name, hid_t ftype, int rank, const hsize_t *dims,
                                   const hsize_t *maxdims, const hsize_t *chunk, hid_t memtype, const void *fill,
                                   const char *file, hid_t *dset) {
  *dset = H5I_INVALID_HID;
  hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t space = H5Screate_simple(rank, dims, maxdims);
  sg_err err = SG_OK;
  /* With a fill, H5D_FILL_TIME_ALLOC: it is written when chunks are allocated, which MPI-IO makes
   * early (at creation and at each extension), never left to chance. */
  if (lcpl < 0 || dcpl < 0 || space < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0 ||
      (chunk && H5Pset_chunk(dcpl, rank, chunk) < 0) || (fill && H5Pset_fill_value(dcpl, memtype, fill) < 0) ||
      H5Pset_fill_time(dcpl, fill ? H5D_FILL_TIME_ALLOC : H5D_FILL_TIME_NEVER) < 0)
    err = sg_error_set(SG_ERR_LIB, "%s: cannot set up dataset %s", file, name);
  if (!err) {
    *dset = H5Dcreate2(loc, name, ftype, space, lcpl, dcpl, H5P_DEFAULT);
    if (*dset < 0) err = sg_error_set(SG_ERR_IO, "%s: cannot create dataset %s", file, name);
  }
  sg_h5_close(&space);
  sg_h5_close(&dcpl);
  sg_h5_close(&lcpl);
  return err;
}

sg_err sg_h5_dataset_create(hid_t loc, const char *name, hid_t ftype, int rank, const hsize_t *dims,
                            const hsize_t *maxdims, const hsize_t *chunk, const char *file,
                            hid_t *dset) {
  return sg_h5_dataset_create_filled(loc, name, ftype, rank, dims, maxdims, chunk, H5T_NATIVE_DOUBLE, NULL, file, dset);
}

sg_err sg_h5_extend(hid_t dset, hsize_t n, const char *file, const char *name) {
  hsize_t dims[H5S_MAX_RANK];
  hid_t space = H5Dget_space(dset);
  int rank = space >= 0 ? H5Sget_simple_extent_dims(space, dims, NULL) : -1;
  sg_h5_close(&space);
  if (rank < 1) return sg_error_set(SG_ERR_LIB, "%s: cannot query dataset %s", file, name);
  dims[0] = n;
  if (H5Dset_extent(dset, dims) < 0)
    return sg_error_set(SG_ERR_IO, "%s: cannot extend dataset %s to %llu entries", file, name,
                        (unsigned long long)n);
  return SG_OK;
}

typedef struct {
  int64_t gid;
  int idx;
} gid_index;

static int gid_cmp(const void *a, const void *b) {
  int64_t x = ((const gid_index *)a)->gid, y = ((const gid_index *)b)->gid;
  return (x > y) - (x < y);
}

/* Select none in both spaces: the rank still takes part in the collective transfer. */
static sg_err write_nothing(hid_t dset, hid_t memtype, hid_t fspace, hid_t dxpl, const char *file,
                            const char *name) {
  hid_t mspace = H5Scopy(fspace);
  sg_err err = SG_OK;
  if (mspace < 0 || H5Sselect_none(mspace) < 0 || H5Sselect_none(fspace) < 0 ||
      H5Dwrite(dset, memtype, mspace, fspace, dxpl, NULL) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot write dataset %s", file, name);
  sg_h5_close(&mspace);
  return err;
}

sg_err sg_h5_write_rows(hid_t dset, hid_t memtype, long long frame, int ncols, int count,
                        const int64_t *gid, const void *data, hid_t dxpl, const char *file,
                        const char *name) {
  hid_t fspace = H5Dget_space(dset), mspace = H5I_INVALID_HID;
  hsize_t fdims[3];
  int lead = frame >= 0, rank = lead + 1 + (ncols > 0);
  if (fspace < 0 || H5Sget_simple_extent_ndims(fspace) != rank) {
    sg_h5_close(&fspace);
    return sg_error_set(SG_ERR_LIB, "%s: dataset %s does not have rank %d", file, name, rank);
  }
  H5Sget_simple_extent_dims(fspace, fdims, NULL);
  if (count == 0) {
    sg_err err = write_nothing(dset, memtype, fspace, dxpl, file, name);
    sg_h5_close(&fspace);
    return err;
  }
  size_t row = H5Tget_size(memtype) * (size_t)(ncols > 0 ? ncols : 1);
  hsize_t nrows = fdims[lead];
  /* Hyperslab unions are transferred in file order, so rows are packed by increasing gid. */
  int sorted = 1;
  for (int i = 1; i < count && sorted; ++i) sorted = gid[i] > gid[i - 1];
  const void *buf = data;
  gid_index *order = NULL;
  char *packed = NULL;
  sg_err err = SG_OK;
  if (!sorted) {
    order = malloc((size_t)count * sizeof *order);
    packed = malloc((size_t)count * row);
    if (!order || !packed) {
      err = sg_error_set(SG_ERR_MEM, "%s: out of memory packing %d rows of %s", file, count, name);
      goto done;
    }
    for (int i = 0; i < count; ++i) order[i] = (gid_index){gid[i], i};
    qsort(order, (size_t)count, sizeof *order, gid_cmp);
    for (int i = 0; i < count; ++i)
      memcpy(packed + (size_t)i * row, (const char *)data + (size_t)order[i].idx * row, row);
    buf = packed;
  }
  for (int i = 0; i < count; ++i) {
    int64_t g = order ? order[i].gid : gid[i];
    if (g < 0 || (hsize_t)g >= nrows) {
      err = sg_error_set(SG_ERR_ARG, "%s: body id %lld outside [0, %llu) writing %s", file,
                         (long long)g, (unsigned long long)nrows, name);
      goto done;
    }
    if (i > 0 && g == (order ? order[i - 1].gid : gid[i - 1])) {
      err = sg_error_set(SG_ERR_ARG, "%s: body id %lld given twice writing %s", file, (long long)g, name);
      goto done;
    }
  }
  /* One hyperslab per run of consecutive ids (a single run while one rank writes everything). */
  int first = 1;
  for (int i = 0; i < count;) {
    int j = i + 1;
    int64_t g0 = order ? order[i].gid : gid[i];
    while (j < count && (order ? order[j].gid : gid[j]) == g0 + (j - i)) ++j;
    hsize_t start[3] = {0, 0, 0}, cnt[3] = {1, 1, 1};
    if (lead) start[0] = (hsize_t)frame;
    start[lead] = (hsize_t)g0;
    cnt[lead] = (hsize_t)(j - i);
    if (ncols > 0) cnt[lead + 1] = (hsize_t)ncols;
    if (H5Sselect_hyperslab(fspace, first ? H5S_SELECT_SET : H5S_SELECT_OR, start, NULL, cnt, NULL) < 0) {
      err = sg_error_set(SG_ERR_LIB, "%s: cannot select rows of %s", file, name);
      goto done;
    }
    first = 0;
    i = j;
  }
  hsize_t mdim = (hsize_t)count * (hsize_t)(ncols > 0 ? ncols : 1);
  mspace = H5Screate_simple(1, &mdim, NULL);
  if (mspace < 0 || H5Dwrite(dset, memtype, mspace, fspace, dxpl, buf) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot write dataset %s", file, name);
done:
  free(order);
  free(packed);
  sg_h5_close(&mspace);
  sg_h5_close(&fspace);
  return err;
}

sg_err sg_h5_write_range(MPI_Comm comm, hid_t dset, hid_t memtype, hsize_t start, hsize_t count, int write,
                         const void *data, hid_t dxpl, const char *file, const char *name) {
  hid_t fspace = H5Dget_space(dset), mspace = H5I_INVALID_HID;
  if (fspace < 0) return sg_error_collective(comm, sg_error_set(SG_ERR_LIB, "%s: cannot query dataset %s", file, name));
  sg_err err = SG_OK;
  if (!write || count == 0) {
    err = write_nothing(dset, memtype, fspace, dxpl, file, name);
  } else {
    mspace = H5Screate_simple(1, &count, NULL);
    if (mspace < 0 || H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
        H5Dwrite(dset, memtype, mspace, fspace, dxpl, data) < 0)
      err = sg_error_set(SG_ERR_IO, "%s: cannot write dataset %s", file, name);
  }
  sg_h5_close(&mspace);
  sg_h5_close(&fspace);
  return sg_error_collective(comm, err);
}

sg_err sg_h5_write_whole(MPI_Comm comm, hid_t dset, hid_t memtype, int write, const void *data, hid_t dxpl,
                         const char *file, const char *name) {
  hid_t fspace = H5Dget_space(dset);
  if (fspace < 0) return sg_error_collective(comm, sg_error_set(SG_ERR_LIB, "%s: cannot query dataset %s", file, name));
  sg_err err = SG_OK;
  if (!write)
    err = write_nothing(dset, memtype, fspace, dxpl, file, name);
  else if (H5Dwrite(dset, memtype, fspace, fspace, dxpl, data) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot write dataset %s", file, name);
  sg_h5_close(&fspace);
  return sg_error_collective(comm, err);
}

/* "[10][3]"; negative extents (any) print as "[*]". */
static void format_dims(char *out, size_t len, int rank, const long long *dims) {
  size_t used = 0;
  out[0] = 0;
  for (int k = 0; k < rank && used < len; ++k) {
    int w = dims[k] < 0 ? snprintf(out + used, len - used, "[*]")
                        : snprintf(out + used, len - used, "[%lld]", dims[k]);
    if (w < 0) break;
    used += (size_t)w;
  }
  if (rank == 0) snprintf(out, len, "scalar");
}

static const char *class_name(H5T_class_t c) {
  switch (c) {
    case H5T_STRING: return "string";
    case H5T_COMPOUND: return "compound";
    case H5T_ARRAY: return "array";
    case H5T_VLEN: return "variable-length";
    case H5T_REFERENCE: return "reference";
    case H5T_OPAQUE: return "opaque";
    case H5T_BITFIELD: return "bitfield";
    case H5T_TIME: return "time";
    case H5T_FLOAT: return "floating-point";
    case H5T_ENUM: return "enum";
    case H5T_INTEGER: return "integer";
    default: return "unknown";
  }
}


sg_err sg_h5_read_checked(hid_t loc, const char *name, const char *shown, const char *file,
                          int want_int, int rank, long long *dims, const char *why, hid_t dxpl,
                          void **buf) {
  long long first, count; /* the whole dataset is the one block of one part */
  return sg_h5_read_block_checked(loc, name, shown, file, want_int, rank, dims, why, 0, 1, dxpl, &first, &count, buf);
}

sg_err sg_h5_read_header(hid_t file, const char *path, char *kind, size_t len, long long *version) {
  int found;
  SG_CHECK(sg_h5_attr_read_str(file, "kind", kind, len, &found, path));
  if (!found) kind[0] = 0;
  SG_CHECK(sg_h5_attr_read_int(file, "format_version", version, &found, path));
  if (!found)
    return sg_error_set(SG_ERR_FORMAT, "%s: missing root attribute format_version (not a signorini file)", path);
  return SG_OK;
}

long long sg_io_n_global(MPI_Comm comm, const sg_scene *s) {
  long long top = 0, n;
  for (int i = 0; i < s->n; ++i)
    if (s->gid[i] + 1 > top) top = s->gid[i] + 1;
  MPI_Allreduce(&top, &n, 1, MPI_LONG_LONG, MPI_MAX, comm);
  return n;
}

static int id_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

sg_err sg_io_check_rows(MPI_Comm comm, int count, const int64_t *gid, long long n_global,
                        const char *file) {
  long long mine = count, total;
  MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (total != n_global)  /* the same on every rank */
    return sg_error_set(SG_ERR_ARG, "%s: %lld bodies given, the file holds %lld", file, total, n_global);
  sg_err err = SG_OK;
  for (int i = 0; i < count && !err; ++i)
    if (gid[i] < 0 || gid[i] >= n_global)
      err = sg_error_set(SG_ERR_ARG, "%s: body id %lld outside [0, %lld)", file, (long long)gid[i], n_global);
  int sorted = 1;
  for (int i = 1; i < count && sorted; ++i) sorted = gid[i] > gid[i - 1];
  if (!err && !sorted) {
    int64_t *ids = malloc((size_t)count * sizeof *ids);
    if (!ids) {
      err = sg_error_set(SG_ERR_MEM, "%s: out of memory checking %d body ids", file, count);
    } else {
      memcpy(ids, gid, (size_t)count * sizeof *ids);
      qsort(ids, (size_t)count, sizeof *ids, id_cmp);
      for (int i = 1; i < count && !err; ++i)
        if (ids[i] == ids[i - 1])
          err = sg_error_set(SG_ERR_ARG, "%s: body id %lld appears twice", file, (long long)ids[i]);
      free(ids);
    }
  }
  /* As many as the bodies, distinct and in range: every row is written exactly once. */
  return sg_error_collective(comm, err);
}

/* Ids are sent to the rank of their range of [0, top]: equal ids meet on one rank, which finds
 * them among its sorted ids. One all-to-all of the ids: sound whatever the distribution, and
 * cheap beside the writes and reads it guards. */
static sg_err id_buckets(MPI_Comm comm, int count, const int64_t *gid, long long top, const char *file,
                         int64_t **recv, int *n_recv) {
  int P;
  MPI_Comm_size(comm, &P);
  long long width = top / P + 1;
  int *cnt = calloc((size_t)5 * P, sizeof *cnt);
  int64_t *send = malloc(((size_t)count + 1) * sizeof *send);
  sg_err err = cnt && send ? SG_OK : sg_error_set(SG_ERR_MEM, "%s: out of memory checking %d body ids", file, count);
  err = sg_error_collective(comm, err);
  if (err) { free(cnt); free(send); return err; }
  int *sdispl = cnt + P, *rcnt = cnt + 2 * P, *rdispl = cnt + 3 * P, *at = cnt + 4 * P;
  for (int i = 0; i < count; ++i) cnt[gid[i] / width]++;
  for (int r = 1; r < P; ++r) at[r] = sdispl[r] = sdispl[r - 1] + cnt[r - 1];
  for (int i = 0; i < count; ++i) send[at[gid[i] / width]++] = gid[i];
  MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm);
  long long total = 0;
  for (int r = 0; r < P; ++r) rdispl[r] = (int)total, total += rcnt[r];
  *recv = malloc(((size_t)total + 1) * sizeof **recv);
  err = *recv ? SG_OK : sg_error_set(SG_ERR_MEM, "%s: out of memory checking %lld body ids", file, total);
  err = sg_error_collective(comm, err);
  if (!err) MPI_Alltoallv(send, cnt, sdispl, MPI_INT64_T, *recv, rcnt, rdispl, MPI_INT64_T, comm);
  if (err) { free(*recv); *recv = NULL; }
  *n_recv = (int)total;
  free(send);
  free(cnt);
  return err;
}

sg_err sg_io_first_duplicate(MPI_Comm comm, int count, const int64_t *gid, const char *file, int64_t *dup) {
  *dup = -1;
  long long top = -1;
  for (int i = 0; i < count; ++i)
    if (gid[i] > top) top = gid[i];
  MPI_Allreduce(MPI_IN_PLACE, &top, 1, MPI_LONG_LONG, MPI_MAX, comm);
  if (top < 0) return SG_OK; /* no ids anywhere */
  int64_t *ids = NULL;
  int n = 0;
  SG_CHECK(id_buckets(comm, count, gid, top, file, &ids, &n));
  qsort(ids, (size_t)n, sizeof *ids, id_cmp);
  long long first = LLONG_MAX;
  for (int i = 1; i < n && first == LLONG_MAX; ++i)
    if (ids[i] == ids[i - 1]) first = ids[i];
  free(ids);
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_LONG_LONG, MPI_MIN, comm);
  *dup = first == LLONG_MAX ? -1 : first;
  return SG_OK;
}

void sg_io_rows_free(sg_io_rows *r) {
  free(r->index);
  free(r->gid);
  free(r->row);
  memset(r, 0, sizeof *r);
}

/* The ranks' totals: rows, the top id, next_gid, and whether the ids are the rows. */
static void rows_totals(MPI_Comm comm, const sg_scene *s, sg_io_rows *r) {
  long long v[3] = {r->count, -1, s->next_gid}, sum;
  for (int k = 0; k < r->count; ++k)
    if (r->gid[k] > v[1]) v[1] = r->gid[k];
  MPI_Allreduce(&v[0], &sum, 1, MPI_LONG_LONG, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &v[1], 2, MPI_LONG_LONG, MPI_MAX, comm);
  r->n = sum;
  r->next_gid = v[1] + 1 > v[2] ? v[1] + 1 : v[2];
  /* n distinct ids in [0, n) are exactly 0..n-1 */
  r->dense = v[1] + 1 == sum;
}

sg_err sg_io_rows_plan(MPI_Comm comm, const sg_scene *s, const char *file, sg_io_rows *r) {
  memset(r, 0, sizeof *r);
  int rank;
  MPI_Comm_rank(comm, &rank);
  for (int i = 0; i < s->n; ++i) r->count += sg_io_writes_body(rank, s, i);
  r->index = malloc(((size_t)r->count + 1) * sizeof *r->index);
  r->gid = malloc(((size_t)r->count + 1) * sizeof *r->gid);
  r->row = malloc(((size_t)r->count + 1) * sizeof *r->row);
  sg_err err = r->index && r->gid && r->row ? SG_OK
               : sg_error_set(SG_ERR_MEM, "%s: out of memory planning %d rows", file, r->count);
  for (int i = 0, k = 0; !err && i < s->n; ++i)
    if (sg_io_writes_body(rank, s, i)) r->index[k] = i, r->gid[k++] = s->gid[i];
  for (int k = 0; k < r->count && !err; ++k)
    if (r->gid[k] < 0 || r->gid[k] >= SG_IO_MAX_ID)
      err = sg_error_set(SG_ERR_ARG, "%s: body id %lld outside [0, 2^53)", file, (long long)r->gid[k]);
  err = sg_error_collective(comm, err);
  int64_t dup = -1;
  if (!err) err = sg_io_first_duplicate(comm, r->count, r->gid, file, &dup);
  if (!err && dup >= 0) err = sg_error_set(SG_ERR_ARG, "%s: body id %lld is held twice", file, (long long)dup);
  if (err) { sg_io_rows_free(r); return err; } /* every rank alike: the checks above are collective */
  rows_totals(comm, s, r);
  long long off = 0, mine = r->count;
  MPI_Exscan(&mine, &off, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (rank == 0) off = 0; /* MPI_Exscan leaves rank 0's result undefined */
  for (int k = 0; k < r->count; ++k) r->row[k] = r->dense ? r->gid[k] : off + k;
  return SG_OK;
}

sg_err sg_h5_write_vector(hid_t loc, const char *name, hid_t memtype, hid_t ftype, long long len, const void *x,
                          const char *file) {
  hsize_t dims[1] = {(hsize_t)len};
  hid_t d;
  SG_CHECK(sg_h5_dataset_create(loc, name, ftype, 1, dims, NULL, NULL, file, &d));
  sg_err err = SG_OK;
  if (len > 0 && H5Dwrite(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0)
    err = sg_error_set(SG_ERR_IO, "%s: cannot write dataset %s", file, name);
  sg_h5_close(&d);
  return err;
}

/* --- block reads: each rank reads a contiguous range of rows ------------------------------------ */

/* Rows [N part / nparts, N (part + 1) / nparts), without forming N * part (no overflow). */
static void block_range(long long n, int part, int nparts, long long *first, long long *count) {
  long long q = n / nparts, r = n % nparts;
  long long lo = q * part + r * part / nparts, hi = q * (part + 1) + r * (part + 1) / nparts;
  *first = lo;
  *count = hi - lo;
}

/* Read the selected elements (count of them) as int or double. Enums as int: HDF5 converts enums
 * only to enums, so their stored integers are read in native layout and converted. */
static herr_t read_selection(hid_t dset, hid_t ftype, int as_enum, int want_int, hid_t mspace, hid_t fspace,
                             size_t count, hid_t dxpl, void *out) {
  double dummy; /* an empty selection still needs a buffer on some HDF5 versions */
  if (!as_enum)
    return H5Dread(dset, want_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, count ? out : &dummy);
  hid_t mem = H5Tget_native_type(ftype, H5T_DIR_ASCEND);
  hid_t base = mem >= 0 ? H5Tget_super(mem) : H5I_INVALID_HID;
  herr_t r = -1;
  if (base >= 0) {
    size_t sz = H5Tget_size(mem);
    size_t elem = sz > sizeof(int) ? sz : sizeof(int);
    void *tmp = count ? calloc(count, elem) : NULL;
    if ((tmp || !count) && H5Dread(dset, mem, mspace, fspace, dxpl, tmp ? tmp : (void *)&dummy) >= 0 &&
        (!count || H5Tconvert(base, H5T_NATIVE_INT, count, tmp, NULL, H5P_DEFAULT) >= 0)) {
      if (count) memcpy(out, tmp, count * sizeof(int));
      r = 0;
    }
    free(tmp);
  }
  sg_h5_close(&base);
  sg_h5_close(&mem);
  return r;
}

sg_err sg_h5_read_block_checked(hid_t loc, const char *name, const char *shown, const char *file, int want_int,
                                int rank, long long *dims, const char *why, int part, int nparts, hid_t dxpl,
                                long long *first, long long *count, void **buf) {
  *buf = NULL;
  *first = *count = 0;
  if (rank < 1 || rank > H5S_MAX_RANK || nparts < 1 || part < 0 || part >= nparts)
    return sg_error_set(SG_ERR_ARG, "%s: bad block read of dataset %s", file, shown);
  /* The checks below are those of sg_h5_read_checked, so both readers say the same things. */
  if (!sg_h5_exists(loc, name)) return sg_error_set(SG_ERR_FORMAT, "%s: missing dataset %s", file, shown);
  hid_t dset = H5Dopen2(loc, name, H5P_DEFAULT);
  if (dset < 0) return sg_error_set(SG_ERR_FORMAT, "%s: %s is not a dataset", file, shown);
  hid_t space = H5Dget_space(dset), ftype = H5Dget_type(dset), mspace = H5I_INVALID_HID;
  void *data = NULL;
  sg_err err = SG_OK;
  hsize_t fd[H5S_MAX_RANK];
  int frank = space >= 0 ? H5Sget_simple_extent_dims(space, fd, NULL) : -1;
  H5T_class_t cls = ftype >= 0 ? H5Tget_class(ftype) : H5T_NO_CLASS;
  if (frank < 0 || ftype < 0) {
    err = sg_error_set(SG_ERR_FORMAT, "%s: cannot query dataset %s", file, shown);
    goto done;
  }
  long long have[H5S_MAX_RANK];
  int match = frank == rank;
  for (int k = 0; k < frank; ++k) {
    have[k] = (long long)fd[k];
    if (k < rank && dims[k] >= 0 && dims[k] != have[k]) match = 0;
  }
  if (!match) {
    char hs[128], ws[128];
    format_dims(hs, sizeof hs, frank, have);
    format_dims(ws, sizeof ws, rank, dims);
    err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s has shape %s, expected %s%s%s", file, shown, hs, ws,
                       why ? " " : "", why ? why : "");
    goto done;
  }
  int ok_class = want_int ? (cls == H5T_INTEGER || cls == H5T_ENUM) : (cls == H5T_INTEGER || cls == H5T_FLOAT);
  if (!ok_class) {
    err = sg_error_set(SG_ERR_FORMAT, "%s: dataset %s has %s values, expected %s", file, shown, class_name(cls),
                       want_int ? "integers" : "numbers");
    goto done;
  }
  char what[300];
  snprintf(what, sizeof what, "dataset %s", shown);
  if ((err = sg_h5_check_number_type(ftype, file, what))) goto done;
  if ((err = sg_h5_check_storage(dset, file, what))) goto done;
  size_t row = 1;
  for (int k = 0; k < rank; ++k) {
    dims[k] = have[k];
    if (k > 0) row *= (size_t)have[k];
  }
  if (have[0] == 0 || row == 0) goto done; /* nothing to read, the same on every rank */
  long long lo, cnt;
  block_range(have[0], part, nparts, &lo, &cnt);
  size_t n = (size_t)cnt * row;
  hsize_t start[H5S_MAX_RANK] = {0}, extent[H5S_MAX_RANK], mdim = n ? n : 1;
  for (int k = 0; k < rank; ++k) extent[k] = k == 0 ? (hsize_t)cnt : fd[k];
  mspace = H5Screate_simple(1, &mdim, NULL);
  start[0] = (hsize_t)lo;
  herr_t sel = mspace < 0 ? -1
               : n     ? H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, extent, NULL)
                       : (H5Sselect_none(space) < 0 || H5Sselect_none(mspace) < 0 ? -1 : 0);
  if (sel < 0) {
    err = sg_error_set(SG_ERR_LIB, "%s: cannot select rows of dataset %s", file, shown);
    goto done;
  }
  if (n && !(data = malloc(n * (want_int ? sizeof(int) : sizeof(double))))) {
    err = sg_error_set(SG_ERR_MEM, "%s: out of memory reading dataset %s", file, shown);
    goto done;
  }
  /* Every rank calls the (collective) read, those with an empty block with empty selections. */
  if (read_selection(dset, ftype, want_int && cls == H5T_ENUM, want_int, mspace, space, n, dxpl, data) < 0) {
    free(data);
    data = NULL;
    err = sg_error_set(SG_ERR_IO, "%s: cannot read dataset %s", file, shown);
    goto done;
  }
  *first = lo;
  *count = cnt;
  *buf = data;
done:
  sg_h5_close(&mspace);
  sg_h5_close(&ftype);
  sg_h5_close(&space);
  sg_h5_close(&dset);
  return err;
}
