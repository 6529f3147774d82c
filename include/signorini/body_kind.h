/* Body kinds: what a kind of body supplies to the stages that loop over bodies (assembly,
 * integration, migration between ranks, partition weights), so that those stages hold no formula
 * of their own. A body of the scene is of one kind (sg_scene.kind[i]); the kind's ops table says
 * how its subsystem of paper 002 (29)-(31) is built and advanced. Rigid-6 (src/body/rigid6.c: a
 * free rigid body, 6 velocities) is the first; an articulated tree (n generalized coordinates, a
 * CRBA mass matrix, several links with geoms) and FEM bodies implement the same table.
 *
 * Every op takes the scene and the body's index i in it. Velocities passed in and out are a
 * subsystem's unknowns (dof of them) in the problem's units u (problem.h): the kind alone knows
 * the physical meaning of each (a rigid body's linear ones in length/time, its angular ones in
 * 1/time; a revolute joint's in 1/time). Matrices are row-major. */
#ifndef SIGNORINI_BODY_KIND_H
#define SIGNORINI_BODY_KIND_H
#include <stddef.h>
#include <stdint.h>
#include "signorini/problem.h"
#include "signorini/scene.h"

/* Kind ids as stored in sg_scene.kind. A scene file's body is rigid-6 unless a row of /trees names
 * it (docs/FORMATS.md, "Trees"). */
typedef enum { SG_BODY_RIGID6 = 0, SG_BODY_TREE = 1, SG_BODY_KIND_COUNT = 2 } sg_body_kind_id;

/* A rigid-6 sphere: its contact points lie on the normal through its centre, and two of them meet
 * along the straight lines their centres follow over a step (collision.h: sg_spheres_least_gap,
 * sg_meet_spheres). */
static inline int sg_body_is_rigid_sphere(const sg_scene *s, int i) {
  return s->kind[i] == SG_BODY_RIGID6 && s->shape[i] == SG_SHAPE_SPHERE;
}

/* A body's vertex weight in the partition graph: base + per_contact x (contacts touching it).
 * Affine in the contacts so that a rank can ship it in a fixed record to the rank that counts the
 * contacts (partition/distributed.c). */
typedef struct {
  int64_t base, per_contact;
} sg_body_weight;

typedef struct {
  const char *name;
  /* Widest subsystem a body of this kind has: per-body values cross ranks in slots of the widest
   * kind's width (ghost velocities, step/metric.c), one width for every rank. */
  int max_dof;
  /* Unknowns of body i's subsystem: the size of its vhat_j, A_j and b_j in paper 002 (8), (29). */
  int (*dof)(const sg_scene *s, int i);
  /* A_j (dof x dof, SPD) and b_j (dof) of paper 002 (8) for body i, in units u: from (2),
   * M_k (v_{k+1} - v_k) = f_k dt + J^T lambda with v_{k+1} = (vhat - theta v_k) / (1 - theta),
   * A_j = M_k / (1 - theta) and b_j = A_j v_k + f_k dt. A tree's M_k is its CRBA mass matrix. */
  void (*subsystem)(const sg_scene *s, int i, const sg_units *u, double dt, double theta, double *A, double *b);
  /* Optional (NULL: A_j is dense): the sparsity of body i's A_j, as a kinematic tree of its unknowns
   * (problem.h, sg_problem_set_dof_parents): parent[k] the unknown whose motion unknown k's rides on
   * (-1: a root), so that the solver may factorize through it (la.h, ltl_factor; paper 002 (40)-(41)). */
  void (*dof_parents)(const sg_scene *s, int i, int *parent);
  /* J (rows x dof): row k maps body i's unknowns to the velocity, along dirs[3k..3k+3) (unit
   * world vectors: a contact's n, t1, t2), of the material point `point` (world, m) of link `link`
   * (0 for a body of one link), times sign. This is J_ij = J_{i,b} J_{b,j} of paper 002 (29)-(31):
   * J_{i,b} of (44) times the body Jacobian of the link; rigid-6: J_{b,j} = I, J_{i,b} of (44). */
  void (*point_jacobian)(const sg_scene *s, int i, int link, const double point[3], const double *dirs, int rows,
                         const sg_units *u, double sign, double *J);
  /* Optional (NULL: the body's contacts take dense blocks): the compact tree pairs of problem.h, the
   * body split of paper 002 (40)-(41). dof_motion: each unknown's motion (dof x 6: the velocity at the
   * world origin and the angular velocity per unit of it, units u), as sg_problem_set_dof_motion
   * takes it; point_anchor: the unknown whose chain of parents moves link `link` (-1: none, the link
   * is welded to the world) and the lever of the world point `point` (units of length). */
  void (*dof_motion)(const sg_scene *s, int i, const sg_units *u, double *motion);
  int (*point_anchor)(const sg_scene *s, int i, int link, const double point[3], const sg_units *u, double lever[3]);
  /* v_k of paper 002 (2): body i's current velocity (its state) as its dof unknowns in units u:
   * what vhat starts from (the warm start of the solve). */
  void (*velocity_in_units)(const sg_scene *s, int i, const sg_units *u, double *v);
  /* A vhat of body i (dof unknowns, units u) in SI, laid out as the body's velocity state. */
  void (*velocity_to_si)(const sg_scene *s, int i, const sg_units *u, const double *v, double *v_si);
  /* The state update of paper 002 (2) from the solved vhat (dof unknowns, units u): v_{k+1} from
   * vhat and theta, q_{k+1} = update(q_k, vhat, dt). theta < 1 (A_j has 1 / (1 - theta)). */
  void (*integrate)(sg_scene *s, int i, const sg_units *u, const double *vhat, double theta, double dt);
  /* Migration record (src/comm/bodies.c): the bytes that rebuild body i on another rank, its
   * description and state whole, so that the step there is the same bits. record_size(s, i)
   * bytes; pack writes them; unpack appends the body they describe to s (its kind is set by the
   * caller) and returns its index. */
  size_t (*record_size)(const sg_scene *s, int i);
  void (*pack)(const sg_scene *s, int i, void *record);
  sg_err (*unpack)(sg_scene *s, const void *record, size_t size, int *index);
  /* Body i's vertex weight in the partition graph (partition.h): the work it brings to a rank's
   * solve, its unknowns (factorization of (40)-(41), the v-update (34)) and its contacts (the
   * z/lambda update (35)-(38)). */
  sg_body_weight (*partition_weight)(const sg_scene *s, int i);
} sg_body_kind_ops;

/* The ops of kind id `kind`, NULL for an unknown id. */
const sg_body_kind_ops *sg_body_kind_get(int kind);
/* The id of the kind named `name`, -1 if none. */
int sg_body_kind_find(const char *name);
/* The widest max_dof of the kinds. */
int sg_body_max_dof(void);

/* The ops of body i's kind (the scene holds only known kinds: sg_scene_validate). */
static inline const sg_body_kind_ops *sg_body_kind_of(const sg_scene *s, int i) { return sg_body_kind_get(s->kind[i]); }
static inline int sg_body_dof(const sg_scene *s, int i) { return sg_body_kind_of(s, i)->dof(s, i); }

/* The rigid-6 kind's ops (src/body/rigid6.c) and the tree kind's (src/body/tree.c, tree.h). */
extern const sg_body_kind_ops sg_body_rigid6_ops;
extern const sg_body_kind_ops sg_body_tree_ops;
/* A rigid body's 6 velocities (linear, angular; world frame) to the problem's units and back:
 * linear velocities in length/time, angular ones in 1/time. */
void sg_rigid_velocity_to_units(const sg_units *u, const double *v_si, double *v);
void sg_rigid_velocity_to_si(const sg_units *u, const double *v, double *v_si);

#endif
