/* Kinematic trees (articulated bodies): links joined by fixed, revolute, prismatic, spherical and
 * free joints, in generalized coordinates, each tree one subsystem of paper 002 (8), (29) (its
 * A_j is the joint-space mass matrix). The dynamics (src/body/tree_dynamics.c) are the
 * composite-rigid-body algorithm and recursive Newton-Euler of Featherstone 2008 (chapters 5 and 6),
 * written in world coordinates: spatial vectors are Pluecker coordinates at the world origin,
 * motion vectors (angular; linear velocity of the body point at the origin), force vectors (moment
 * about the origin; force).
 *
 * A link's frame is its joint frame moved by its joint: X_link = X_parent X_placement X_joint(q).
 * Joint velocities are expressed in the joint frame, which is fixed in the parent, so that every
 * column of the motion subspace S moves with the parent (the one exception, a free joint's angular
 * columns about a translating origin, is handled where it arises).
 *
 * A tree is one body of the scene (kind SG_BODY_TREE, body_kind.h): the scene's row of that body
 * (its global id, material, moving flag) names it; pos, quat and vel of the row follow the tree's
 * first link. The tree itself (model and state, q and v) is held in s->trees, the same on every rank
 * (src/hooks/tree_sync.c brings each tree's state from its owner at the end of a step). */
#ifndef SIGNORINI_TREE_H
#define SIGNORINI_TREE_H
#include <stdint.h>
#include "signorini/error.h"
#include "signorini/problem.h"
#include "signorini/scene.h"

enum {
  SG_TREE_MAX_LINKS = 64, SG_TREE_MAX_DOF = 64, SG_TREE_MAX_Q = 7 * SG_TREE_MAX_LINKS, SG_TREE_MAX_GEOMS = 255,
  SG_TREE_MAX_CLOSURES = 64
};

typedef enum {
  SG_JOINT_FIXED = 0,     /* no coordinate */
  SG_JOINT_REVOLUTE = 1,  /* q: angle about axis (rad); v: its rate */
  SG_JOINT_PRISMATIC = 2, /* q: displacement along axis (m); v: its rate */
  SG_JOINT_SPHERICAL = 3, /* q: quaternion (w, x, y, z) child to joint frame; v: angular velocity, joint frame */
  SG_JOINT_FREE = 4,      /* q: translation (joint frame), quaternion; v: linear velocity of the link
                           * origin, then angular velocity, both in the joint frame */
  SG_JOINT_TYPES = 5
} sg_joint_type;

typedef struct {
  int parent;         /* index of the parent link (lower than this link's), -1: the world */
  int type;           /* sg_joint_type */
  double pos[3];      /* joint frame origin in the parent link's frame (world frame for parent -1), m */
  double quat[4];     /* joint frame orientation in the parent link's frame (w, x, y, z) */
  double axis[3];     /* unit axis in the joint frame (revolute, prismatic) */
  double mass;        /* kg, > 0 */
  double com[3];      /* centre of mass in the link frame, m */
  double inertia[6];  /* about the centre of mass, link frame: xx, yy, zz, xy, xz, yz (kg m^2) */
  /* revolute and prismatic joints only: */
  double limit[2];    /* lower, upper (rad or m; -inf, +inf: none): hard rows, paper 002 (3) */
  double pd[3];       /* kp (N m/rad or N/m), kd (N m s/rad or N s/m), target (rad or m): a soft row (4)
                       * when kp or kd is not 0 */
  int q_off, v_off;   /* derived: the link's coordinates in q and v */
} sg_link;

/* A collision geom carried by a link (src/body/tree_geoms.c): a sphere, box or capsule (scene.h sizes)
 * placed in the link frame. It touches other bodies, walls, other trees' geoms and the geoms of its
 * own tree's links except those of its own link and of its link's parent and children (the links
 * a joint holds together overlap there by design). */
typedef struct {
  int link;           /* the link carrying it */
  int shape;          /* SG_SHAPE_SPHERE, SG_SHAPE_BOX or SG_SHAPE_CAPSULE */
  double size[3];     /* as a body's of that shape (scene.h) */
  double pos[3];      /* centre in the link frame, m */
  double quat[4];     /* orientation in the link frame (w, x, y, z) */
} sg_link_geom;

/* A loop closure (src/body/tree_closures.c): the material point point[0] of link link[0] held at the
 * point point[1] of link link[1] (each in its link's frame), or, for link[1] = -1, at the point
 * point[1] fixed in the world (world coordinates): a ball joint that closes a kinematic loop, up to
 * three bilateral rows (problem.h), one per direction the two points can move apart in (a loop of
 * revolute joints about parallel axes moves in a plane: two rows; src/body/tree_rows.c). */
typedef struct {
  int link[2];
  double point[2][3];
} sg_closure;

typedef struct sg_tree {
  int refs;           /* shared by reference among a rank's scenes (sg_tree_ref / sg_tree_release) */
  int64_t body;       /* global id of the scene body that is this tree */
  int n_links, nq, nv;
  sg_link *link;
  int n_geoms;        /* 0 to SG_TREE_MAX_GEOMS collision geoms of the links (model) */
  sg_link_geom *geom;
  int n_closures;     /* 0 to SG_TREE_MAX_CLOSURES loop closures (model) */
  sg_closure *closure;
  double *q, *v;      /* state: nq coordinates, nv velocities (SI) */
} sg_tree;

/* World-frame kinematics of a tree at one configuration. */
typedef struct {
  double R[SG_TREE_MAX_LINKS][9];  /* link orientation, row-major, link to world */
  double x[SG_TREE_MAX_LINKS][3];  /* link origin */
  double c[SG_TREE_MAX_LINKS][3];  /* centre of mass */
  double S[SG_TREE_MAX_DOF][6];    /* motion subspace columns, world Pluecker (angular; linear at origin) */
  int link_of_dof[SG_TREE_MAX_DOF];
} sg_tree_kin;

/* Model: create an empty tree (n_links links, all zero), then fill the links and call
 * sg_tree_finish, which checks them (one-line errors naming `where` and the link) and sizes q, v. */
sg_err sg_tree_create(int n_links, int64_t body, sg_tree **out);
sg_err sg_tree_finish(sg_tree *t, const char *where);
sg_tree *sg_tree_ref(sg_tree *t);
void sg_tree_release(sg_tree **t);
/* Coordinates and velocities of a joint type. */
int sg_joint_nq(int type);
int sg_joint_nv(int type);
const char *sg_joint_name(int type);
/* The neutral configuration: zero angles and displacements, identity quaternions. */
void sg_tree_neutral(const sg_tree *t, double *q);
/* Is velocity k a linear one (m/s: prismatic, a free joint's first three), not an angular one? */
int sg_tree_dof_is_linear(const sg_tree *t, int k);

/* Dynamics (src/body/tree_dynamics.c), Featherstone 2008. */
void sg_tree_kinematics(const sg_tree *t, const double *q, sg_tree_kin *k);
/* Joint-space mass matrix M(q) (nv x nv, row-major) by the composite-rigid-body algorithm. */
void sg_tree_mass_matrix(const sg_tree *t, const sg_tree_kin *k, double *M);
/* Inverse dynamics by recursive Newton-Euler: tau = M(q) qdd + C(q, v) v + G(q) for gravity g
 * (qdd NULL: the bias C v + G alone). */
void sg_tree_inverse_dynamics(const sg_tree *t, const sg_tree_kin *k, const double *v, const double *qdd,
                              const double g[3], double *tau);
/* Rows (3 x nv): the world velocity of the material point x (world) of link `link` per unit v. */
void sg_tree_point_jacobian(const sg_tree *t, const sg_tree_kin *k, int link, const double x[3], double *J);
/* Spatial velocity of link `link` (world Pluecker) for velocities v. */
void sg_tree_link_twist(const sg_tree *t, const sg_tree_kin *k, int link, const double *v, double tw[6]);
/* q_out = q (+) dt v: coordinates moved with the velocities v for dt (exponential map for
 * quaternions, renormalized). q_out may be q. */
void sg_tree_advance(const sg_tree *t, const double *q, const double *v, double dt, double *q_out);
/* Each link's orientation (w, x, y, z), link to world, at q. */
void sg_tree_link_quats(const sg_tree *t, const double *q, double (*quat)[4]);
/* Kinetic energy 1/2 v^T M v and potential energy -sum m g . c at (q, v). */
void sg_tree_energy(const sg_tree *t, const double *q, const double *v, const double g[3], double *kinetic,
                    double *potential);
/* M_k and f_k of paper 002 (2) for the step from (q, v): both at the configuration q (+) theta dt v
 * (for theta = 1/2 the step is then position Verlet, second order; for theta = 0 the start of the
 * step), f = -(C v + G) there, its velocity predicted over theta dt. M: nv x nv; f: nv (SI). */
sg_err sg_tree_step_terms(const sg_tree *t, const double *q, const double *v, const double g[3], double dt,
                          double theta, double *M, double *f);

/* Link geoms (src/body/tree_geoms.c). Append one (checked by sg_tree_finish). */
sg_err sg_tree_add_geom(sg_tree *t, const sg_link_geom *g);
/* Geom g in the world at the kinematics k: its centre and orientation (row-major, geom to world),
 * and its centre's velocity and its link's angular velocity (world) for the velocities v. */
void sg_tree_geom_world(const sg_tree *t, const sg_tree_kin *k, int g, double pos[3], double R[9]);
void sg_tree_geom_motion(const sg_tree *t, const sg_tree_kin *k, int g, const double *v, double vel[3], double w[3]);
/* Radius of a sphere about the centre of geom g's shape that bounds it. */
double sg_tree_geom_radius(const sg_link_geom *g);
/* Must the geoms of links a and b of one tree not touch (the same link, or parent and child)? */
int sg_tree_links_joined(const sg_tree *t, int a, int b);
/* Bounds of the tree's geoms at its state (q, v): every point of them lies within *radius of the
 * first link's origin and moves at most at *speed (0 and 0 without geoms). */
void sg_tree_geom_bounds(const sg_tree *t, double *radius, double *speed);

/* Loop closures (src/body/tree_closures.c). Append one (checked by sg_tree_finish). */
sg_err sg_tree_add_closure(sg_tree *t, const sg_closure *c);
/* Closure c names two different links of the tree (or a link and the world) and finite points. */
sg_err sg_tree_check_closure(const sg_tree *t, int c, const char *where);
/* Closure c's two points in the world at the kinematics k. */
void sg_tree_closure_points(const sg_tree *t, const sg_tree_kin *k, int c, double xa[3], double xb[3]);

/* Joint rows (src/body/tree_rows.c): body i's tree's joint limits as hard rows (paper 002 (3)),
 * PD control as soft rows (4) and loop closures as bilateral rows, appended to p on its subsystem
 * sub, in units u (tree.c), for a step of dt with the contacts' penetration rate erp (which also
 * removes a closure's drift); *added: how many. */
sg_err sg_tree_add_joint_rows(const sg_scene *s, int i, int sub, double dt, double erp, const sg_units *u, sg_problem *p,
                              int *added);

/* Trees of a scene (src/body/tree.c). */
/* The tree whose body has global id gid, NULL if none (s->trees is sorted by body id). */
sg_tree *sg_scene_tree_by_gid(const sg_scene *s, int64_t gid);
/* Append tree t (taking a reference) to the scene's trees, kept sorted by body id. */
sg_err sg_scene_add_tree(sg_scene *s, sg_tree *t);
/* dst's trees become src's (shared by reference; dst's own are released). */
sg_err sg_scene_share_trees(sg_scene *dst, const sg_scene *src);
void sg_scene_release_trees(sg_scene *s);
/* Each tree's body made a tree body (kind, mass: the tree's total mass) and its row's pose and
 * velocity set from the first link; a tree whose body is not held here is left alone, a tree whose
 * id names a fixed body or no body of the file is an error (`where` names the file). */
sg_err sg_scene_attach_trees(sg_scene *s, const char *where);
/* The row of body i (a tree) from its tree's state: the first link's origin, orientation and velocity. */
void sg_tree_update_row(sg_scene *s, int i, const sg_tree *t);
/* The widest subsystem of the scene's bodies: 6, or a tree's nv when wider (the same on every rank). */
int sg_scene_max_dof(const sg_scene *s);
/* Copy the state of each of src's trees into dst's tree of the same body (a restart). */
void sg_scene_trees_copy_state(sg_scene *dst, const sg_scene *src);

#endif
