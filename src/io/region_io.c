/* The /regions group of a scene file (docs/FORMATS.md): one row per inflow or outflow region, read
 * whole on every rank (the model is the same everywhere) and written by rank 0. Columns that a
 * kind does not use hold zeros. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"

enum { T_I32, T_F64, T_I64 };
static int whole_in(double x, double lo, double hi) { return x == floor(x) && x >= lo && x <= hi; }
typedef struct { const char *name; int ncols; int type; } region_field;
enum { R_KIND, R_ZONE, R_BOX, R_PLANE, R_RATE, R_RATE_UNIT, R_RADIUS, R_DENSITY, R_MATERIAL, R_VELOCITY, R_WINDOW,
       R_SEED, R_SIZE, R_COUNT };
#define SIZE_COLS (4 + 2 * SG_SIZE_CLASSES) /* kind, median, sigma, classes, radii, fractions */
#define I32 T_I32
#define F64 T_F64
static const region_field fields[R_COUNT] = {
    {"regions/kind", 0, I32},     {"regions/zone", 0, I32},      {"regions/box", 6, F64},
    {"regions/plane", 6, F64},    {"regions/rate", 0, F64},      {"regions/rate_unit", 0, I32},
    {"regions/radius", 2, F64},   {"regions/density", 0, F64},   {"regions/material", 0, I32},
    {"regions/velocity", 3, F64}, {"regions/window", 2, F64},    {"regions/seed", 0, T_I64},
    {"regions/size_dist", SIZE_COLS, F64}};

/* The size distribution of row k (regions/size_dist, optional: absent, radii are uniform). */
static sg_err row_size(const double *col, int k, const char *file, const char *prefix, sg_size_dist *d) {
  if (!col) return SG_OK;
  const double *c = col + (size_t)SIZE_COLS * k;
  if (!whole_in(c[0], 0, SG_SIZE_KINDS - 1) || !whole_in(c[3], 0, SG_SIZE_CLASSES))
    return sg_error_set(SG_ERR_FORMAT, "%s: %s/regions/size_dist row %d: kind %g or class count %g is not valid", file, prefix, k,
                        c[0], c[3]);
  d->kind = (int)c[0];
  d->median = c[1];
  d->sigma = c[2];
  d->n_classes = (int)c[3];
  memcpy(d->radius, c + 4, SG_SIZE_CLASSES * sizeof(double));
  memcpy(d->fraction, c + 4 + SG_SIZE_CLASSES, SG_SIZE_CLASSES * sizeof(double));
  return SG_OK;
}


/* Row k of the columns as a region (checked by sg_scene_add_region). */
static sg_err row_to_region(double *const col[R_COUNT], int k, const char *file, const char *prefix, sg_region *r) {
  memset(r, 0, sizeof *r);
  const double ints[4] = {col[R_KIND][k], col[R_ZONE][k], col[R_RATE_UNIT][k], col[R_MATERIAL][k]};
  static const char *names[4] = {"kind", "zone", "rate_unit", "material"};
  for (int c = 0; c < 4; ++c)
    if (!whole_in(ints[c], -2147483648.0, 2147483647.0))
      return sg_error_set(SG_ERR_FORMAT, "%s: %s/regions/%s row %d: %g is not an integer", file, prefix, names[c], k, ints[c]);
  if (!whole_in(col[R_SEED][k], 0, 9007199254740991.0))
    return sg_error_set(SG_ERR_FORMAT, "%s: %s/regions/seed row %d: %g is not an integer in [0, 2^53)", file, prefix, k,
                        col[R_SEED][k]);
  r->kind = (int)ints[0];
  r->zone = (int)ints[1];
  r->rate_unit = (int)ints[2];
  r->material = (int)ints[3];
  memcpy(r->lo, col[R_BOX] + 6 * k, 3 * sizeof(double));
  memcpy(r->hi, col[R_BOX] + 6 * k + 3, 3 * sizeof(double));
  memcpy(r->point, col[R_PLANE] + 6 * k, 3 * sizeof(double));
  memcpy(r->normal, col[R_PLANE] + 6 * k + 3, 3 * sizeof(double));
  r->rate = col[R_RATE][k];
  r->size.lo = col[R_RADIUS][2 * k];
  r->size.hi = col[R_RADIUS][2 * k + 1];
  r->density = col[R_DENSITY][k];
  memcpy(r->velocity, col[R_VELOCITY] + 3 * k, 3 * sizeof(double));
  r->t_start = col[R_WINDOW][2 * k];
  r->t_end = col[R_WINDOW][2 * k + 1];
  r->seed = (uint64_t)col[R_SEED][k];
  return row_size(col[R_SIZE], k, file, prefix, &r->size);
}

sg_err sg_regions_read(hid_t loc, const char *prefix, const char *file, hid_t dxpl, sg_scene *s) {
  if (!sg_h5_exists(loc, "regions")) return SG_OK; /* optional */
  double *col[R_COUNT] = {0};
  long long m = -1;
  char shown[256], why[320], where[4400];
  sg_err err = SG_OK;
  for (int f = 0; f < R_COUNT && !err; ++f) {
    if (f == R_SIZE && !sg_h5_exists(loc, fields[f].name)) continue; /* optional */
    long long dims[2] = {m, fields[f].ncols};
    snprintf(shown, sizeof shown, "%s/%s", prefix, fields[f].name);
    snprintf(why, sizeof why, "(R = %lld regions from %s/regions/kind)", m, prefix);
    err = sg_h5_read_checked(loc, fields[f].name, shown, file, 0, fields[f].ncols ? 2 : 1, dims, f ? why : NULL, dxpl,
                             (void **)&col[f]);
    if (!err && f == 0) m = dims[0];
  }
  if (!err && m > 4096) err = sg_error_set(SG_ERR_FORMAT, "%s: %lld regions is too many (%s/regions)", file, m, prefix);
  snprintf(where, sizeof where, "%s, %s/regions", file, prefix);
  for (int k = 0; k < m && !err; ++k) {
    sg_region r;
    err = row_to_region(col, k, file, prefix, &r);
    if (!err) err = sg_scene_add_region(s, &r, where);
  }
  if (!err) err = sg_scene_check_regions(s, where);
  for (int f = 0; f < R_COUNT; ++f) free(col[f]);
  return err;
}

/* Region k's row of column f into out (ncols values, or one). */
static void region_to_row(const sg_region *r, int f, double *out) {
  switch (f) {
    case R_KIND: out[0] = r->kind; break;
    case R_ZONE: out[0] = r->zone; break;
    case R_BOX: memcpy(out, r->lo, 3 * sizeof(double)); memcpy(out + 3, r->hi, 3 * sizeof(double)); break;
    case R_PLANE: memcpy(out, r->point, 3 * sizeof(double)); memcpy(out + 3, r->normal, 3 * sizeof(double)); break;
    case R_RATE: out[0] = r->rate; break;
    case R_RATE_UNIT: out[0] = r->rate_unit; break;
    case R_RADIUS: out[0] = r->size.lo; out[1] = r->size.hi; break;
    case R_SIZE:
      out[0] = r->size.kind; out[1] = r->size.median; out[2] = r->size.sigma; out[3] = r->size.n_classes;
      memcpy(out + 4, r->size.radius, SG_SIZE_CLASSES * sizeof(double));
      memcpy(out + 4 + SG_SIZE_CLASSES, r->size.fraction, SG_SIZE_CLASSES * sizeof(double));
      break;
    case R_DENSITY: out[0] = r->density; break;
    case R_MATERIAL: out[0] = r->material; break;
    case R_VELOCITY: memcpy(out, r->velocity, 3 * sizeof(double)); break;
    case R_WINDOW: out[0] = r->t_start; out[1] = r->t_end; break;
    default: out[0] = (double)r->seed; break;
  }
}

sg_err sg_regions_write(MPI_Comm comm, hid_t loc, const char *file, const sg_scene *s, hid_t dxpl) {
  if (s->n_regions == 0) return SG_OK;
  int rank;
  MPI_Comm_rank(comm, &rank);
  const int m = s->n_regions;
  double *buf = sg_calloc((size_t)m * SIZE_COLS + 1, sizeof *buf, "regions");
  sg_err err = sg_error_collective(comm, buf ? SG_OK : SG_ERR_MEM);
  for (int f = 0; f < R_COUNT && !err; ++f) {
    int nc = fields[f].ncols ? fields[f].ncols : 1;
    for (int k = 0; k < m; ++k) region_to_row(&s->regions[k], f, buf + (size_t)nc * k);
    hsize_t dims[2] = {(hsize_t)m, (hsize_t)fields[f].ncols};
    hid_t d;
    hid_t ftype = fields[f].type == T_I32 ? H5T_STD_I32LE : fields[f].type == T_I64 ? H5T_STD_I64LE : H5T_IEEE_F64LE;
    err = sg_h5_dataset_create(loc, fields[f].name, ftype, fields[f].ncols ? 2 : 1, dims, NULL, NULL, file, &d);
    if (!err) err = sg_h5_write_whole(comm, d, H5T_NATIVE_DOUBLE, rank == 0, buf, dxpl, file, fields[f].name);
    sg_h5_close(&d);
    err = sg_error_collective(comm, err);
  }
  free(buf);
  return err;
}
