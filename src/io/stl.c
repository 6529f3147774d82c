/* STL files (ASCII and binary) into meshes (mesh.h). A binary file is an 80-byte header, a
 * little-endian uint32 triangle count and 50 bytes per triangle (normal, three vertices as
 * float32, an attribute word); its size must be exactly that. Anything else must be ASCII:
 * "solid", then per triangle "facet normal n n n / outer loop / vertex x y z (3 times) /
 * endloop / endfacet", then "endsolid". The normals in the file are ignored (recomputed from the
 * vertex order). Vertices with equal coordinates are welded, so that triangles share edges. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/mesh.h"

typedef struct {
  double *xyz; /* [3 T][3] corners, triangle by triangle */
  long n_tri, cap;
} soup;

static sg_err soup_push(soup *s, const double *corners, const char *path) {
  if (s->n_tri == s->cap) {
    long cap = s->cap ? 2 * s->cap : 1024;
    if (cap > 200000000L) return sg_error_set(SG_ERR_FORMAT, "%s: more than 2e8 triangles", path);
    double *g = realloc(s->xyz, (size_t)cap * 9 * sizeof *g);
    if (!g) return sg_error_set(SG_ERR_MEM, "%s: out of memory for %ld triangles", path, cap);
    s->xyz = g;
    s->cap = cap;
  }
  memcpy(s->xyz + 9 * s->n_tri++, corners, 9 * sizeof(double));
  return SG_OK;
}

static sg_err read_binary(FILE *f, long count, const char *path, soup *s) {
  unsigned char rec[50];
  for (long t = 0; t < count; ++t) {
    if (fread(rec, 1, 50, f) != 50) return sg_error_set(SG_ERR_FORMAT, "%s: binary STL ends inside triangle %ld", path, t);
    double c[9];
    for (int k = 0; k < 9; ++k) {
      float v;
      memcpy(&v, rec + 12 + 4 * k, 4);
      c[k] = v;
    }
    SG_CHECK(soup_push(s, c, path));
  }
  return SG_OK;
}

/* ---- ASCII: a tokenizer that counts lines ---- */
typedef struct { FILE *f; long line; char tok[128]; } lexer;

static int next_token(lexer *x) {
  int ch, len = 0;
  while ((ch = fgetc(x->f)) != EOF && (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'))
    if (ch == '\n') x->line++;
  if (ch == EOF) return 0;
  do {
    if (len < (int)sizeof x->tok - 1) x->tok[len++] = (char)ch;
  } while ((ch = fgetc(x->f)) != EOF && !(ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'));
  if (ch == '\n') ungetc(ch, x->f);
  x->tok[len] = 0;
  return 1;
}

static sg_err expect(lexer *x, const char *word, const char *path) {
  if (!next_token(x)) return sg_error_set(SG_ERR_FORMAT, "%s: line %ld: the file ends where '%s' was expected", path, x->line, word);
  if (strcmp(x->tok, word)) return sg_error_set(SG_ERR_FORMAT, "%s: line %ld: expected '%s', found '%.40s'", path, x->line, word, x->tok);
  return SG_OK;
}

static sg_err number(lexer *x, const char *path, double *v) {
  if (!next_token(x)) return sg_error_set(SG_ERR_FORMAT, "%s: line %ld: the file ends where a number was expected", path, x->line);
  char *end;
  errno = 0;
  *v = strtod(x->tok, &end);
  if (*end || end == x->tok || !isfinite(*v))
    return sg_error_set(SG_ERR_FORMAT, "%s: line %ld: '%.40s' is not a finite number", path, x->line, x->tok);
  return SG_OK;
}

static sg_err read_facet(lexer *x, const char *path, soup *s) {
  double c[9], nrm;
  SG_CHECK(expect(x, "normal", path));
  for (int k = 0; k < 3; ++k) SG_CHECK(number(x, path, &nrm));
  SG_CHECK(expect(x, "outer", path));
  SG_CHECK(expect(x, "loop", path));
  for (int v = 0; v < 3; ++v) {
    SG_CHECK(expect(x, "vertex", path));
    for (int k = 0; k < 3; ++k) SG_CHECK(number(x, path, &c[3 * v + k]));
  }
  SG_CHECK(expect(x, "endloop", path));
  SG_CHECK(expect(x, "endfacet", path));
  return soup_push(s, c, path);
}

static sg_err read_ascii(FILE *f, const char *path, soup *s) {
  lexer x = {.f = f, .line = 1};
  SG_CHECK(expect(&x, "solid", path));
  /* the solid's name: any words up to the first facet */
  for (;;) {
    if (!next_token(&x)) return sg_error_set(SG_ERR_FORMAT, "%s: line %ld: the file ends before 'endsolid'", path, x.line);
    if (!strcmp(x.tok, "facet")) SG_CHECK(read_facet(&x, path, s));
    else if (!strcmp(x.tok, "endsolid")) return SG_OK;
    else if (s->n_tri > 0) return sg_error_set(SG_ERR_FORMAT, "%s: line %ld: expected 'facet' or 'endsolid', found '%.40s'", path, x.line, x.tok);
  }
}

/* ---- welding ---- */
static const double *g_corners;
static int cmp_corner(const void *a, const void *b) {
  const double *p = g_corners + 3 * *(const long *)a, *q = g_corners + 3 * *(const long *)b;
  for (int k = 0; k < 3; ++k)
    if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
  return *(const long *)a < *(const long *)b ? -1 : 1;
}

static sg_err weld_and_build(const soup *s, double scale, const char *path, sg_mesh **out) {
  const long nc = 3 * s->n_tri;
  long *order = malloc((size_t)nc * sizeof *order);
  int *tri = malloc((size_t)nc * sizeof *tri);
  double *v = malloc((size_t)nc * 3 * sizeof *v);
  sg_err err = order && tri && v ? SG_OK : sg_error_set(SG_ERR_MEM, "%s: out of memory for %ld triangles", path, s->n_tri);
  int nv = 0;
  if (!err) {
    for (long k = 0; k < nc; ++k) order[k] = k;
    g_corners = s->xyz;
    qsort(order, (size_t)nc, sizeof *order, cmp_corner);
    for (long j = 0; j < nc; ++j) {
      const double *p = s->xyz + 3 * order[j];
      if (j == 0 || memcmp(p, s->xyz + 3 * order[j - 1], 3 * sizeof(double))) {
        for (int k = 0; k < 3; ++k) v[3 * nv + k] = scale * p[k];
        ++nv;
      }
      tri[order[j]] = nv - 1;
    }
    const char *base = strrchr(path, '/');
    err = sg_mesh_build(base ? base + 1 : path, nv, v, (int)s->n_tri, tri, out);
  }
  free(order);
  free(tri);
  free(v);
  return err;
}

static int starts_with_solid(const unsigned char *head, size_t got) {
  size_t k = 0;
  while (k < got && (head[k] == ' ' || head[k] == '\t' || head[k] == '\r' || head[k] == '\n')) ++k;
  return got >= k + 5 && !memcmp(head + k, "solid", 5);
}

sg_err sg_stl_read(const char *path, double scale, sg_mesh **out) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return sg_error_set(SG_ERR_IO, "cannot open STL file %s: %s", path, strerror(errno));
  unsigned char head[84];
  size_t got = fread(head, 1, sizeof head, f);
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  uint32_t count = 0;
  if (got == sizeof head) memcpy(&count, head + 80, 4);
  soup s = {0};
  sg_err err = SG_OK;
  if (size < 0) err = sg_error_set(SG_ERR_IO, "cannot read STL file %s (not a regular file?)", path);
  else if (got == sizeof head && (long long)size == 84 + 50LL * count) {
    fseek(f, 84, SEEK_SET);
    err = read_binary(f, (long)count, path, &s);
  } else if (!starts_with_solid(head, got)) {
    err = sg_error_set(SG_ERR_FORMAT, "%s is neither a binary STL file (%ld bytes, not 84 + 50 x the %u triangles its header claims) "
                       "nor an ASCII one (it does not start with 'solid')", path, size, (unsigned)count);
  } else {
    rewind(f);
    err = read_ascii(f, path, &s);
  }
  fclose(f);
  if (!err && s.n_tri == 0) err = sg_error_set(SG_ERR_FORMAT, "%s: the STL file holds no triangles", path);
  if (!err) err = weld_and_build(&s, scale, path, out);
  free(s.xyz);
  return err;
}
