/* Narrow-phase interface: a shape placed in world, and the contact manifold between two of them.
 * Conventions: the normal points from shape B toward shape A (pushing A along +normal separates
 * them); gap is the signed distance along the normal (negative = penetration); the point lies
 * midway between the two surfaces. Each point carries a feature id that stays the same while the
 * same pair of features touches, so that warm starts can follow a contact across steps. */
#ifndef SIGNORINI_GEOMETRY_H
#define SIGNORINI_GEOMETRY_H
#include <stdint.h>

#define SG_MANIFOLD_MAX 8

typedef struct {
  int shape;         /* sg_shape */
  double size[3];
  double pos[3];     /* world position of the centre (planes: a point on the plane) */
  double R[9];       /* rotation, row-major; columns are the body axes in world */
  const struct sg_mesh_tag *mesh; /* SG_SHAPE_MESH: its mesh (mesh.h); NULL otherwise */
} sg_geom;

typedef struct {
  double point[3];
  double normal[3];
  double gap;
  uint32_t feature;
} sg_contact_point;

typedef struct {
  int n;
  sg_contact_point p[SG_MANIFOLD_MAX];
} sg_manifold;

/* Contacts between a and b with gap < margin are reported (margin >= 0). Returns the number of
 * points written to out (out->n). shape(a) <= shape(b) for the table entries; sg_collide swaps
 * and flips normals as needed, so it accepts any order. */
typedef int (*sg_narrow_fn)(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);

/* Dispatch on the shape pair; returns out->n (0 when the pair has no narrow phase, e.g. plane-plane). */
int sg_collide(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);

/* Individual narrow phases (a's shape listed first). */
int sg_collide_sphere_sphere(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);
/* The same from the two centres and radii alone (a sphere's orientation changes none of it). */
int sg_collide_sphere_centres(const double *ca, double ra, const double *cb, double rb, double margin, sg_manifold *out);
int sg_collide_sphere_box(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);
int sg_collide_sphere_capsule(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);
int sg_collide_sphere_plane(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);
int sg_collide_box_box(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);
int sg_collide_box_capsule(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);
int sg_collide_box_plane(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);
int sg_collide_capsule_capsule(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);
int sg_collide_capsule_plane(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);
/* A sphere against a triangle mesh: narrow_mesh.c. */
int sg_collide_sphere_mesh(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);
/* A sphere against a wall of revolution (cylinder, cone, disk): narrow_revolved.c. */
int sg_collide_sphere_revolved(const sg_geom *a, const sg_geom *b, double margin, sg_manifold *out);

/* The meridian of a wall of revolution: the segment from (rho0, z0) to (rho1, z1) in the
 * (distance from the local z axis, local z) half-plane that the wall sweeps around the axis. */
void sg_revolved_meridian(const sg_geom *g, double p0[2], double p1[2]);
/* Distance from the point pos to the wall of revolution g (its surface: the gap of a sphere centred
 * there is this minus its radius, as sg_collide_sphere_revolved measures it). */
double sg_revolved_distance(const sg_geom *g, const double *pos);

#endif
