/* XDMF 3 companion of a trajectory so that ParaView (its XDMF Reader) shows the bodies as points:
 * a temporal collection with one Polyvertex grid per frame whose arrays are hyperslabs of the
 * trajectory's datasets. Every id below the frame's extent is a point, planes included; ids absent
 * from the frame are at NaN with the attribute present = 0 (ParaView: Threshold on present). The
 * fixed walls (wall_surface.c) follow as a static triangle grid. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"

typedef struct {
  char *s;
  size_t len, cap;
  int failed;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
  if (t->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (w < 0) {
      t->failed = 1;
      return;
    }
    if (t->s && t->len + (size_t)w < t->cap) {
      t->len += (size_t)w;
      return;
    }
    size_t cap = t->cap ? 2 * t->cap : 65536;
    while (cap < t->len + (size_t)w + 1) cap *= 2;
    char *p = realloc(t->s, cap);
    if (!p) {
      t->failed = 1;
      return;
    }
    t->s = p;
    t->cap = cap;
  }
}

/* The file name inside XML text and attribute values. */
static void put_escaped(text *t, const char *s) {
  for (; *s; ++s) switch (*s) {
      case '&': put(t, "&amp;"); break;
      case '<': put(t, "&lt;"); break;
      case '>': put(t, "&gt;"); break;
      case '"': put(t, "&quot;"); break;
      default: put(t, "%c", *s);
    }
}

/* A hyperslab (start, count; unit stride) of an HDF5 dataset, shown with dimensions `shown`. */
static void put_slab(text *t, const char *h5, const char *dset, const char *type, int prec, int rank,
                     const long long *full, const long long *start, const long long *count, const char *shown) {
  put(t, "          <DataItem ItemType=\"HyperSlab\" Type=\"HyperSlab\" Dimensions=\"%s\">\n", shown);
  put(t, "            <DataItem Dimensions=\"3 %d\" Format=\"XML\">", rank);
  for (int k = 0; k < rank; ++k) put(t, "%s%lld", k ? " " : "", start[k]);
  for (int k = 0; k < rank; ++k) put(t, " 1");
  for (int k = 0; k < rank; ++k) put(t, " %lld", count[k]);
  put(t, "</DataItem>\n            <DataItem Dimensions=\"");
  for (int k = 0; k < rank; ++k) put(t, "%s%lld", k ? " " : "", full[k]);
  put(t, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", type, prec);
  put_escaped(t, h5);
  put(t, ":%s</DataItem>\n          </DataItem>\n", dset);
}

/* An attribute whose values are a hyperslab (start, count) of a dataset of extents `full`. */
static void put_attr(text *t, const char *h5, const char *name, const char *kind, const char *dset, const char *type,
                     int prec, int rank, const long long *full, const long long *start, const long long *count,
                     const char *shown) {
  put(t, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n", name, kind);
  put_slab(t, h5, dset, type, prec, rank, full, start, count, shown);
  put(t, "        </Attribute>\n");
}

/* The head of a grid of n points named "<name> <f>" at time `time`, open at its geometry, whose
 * XYZ positions are a hyperslab of dataset `positions`; the caller adds the attributes and closes it. */
static void put_points_grid(text *t, const char *h5, const char *name, long long f, double time, long long n,
                            const char *positions, const long long *full, const long long *start, const long long *count,
                            const char *shown) {
  put(t, "      <Grid Name=\"%s %lld\" GridType=\"Uniform\">\n", name, f);
  put(t, "        <Time Value=\"%.17g\"/>\n", time);
  put(t, "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%lld\" NodesPerElement=\"1\"/>\n", n);
  put(t, "        <Geometry GeometryType=\"XYZ\">\n");
  put_slab(t, h5, positions, "Float", 8, 3, full, start, count, shown);
  put(t, "        </Geometry>\n");
}

/* Frame f: its n ids as points; the frame datasets have N rows and T frames. Absent ids are
 * points at NaN with present = 0. */
static void put_frame(text *t, const char *h5, long long f, double time, long long n, long long N, long long T) {
  char n1[32], n3[48], n4[48];
  snprintf(n1, sizeof n1, "%lld", n);
  snprintf(n3, sizeof n3, "%lld 3", n);
  snprintf(n4, sizeof n4, "%lld 4", n);
  long long full3[3] = {T, N, 3}, full4[3] = {T, N, 4}, full6[3] = {T, N, 6}, full1[2] = {T, N};
  long long at0[3] = {f, 0, 0}, at3[3] = {f, 0, 3}, c3[3] = {1, n, 3}, c4[3] = {1, n, 4}, c1[2] = {1, n};
  put_points_grid(t, h5, "frame", f, time, n, "/frames/position", full3, at0, c3, n3);
  put_attr(t, h5, "velocity", "Vector", "/frames/velocity", "Float", 8, 3, full6, at0, c3, n3);
  put_attr(t, h5, "angular_velocity", "Vector", "/frames/velocity", "Float", 8, 3, full6, at3, c3, n3);
  put_attr(t, h5, "orientation", "Matrix", "/frames/orientation", "Float", 8, 3, full4, at0, c4, n4);
  put_attr(t, h5, "present", "Scalar", "/frames/present", "UChar", 1, 2, full1, at0, c1, n1);
  /* The description of the ids (/ids, row = id), the same in every frame up to its extent. */
  long long ids1[1] = {N}, ids3[2] = {N, 3}, z[2] = {0, 0}, cn[1] = {n}, col0[2] = {n, 1}, cn3[2] = {n, 3};
  put_attr(t, h5, "gid", "Scalar", "/ids/gid", "Int", 8, 1, ids1, z, cn, n1);
  put_attr(t, h5, "shape", "Scalar", "/ids/shape", "Int", 4, 1, ids1, z, cn, n1);
  put_attr(t, h5, "fixed", "Scalar", "/ids/fixed", "UChar", 1, 1, ids1, z, cn, n1);
  put_attr(t, h5, "radius", "Scalar", "/ids/size", "Float", 8, 2, ids3, z, col0, n1);
  put_attr(t, h5, "size", "Vector", "/ids/size", "Float", 8, 2, ids3, z, cn3, n3);
  put(t, "      </Grid>\n");
}

/* The fixed walls: one static grid of triangles, coordinates and connectivity inline. */
static void put_walls(text *t, const sg_surface *w) {
  put(t, "    <Grid Name=\"walls\" GridType=\"Uniform\">\n");
  put(t, "      <Topology TopologyType=\"Triangle\" NumberOfElements=\"%d\">\n", w->n_triangles);
  put(t, "        <DataItem Dimensions=\"%d 3\" NumberType=\"Int\" Format=\"XML\">\n", w->n_triangles);
  for (int k = 0; k < w->n_triangles; ++k) put(t, "%d %d %d\n", w->tri[3 * k], w->tri[3 * k + 1], w->tri[3 * k + 2]);
  put(t, "        </DataItem>\n      </Topology>\n      <Geometry GeometryType=\"XYZ\">\n");
  put(t, "        <DataItem Dimensions=\"%d 3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">\n", w->n_vertices);
  for (int k = 0; k < w->n_vertices; ++k) put(t, "%.9g %.9g %.9g\n", w->xyz[3 * k], w->xyz[3 * k + 1], w->xyz[3 * k + 2]);
  put(t, "        </DataItem>\n      </Geometry>\n    </Grid>\n");
}

/* The kinematic walls at frame f: triangles and vertices from the trajectory file. */
static void put_moving_walls(text *t, const char *h5, long long f, double time, long long T, const sg_surface *m) {
  char shown[48];
  long long full[3] = {T, m->n_vertices, 3}, at[3] = {f, 0, 0}, count[3] = {1, m->n_vertices, 3};
  snprintf(shown, sizeof shown, "%d 3", m->n_vertices);
  put(t, "      <Grid Name=\"moving walls %lld\" GridType=\"Uniform\">\n", f);
  put(t, "        <Time Value=\"%.17g\"/>\n", time);
  put(t, "        <Topology TopologyType=\"Triangle\" NumberOfElements=\"%d\">\n", m->n_triangles);
  put(t, "          <DataItem Dimensions=\"%d 3\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">", m->n_triangles);
  put_escaped(t, h5);
  put(t, ":/walls/moving_triangles</DataItem>\n        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n");
  put_slab(t, h5, "/frames/wall_position", "Float", 8, 3, full, at, count, shown);
  put(t, "        </Geometry>\n      </Grid>\n");
}

/* The trees' links at frame f: their centres of mass as points, with the links' orientations. */
static void put_links(text *t, const char *h5, long long f, double time, long long T, long long L) {
  char n3[48], n4[48];
  snprintf(n3, sizeof n3, "%lld 3", L);
  snprintf(n4, sizeof n4, "%lld 4", L);
  long long full3[3] = {T, L, 3}, full4[3] = {T, L, 4}, at[3] = {f, 0, 0}, c3[3] = {1, L, 3}, c4[3] = {1, L, 4};
  put_points_grid(t, h5, "links", f, time, L, "/frames/link_com", full3, at, c3, n3);
  put_attr(t, h5, "link_origin", "Vector", "/frames/link_position", "Float", 8, 3, full3, at, c3, n3);
  put_attr(t, h5, "orientation", "Matrix", "/frames/link_orientation", "Float", 8, 3, full4, at, c4, n4);
  put(t, "      </Grid>\n");
}

/* The trees' link geoms at frame f: their centres as points, with orientation, shape and size (the
 * scene's /trees/geom_* columns, the same in every frame). */
static void put_geoms(text *t, const char *h5, long long f, double time, long long T, long long G) {
  char n1[32], n3[48], n4[48];
  snprintf(n1, sizeof n1, "%lld", G);
  snprintf(n3, sizeof n3, "%lld 3", G);
  snprintf(n4, sizeof n4, "%lld 4", G);
  long long full3[3] = {T, G, 3}, full4[3] = {T, G, 4}, at[3] = {f, 0, 0}, c3[3] = {1, G, 3}, c4[3] = {1, G, 4};
  long long s1[1] = {G}, s3[2] = {G, 3}, z[2] = {0, 0}, cn[1] = {G}, col0[2] = {G, 1}, cn3[2] = {G, 3};
  put_points_grid(t, h5, "link geoms", f, time, G, "/frames/geom_position", full3, at, c3, n3);
  put_attr(t, h5, "orientation", "Matrix", "/frames/geom_orientation", "Float", 8, 3, full4, at, c4, n4);
  put_attr(t, h5, "shape", "Scalar", "/scene/trees/geom_shape", "Int", 4, 1, s1, z, cn, n1);
  put_attr(t, h5, "radius", "Scalar", "/scene/trees/geom_size", "Float", 8, 2, s3, z, col0, n1);
  put_attr(t, h5, "size", "Vector", "/scene/trees/geom_size", "Float", 8, 2, s3, z, cn3, n3);
  put(t, "      </Grid>\n");
}

sg_err sg_xdmf_write(const char *xmf_path, const char *h5_name, long long n_rows, const double *times,
                     const long long *n_ids, long long n_frames, long long n_links, long long n_geoms, const sg_surface *walls,
                     const sg_surface *moving) {
  text t = {0};
  put(&t, "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n");
  put(&t, "    <Grid Name=\"bodies\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  for (long long f = 0; f < n_frames; ++f) put_frame(&t, h5_name, f, times[f], n_ids[f], n_rows, n_frames);
  put(&t, "    </Grid>\n");
  if (walls && walls->n_triangles > 0) put_walls(&t, walls);
  if (moving && moving->n_triangles > 0) {
    put(&t, "    <Grid Name=\"moving walls\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (long long f = 0; f < n_frames; ++f) put_moving_walls(&t, h5_name, f, times[f], n_frames, moving);
    put(&t, "    </Grid>\n");
  }
  if (n_links > 0) {
    put(&t, "    <Grid Name=\"links\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (long long f = 0; f < n_frames; ++f) put_links(&t, h5_name, f, times[f], n_frames, n_links);
    put(&t, "    </Grid>\n");
  }
  if (n_geoms > 0) {
    put(&t, "    <Grid Name=\"link geoms\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (long long f = 0; f < n_frames; ++f) put_geoms(&t, h5_name, f, times[f], n_frames, n_geoms);
    put(&t, "    </Grid>\n");
  }
  put(&t, "  </Domain>\n</Xdmf>\n");
  sg_err err = t.failed ? sg_error_set(SG_ERR_MEM, "out of memory writing %s", xmf_path)
                        : sg_fs_write_atomic_local(xmf_path, t.s, t.len);
  free(t.s);
  return err;
}
