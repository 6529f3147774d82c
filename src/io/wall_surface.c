/* The walls of a scene, fixed or kinematic, as one triangle surface in world coordinates, for the
 * .xmf companion of a trajectory (ParaView draws it beside the bodies): boxes, walls of revolution
 * (48 facets around) and meshes. Planes (unbounded) and capsules are left out. The fixed walls are
 * drawn once; the kinematic ones at every frame (traj_walls.c), with the same triangles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "signorini/collision.h"
#include "signorini/geometry.h"
#include "signorini/la.h"

#define FACETS 48

/* Room for nv more vertices and nt more triangles (sg_grow, the project's growable arrays). */
static int grow(sg_surface *w, int nv, int nt) {
  return !sg_grow((void **)&w->xyz, &w->cap_v, w->n_vertices + nv, 3 * sizeof(double), "wall vertices") &&
         !sg_grow((void **)&w->tri, &w->cap_t, w->n_triangles + nt, 3 * sizeof(int), "wall triangles");
}

/* A vertex given in the body frame of g. */
static void vertex(sg_surface *w, const sg_geom *g, const double *local) {
  double *x = w->xyz + 3 * w->n_vertices++;
  m3_mul_v(x, g->R, local);
  v3_add(x, x, g->pos);
}

static void triangle(sg_surface *w, int a, int b, int c) {
  int *t = w->tri + 3 * w->n_triangles++;
  t[0] = a; t[1] = b; t[2] = c;
}

static int add_box(sg_surface *w, const sg_geom *g) {
  static const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  if (!grow(w, 8, 12)) return 0;
  const int v0 = w->n_vertices;
  for (int v = 0; v < 8; ++v) { /* bit k of v: the + side of axis k */
    double local[3];
    for (int k = 0; k < 3; ++k) local[k] = (v >> k & 1) ? g->size[k] : -g->size[k];
    vertex(w, g, local);
  }
  for (int f = 0; f < 6; ++f) {
    triangle(w, v0 + faces[f][0], v0 + faces[f][1], v0 + faces[f][2]);
    triangle(w, v0 + faces[f][0], v0 + faces[f][2], v0 + faces[f][3]);
  }
  return 1;
}

/* The meridian segment swept around the local z axis. */
static int add_revolved(sg_surface *w, const sg_geom *g) {
  double p0[2], p1[2];
  sg_revolved_meridian(g, p0, p1);
  if (!grow(w, 2 * FACETS, 2 * FACETS)) return 0;
  const int v0 = w->n_vertices;
  for (int k = 0; k < FACETS; ++k) {
    double c = cos(2 * M_PI * k / FACETS), s = sin(2 * M_PI * k / FACETS);
    const double a[3] = {p0[0] * c, p0[0] * s, p0[1]}, b[3] = {p1[0] * c, p1[0] * s, p1[1]};
    vertex(w, g, a);
    vertex(w, g, b);
  }
  for (int k = 0; k < FACETS; ++k) {
    int j = (k + 1) % FACETS;
    triangle(w, v0 + 2 * k, v0 + 2 * j, v0 + 2 * j + 1);
    triangle(w, v0 + 2 * k, v0 + 2 * j + 1, v0 + 2 * k + 1);
  }
  return 1;
}

static int add_mesh(sg_surface *w, const sg_geom *g) {
  const sg_mesh *m = g->mesh;
  if (!grow(w, m->n_vertices, m->n_triangles)) return 0;
  const int v0 = w->n_vertices;
  for (int v = 0; v < m->n_vertices; ++v) vertex(w, g, m->vertices + 3 * v);
  for (int t = 0; t < m->n_triangles; ++t)
    triangle(w, v0 + m->triangles[3 * t], v0 + m->triangles[3 * t + 1], v0 + m->triangles[3 * t + 2]);
  return 1;
}

sg_err sg_walls_surface(const sg_scene *s, int kind, sg_surface *w) {
  w->n_vertices = w->n_triangles = 0; /* an earlier surface's memory is reused */
  for (int i = 0; i < s->n; ++i) {
    if (s->fixed[i] != kind) continue;
    sg_geom g;
    sg_scene_geom(s, i, &g);
    int ok = 1;
    if (g.shape == SG_SHAPE_BOX) ok = add_box(w, &g);
    else if (sg_shape_is_revolved(g.shape)) ok = add_revolved(w, &g);
    else if (g.shape == SG_SHAPE_MESH) ok = add_mesh(w, &g);
    if (!ok) {
      sg_surface_free(w);
      return sg_error_set(SG_ERR_MEM, "out of memory drawing the walls");
    }
  }
  return SG_OK;
}

void sg_surface_free(sg_surface *w) {
  free(w->xyz);
  free(w->tri);
  memset(w, 0, sizeof *w);
}
