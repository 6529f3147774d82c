/* Triangle meshes (mesh.h): building one (checks, edges, adjacency, search grid), the closest
 * point of a triangle, and the test that keeps an edge or vertex contact only where it is a local
 * closest point of the surface. */
#include "signorini/mesh.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/la.h"

sg_mesh *sg_mesh_ref(sg_mesh *m) {
  if (m) m->refs++;
  return m;
}

void sg_mesh_release(sg_mesh **pm) {
  sg_mesh *m = *pm;
  *pm = NULL;
  if (!m || --m->refs > 0) return;
  free(m->vertices); free(m->triangles); free(m->normals); free(m->tri_edges); free(m->edge_vertices);
  free(m->edge_tri_start); free(m->edge_tris); free(m->vert_tri_start); free(m->vert_tris);
  free(m->cell_start); free(m->cell_tris);
  free(m);
}

static sg_err check_input(const char *name, int nv, const double *v, int nt, const int *t) {
  if (nt <= 0) return sg_error_set(SG_ERR_FORMAT, "mesh %s: no triangles", name);
  for (long k = 0; k < 3L * nv; ++k)
    if (!isfinite(v[k])) return sg_error_set(SG_ERR_FORMAT, "mesh %s: vertex %ld is not finite", name, k / 3);
  for (long k = 0; k < 3L * nt; ++k)
    if (t[k] < 0 || t[k] >= nv)
      return sg_error_set(SG_ERR_FORMAT, "mesh %s: triangle %ld names vertex %d, not in [0, %d)", name, k / 3, t[k], nv);
  return SG_OK;
}

/* Unit normals; a triangle whose area is 0 relative to its edges is refused. */
static sg_err build_normals(sg_mesh *m) {
  for (int t = 0; t < m->n_triangles; ++t) {
    const int *i = m->triangles + 3 * t;
    double ab[3], ac[3], *n = m->normals + 3 * t;
    v3_sub(ab, m->vertices + 3 * i[1], m->vertices + 3 * i[0]);
    v3_sub(ac, m->vertices + 3 * i[2], m->vertices + 3 * i[0]);
    v3_cross(n, ab, ac);
    double len = v3_norm(n), scale = v3_dot(ab, ab) + v3_dot(ac, ac);
    if (!(len > 1e-12 * scale))
      return sg_error_set(SG_ERR_FORMAT, "mesh %s: triangle %d has no area (vertices %d, %d, %d)", m->name, t, i[0], i[1], i[2]);
    v3_scale(n, n, 1.0 / len);
  }
  return SG_OK;
}

typedef struct { int a, b, tri, k; } half_edge;
static int cmp_half_edge(const void *x, const void *y) {
  const half_edge *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  if (p->b != q->b) return p->b < q->b ? -1 : 1;
  return p->tri < q->tri ? -1 : p->tri > q->tri;
}

/* Edges numbered in (lower vertex, upper vertex) order; the triangles at each, in index order. */
static sg_err build_edges(sg_mesh *m) {
  const int T = m->n_triangles;
  half_edge *h = malloc(3 * (size_t)T * sizeof *h);
  m->tri_edges = malloc(3 * (size_t)T * sizeof(int));
  m->edge_vertices = malloc(6 * (size_t)T * sizeof(int));
  m->edge_tri_start = malloc((3 * (size_t)T + 1) * sizeof(int));
  m->edge_tris = malloc(3 * (size_t)T * sizeof(int));
  if (!h || !m->tri_edges || !m->edge_vertices || !m->edge_tri_start || !m->edge_tris) {
    free(h);
    return sg_error_set(SG_ERR_MEM, "mesh %s: out of memory for its edges", m->name);
  }
  for (int t = 0; t < T; ++t)
    for (int k = 0; k < 3; ++k) {
      int u = m->triangles[3 * t + k], w = m->triangles[3 * t + (k + 1) % 3];
      h[3 * t + k] = (half_edge){u < w ? u : w, u < w ? w : u, t, k};
    }
  qsort(h, 3 * (size_t)T, sizeof *h, cmp_half_edge);
  int e = -1;
  for (int j = 0; j < 3 * T; ++j) {
    if (j == 0 || h[j].a != h[j - 1].a || h[j].b != h[j - 1].b) {
      ++e;
      m->edge_vertices[2 * e] = h[j].a;
      m->edge_vertices[2 * e + 1] = h[j].b;
      m->edge_tri_start[e] = j;
    }
    m->tri_edges[3 * h[j].tri + h[j].k] = e;
    m->edge_tris[j] = h[j].tri;
  }
  m->n_edges = e + 1;
  m->edge_tri_start[m->n_edges] = 3 * T;
  free(h);
  return SG_OK;
}

static sg_err build_vertex_triangles(sg_mesh *m) {
  const int V = m->n_vertices, T = m->n_triangles;
  m->vert_tri_start = calloc((size_t)V + 1, sizeof(int));
  m->vert_tris = malloc(3 * (size_t)T * sizeof(int));
  if (!m->vert_tri_start || !m->vert_tris) return sg_error_set(SG_ERR_MEM, "mesh %s: out of memory", m->name);
  for (int j = 0; j < 3 * T; ++j) m->vert_tri_start[m->triangles[j] + 1]++;
  for (int v = 0; v < V; ++v) m->vert_tri_start[v + 1] += m->vert_tri_start[v];
  int *fill = malloc(((size_t)V + 1) * sizeof(int));
  if (!fill) return sg_error_set(SG_ERR_MEM, "mesh %s: out of memory", m->name);
  memcpy(fill, m->vert_tri_start, (size_t)V * sizeof(int));
  for (int j = 0; j < 3 * T; ++j) m->vert_tris[fill[m->triangles[j]]++] = j / 3;
  free(fill);
  return SG_OK;
}

/* Cell range of the box lo..hi (mesh frame), clamped to the grid; 0 when it misses the grid. */
static int cell_range(const sg_mesh *m, const double *lo, const double *hi, int a[3], int b[3]) {
  for (int k = 0; k < 3; ++k) {
    double x0 = floor((lo[k] - m->lo[k]) / m->cell), x1 = floor((hi[k] - m->lo[k]) / m->cell);
    if (x1 < 0 || x0 >= m->dims[k]) return 0;
    a[k] = x0 < 0 ? 0 : (int)x0;
    b[k] = x1 >= m->dims[k] ? m->dims[k] - 1 : (int)x1;
  }
  return 1;
}

static void triangle_box(const sg_mesh *m, int t, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; ++k) {
    lo[k] = INFINITY;
    hi[k] = -INFINITY;
    for (int j = 0; j < 3; ++j) {
      double x = m->vertices[3 * m->triangles[3 * t + j] + k];
      lo[k] = fmin(lo[k], x);
      hi[k] = fmax(hi[k], x);
    }
  }
}

/* Cells of about the mean edge length, coarsened until there are at most 8 per triangle; each
 * triangle listed in every cell its box overlaps (a counting sort). */
static sg_err build_grid(sg_mesh *m) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, sum = 0;
  for (int v = 0; v < m->n_vertices; ++v)
    for (int k = 0; k < 3; ++k) {
      lo[k] = fmin(lo[k], m->vertices[3 * v + k]);
      hi[k] = fmax(hi[k], m->vertices[3 * v + k]);
    }
  for (int e = 0; e < m->n_edges; ++e) {
    double d[3];
    v3_sub(d, m->vertices + 3 * m->edge_vertices[2 * e + 1], m->vertices + 3 * m->edge_vertices[2 * e]);
    sum += v3_norm(d);
  }
  m->cell = sum / m->n_edges;
  double cells;
  for (;;) {
    cells = 1;
    for (int k = 0; k < 3; ++k) cells *= fmax(1.0, ceil((hi[k] - lo[k]) / m->cell));
    if (cells <= 8.0 * m->n_triangles + 64) break;
    m->cell *= 1.25;
  }
  for (int k = 0; k < 3; ++k) {
    m->lo[k] = lo[k];
    m->dims[k] = (int)fmax(1.0, ceil((hi[k] - lo[k]) / m->cell));
  }
  const size_t nc = (size_t)cells;
  m->cell_start = calloc(nc + 1, sizeof(int));
  if (!m->cell_start) return sg_error_set(SG_ERR_MEM, "mesh %s: out of memory for its grid", m->name);
  for (int pass = 0; pass < 2; ++pass) {
    int *fill = NULL;
    if (pass) {
      for (size_t c = 0; c < nc; ++c) m->cell_start[c + 1] += m->cell_start[c];
      m->cell_tris = malloc(((size_t)m->cell_start[nc] + 1) * sizeof(int));
      fill = malloc((nc + 1) * sizeof(int));
      if (!m->cell_tris || !fill) { free(fill); return sg_error_set(SG_ERR_MEM, "mesh %s: out of memory for its grid", m->name); }
      memcpy(fill, m->cell_start, nc * sizeof(int));
    }
    for (int t = 0; t < m->n_triangles; ++t) {
      double a[3], b[3];
      int i0[3], i1[3];
      triangle_box(m, t, a, b);
      cell_range(m, a, b, i0, i1);
      for (int z = i0[2]; z <= i1[2]; ++z)
        for (int y = i0[1]; y <= i1[1]; ++y)
          for (int x = i0[0]; x <= i1[0]; ++x) {
            size_t c = ((size_t)z * m->dims[1] + y) * m->dims[0] + x;
            if (pass) m->cell_tris[fill[c]++] = t;
            else m->cell_start[c + 1]++;
          }
    }
    free(fill);
  }
  return SG_OK;
}

sg_err sg_mesh_build(const char *name, int nv, const double *v, int nt, const int *t, sg_mesh **out) {
  *out = NULL;
  SG_CHECK(check_input(name, nv, v, nt, t));
  sg_mesh *m = calloc(1, sizeof *m);
  if (!m) return sg_error_set(SG_ERR_MEM, "mesh %s: out of memory", name);
  m->refs = 1;
  snprintf(m->name, sizeof m->name, "%s", name);
  m->n_vertices = nv;
  m->n_triangles = nt;
  m->vertices = malloc(3 * (size_t)nv * sizeof(double));
  m->triangles = malloc(3 * (size_t)nt * sizeof(int));
  m->normals = malloc(3 * (size_t)nt * sizeof(double));
  sg_err err = m->vertices && m->triangles && m->normals ? SG_OK : sg_error_set(SG_ERR_MEM, "mesh %s: out of memory", name);
  if (!err) {
    memcpy(m->vertices, v, 3 * (size_t)nv * sizeof(double));
    memcpy(m->triangles, t, 3 * (size_t)nt * sizeof(int));
    err = build_normals(m);
  }
  if (!err) err = build_edges(m);
  if (!err) err = build_vertex_triangles(m);
  if (!err) err = build_grid(m);
  for (int k = 0; k < nv && !err; ++k) m->bound_radius = fmax(m->bound_radius, v3_norm(v + 3 * k));
  if (err) sg_mesh_release(&m);
  *out = m;
  return err;
}

int sg_mesh_cells(const sg_mesh *m, const double centre[3], double reach, int lo[3], int hi[3]) {
  double a[3], b[3];
  for (int k = 0; k < 3; ++k) {
    a[k] = centre[k] - reach;
    b[k] = centre[k] + reach;
  }
  return cell_range(m, a, b, lo, hi);
}

/* Closest point of triangle (a, b, c) to p by its Voronoi regions: the vertices, then the edges,
 * then the face (barycentric coordinates of p's projection). Returns the region: 0 face, 1-3 the
 * vertices a, b, c, 4-6 the edges ab, bc, ca. */
static int closest_on_triangle(const double *a, const double *b, const double *c, const double *p, double *q) {
  double ab[3], ac[3], ap[3], bp[3], cp[3];
  v3_sub(ab, b, a); v3_sub(ac, c, a); v3_sub(ap, p, a);
  double d1 = v3_dot(ab, ap), d2 = v3_dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) { v3_copy(q, a); return 1; }
  v3_sub(bp, p, b);
  double d3 = v3_dot(ab, bp), d4 = v3_dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) { v3_copy(q, b); return 2; }
  double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) { v3_copy(q, a); v3_axpy(q, d1 / (d1 - d3), ab); return 4; }
  v3_sub(cp, p, c);
  double d5 = v3_dot(ab, cp), d6 = v3_dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) { v3_copy(q, c); return 3; }
  double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) { v3_copy(q, a); v3_axpy(q, d2 / (d2 - d6), ac); return 6; }
  double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    double w = (d4 - d3) / ((d4 - d3) + (d5 - d6)), bc[3];
    v3_sub(bc, c, b);
    v3_copy(q, b);
    v3_axpy(q, w, bc);
    return 5;
  }
  double denom = 1.0 / (va + vb + vc), v = vb * denom, w = vc * denom;
  v3_copy(q, a);
  v3_axpy(q, v, ab);
  v3_axpy(q, w, ac);
  return 0;
}

uint32_t sg_mesh_closest(const sg_mesh *m, int t, const double x[3], double q[3]) {
  const int *i = m->triangles + 3 * t;
  int region = closest_on_triangle(m->vertices + 3 * i[0], m->vertices + 3 * i[1], m->vertices + 3 * i[2], x, q);
  const uint32_t T = (uint32_t)m->n_triangles, E = (uint32_t)m->n_edges;
  if (region == 0) return (uint32_t)t;
  if (region <= 3) return T + E + (uint32_t)i[region - 1];
  return T + (uint32_t)m->tri_edges[3 * t + (region - 4)]; /* edges ab, bc, ca are k = 0, 1, 2 */
}

int sg_mesh_feature_is_closest(const sg_mesh *m, uint32_t f, const double x[3], double dist, double tol) {
  const uint32_t T = (uint32_t)m->n_triangles, E = (uint32_t)m->n_edges;
  if (f < T) return 1;
  const int *start = f < T + E ? m->edge_tri_start : m->vert_tri_start, *tris = f < T + E ? m->edge_tris : m->vert_tris;
  const int id = f < T + E ? (int)(f - T) : (int)(f - T - E);
  double q[3], d[3];
  for (int j = start[id]; j < start[id + 1]; ++j) {
    sg_mesh_closest(m, tris[j], x, q);
    v3_sub(d, x, q);
    if (v3_norm(d) < dist - tol) return 0;
  }
  return 1;
}
