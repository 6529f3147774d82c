/* The readers of io.h and fclib.h with the HDF5 file access given by the caller: the same code
 * path as the public functions, which call these with H5P_DEFAULT (MPI-IO on comm; serial for
 * FCLIB). tests/fuzz passes the core driver, which reads the file into memory at the open, so
 * that one input costs no MPI-IO open. The raw-byte checks (h5_heaps.c) read `path` whatever
 * the access, and transfers are collective only on MPI-IO (sg_h5_read_dxpl). */
#ifndef SG_IO_READ_FAPL_H
#define SG_IO_READ_FAPL_H
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include "signorini/fclib.h"
#include "signorini/io.h"

sg_err sg_scene_read_fapl(MPI_Comm comm, const char *path, hid_t access, sg_scene *s);
sg_err sg_scene_read_block_fapl(MPI_Comm comm, const char *path, hid_t access, sg_scene *s);
sg_err sg_file_info_fapl(MPI_Comm comm, const char *path, hid_t access, FILE *out);
sg_err sg_checkpoint_read_fapl(MPI_Comm comm, const char *path, hid_t access, const char *scene_path, sg_scene *s,
                               sg_checkpoint_info *info);
sg_err sg_fclib_read_fapl(const char *path, hid_t access, sg_fclib_problem *fp);
#endif
