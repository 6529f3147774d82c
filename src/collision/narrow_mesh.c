/* A sphere against a triangle mesh. The triangles of the grid cells around the sphere give their
 * closest points within reach; a point on an edge or at a vertex is kept only where no triangle
 * meeting there is closer (else it is the edge of a face the sphere touches inside: no second
 * contact), and points that coincide with the same normal (a sphere exactly over an edge between
 * coplanar triangles) count once, the lowest feature kept (faces before edges before vertices).
 * The mesh is thin: a face is touched from the side the centre is on. Features are mesh-wide
 * (mesh.h), so a contact keeps its identity while the sphere stays on the same face. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "narrow_internal.h"
#include "signorini/mesh.h"

#define MAX_CANDIDATES 64

typedef struct {
  uint32_t feature;
  int tri;
  double q[3], dist; /* closest point (mesh frame) and its distance to the centre */
} candidate;

/* Insert (or keep the nearer of a full list); a feature already listed is not added again. */
static void add_candidate(candidate *c, int *n, const candidate *x) {
  for (int k = 0; k < *n; ++k)
    if (c[k].feature == x->feature) return;
  if (*n < MAX_CANDIDATES) {
    c[(*n)++] = *x;
    return;
  }
  int far = 0;
  for (int k = 1; k < *n; ++k)
    if (c[k].dist > c[far].dist) far = k;
  if (x->dist < c[far].dist) c[far] = *x;
}

static int gather(const sg_mesh *m, const double *x, double reach, candidate *c) {
  int lo[3], hi[3], n = 0;
  if (!sg_mesh_cells(m, x, reach, lo, hi)) return 0;
  for (int z = lo[2]; z <= hi[2]; ++z)
    for (int y = lo[1]; y <= hi[1]; ++y)
      for (int xx = lo[0]; xx <= hi[0]; ++xx) {
        size_t cell = ((size_t)z * m->dims[1] + y) * m->dims[0] + xx;
        for (int j = m->cell_start[cell]; j < m->cell_start[cell + 1]; ++j) {
          candidate k = {.tri = m->cell_tris[j]};
          double d[3];
          k.feature = sg_mesh_closest(m, k.tri, x, k.q);
          v3_sub(d, x, k.q);
          k.dist = v3_norm(d);
          if (k.dist < reach) add_candidate(c, &n, &k);
        }
      }
  return n;
}

/* Unit normal (mesh frame) from the surface toward the centre: along x - q, or, with the centre
 * on the surface, the triangle's normal. */
static void contact_normal(const sg_mesh *m, const candidate *k, const double *x, double *n) {
  v3_sub(n, x, k->q);
  if (k->dist > 0 && k->dist > 1e-12 * m->cell) v3_scale(n, n, 1.0 / k->dist);
  else v3_copy(n, m->normals + 3 * k->tri);
}

static int cmp_feature(const void *a, const void *b) {
  const candidate *p = a, *q = b;
  return p->feature < q->feature ? -1 : p->feature > q->feature;
}

int sg_collide_sphere_mesh(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out) {
  out->n = 0;
  const sg_mesh *m = (const sg_mesh *)b->mesh;
  if (!m) return 0;
  double rel[3], x[3];
  v3_sub(rel, a->pos, b->pos);
  m3t_mul_v(x, b->R, rel); /* centre in the mesh frame */
  const double r = a->size[0], tol = 1e-10 * (m->bound_radius + v3_norm(x) + r);
  candidate c[MAX_CANDIDATES];
  int n = gather(m, x, r + margin, c);
  qsort(c, (size_t)n, sizeof *c, cmp_feature);
  double kept_q[SG_MANIFOLD_MAX][3], kept_n[SG_MANIFOLD_MAX][3];
  for (int k = 0; k < n && out->n < SG_MANIFOLD_MAX; ++k) {
    if (!sg_mesh_feature_is_closest(m, c[k].feature, x, c[k].dist, tol)) continue;
    double nrm[3], d[3];
    contact_normal(m, &c[k], x, nrm);
    int same = 0;
    for (int j = 0; j < out->n && !same; ++j) {
      v3_sub(d, c[k].q, kept_q[j]);
      same = v3_norm(d) <= tol && v3_dot(nrm, kept_n[j]) > 1 - 1e-9;
    }
    if (same) continue;
    v3_copy(kept_q[out->n], c[k].q);
    v3_copy(kept_n[out->n], nrm);
    double surface[3], normal[3];
    m3_mul_v(surface, b->R, c[k].q);
    v3_add(surface, surface, b->pos);
    m3_mul_v(normal, b->R, nrm);
    sg_narrow_add_from_b(out, surface, normal, c[k].dist - r, c[k].feature);
  }
  return out->n;
}
