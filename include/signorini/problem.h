/* The solver-independent problem of paper 002 eqs. (8), (29)-(31):
 *   A_j vhat_j = b_j + sum_i J_ij^T lambda_i   for every subsystem j,
 *   (J vhat, lambda) in S_c                    per constraint i (hard (3), soft (4), contact (5)),
 * with SPD blocks A_j, and each constraint's Jacobian split body-wise into blocks J_ij, one per
 * subsystem it touches (|Z_i| of them). Contact rows are ordered normal, tangent 1, tangent 2.
 * A bilateral row is the hard row (3) with equality, J vhat + e = 0 and lambda of either sign (a
 * loop closure): (3) with the cone R in place of R+.
 * Every solver consumes this and nothing else; FCLIB problems are converted into it. */
#ifndef SIGNORINI_PROBLEM_H
#define SIGNORINI_PROBLEM_H
#include <stdint.h>
#include "signorini/error.h"

typedef enum { SG_CON_HARD = 0, SG_CON_SOFT = 1, SG_CON_CONTACT = 2, SG_CON_BILATERAL = 3 } sg_con_kind;

/* The units a problem's numbers are written in. Assembly writes the problem dimensionless, in units
 * of the scene's characteristic mass and length and of the time step (docs/SOLVERS.md, "Units"), so
 * that every solver, option default and tolerance sees the same numbers in whatever units the scene
 * was written; a velocity is then in length/time, an impulse in mass length/time. A problem read as
 * given (FCLIB) has units of 1. */
typedef struct {
  double mass, length, time;
} sg_units;

static inline sg_units sg_units_si(void) { return (sg_units){1.0, 1.0, 1.0}; }
static inline double sg_units_velocity(const sg_units *u) { return u->length / u->time; }
static inline double sg_units_impulse(const sg_units *u) { return u->mass * u->length / u->time; }

static inline int sg_con_rows(int kind) { return kind == SG_CON_CONTACT ? 3 : 1; }
static inline const char *sg_con_kind_name(int kind) {
  static const char *names[] = {"hard", "soft", "contact", "bilateral"};
  return kind >= SG_CON_HARD && kind <= SG_CON_BILATERAL ? names[kind] : "unknown";
}

typedef struct {
  /* subsystems */
  int n_sub;
  int *sub_dof;     /* [n_sub] */
  int *sub_off;     /* [n_sub + 1] offsets into v and b */
  int *sub_aoff;    /* [n_sub + 1] offsets into A (dof * dof entries each) */
  double *A;        /* SPD blocks, row-major */
  double *b;
  int64_t *sub_gid; /* global id of each subsystem (its body) */
  /* constraints */
  int n_con;
  int *kind;        /* sg_con_kind */
  int *con_row;     /* [n_con + 1] offsets into e and lambda */
  double *e;        /* error per row (contact: normal row carries the gap term, tangents 0) */
  double *mu;       /* [n_con] friction coefficient (contacts) */
  double *stiff;    /* [n_con] k_i (soft) */
  double *damp;     /* [n_con] b_i (soft) */
  int *con_pair;    /* [n_con + 1] offsets into the pair arrays */
  int *pair_sub;    /* subsystem index of each (constraint, subsystem) pair */
  int *pair_joff;   /* offset of J_ij (rows x dof, row-major) into J; -1: a compact pair (below) */
  double *J;
  int n_j;          /* entries of J in use */
  /* Compact rigid contacts: a contact whose moving bodies are rigid-6 keeps its frame and, per pair,
   * the lever arm and sign in place of dense 3x6 blocks (15 numbers for two bodies instead of 36):
   * row k of J_ij is sign [t_k^T, (r x t_k)^T] (paper 002 (44)), t_k the k-th row of the frame. */
  double *frame;    /* [n_con][9]: rows n, t1, t2 (compact contacts only) */
  double *lever;    /* [pairs][4]: r in units of length, then the sign (compact pairs only) */
  /* Compact tree pairs (paper 002 (40)-(41), the body split): a contact on a link of a kinematic tree
   * keeps, like a rigid pair, the frame and its lever r (the world point, units of length) and sign,
   * and names the unknown `anchor` whose chain of parents (dof_parent) moves the link: with m_c the
   * motion of unknown c (motion below: the velocity at the world origin, the angular velocity per
   * unit of c, both in the problem's units), row k of J_ij is, for c on the anchor's chain,
   * sign t_k . (m_c,lin + m_c,ang x r), and 0 elsewhere; pair_joff = -2 - anchor. */
  int *motion_off;  /* [n_sub]: offset of subsystem j's motions into motion (-1: none); NULL while has_motion is 0 */
  double *motion;   /* [6 per unknown of the subsystems that have them]: (lin, ang) of each unknown */
  int has_motion, n_motion;
  /* distribution: rank owning each subsystem (NULL: all on this rank). A constraint is worked on
   * by every rank that owns one of its subsystems. */
  int *sub_owner;
  int has_owners;   /* sub_owner valid for this problem (cleared by sg_problem_reset) */
  /* The sparsity of a tree's block (optional, paper 002 (40)-(41)): dof_parent[v] (laid out as b)
   * is, for a subsystem whose A_j has a kinematic tree's sparsity (la.h, ltl_factor), the index
   * within the subsystem of the unknown's parent (-1: a root), and -2 for a subsystem given none
   * (dense). Unused while has_dof_parent is 0 (every subsystem dense). */
  int *dof_parent;
  int has_dof_parent;
  /* the units of every number above, and the time step the problem advances (s; 0: not a step's
   * problem). Solvers with physical parameters (SAP's stiffness) convert them with these. */
  sg_units units;
  double dt;
  /* capacities */
  int cap_sub, cap_v, cap_a, cap_con, cap_row, cap_pair, cap_j, cap_owner, cap_frame, cap_lever, cap_parent, cap_motion_off,
      cap_motion;
} sg_problem;

void sg_problem_reset(sg_problem *p);          /* empty, keeps memory */
void sg_problem_destroy(sg_problem *p);
static inline int sg_problem_n_v(const sg_problem *p) { return p->n_sub ? p->sub_off[p->n_sub] : 0; }
static inline int sg_problem_n_rows(const sg_problem *p) { return p->n_con ? p->con_row[p->n_con] : 0; }

/* Append a subsystem with dof unknowns, its SPD block A (dof x dof, row-major) and b. */
sg_err sg_problem_add_subsystem(sg_problem *p, int dof, const double *A, const double *b,
                                int64_t gid, int *index);
/* Give subsystem j the sparsity of a kinematic tree: parent[k] (k < dof) the parent unknown of
 * unknown k within it, -1 for a root, each parent before its child. The parents of subsystem j, or
 * NULL when it has none (a dense block). */
sg_err sg_problem_set_dof_parents(sg_problem *p, int j, const int *parent);
static inline const int *sg_problem_dof_parents(const sg_problem *p, int j) {
  return p->has_dof_parent && p->dof_parent[p->sub_off[j]] != -2 ? p->dof_parent + p->sub_off[j] : NULL;
}

/* Give subsystem j (a tree's, with its parents set) the motions of its unknowns: motion[6k..6k+6) the
 * (lin, ang) of unknown k as above, so that its contacts may be compact tree pairs. */
sg_err sg_problem_set_dof_motion(sg_problem *p, int j, const double *motion);
static inline const double *sg_problem_dof_motion(const sg_problem *p, int j) {
  return p->has_motion && p->motion_off[j] >= 0 ? p->motion + p->motion_off[j] : NULL;
}

/* Append a constraint touching n_pairs subsystems subs[k] with Jacobian blocks Js[k]
 * (rows x dof(subs[k]), row-major). e has rows entries. stiff/damp used only for soft rows. */
sg_err sg_problem_add_constraint(sg_problem *p, int kind, const double *e, double mu, double stiff,
                                 double damp, int n_pairs, const int *subs, const double *const *Js,
                                 int *index);

/* Append a contact (3 rows) touching n_pairs (1 or 2) subsystems subs[k], in compact form: frame
 * (rows n, t1, t2, orthonormal: SubADMM forms a rigid pair's J^T J from its lever alone), lever
 * arms r[3k..3k+3) (units of length) and signs[k] (+1 or -1); anchors NULL or anchors[k] = -1: a
 * rigid-6 subsystem, r from its centre of mass; anchors[k] >= 0: a tree's subsystem (with
 * motions), r the world point, anchors[k] its unknown that moves the point. */
sg_err sg_problem_add_rigid_contact(sg_problem *p, const double *e, double mu, const double *frame, int n_pairs,
                                    const int *subs, const double *levers, const double *signs, const int *anchors,
                                    int *index);

/* Largest Jacobian block a compact pair expands to (3 x the widest tree, 64 unknowns). */
#define SG_COMPACT_BLOCK 192
/* Pair q is a rigid-6 compact pair / a compact tree pair (its anchor, else -1) / a dense block in J. */
static inline int sg_problem_pair_is_compact(const sg_problem *p, int q) { return p->pair_joff[q] == -1; }
static inline int sg_problem_pair_anchor(const sg_problem *p, int q) { return p->pair_joff[q] <= -2 ? -2 - p->pair_joff[q] : -1; }
static inline int sg_problem_pair_is_dense(const sg_problem *p, int q) { return p->pair_joff[q] >= 0; }
/* J_ij of pair q of constraint i (rows x dof, row-major): a pointer into J, or the compact pair's
 * block expanded into buf (SG_COMPACT_BLOCK entries), bit for bit what a dense block of the same
 * contact holds. */
const double *sg_problem_pair_block(const sg_problem *p, int i, int q, double *buf);
/* A compact tree pair's J_ij v_j (out: 3 rows; v the whole problem's) and acc_j += J_ij^T f (acc laid
 * out as v), along the anchor's chain of unknowns: O(chain), not O(dof) (paper 002 (40)-(41)). */
void sg_problem_tree_jv(const sg_problem *p, int i, int q, const double *v, double *out);
void sg_problem_tree_jt_add(const sg_problem *p, int i, int q, const double *f, double *acc);
/* The dense block of a compact pair from its frame, lever arm and sign (out: 3 x 6). */
void sg_compact_block(const double *frame, const double *lever, double *out);

/* one = p with all its subsystems merged into one (src/problem/merge.c): A block-diagonal and dense,
 * every constraint's pairs summed into one block over all unknowns; unknowns and rows keep their
 * layout. The "no subsystem split" variant of paper 002 Table III (SubADMM -subadmm_split none). */
sg_err sg_problem_merge_subsystems(const sg_problem *p, sg_problem *one);

/* Set the owner rank of every subsystem (owner[j], j < n_sub). */
sg_err sg_problem_set_owners(sg_problem *p, const int *owner);

/* Check that every number is finite and every block is well formed. */
sg_err sg_problem_validate(const sg_problem *p);

/* y = J v (all rows) and x += J^T lambda (all subsystems). */
void sg_problem_apply_J(const sg_problem *p, const double *v, double *y);
void sg_problem_apply_JT_add(const sg_problem *p, const double *lambda, double *x);

/* Paper 002 Sec. VII accuracy metric: vhat = A^{-1}(b + J^T lambda), then
 * z_i = J_i vhat - lambda_i + T(-J_i vhat + lambda_i - e_i) and ||J vhat - z|| / n_contacts
 * (the 2-norm over all constraint rows; 0 when there are no constraints). */
sg_err sg_contact_residual(const sg_problem *p, const double *lambda, double *residual);
/* Its parts: vhat of every subsystem (v[n_v]), and constraint i's term ||J_i vhat - z_i||^2. */
sg_err sg_metric_velocity(const sg_problem *p, const double *lambda, double *v);
double sg_metric_constraint_sq(const sg_problem *p, int i, const double *lambda, const double *v);
/* The same term from J_i vhat given (ji: sum over the constraint's pairs of J_ij vhat_j, its rows),
 * for a solver that has the pairs' products (SubADMM's stopping test on this metric). */
double sg_metric_law_sq(const sg_problem *p, int i, const double *lambda, const double *ji);

#endif
