/* Helpers shared by the files of src/io (not part of the public interface). HDF5 handles are
 * closed by the function that opened them; every sg_err return has recorded a one-line message
 * that names the file and, where there is one, the dataset. */
#ifndef SG_IO_INTERNAL_H
#define SG_IO_INTERNAL_H
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include "signorini/scene.h"

#define SG_TRAJ_FORMAT_VERSION 1
#define SG_KIND_SCENE "signorini-scene"
#define SG_KIND_TRAJ "signorini-trajectory"

/* --- h5util.c: HDF5 plumbing ------------------------------------------------------------------- */
void sg_h5_quiet(void);
/* Property lists: file access through MPI-IO, collective transfers. < 0 on failure. */
hid_t sg_h5_fapl(MPI_Comm comm);
hid_t sg_h5_dxpl(void);
/* The readers' transfers of `file`: sg_h5_dxpl's collective ones where its driver is MPI-IO, the
 * default ones otherwise (HDF5 refuses collective transfers on other drivers: read_fapl.h). */
hid_t sg_h5_read_dxpl(hid_t file);
/* Open an existing file read-only (collective); messages say why it cannot be opened. access:
 * H5P_DEFAULT for MPI-IO on comm (sg_h5_fapl), or the caller's file access list (read_fapl.h). */
sg_err sg_h5_open_read(MPI_Comm comm, const char *path, hid_t access, hid_t *file);
/* Close `file`, written under the temporary name `tmp` (messages name `shown`), after the writing
 * ended with err on this rank (collective over comm: every rank that has it open). The file's
 * metadata is flushed first; when the writing or the flush failed on any rank, or the file is to
 * be discarded, rank 0 truncates tmp to 0 bytes before the close, and the caller must remove tmp.
 * Why: HDF5 1.10 frees a file whose close fails (its metadata flush meets a full disk) but keeps
 * its identifier, and closes it again at MPI_Finalize, a SIGSEGV after the error line (issue 17);
 * the truncated file gives the close's flush the room it needs. Returns the agreed error (err,
 * the flush's or the close's; SG_OK when discarding, whose error the caller holds already);
 * *file is closed. */
sg_err sg_h5_close_written(MPI_Comm comm, hid_t *file, const char *tmp, const char *shown, sg_err err, int discard);
/* Create (truncate) `tmp_path`; messages name `shown_path`, the name the user asked for. */
sg_err sg_h5_create(MPI_Comm comm, const char *tmp_path, const char *shown_path, hid_t *file);
void sg_h5_close(hid_t *id);
/* 1 if every component of the relative path `name` exists under loc, else 0. */
int sg_h5_exists(hid_t loc, const char *name);

sg_err sg_h5_attr_write_int(hid_t loc, const char *name, long long value, const char *file);
sg_err sg_h5_attr_write_str(hid_t loc, const char *name, const char *value, const char *file);
/* An int64 attribute (stored little-endian, whatever the machine). */
sg_err sg_h5_attr_write_i64(hid_t loc, const char *name, int64_t value, const char *file);
/* Refuse a stored type of more than max_bytes per value (SG_H5_MAX_NUMBER for numbers: the widest
 * native type the readers convert to; SG_H5_MAX_STRING for fixed-length strings). HDF5 takes a
 * type's size from the file, and a corrupted one (gigabytes per value) would make a read allocate
 * and convert that much. `what` names the object ("dataset /bodies/size", "attribute kind"). */
#define SG_H5_MAX_NUMBER 8
#define SG_H5_MAX_STRING 65536
sg_err sg_h5_check_type_size(hid_t type, size_t max_bytes, const char *file, const char *what);
/* Refuse a variable-length string type whose character is not one byte: HDF5 stores such a string
 * as a sequence of its base type and converts it element by element, so a corrupted base (wider
 * than the bytes stored in the global heap) makes HDF5 1.10 read past the heap object, into freed
 * memory (tests/fuzz: fuzz_scene, the root attribute kind). */
sg_err sg_h5_check_vlen_string_type(hid_t type, const char *file, const char *what);
/* The same for numbers (SG_H5_MAX_NUMBER), and a standard layout: an integer (or an enum's base)
 * whose bits fill its bytes, an IEEE float of 4 or 8 bytes. HDF5 converts by the bit fields the
 * file gives, and fields past the value's bytes make it read past its buffers. */
sg_err sg_h5_check_number_type(hid_t type, const char *file, const char *what);
/* Refuse a dataset whose stored bytes cannot hold its extent (a compact or contiguous one: HDF5
 * 1.10 reads a compact dataset from its header without comparing the two, so a corrupted size
 * reads past the buffer, and it would allocate for a contiguous extent whatever the file holds).
 * Chunked datasets are left to HDF5 (unwritten chunks read as the fill value). */
sg_err sg_h5_check_storage(hid_t dset, const char *file, const char *what);
/* Refuse a variable-length string attribute `name` of loc whose reference into HDF5's global heap is
 * corrupted (h5_heaps.c: HDF5 1.10 loops forever or copies from a wild pointer reading one). Call
 * it before H5Aread of such an attribute; `what` names it in the message. */
sg_err sg_h5_vlen_attr_check(hid_t loc, const char *name, const char *file, const char *what);
/* The same for a one-element variable-length string dataset (contiguous; any other layout is
 * refused, as it cannot be checked). */
sg_err sg_h5_vlen_dset_check(hid_t dset, const char *file, const char *what);
/* Refuse a file holding a group name heap whose free list leaves its data or loops, or whose size
 * lies outside the file (h5_heaps.c: HDF5 1.10 follows the list without a bound and hangs in any
 * lookup, and allocates the size first), or whose root group's header does not walk (H5Fopen loads
 * it, allocating each continuation block at the length it is given), or whose superblock points at a
 * driver information block larger than the file (H5Fopen allocates it). Call it before H5Fopen; it
 * reads the whole file once, looking for the heaps' signature. */
sg_err sg_h5_check_local_heaps(const char *path);
/* Refuse an object (group or dataset) whose version-1 header holds a message running past its
 * block, a continuation outside the file, or an attribute message whose name, datatype, dataspace
 * or data does not fit in it (h5_heaps.c: HDF5 1.10 decodes attributes without those bounds and
 * reads past its buffer). Call it before HDF5 queries, opens or lists loc's attributes. */
sg_err sg_h5_check_object_header(hid_t loc, const char *file);
/* Read an integer (scalar or one-element) or string attribute; *found = 0 when it is absent. */
sg_err sg_h5_attr_read_int(hid_t loc, const char *name, long long *value, int *found, const char *file);
sg_err sg_h5_attr_read_str(hid_t loc, const char *name, char *buf, size_t len, int *found,
                           const char *file);

/* Create a dataset, with any missing intermediate groups. maxdims NULL: fixed size; chunk NULL:
 * contiguous. Never pre-filled: every element is written before it is read. */
/* A whole 1-D dataset of len values (memtype in memory, ftype in the file), created at loc/name. */
sg_err sg_h5_write_vector(hid_t loc, const char *name, hid_t memtype, hid_t ftype, long long len, const void *x,
                          const char *file);
sg_err sg_h5_dataset_create(hid_t loc, const char *name, hid_t ftype, int rank, const hsize_t *dims,
                            const hsize_t *maxdims, const hsize_t *chunk, const char *file,
                            hid_t *dset);
/* The same, its elements read as *fill (of memtype) until written (fill NULL: as
 * sg_h5_dataset_create). Under MPI-IO HDF5 allocates every chunk when the dataset is created or
 * extended and writes the fill then, so rows never written (absent bodies, ids above a frame's
 * extent) read back as the fill on any number of ranks. */
sg_err sg_h5_dataset_create_filled(hid_t loc, const char *name, hid_t ftype, int rank, const hsize_t *dims,
                                   const hsize_t *maxdims, const hsize_t *chunk, hid_t memtype, const void *fill,
                                   const char *file, hid_t *dset);
/* Grow the first axis of a chunked dataset to n. */
sg_err sg_h5_extend(hid_t dset, hsize_t n, const char *file, const char *name);

/* --- h5_room.c: room for the fill HDF5 writes inside a collective call ---------------------------- */
/* Bytes of the chunks a filled dataset of extents dims (chunk dims, file type ftype) gets at its
 * creation; 0 for a contiguous one. */
unsigned long long sg_h5_room_create(int rank, const hsize_t *dims, const hsize_t *chunk, hid_t ftype);
/* Bytes of the chunks that growing axis `axis` of dset to n allocates and fills (0 without a fill). */
unsigned long long sg_h5_room_extend(hid_t dset, int axis, hsize_t n);
/* Reserve `bytes` (and a margin for HDF5's metadata) beyond what `file`, written as `tmp`, has
 * allocated: rank 0 reserves, the error (a full disk, naming `shown` and dataset `name`) is agreed.
 * Call it before a creation or extension that fills: HDF5 1.10 leaves the other ranks waiting in a
 * barrier when the fill's write fails on one. */
sg_err sg_h5_room_reserve(MPI_Comm comm, hid_t file, const char *tmp, const char *shown, const char *name,
                          unsigned long long bytes);
/* Give back what reservations left unused past the end of the closed file `tmp` (rank 0). */
void sg_h5_room_release(MPI_Comm comm, const char *tmp);

/* Collective write of body rows selected by global id: the dataset is [N] or [N][ncols]
 * (frame < 0) or [T][N][ncols] (row `frame` of the first axis); this rank writes `count` rows
 * with ids gid[0..count) taken from data (row-major, count x max(ncols, 1) of memtype).
 * count = 0 takes part in the collective call without writing. */
sg_err sg_h5_write_rows(hid_t dset, hid_t memtype, long long frame, int ncols, int count,
                        const int64_t *gid, const void *data, hid_t dxpl, const char *file,
                        const char *name);
/* The same, the rows first moved so that each rank writes one contiguous block of the row axis
 * (h5_rows.c): use it where the ids a rank holds are scattered. With a fill (one row of memtype),
 * the rows of the block no rank gives are written as the fill; without, they are left alone. */
sg_err sg_h5_write_rows_blocked(MPI_Comm comm, hid_t dset, hid_t memtype, long long frame, int ncols, int count,
                                const int64_t *gid, const void *data, const void *fill, hid_t dxpl, const char *file,
                                const char *name);
/* Collective write of elements [start, start + count) of a 1-D dataset from the ranks with
 * write = 1; the others take part without writing. The error is agreed on every rank of comm:
 * a full disk fails only the ranks that write, and a rank that went on alone to the next
 * collective HDF5 call would wait there forever. */
sg_err sg_h5_write_range(MPI_Comm comm, hid_t dset, hid_t memtype, hsize_t start, hsize_t count, int write,
                         const void *data, hid_t dxpl, const char *file, const char *name);
/* Collective write of a whole dataset from the ranks with write = 1 (the others select none); the
 * error agreed as sg_h5_write_range's. */
sg_err sg_h5_write_whole(MPI_Comm comm, hid_t dset, hid_t memtype, int write, const void *data, hid_t dxpl,
                         const char *file, const char *name);

/* Checked read of a whole numeric dataset `name` (relative to loc; `shown` is its absolute name
 * in messages). want_int: integer or enum classes are read as int, else integer or float classes
 * as double. dims[k] >= 0 must match; dims[k] < 0 accepts any extent and returns it. `why`, when
 * not NULL, is appended to a shape mismatch message (where the expected extent comes from).
 * *buf is allocated (free()); it is NULL when the dataset has no elements. */
sg_err sg_h5_read_checked(hid_t loc, const char *name, const char *shown, const char *file,
                          int want_int, int rank, long long *dims, const char *why, hid_t dxpl,
                          void **buf);

/* The optional periodic cell (/world/period_lo and /world/period_hi, both or neither; zeros when
 * absent). */
sg_err sg_period_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, double lo[3], double hi[3]);
/* An optional material table /materials/<name> ([m][m]; prefix as for the scene group):
 * restitution, rolling_friction. *table is NULL when the file has none (every pair 0), else
 * allocated (free()). */
sg_err sg_material_table_read(hid_t loc, const char *prefix, const char *file, const char *name, long long m, hid_t dxpl,
                              double **table);

/* Root attributes: kind ("" when absent) and format_version (required). */
sg_err sg_h5_read_header(hid_t file, const char *path, char *kind, size_t len, long long *version);

/* Number of bodies in the file: one past the largest global id on any rank (collective). */
long long sg_io_n_global(MPI_Comm comm, const sg_scene *s);
/* Collective check, before a row write, that the rows given by the ranks (count ids in gid on
 * this rank) are exactly the ids 0..n_global-1, each once; the same error on every rank. */
sg_err sg_io_check_rows(MPI_Comm comm, int count, const int64_t *gid, long long n_global,
                        const char *file);
/* Does this rank write body i's row? A replicated scene is written by rank 0; in a distributed
 * one each rank writes its moving bodies and rank 0 the fixed ones (held by every rank). */
static inline int sg_io_writes_body(int rank, const sg_scene *s, int i) {
  return s->distributed ? (!s->fixed[i] || rank == 0) : rank == 0;
}

/* Ids in files are below 2^53, so that a reader may hold them as doubles exactly. */
#define SG_IO_MAX_ID 9007199254740992LL
/* The smallest id given twice over all ranks (this rank gives ids gid[0..count), each >= 0), or -1
 * in *dup: sound whatever the distribution (one all-to-all of the ids). Collective; an error
 * (memory) is the same on every rank. */
sg_err sg_io_first_duplicate(MPI_Comm comm, int count, const int64_t *gid, const char *file, int64_t *dup);
/* Where the bodies a rank writes (sg_io_writes_body) go in a file's per-body datasets. */
typedef struct {
  int count;        /* bodies this rank writes */
  int *index;       /* their indices in the scene, in the order held */
  int64_t *gid;     /* their ids */
  int64_t *row;     /* their rows */
  long long n;      /* rows in the file: the bodies written by all ranks */
  int64_t next_gid; /* max(s->next_gid, 1 + the largest id) over the ranks */
  int dense;        /* the ids are exactly 0..n-1: row = id and no /bodies/gid; otherwise the
                     * ranks' rows follow each other (MPI_Exscan of the counts) and /bodies/gid
                     * holds the ids */
} sg_io_rows;
/* Collective: the plan, after checking that every id is in [0, 2^53) and held once (SG_ERR_ARG,
 * the same on every rank). Free with sg_io_rows_free. */
sg_err sg_io_rows_plan(MPI_Comm comm, const sg_scene *s, const char *file, sg_io_rows *r);
void sg_io_rows_free(sg_io_rows *r);

/* --- scene_io.c: the scene layout shared by the whole and the block readers ------------------ */
/* One per-body dataset: `ncols` values per body (0: one value, a 1-D dataset). */
typedef struct {
  const char *name;
  int is_int;
  int ncols;
} sg_body_field;
enum { SG_F_SHAPE, SG_F_SIZE, SG_F_MATERIAL, SG_F_FIXED, SG_F_DENSITY, SG_F_POS, SG_F_QUAT, SG_F_VEL, SG_F_COUNT };
extern const sg_body_field sg_body_fields[SG_F_COUNT];
/* The root attributes of a scene file: kind (optional, but not another kind) and format_version. */
sg_err sg_scene_check_header(hid_t file, const char *path);
/* The ids of rows [first, first + count) of /bodies/gid (`shown`), read as numbers: each a whole
 * number in [0, 2^53), else SG_ERR_FORMAT naming the row; into ids. */
sg_err sg_scene_ids_check(const double *x, long long count, long long first, const char *file, const char *shown,
                          int64_t *ids);
/* The optional attribute next_gid of loc's group bodies (prefix: its name in messages); *value = -1
 * when absent. Refused: not a single integer, or outside [0, 2^53). */
sg_err sg_scene_next_gid_read(hid_t loc, const char *prefix, const char *file, long long *value);
/* The attribute run_options of prefix/world into s->run_options ("" when absent), checked. */
sg_err sg_scene_run_options_read(hid_t loc, const char *prefix, const char *file, sg_scene *s);

/* --- fsutil.c: files beside HDF5 (rank 0 acts, every rank gets the result) --------------------- */
/* "<path><suffix>.<pid of rank 0>"; free() the result. */
char *sg_fs_tmp_name(MPI_Comm comm, const char *path, const char *suffix);
/* SG_ERR_IO naming `path` when its directory is missing or not writable. */
sg_err sg_fs_check_dir(MPI_Comm comm, const char *path);
/* Why `path` cannot be read: SG_OK when it is a readable regular file. */
sg_err sg_fs_check_readable(MPI_Comm comm, const char *path);
/* The same on the calling rank alone. */
sg_err sg_fs_readable_file(const char *path);
sg_err sg_fs_rename(MPI_Comm comm, const char *from, const char *to);
void sg_fs_remove(MPI_Comm comm, const char *path);
/* Write a whole text file atomically (temporary name, then rename); caller is one rank only. */
sg_err sg_fs_write_atomic_local(const char *path, const char *text, size_t len);
/* Serial HDF5 files built in memory (the core driver, no backing store) and written by us: a full
 * disk then meets our write(2), reported and cleaned up, never an H5Fclose that fails (HDF5 1.10
 * keeps the identifier of a file whose close failed and closes it again at MPI_Finalize: a
 * SIGSEGV). sg_h5_mem_create: an empty file; sg_h5_mem_open: a read-write copy of the file at
 * `path`; sg_h5_mem_save: closes *file and writes its bytes to `path` atomically (a temporary
 * name, then a rename; nothing is left under either name on failure). `name` is the name HDF5
 * knows the file by, which must not exist on disk. */
sg_err sg_h5_mem_create(const char *name, const char *shown, hid_t *file);
sg_err sg_h5_mem_open(const char *path, const char *name, const char *shown, hid_t *file);
sg_err sg_h5_mem_save(hid_t *file, const char *path, sg_err err);

/* --- scene_io.c: the scene layout under a group (root of a scene file, /scene of a trajectory) -- */
sg_err sg_scene_group_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s,
                            hid_t dxpl);
/* prefix: the group's absolute name for messages ("" for the root). On failure s is zeroed. */
/* The optional /motions group (motion_io.c): read after the bodies (fixed bodies made kinematic),
 * written beside them (collective; nothing when the scene has no motions). */
sg_err sg_motions_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, sg_scene *s);
sg_err sg_motions_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl);
/* The optional /meshes group (mesh_io.c): read before the bodies are checked (they name meshes
 * by index), written beside them. */
sg_err sg_meshes_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, sg_scene *s);
sg_err sg_meshes_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl);
/* tree_io.c: the optional /trees group (kinematic trees, tree.h), read whole after the bodies, which
 * it makes tree bodies; on a block-read scene sg_trees_check_held then checks (collectively) that
 * every tree's body is held by some rank. */
sg_err sg_trees_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, sg_scene *s);
sg_err sg_trees_check_held(MPI_Comm comm, const sg_scene *s, const char *file);
sg_err sg_trees_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl);
/* A column of /trees: name, columns (0: a vector), read as int. */
typedef struct { const char *name; int ncols, is_int; } sg_tree_field;
/* A per-tree count column count_name (n_trees rows, each in [lo, hi]; item names what is counted,
 * e.g. "links"), then n_fields columns with one row per counted item, their sum *total (src/io/tree_io.c). */
sg_err sg_tree_counted_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, long long n_trees,
                            const char *count_name, int lo, int hi, const char *item, const sg_tree_field *fields,
                            int n_fields, int **count, void **cols, long long *total);
/* A /trees column of rows x ncols (0: a vector) doubles x as ftype; the data go from rank 0 (rank: the caller's). */
sg_err sg_tree_column_write(MPI_Comm comm, hid_t loc, const char *file, const char *name, hid_t ftype, long long rows, int ncols,
                            const double *x, int rank, hid_t dxpl);
/* The trees' link geoms (src/io/tree_geom_io.c): the optional geom columns of n_trees trees read
 * whole (count NULL: the file has none); tree `tree`'s, from row `first`, added to t (before
 * sg_tree_finish checks them); and written (nothing when no tree has a geom). */
typedef struct {
  int *count;
  void *col[5];
  long long n;
} sg_tree_geom_columns;
sg_err sg_tree_geoms_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, long long n_trees, sg_tree_geom_columns *c);
sg_err sg_tree_geoms_add(const sg_tree_geom_columns *c, long long tree, long long first, struct sg_tree *t);
void sg_tree_geom_columns_free(sg_tree_geom_columns *c);
sg_err sg_tree_geoms_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl);
/* The trees' loop closures (src/io/tree_closure_io.c), the same way: /trees/closure_count and the
 * per-closure columns closure_link and closure_point. */
typedef struct {
  int *count;
  void *col[2];
  long long n;
} sg_tree_closure_columns;
sg_err sg_tree_closures_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, long long n_trees,
                             sg_tree_closure_columns *c);
sg_err sg_tree_closures_add(const sg_tree_closure_columns *c, long long tree, long long first, struct sg_tree *t);
void sg_tree_closure_columns_free(sg_tree_closure_columns *c);
sg_err sg_tree_closures_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl);
/* The optional /regions group (region_io.c): read after the bodies, written beside them. */
sg_err sg_regions_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, sg_scene *s);
sg_err sg_regions_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl);
sg_err sg_scene_group_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl,
                           sg_scene *s);

/* --- wall_surface.c: the walls as triangles in world coordinates (for the .xmf) ---------------- */
typedef struct {
  int n_vertices, n_triangles, cap_v, cap_t;
  double *xyz; /* [V][3] */
  int *tri;    /* [T][3] */
} sg_surface;
/* The walls of the bodies whose fixed flag is `kind` (SG_FIXED or SG_KINEMATIC), at their pose now;
 * w is zero-initialized or holds an earlier surface (replaced, its memory reused). */
sg_err sg_walls_surface(const sg_scene *s, int kind, sg_surface *w);
void sg_surface_free(sg_surface *w);

/* --- xdmf.c ------------------------------------------------------------------------------------- */
/* XDMF 3 description of a finished trajectory for ParaView; called by one rank. h5_name is the
 * trajectory's base name, referenced relative to the .xmf; n_rows the extent of the body axis of
 * its frame datasets; frame f (at times[f]) shows the ids [0, n_ids[f]); walls (may be NULL or
 * empty) is drawn as a static triangle grid, its numbers inline; moving (may be NULL or empty), the
 * kinematic walls, as one grid per frame: its triangles from /walls/moving_triangles, its vertices
 * from frame f of /frames/wall_position (traj_walls.c); n_links links and n_geoms link geoms of trees
 * as points per frame (traj_trees.c; 0: none). */
sg_err sg_xdmf_write(const char *xmf_path, const char *h5_name, long long n_rows, const double *times,
                     const long long *n_ids, long long n_frames, long long n_links, long long n_geoms, const sg_surface *walls,
                     const sg_surface *moving);

/* --- h5util.c: block reads ---------------------------------------------------------------------- */
/* Collective checked read of one block of rows: the checks and messages of sg_h5_read_checked
 * (dims[0] < 0 accepts any number of rows N; dims returns the extents), then this rank reads rows
 * [N part / nparts, N (part + 1) / nparts), returned in *first and *count; ranks with an empty
 * block take part with an empty selection. *buf (free()) holds count x (product of the other
 * extents) values, NULL when there are none. */
sg_err sg_h5_read_block_checked(hid_t loc, const char *name, const char *shown, const char *file, int want_int,
                                int rank, long long *dims, const char *why, int part, int nparts, hid_t dxpl,
                                long long *first, long long *count, void **buf);
#endif
