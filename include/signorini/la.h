/* Small dense linear algebra: 3-vectors, quaternions (w, x, y, z), 3x3 row-major matrices, dense
 * Cholesky (6x6 fast path and general n). Everything inline except the factorizations. */
#ifndef SIGNORINI_LA_H
#define SIGNORINI_LA_H
#include <math.h>
#include "signorini/error.h"

static inline void v3_set(double *o, double x, double y, double z) { o[0] = x; o[1] = y; o[2] = z; }
static inline void v3_copy(double *o, const double *a) { o[0] = a[0]; o[1] = a[1]; o[2] = a[2]; }
static inline void v3_add(double *o, const double *a, const double *b) { o[0] = a[0] + b[0]; o[1] = a[1] + b[1]; o[2] = a[2] + b[2]; }
static inline void v3_sub(double *o, const double *a, const double *b) { o[0] = a[0] - b[0]; o[1] = a[1] - b[1]; o[2] = a[2] - b[2]; }
static inline void v3_scale(double *o, const double *a, double s) { o[0] = a[0] * s; o[1] = a[1] * s; o[2] = a[2] * s; }
static inline void v3_axpy(double *o, double s, const double *a) { o[0] += s * a[0]; o[1] += s * a[1]; o[2] += s * a[2]; }
static inline double v3_dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double v3_norm(const double *a) { return sqrt(v3_dot(a, a)); }
static inline void v3_cross(double *o, const double *a, const double *b) {
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  o[0] = x; o[1] = y; o[2] = z;
}
/* Normalize in place; returns the former length (0 leaves the vector unchanged). */
static inline double v3_normalize(double *a) {
  double n = v3_norm(a);
  if (n > 0) { a[0] /= n; a[1] /= n; a[2] /= n; }
  return n;
}

/* Velocity of the point x of a rigid body moving with vel = (v, w) about its centre: v + w x (x - centre). */
static inline void rigid_point_velocity(double *u, const double *vel, const double *centre, const double *x) {
  double r[3], wxr[3];
  v3_sub(r, x, centre);
  v3_cross(wxr, vel + 3, r);
  v3_add(u, vel, wxr);
}

/* 3x3 row-major */
static inline void m3_mul_v(double *o, const double *M, const double *v) {
  double x = M[0] * v[0] + M[1] * v[1] + M[2] * v[2];
  double y = M[3] * v[0] + M[4] * v[1] + M[5] * v[2];
  double z = M[6] * v[0] + M[7] * v[1] + M[8] * v[2];
  o[0] = x; o[1] = y; o[2] = z;
}
static inline void m3t_mul_v(double *o, const double *M, const double *v) {
  double x = M[0] * v[0] + M[3] * v[1] + M[6] * v[2];
  double y = M[1] * v[0] + M[4] * v[1] + M[7] * v[2];
  double z = M[2] * v[0] + M[5] * v[1] + M[8] * v[2];
  o[0] = x; o[1] = y; o[2] = z;
}
/* Column k of a row-major 3x3 (the body's k-th axis in world when M is a rotation). */
static inline void m3_col(double *o, const double *M, int k) { o[0] = M[k]; o[1] = M[3 + k]; o[2] = M[6 + k]; }

/* Quaternions (w, x, y, z) */
static inline void quat_mul(double *o, const double *a, const double *b) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  o[0] = w; o[1] = x; o[2] = y; o[3] = z;
}
static inline double quat_normalize(double *q) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0) { q[0] /= n; q[1] /= n; q[2] /= n; q[3] /= n; }
  return n;
}
/* Rotation matrix (row-major) of a unit quaternion: columns are the body axes in world. */
static inline void quat_to_mat(double *R, const double *q) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}
/* q <- exp(dt w / 2) q for a world-frame angular velocity w (exact for constant w), renormalized. */
void quat_integrate(double *q, const double *w, double dt);
/* Quaternion of a rotation by angle about a unit axis. */
void quat_from_axis_angle(double *q, const double *axis, double angle);

/* World inertia R diag(I) R^T (row-major 3x3) and its inverse R diag(1/I) R^T. */
void inertia_world(double *Iw, const double *R, const double *Ibody);
void inertia_world_inv(double *Iw_inv, const double *R, const double *Ibody);

/* Dense Cholesky A = L L^T, A row-major n x n SPD; L lower (row-major, upper part zeroed).
 * Returns SG_ERR_NUMERIC if a pivot is not positive. */
sg_err chol_factor(int n, const double *A, double *L);
void chol_solve(int n, const double *L, const double *b, double *x);
/* A matrix with a kinematic tree's sparsity (src/core/la_tree.c): H (row-major n x n, SPD, H_ij = 0
 * unless i and j are on one path to the root of the tree parent[], parent[k] < k, -1 for a root)
 * factorized in place as H = L^T L, L lower triangular with the same sparsity (Featherstone's LTL:
 * no fill-in; the entries off the paths are left as they were), and H x = b solved in place. */
sg_err ltl_factor(int n, const int *parent, double *H);
void ltl_solve(int n, const int *parent, const double *L, double *x);
/* 6x6 fast paths (the per-body H_b of paper 002 (41)); this L stores the reciprocal of its diagonal. */
sg_err chol6_factor(const double *A, double *L);
void chol6_solve(const double *L, const double *b, double *x);
/* Inverse of a 6x6 SPD matrix through its Cholesky factor (SG_ERR_NUMERIC if not SPD): one mat-vec
 * per solve afterwards, with no serial dependency chain. */
sg_err spd6_inverse(const double *A, double *Ainv);
/* Eigenvalues w and eigenvectors (the columns of Q, row-major, orthonormal) of the symmetric 3x3 A,
 * by cyclic Jacobi rotations: A = Q diag(w) Q^T. */
void m3_sym_eigen(const double *A, double w[3], double Q[9]);

#endif
