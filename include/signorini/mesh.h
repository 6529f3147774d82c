/* Triangle meshes: walls of any form (a bin, a chute, a mixer), read from STL or a scene file.
 * A mesh is model data: its vertices in the frame of the body that places it, shared by reference
 * between the bodies and the copies of a scene that use it (reference counted, never changed once
 * built). A body of shape SG_SHAPE_MESH names its mesh by index (size[0]); it is fixed or
 * kinematic and meets spheres (narrow_mesh.c). Derived on build: the edges, which triangles meet
 * at each edge and vertex (so that a contact at an edge or a vertex is kept only where no
 * triangle there is closer: one contact for a sphere on an edge between two coplanar
 * triangles), and a uniform grid of the triangles for the search around a sphere. */
#ifndef SIGNORINI_MESH_H
#define SIGNORINI_MESH_H
#include <stdint.h>
#include "signorini/error.h"

typedef struct sg_mesh_tag {
  int refs;             /* owners: scenes (and their copies) holding it */
  char name[64];        /* where it came from (the STL file's base name), for messages */
  int n_vertices, n_triangles, n_edges;
  double *vertices;     /* [V][3] in the body frame (m) */
  int *triangles;       /* [T][3] vertex indices */
  /* derived */
  double *normals;      /* [T][3] unit normals, (b - a) x (c - a) normalized */
  int *tri_edges;       /* [T][3] edge of vertices (k, k + 1 mod 3) */
  int *edge_vertices;   /* [E][2] lower vertex first */
  int *edge_tri_start, *edge_tris;  /* triangles at each edge: edge_tris[edge_tri_start[e] ..] */
  int *vert_tri_start, *vert_tris;  /* triangles at each vertex */
  double bound_radius;  /* largest distance of a vertex from the body origin */
  double lo[3], cell;   /* the grid: cells of edge `cell` from lo, dims cells per axis */
  int dims[3];
  int *cell_start, *cell_tris; /* triangles overlapping cell c: cell_tris[cell_start[c] ..] */
} sg_mesh;

/* A mesh from vertices and triangles (copied), with one reference. Refused with an error naming
 * `name`: no triangle, a non-finite vertex, a vertex index out of range, a triangle of zero area. */
sg_err sg_mesh_build(const char *name, int n_vertices, const double *vertices, int n_triangles, const int *triangles,
                     sg_mesh **out);
sg_mesh *sg_mesh_ref(sg_mesh *m);
void sg_mesh_release(sg_mesh **m);

/* Cell range [lo, hi] (inclusive, per axis) of the grid overlapping the box centre +- reach in
 * the mesh frame; 0 when the box misses the grid. */
int sg_mesh_cells(const sg_mesh *m, const double centre[3], double reach, int lo[3], int hi[3]);

/* The closest point q of triangle t to x (mesh frame) and its feature: the triangle's face, one of
 * its edges or one of its vertices, as a mesh-wide id: face t, edge T + e, vertex T + E + v. */
uint32_t sg_mesh_closest(const sg_mesh *m, int t, const double x[3], double q[3]);

/* Is feature f (an edge or a vertex), at distance dist from x, a local closest point of the
 * surface: is no triangle that meets there closer to x by more than tol? A face always is. */
int sg_mesh_feature_is_closest(const sg_mesh *m, uint32_t f, const double x[3], double dist, double tol);

/* Read an STL file (ASCII or binary), vertices welded where their coordinates are equal, scaled
 * by `scale`. Refused with one line naming the file: missing, unreadable, empty, malformed
 * (a truncated binary file, an ASCII line that is not STL, a non-number). */
sg_err sg_stl_read(const char *path, double scale, sg_mesh **out);
#endif
