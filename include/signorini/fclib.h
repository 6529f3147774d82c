/* FCLIB frictional-contact problems (Acary, Bremond, Koziara, Perignon, INRIA RT-0444, 2014): read a
 * global (/fclib_global) or local (/fclib_local) problem from its HDF5 file, convert a global problem
 * into the project's sg_problem, measure the Siconos scale-invariant residuals, and write the FCLIB
 * /solution group into a copy of the file. Layout and conventions: ../shared/fclib/README.md.
 *   global:  M v = H r + f,  u = H^T v + w,  uhat = u + [mu ||u_T||, 0, 0],  C*_mu ∋ uhat ⊥ r ∈ C_mu
 *   local:   u = W r + q with the same cone conditions
 * Contact components are ordered normal first. Everything here is serial (one rank's data). */
#ifndef SIGNORINI_FCLIB_H
#define SIGNORINI_FCLIB_H
#include "signorini/error.h"
#include "signorini/problem.h"

/* A sparse matrix as triplets (duplicates are summed wherever it is used), whatever its stored
 * format (CSparse triplet nz >= 0 with row = i[k], column = p[k]; nz = -1 CSC; nz = -2 CSR). */
typedef struct {
  int m, n;      /* rows, columns */
  int nnz;
  int *row, *col;
  double *x;
} sg_fclib_matrix;

typedef struct {
  int local;     /* 0: /fclib_global (M, H, f, w), 1: /fclib_local (W, q) */
  int n;         /* global: unknowns v (M is n x n); local: 0 */
  int m;         /* contact rows, 3 nc */
  int nc;        /* contacts */
  sg_fclib_matrix M, H, W;
  double *f, *w, *q, *mu;
  char title[256];
} sg_fclib_problem;

/* Read `path` (serial HDF5 on the calling rank, read-only). Dimensions are checked against the
 * matrices' m and n, the vectors and spacedim (3); out-of-range indices and malformed pointer
 * arrays are rejected with a message naming the file and dataset. On failure fp is emptied. */
sg_err sg_fclib_read(const char *path, sg_fclib_problem *fp);
void sg_fclib_free(sg_fclib_problem *fp);

/* The subsystems of a global problem as an sg_problem, with the map between the two orders of v. */
typedef struct {
  int n;         /* unknowns */
  int *perm;     /* [n]: v_problem[k] = v_fclib[perm[k]] */
} sg_fclib_map;

/* Global problem -> sg_problem (appended to a reset p). Subsystems: connected components of M's
 * sparsity graph; when n is a multiple of 6 and no component crosses a boundary of the aligned
 * blocks of six unknowns, each block is one subsystem (FCLIB stores no bodies; a rigid body's
 * diagonal mass, 3 translations + 3 rotations, would otherwise fall apart into six). A_j = the dense block of M, b_j = f
 * restricted; one contact constraint per FCLIB contact (3 rows, normal first), e = w, mu, with one
 * J_ij = (H^T restricted to subsystem j's unknowns) per subsystem the contact touches. Constraint
 * order = contact order, so lambda = r row for row. */
sg_err sg_fclib_to_problem(const sg_fclib_problem *fp, sg_problem *p, sg_fclib_map *map);
void sg_fclib_map_free(sg_fclib_map *map);
/* v_fclib[perm[k]] = v_problem[k] and the reverse. */
void sg_fclib_map_to_fclib(const sg_fclib_map *map, const double *v_problem, double *v_fclib);
void sg_fclib_map_to_problem(const sg_fclib_map *map, const double *v_fclib, double *v_problem);

/* A local problem as an equivalent global one that every solver takes (src/io/fclib_local.c):
 * W + eps I = L L^T, M = I, H = L^T, f = 0, w = q, so u = H^T v + w = (W + eps I) r + q. eps starts at
 * rel_eps * max_k W_kk and grows tenfold until the Cholesky factorization succeeds (*eps_used). A
 * non-symmetric W is replaced by its symmetric part; *asymmetry = max |W - W^T| / max |W|. */
sg_err sg_fclib_local_to_global(const sg_fclib_problem *loc, double rel_eps, sg_fclib_problem *glob, double *eps_used,
                                double *asymmetry);

/* A global problem scaled to entries of order one (src/io/fclib_scale.c): v = v_factor v',
 * r = r_factor r', u = u_factor u' map the answer of *out back to fp's. Applied (*out filled, to
 * be freed) only when the largest entry of M, H, f or w lies outside 2^-30 .. 2^30; otherwise
 * *out is left empty and the factors are 1. Every factor is a power of two. */
typedef struct {
  double v, r, u;
  int applied;
} sg_fclib_scaling;
sg_err sg_fclib_normalize(const sg_fclib_problem *fp, sg_fclib_problem *out, sg_fclib_scaling *sc);

/* Siconos's scale-invariant residuals (README "Accuracy measure"), v in FCLIB order (ignored for
 * local problems), r = the contact impulses:
 *   u = H^T v + w (local: W r + q), uhat = u + [mu ||u_T||, 0, 0],
 *   nat = ||r - P_C(r - uhat)|| / max(||u||, ||r||)           (local: max(||q||, ||u||, ||r||)),
 *   dyn = ||M v - H r - f|| / max(||f||, ||M v||, ||H r||)     (global; local: 0).
 * A zero denominator leaves the numerator unscaled. u (m entries) is returned when not NULL. */
sg_err sg_fclib_residuals(const sg_fclib_problem *fp, const double *v, const double *r, double *nat,
                          double *dyn, double *u);

/* y = A x or y = A^T x (y overwritten). */
void sg_fclib_matvec(const sg_fclib_matrix *A, int transpose, const double *x, double *y);

/* Copy `in_path` byte for byte to `out_path` and write /solution/{v,u,r} there (an existing
 * /solution group is replaced). v may be NULL (local problems). The input is never opened for
 * writing. */
sg_err sg_fclib_write_solution(const char *in_path, const char *out_path, const sg_fclib_problem *fp,
                               const double *v, const double *u, const double *r);
/* Write p as an FCLIB global problem file (src/io/fclib_write.c): M = diag(A_j) (every entry of each
 * block, zeros included), H = J^T, f = b, w = e, mu, compressed columns, info/{title,description}.
 * Serial (call on one rank), atomic (written to "<path>.tmp.<pid>", then renamed). Refused
 * (SG_ERR_ARG) when p has a hard or soft constraint (FCLIB holds contacts only) or no constraint.
 * sg_fclib_read + sg_fclib_to_problem give back the same sub_dof, A, b, e, mu and J blocks bit for
 * bit, with two differences: subsystem gids become 0..n_sub-1 (FCLIB stores no bodies) and each
 * constraint's pairs come back in ascending subsystem order. Subsystems of other than 6 unknowns
 * may be merged by the reader's rigid-body rule (aligned blocks of six) when n is a multiple of 6. */
sg_err sg_fclib_write_problem(const char *path, const sg_problem *p, const char *title, const char *description);
#endif
