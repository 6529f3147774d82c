/* The PETSc side shared by the Newton solvers (CANAL, SAP; NSN uses the KSP helpers only).
 *
 * Primal Newton matrices all have the form H = A + sum_i J_i^T G_i J_i (paper 002 (24), paper 000
 * H = A + J^T G J) with G_i a symmetric rows x rows block per constraint. sg_newton_sys assembles H
 * as a distributed MPIAIJ matrix whose rows belong to the rank that owns the subsystem
 * (problem->sub_owner; everything on rank 0 when the problem has no owners), solves H x = r with a
 * KSP configured from the options database under the solver's prefix, and hands x back in the
 * problem's own ordering. Two numberings of the same matrix:
 *  - sg_newton_setup, for a problem replicated on every rank: x comes back whole to every rank;
 *  - sg_newton_setup_local, for a rank's part (SG_SOLVER_LOCAL: CANAL, SAP; newton_local.c): x comes
 *    back for the rank's owned and ghost subsystems. */
#ifndef SIGNORINI_NEWTON_H
#define SIGNORINI_NEWTON_H
#include <petscksp.h>
#include "signorini/problem.h"

/* G_i of constraint i is stored at G + SG_NEWTON_GSTRIDE * i, rows x rows row-major. */
#define SG_NEWTON_GSTRIDE 9

typedef struct {
  MPI_Comm comm;
  int rank, size;
  char prefix[64];         /* options prefix, e.g. "canal_" or "ref_canal_" */
  /* global numbering of v: subsystems sorted by owner rank (stable), so each rank's rows are contiguous */
  int n_v, n_sub;
  int *gofs;               /* [n_sub] global row of subsystem j's first unknown */
  int row_lo, row_hi;      /* rows owned by this rank */
  int cap_gofs;
  int *mark, *nnz_d, *nnz_o, *cols;
  int cap_mark, cap_nnz, cap_nnz_o, cap_cols;
  int maxd;                /* largest subsystem size */
  double *blk;             /* dof x dof scratch */
  int cap_blk;
  Mat H;
  Vec x, r, x_all;
  VecScatter to_all;
  int n_loc;               /* local layout (sg_newton_setup_local): unknowns of owned + ghost subsystems */
  Vec x_loc;               /* x at those unknowns, in the problem's order (NULL: whole layout) */
  VecScatter to_loc;
  KSP ksp;
  int ksp_its_total;       /* linear iterations summed over solves since setup */
} sg_newton_sys;

/* Create (once per solver) the KSP under prefix with the defaults used when the options database
 * does not set -<prefix>ksp_type / -<prefix>pc_type (and sub_pc_type for block Jacobi). */
sg_err sg_ksp_create(MPI_Comm comm, const char *prefix, KSPType ksp_default, PCType pc_default,
                     PCType sub_pc_default, KSP *ksp);

/* The automatic sub-PC of a block-Jacobi ksp (CANAL, SAP): sparse Cholesky on each rank's diagonal
 * block of at most direct_max rows, ICC(0) on larger ones. A Cholesky block uses CHOLMOD when
 * use_cholmod and PETSc has SuiteSparse, else PETSc's own factorization, with nested-dissection
 * ordering when set_nd. Call after KSPSetOperators and before the first KSPSolve on a new matrix:
 * KSPSetUp creates the sub-KSPs but factors nothing yet (PCSetUpOnBlocks, inside KSPSolve, does).
 * who names the solver in messages. A ksp whose PC is not block Jacobi is left alone. */
sg_err sg_newton_choose_sub_pc(KSP ksp, const char *who, long direct_max, int use_cholmod, int set_nd);
/* sg_newton_init with CG + block Jacobi for a solver whose sub-PC sg_newton_choose_sub_pc picks:
 * *sub_user = the user gave -<prefix>sub_pc_type, *factor_user = the user gave
 * -<prefix><factor_option> (e.g. "sub_pc_factor_mat_ordering_type"). The ICC(0) sub-PC default that
 * sg_newton_init writes into the database is taken back unless the user set it, so that the next
 * solver created in this process does not take it for the user's choice. */
sg_err sg_newton_init_auto_sub_pc(sg_newton_sys *ns, MPI_Comm comm, const char *prefix, const char *factor_option,
                                  int *sub_user, int *factor_user);

sg_err sg_newton_init(sg_newton_sys *ns, MPI_Comm comm, const char *prefix, KSPType ksp_default,
                      PCType pc_default, PCType sub_pc_default);
/* Numbering and preallocated H for the sparsity of p (A blocks plus subsystems coupled by a constraint). */
sg_err sg_newton_setup(sg_newton_sys *ns, const sg_problem *p);
/* The same for a rank's part of a problem (SG_SOLVER_LOCAL: its owned subsystems, ghost subsystems
 * owned elsewhere, every constraint touching an owned subsystem). Global rows: the owned subsystems,
 * ranks in order (a prefix sum of their unknowns), each rank's in problem order; a ghost's rows are
 * its owner's, asked for by global id. Each rank's rows of H are then complete from local data.
 * Collective; one rank is the degenerate case (the numbering of sg_newton_setup). */
sg_err sg_newton_setup_local(sg_newton_sys *ns, const sg_problem *p);
/* An sg_newton_sys used for its local numbering only (no matrix, no KSP): NSN, whose unknowns of the
 * linear system are the multipliers, keeps v's owned and ghost unknowns consistent through it. */
void sg_newton_init_numbering(sg_newton_sys *ns, MPI_Comm comm);
/* The local numbering of sg_newton_setup_local, the global vector x and its scatter to the local
 * layout, without H. Collective. */
sg_err sg_newton_number_local(sg_newton_sys *ns, const sg_problem *p);
/* v (the problem's order): the owned subsystems' entries are kept, every ghost's are replaced by
 * its owner's. Collective (one rank: nothing to do). After sg_newton_setup_local or
 * sg_newton_number_local. */
sg_err sg_newton_share_ghosts(sg_newton_sys *ns, const sg_problem *p, double *v);
/* A global numbering of the constraint rows of a rank's part: the rows of the constraints con_mine
 * marks (sg_newton_mark_mine), ranks in order and each rank's in problem order, then every other
 * constraint's rows from its owner (the owner of its first pair's subsystem), matched in the order in
 * which both ranks list the constraints they share. gidx[k]: the global row of local row k.
 * Collective. */
sg_err sg_newton_number_rows(MPI_Comm comm, const sg_problem *p, const unsigned char *con_mine, int *gidx,
                             int *n_mine_rows, int *n_glob_rows);
/* H = A + sum_i J_i^T G_i J_i (owned rows only; G stride SG_NEWTON_GSTRIDE; G may be NULL: H = A). */
sg_err sg_newton_assemble(sg_newton_sys *ns, const sg_problem *p, const double *G);
/* Solve H x = rhs; rhs and x are full-length arrays in the problem's ordering. rhs is read at the
 * owned subsystems; x is written at every subsystem (whole layout: all of the replicated problem;
 * local layout: owned and ghosts, a ghost's entries those of its owner's rows). Returns the KSP iteration count; a KSP that breaks down is an SG_ERR_NUMERIC error (hitting
 * the KSP iteration cap is not: the inexact step is still a descent direction for an SPD H). */
sg_err sg_newton_solve(sg_newton_sys *ns, const sg_problem *p, const double *rhs, double *x, int *its);
void sg_newton_destroy(sg_newton_sys *ns);

/* For a solver on a rank's part (SG_SOLVER_LOCAL): the subsystems this rank owns, and the
 * constraints it counts in sums and maxima over constraints, so that each term enters once over the
 * ranks: the owner of a constraint's first pair's subsystem (the stepper's keeper, SubADMM's rule). */
sg_err sg_newton_mark_mine(const sg_problem *p, int rank, unsigned char **sub_mine, int *cap_sub, unsigned char **con_mine,
                           int *cap_con, const char *who);
/* x[0..n) summed / maximized over the ranks in place; one rank: the identity, so its results keep
 * their bits. Every rank gets the same values, so every rank takes the same decisions. In the
 * maximum a NaN enters as +inf: MPI_MAX may drop a NaN, and every rank must see it to stop together. */
void sg_ranks_sum(MPI_Comm comm, int size, double *x, int n);
void sg_ranks_max(MPI_Comm comm, int size, double *x, int n);

/* Owner rank of subsystem j (0 when the problem carries no owners). */
static inline int sg_newton_owner(const sg_problem *p, int j) { return p->has_owners ? p->sub_owner[j] : 0; }

/* Solve f(x) = 0 on [lo, hi] where f(lo) and f(hi) have opposite signs (or one is zero), by
 * Newton-Raphson safeguarded with bisection ("rtsafe"): Newton steps that leave the bracket or do
 * not halve the bracket fast enough are replaced by bisection. fdf returns f(x) and sets *df. Stops
 * when the step or the bracket is below xtol (relative to |x|) or after max_it steps. */
typedef double (*sg_rtsafe_fn)(double x, double *df, void *ctx);
sg_err sg_rtsafe(sg_rtsafe_fn fdf, void *ctx, double lo, double hi, double xtol, int max_it, double *root);

#endif
