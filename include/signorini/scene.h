/* The scene: rigid bodies in flat arrays (MuJoCo-style), in the scene's global order.
 * Static description (shape, size, material, density, fixed) and state (pose, velocity) live
 * side by side so that a body can migrate between ranks with all its data (later issue). */
#ifndef SIGNORINI_SCENE_H
#define SIGNORINI_SCENE_H
#include <stdint.h>
#include "signorini/error.h"

#define SG_SCENE_FORMAT_VERSION 1

typedef enum {
  SG_SHAPE_SPHERE = 0,   /* size = (radius, 0, 0) */
  SG_SHAPE_BOX = 1,      /* size = half extents (hx, hy, hz) */
  SG_SHAPE_CAPSULE = 2,  /* size = (radius, half length of the segment along local z, 0) */
  SG_SHAPE_PLANE = 3,    /* half-space below the local z = 0 plane; normal = local +z; fixed only */
  SG_SHAPE_COUNT = 4
} sg_shape;

const char *sg_shape_name(int shape);

typedef struct {
  int n;              /* bodies */
  int cap;            /* allocated capacity */
  /* description */
  int64_t *gid;       /* global id = index in the scene file */
  int *shape;         /* sg_shape */
  double *size;       /* [n][3] */
  int *material;      /* index into the friction table */
  unsigned char *fixed; /* 1: static (infinite mass), never moves */
  double *density;    /* kg/m^3 (ignored for fixed bodies) */
  /* derived from the description (sg_scene_update_mass) */
  double *mass;       /* kg; 0 for fixed bodies */
  double *inertia;    /* [n][3] principal moments in the body frame */
  /* state */
  double *pos;        /* [n][3] centre of mass, world */
  double *quat;       /* [n][4] orientation (w, x, y, z), body to world */
  double *vel;        /* [n][6] linear then angular velocity, world frame */
  /* materials */
  int n_materials;
  double *friction;   /* [n_materials][n_materials], symmetric Coulomb coefficients */
  double gravity[3];
  double time;        /* simulated time of the state */
  int64_t step;       /* steps taken */
  /* distribution: distributed = 0: every rank holds the whole scene. distributed = 1: this rank
   * holds the moving bodies it owns (n_owned of them; each moving body of the run is held by
   * exactly one rank) and every fixed body (walls, planes: the same on every rank), all in
   * ascending gid. On one rank the two are the same scene. */
  int distributed;
  int n_owned;
} sg_scene;

sg_err sg_scene_create(sg_scene *s, int n_bodies, int n_materials);
sg_err sg_scene_reserve(sg_scene *s, int cap);
void sg_scene_destroy(sg_scene *s);

/* Append a body; returns its index in *index (may be NULL). Orientation (w,x,y,z), velocity 6. */
sg_err sg_scene_add_body(sg_scene *s, int shape, const double size[3], int material, int fixed,
                         double density, const double pos[3], const double quat[4],
                         const double vel[6], int *index);

/* Append a copy of body i of src (description, derived mass and inertia, state, gid) to dst. */
sg_err sg_scene_copy_body(sg_scene *dst, const sg_scene *src, int i);
/* Materials, gravity, time and step of src into dst (dst's friction table is reallocated). */
sg_err sg_scene_copy_globals(sg_scene *dst, const sg_scene *src);

/* Mass and principal inertia of every body from its shape, size and density. */
sg_err sg_scene_update_mass(sg_scene *s);

/* Check the scene for consistency (finite numbers, positive sizes and densities, known shapes,
 * valid materials, friction >= 0, unit quaternions, planes fixed). `where` names the source in
 * messages (a file name). Returns SG_ERR_FORMAT with a message naming the body index. */
sg_err sg_scene_validate(const sg_scene *s, const char *where);

double sg_scene_friction(const sg_scene *s, int a, int b);

/* Characteristic length of a body (sphere/capsule radius, smallest half extent of a box). */
double sg_body_min_size(const sg_scene *s, int i);
/* Radius of a sphere that bounds the body about its centre (planes: INFINITY). */
double sg_body_bounding_radius(const sg_scene *s, int i);

/* Kinetic energy of the moving bodies (translational + rotational). */
double sg_scene_kinetic_energy(const sg_scene *s);

#endif
