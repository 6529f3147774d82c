/* XDMF 3 companion of a trajectory so that ParaView (its XDMF Reader) shows the bodies as points:
 * a temporal collection with one Polyvertex grid per frame whose arrays are hyperslabs of the
 * trajectory's datasets. Every body is a point, planes included. */
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

static void put_whole(text *t, const char *h5, const char *dset, const char *type, int prec, const char *dims) {
  put(t, "          <DataItem Dimensions=\"%s\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", dims, type, prec);
  put_escaped(t, h5);
  put(t, ":%s</DataItem>\n", dset);
}

sg_err sg_xdmf_write(const char *xmf_path, const char *h5_name, long long n, const double *times,
                     long long n_frames) {
  text t = {0};
  char n1[32], n3[48], n4[48];
  snprintf(n1, sizeof n1, "%lld", n);
  snprintf(n3, sizeof n3, "%lld 3", n);
  snprintf(n4, sizeof n4, "%lld 4", n);
  put(&t, "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n");
  put(&t, "    <Grid Name=\"bodies\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
  long long T = n_frames;
  for (long long f = 0; f < n_frames; ++f) {
    long long full3[3] = {T, n, 3}, full4[3] = {T, n, 4}, full6[3] = {T, n, 6};
    long long at0[3] = {f, 0, 0}, at3[3] = {f, 0, 3};
    long long c3[3] = {1, n, 3}, c4[3] = {1, n, 4};
    put(&t, "      <Grid Name=\"frame %lld\" GridType=\"Uniform\">\n", f);
    put(&t, "        <Time Value=\"%.17g\"/>\n", times[f]);
    put(&t, "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%lld\" NodesPerElement=\"1\"/>\n", n);
    put(&t, "        <Geometry GeometryType=\"XYZ\">\n");
    put_slab(&t, h5_name, "/frames/position", "Float", 8, 3, full3, at0, c3, n3);
    put(&t, "        </Geometry>\n");
    put(&t, "        <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n");
    put_slab(&t, h5_name, "/frames/velocity", "Float", 8, 3, full6, at0, c3, n3);
    put(&t, "        </Attribute>\n");
    put(&t, "        <Attribute Name=\"angular_velocity\" AttributeType=\"Vector\" Center=\"Node\">\n");
    put_slab(&t, h5_name, "/frames/velocity", "Float", 8, 3, full6, at3, c3, n3);
    put(&t, "        </Attribute>\n");
    put(&t, "        <Attribute Name=\"orientation\" AttributeType=\"Matrix\" Center=\"Node\">\n");
    put_slab(&t, h5_name, "/frames/orientation", "Float", 8, 3, full4, at0, c4, n4);
    put(&t, "        </Attribute>\n");
    /* Static description, the same in every frame. */
    long long fsize[2] = {n, 3}, z2[2] = {0, 0}, col0[2] = {n, 1};
    put(&t, "        <Attribute Name=\"shape\" AttributeType=\"Scalar\" Center=\"Node\">\n");
    put_whole(&t, h5_name, "/scene/bodies/shape", "Int", 4, n1);
    put(&t, "        </Attribute>\n");
    put(&t, "        <Attribute Name=\"fixed\" AttributeType=\"Scalar\" Center=\"Node\">\n");
    put_whole(&t, h5_name, "/scene/bodies/fixed", "UChar", 1, n1);
    put(&t, "        </Attribute>\n");
    put(&t, "        <Attribute Name=\"radius\" AttributeType=\"Scalar\" Center=\"Node\">\n");
    put_slab(&t, h5_name, "/scene/bodies/size", "Float", 8, 2, fsize, z2, col0, n1);
    put(&t, "        </Attribute>\n");
    put(&t, "        <Attribute Name=\"size\" AttributeType=\"Vector\" Center=\"Node\">\n");
    put_whole(&t, h5_name, "/scene/bodies/size", "Float", 8, n3);
    put(&t, "        </Attribute>\n");
    put(&t, "      </Grid>\n");
  }
  put(&t, "    </Grid>\n  </Domain>\n</Xdmf>\n");
  sg_err err = t.failed ? sg_error_set(SG_ERR_MEM, "out of memory writing %s", xmf_path)
                        : sg_fs_write_atomic_local(xmf_path, t.s, t.len);
  free(t.s);
  return err;
}
