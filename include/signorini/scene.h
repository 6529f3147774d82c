/* The scene: rigid bodies in flat arrays (MuJoCo-style), in the scene's global order.
 * Static description (shape, size, material, density, fixed) and state (pose, velocity) live
 * side by side so that a body can migrate between ranks with all its data (later issue). */
#ifndef SIGNORINI_SCENE_H
#define SIGNORINI_SCENE_H
#include <stdint.h>
#include "signorini/error.h"
#include "signorini/mesh.h"
#include "signorini/size_dist.h"

#define SG_SCENE_FORMAT_VERSION 1
/* the longest run_options a scene carries, its terminating zero included */
#define SG_SCENE_OPTIONS_LEN 512

struct sg_tree; /* tree.h */

typedef enum {
  SG_SHAPE_SPHERE = 0,   /* size = (radius, 0, 0) */
  SG_SHAPE_BOX = 1,      /* size = half extents (hx, hy, hz) */
  SG_SHAPE_CAPSULE = 2,  /* size = (radius, half length of the segment along local z, 0) */
  SG_SHAPE_PLANE = 3,    /* half-space below the local z = 0 plane; normal = local +z; fixed only */
  /* Walls of revolution about the local z axis: thin surfaces, touched by spheres from either side
   * (a silo's shell from inside, a post from outside); fixed or kinematic only. */
  SG_SHAPE_CYLINDER = 4, /* size = (radius, half height, 0): the side of a cylinder, open at both ends */
  SG_SHAPE_CONE = 5,     /* size = (radius at z = -h, radius at z = +h, h): the side of a cone frustum */
  SG_SHAPE_DISK = 6,     /* size = (hole radius, outer radius, 0): a flat ring in the local z = 0 plane
                          * (a silo floor with its orifice; hole radius 0: a full disk) */
  SG_SHAPE_MESH = 7,     /* size = (index of the scene's mesh, 0, 0): a triangle mesh (mesh.h) in the
                          * body frame, touched by spheres from either side; fixed or kinematic only */
  SG_SHAPE_COUNT = 8
} sg_shape;

const char *sg_shape_name(int shape);
/* Is the shape a wall of revolution (cylinder, cone, disk)? */
int sg_shape_is_revolved(int shape);

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

/* A region of space where bodies enter or leave (model; the same on every rank). Its hooks are
 * in src/hooks/ (inflow.c, outflow.c); its rows in the /regions group of a scene file. */
typedef enum {
  SG_REGION_OUTFLOW = 0, /* bodies whose centre is in its deleting zone are deleted at the end of a step */
  SG_REGION_INFLOW = 1,  /* spheres are inserted into its box at a rate */
  SG_REGION_KINDS = 2
} sg_region_kind;
typedef enum {
  SG_ZONE_BOX = 0,       /* inside the box [lo, hi] */
  SG_ZONE_DOMAIN = 1,    /* outside the box [lo, hi]: the box is the domain a body may not leave */
  SG_ZONE_HALFSPACE = 2, /* (x - point) . normal > 0 */
  SG_ZONE_KINDS = 3
} sg_zone_kind;
typedef enum { SG_RATE_BODIES = 0, SG_RATE_MASS = 1 } sg_rate_unit; /* bodies/s, kg/s */
typedef struct {
  int kind;                 /* sg_region_kind */
  int zone;                 /* sg_zone_kind (an inflow is always a box) */
  double lo[3], hi[3];      /* box and domain zones, inflow box (m) */
  double point[3], normal[3]; /* half-space zone (normal of unit length) */
  /* inflow */
  double rate;              /* bodies/s or kg/s, by rate_unit */
  int rate_unit;            /* sg_rate_unit */
  sg_size_dist size;        /* sphere radii (size_dist.h): uniform, lognormal or a mixture in [size.lo, size.hi] */
  double density;           /* kg/m^3 */
  int material;
  double velocity[3];       /* of every inserted body (m/s) */
  double t_start, t_end;    /* insertion window [t_start, t_end) (s; t_end may be INFINITY) */
  uint64_t seed;            /* the same seed gives the same bodies whatever the number of ranks */
} sg_region;

/* The state of the bodies: what a step changes, apart from the model that describes them (as
 * MuJoCo's mjData beside its mjModel). Per-body arrays are indexed like the model's, and bodies
 * enter and leave both together; a body's velocity state is rigid-6 until another kind needs more. */
typedef struct {
  double *pos;        /* [n][3] centre of mass, world */
  double *quat;       /* [n][4] orientation (w, x, y, z), body to world */
  double *vel;        /* [n][6] linear then angular velocity, world frame */
  double time;        /* simulated time */
  int64_t step;       /* steps taken */
} sg_state;

/* A scene: the model (what the bodies are: ids, kinds, shapes, materials, masses; the friction and
 * restitution tables, gravity, motions and regions) and its state. */
typedef struct {
  int n;              /* bodies */
  int cap;            /* allocated capacity */
  /* description */
  int64_t *gid;       /* global id: the row in a scene file without /bodies/gid; never reused */
  int *kind;          /* body kind (body_kind.h): what its subsystem is; SG_BODY_RIGID6 unless set */
  int *shape;         /* sg_shape */
  double *size;       /* [n][3] */
  int *material;      /* index into the friction table */
  unsigned char *fixed; /* 1: static (infinite mass), never moves */
  double *density;    /* kg/m^3 (ignored for fixed bodies) */
  /* derived from the description (sg_scene_update_mass) */
  double *mass;       /* kg; 0 for fixed bodies */
  double *inertia;    /* [n][3] principal moments in the body frame */
  /* materials */
  int n_materials;
  double *friction;   /* [n_materials][n_materials], symmetric Coulomb coefficients */
  double *restitution; /* [n_materials][n_materials], symmetric normal restitution coefficients in [0, 1]
                          (Newton's impact law; 0: the theta method's own impacts, docs/FORMATS.md) */
  double *rolling;    /* [n_materials][n_materials], symmetric rolling-friction coefficients >= 0: a
                          torque mu_r R N opposes the relative rolling of a contact (spheres only;
                          src/step/rolling.c) */
  double gravity[3];
  /* periodic boundaries: along axis d when period_hi[d] > period_lo[d] (both 0: not periodic), the
   * cell [lo, hi) repeats with period hi - lo; moving bodies are held inside it (model; the same on
   * every rank; src/collision/periodic.c) */
  double period_lo[3], period_hi[3];
  /* what a step changes */
  sg_state state;
  /* distribution: distributed = 0: every rank holds the whole scene. distributed = 1: this rank
   * holds the moving bodies it owns (n_owned of them; each moving body of the run is held by
   * exactly one rank) and every fixed body (walls, planes: the same on every rank), all in
   * ascending gid. On one rank the two are the same scene. */
  int distributed;
  int n_owned;
  /* prescribed motions of the kinematic bodies (model; the same on every rank), sorted by (body, t_start) */
  int n_motions;
  sg_motion *motions;
  /* inflow and outflow regions (model; the same on every rank) */
  int n_regions;
  sg_region *regions;
  /* triangle meshes of the SG_SHAPE_MESH bodies (model; the same on every rank), each shared by
   * reference with the scene's copies */
  int n_meshes;
  sg_mesh **meshes;
  /* kinematic trees (tree.h), each one body of kind SG_BODY_TREE: model and state, the same on every
   * rank, sorted by the id of their body, each shared by reference with the scene's copies */
  int n_trees;
  struct sg_tree **trees;
  /* run options this scene's kind runs best with ("-name value ...", scene_options.h; "": none): the
   * same on every rank */
  char run_options[SG_SCENE_OPTIONS_LEN];
  /* the global id the next inserted body gets (the same on every rank): above every id the run
   * has used, so ids are never reused */
  int64_t next_gid;
} sg_scene;

sg_err sg_scene_create(sg_scene *s, int n_bodies, int n_materials);
/* Append mesh m to the scene's meshes, taking a reference; its index in *index (may be NULL). */
sg_err sg_scene_add_mesh(sg_scene *s, sg_mesh *m, int *index);
/* dst's meshes become src's (shared by reference; dst's own are released). */
sg_err sg_scene_share_meshes(sg_scene *dst, const sg_scene *src);
sg_err sg_scene_reserve(sg_scene *s, int cap);
void sg_scene_destroy(sg_scene *s);

/* Append a rigid-6 body; returns its index in *index (may be NULL). Orientation (w,x,y,z),
 * velocity 6. Its gid is its index (set s->gid[i] after for another; s->next_gid is left to the
 * caller), its kind SG_BODY_RIGID6 (set s->kind[i] after for another). */
sg_err sg_scene_add_body(sg_scene *s, int shape, const double size[3], int material, int fixed,
                         double density, const double pos[3], const double quat[4],
                         const double vel[6], int *index);

/* Append a copy of body i of src (kind, description, derived mass and inertia, state, gid) to dst. */
sg_err sg_scene_copy_body(sg_scene *dst, const sg_scene *src, int i);
/* Materials, gravity, time, step, motions, regions and next_gid of src into dst (reallocated). */
sg_err sg_scene_copy_globals(sg_scene *dst, const sg_scene *src);

/* Mass and principal inertia of every body (of body i) from its shape, size and density. */
sg_err sg_scene_update_mass(sg_scene *s);
sg_err sg_body_update_mass(sg_scene *s, int i);
/* Mass of a sphere of density rho and radius r (the one expression every mass of a sphere uses, so
 * that masses tallied apart from the scene are the same bits). */
static inline double sg_sphere_mass(double rho, double r) { return rho * 4.0 / 3.0 * 3.14159265358979323846 * r * r * r; }
/* Remove the bodies with drop[i] != 0, keeping the others in their order (n_owned follows). */
void sg_scene_remove_bodies(sg_scene *s, const unsigned char *drop);

/* Check the scene for consistency (finite numbers, positive sizes and densities, known shapes and
 * body kinds, valid materials, friction >= 0, unit quaternions, planes fixed). `where` names the
 * source in messages (a file name). Returns SG_ERR_FORMAT with a message naming the body index. */
sg_err sg_scene_validate(const sg_scene *s, const char *where);

double sg_scene_friction(const sg_scene *s, int a, int b);
double sg_scene_restitution(const sg_scene *s, int a, int b);
double sg_scene_rolling(const sg_scene *s, int a, int b);
/* Does any material pair have rolling resistance? */
int sg_scene_has_rolling(const sg_scene *s);
/* The period along each axis (0: not periodic); returns the number of periodic axes. */
int sg_scene_period(const sg_scene *s, double L[3]);

/* Index of the body with global id gid among the first n bodies of s (held in ascending gid, as
 * every rank holds them), or -1. */
int sg_scene_find_gid(const sg_scene *s, int n, int64_t gid);

/* Characteristic length of a body (sphere/capsule radius, smallest half extent of a box). */
double sg_body_min_size(const sg_scene *s, int i);
/* Radius of a sphere that bounds the body about its centre (planes: INFINITY). */
double sg_body_bounding_radius(const sg_scene *s, int i);

/* Motions (src/scene/motion.c). Append one to body index i (made kinematic), its reference pose
 * the body's pose now, at s->state.time; kept sorted. Checked: finite numbers, t_end > t_start, no
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

/* Regions (src/scene/region.c): append one, checked (finite numbers, lo < hi, a unit normal,
 * positive rates, radii and density, a known material, t_end > t_start). `where` names the source. */
sg_err sg_scene_add_region(sg_scene *s, const sg_region *r, const char *where);
/* The regions against each other and against the scene: an inflow box inside every domain zone,
 * not overlapping another inflow box nor any outflow's deleting zone. */
sg_err sg_scene_check_regions(const sg_scene *s, const char *where);
/* The least mass and size (radius) of the bodies the inflows may insert (INFINITY: no inflow). */
void sg_regions_least_body(const sg_scene *s, double *mass, double *size);
/* Is the point x in the deleting zone of outflow region r? */
int sg_region_deletes(const sg_region *r, const double x[3]);

/* Kinetic energy of the moving bodies (translational + rotational). */
double sg_scene_kinetic_energy(const sg_scene *s);

#endif
