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

/* fixed[i] of a body: */
enum {
  SG_MOVING = 0,    /* a rigid body moved by the solver */
  SG_FIXED = 1,     /* infinite mass, never moves; its velocity is its surface's (a belt) */
  SG_KINEMATIC = 2  /* infinite mass, moved by a prescribed motion (sg_motion); in files: fixed = 1
                     * and a row of /motions */
};

/* A prescribed motion of a kinematic body over the time window [t_start, t_end) (t_end may be
 * INFINITY); at rest outside it. A body may have several, with disjoint windows (a schedule). */
typedef enum { SG_MOTION_TRANSLATE = 0, SG_MOTION_ROTATE = 1, SG_MOTION_KINDS = 2 } sg_motion_kind;
typedef struct {
  int64_t body;        /* global id of the kinematic body */
  int kind;            /* sg_motion_kind */
  double velocity[3];  /* translate: linear velocity (m/s); rotate: angular velocity (rad/s), axis along it */
  double point[3];     /* rotate: a point of the axis (world; m) */
  double t_start, t_end;
  /* the body's pose at the reference time (the time of the scene the motion was read with):
   * poses at any time are computed from it, so they do not depend on the steps taken (restarts
   * continue bit for bit) */
  double ref_time, ref_pos[3], ref_quat[4];
} sg_motion;

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
  /* prescribed motions of the kinematic bodies (model; the same on every rank), sorted by (body, t_start) */
  int n_motions;
  sg_motion *motions;
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

/* Index of the body with global id gid among the first n bodies of s (held in ascending gid, as
 * every rank holds them), or -1. */
int sg_scene_find_gid(const sg_scene *s, int n, int64_t gid);

/* Characteristic length of a body (sphere/capsule radius, smallest half extent of a box). */
double sg_body_min_size(const sg_scene *s, int i);
/* Radius of a sphere that bounds the body about its centre (planes: INFINITY). */
double sg_body_bounding_radius(const sg_scene *s, int i);

/* Motions (src/scene/motion.c). Append one to body index i (made kinematic), its reference pose
 * the body's pose now, at s->time; kept sorted. Checked: finite numbers, t_end > t_start, no
 * window overlapping another of the same body, a body not moving (SG_MOVING). */
sg_err sg_scene_add_motion(sg_scene *s, int i, int kind, const double velocity[3], const double point[3],
                           double t_start, double t_end);
/* Pose at time t of kinematic body i (its motions applied from their reference pose). */
void sg_motion_pose(const sg_scene *s, int i, double t, double pos[3], double quat[4]);
/* The velocity field of kinematic body i over [t0, t1] (6: linear at its centre at t0, angular):
 * each motion's field weighted by the fraction of the interval it is active. */
void sg_motion_velocity(const sg_scene *s, int i, double t0, double t1, double vel[6]);
/* Kinematic bodies' poses at time t and velocities over [t, t + dt]. */
void sg_scene_move_kinematic(sg_scene *s, double t, double dt);

/* Kinetic energy of the moving bodies (translational + rotational). */
double sg_scene_kinetic_energy(const sg_scene *s);

#endif
