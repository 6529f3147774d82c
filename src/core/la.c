/* Quaternion integration, world inertia, dense Cholesky. */
#include <string.h>
#include "signorini/la.h"

void quat_from_axis_angle(double *q, const double *axis, double angle) {
  double s = sin(0.5 * angle);
  q[0] = cos(0.5 * angle);
  q[1] = axis[0] * s;
  q[2] = axis[1] * s;
  q[3] = axis[2] * s;
}

void quat_integrate(double *q, const double *w, double dt) {
  /* Exponential map of the rotation vector w dt (world frame, so it multiplies from the left);
   * exact for constant w and free of the first-order drift of q += dt/2 [0,w] q. */
  double phi[3] = {w[0] * dt, w[1] * dt, w[2] * dt};
  double angle = v3_norm(phi);
  double dq[4];
  if (angle < 1e-12) {
    dq[0] = 1.0; dq[1] = 0.5 * phi[0]; dq[2] = 0.5 * phi[1]; dq[3] = 0.5 * phi[2];
  } else {
    double axis[3] = {phi[0] / angle, phi[1] / angle, phi[2] / angle};
    quat_from_axis_angle(dq, axis, angle);
  }
  double out[4];
  quat_mul(out, dq, q);
  memcpy(q, out, sizeof out);
  quat_normalize(q);
}

/* R diag(d) R^T; with d's three entries equal (a sphere, a cube) exactly d I, as R R^T = I: the
 * rotated sum would leave round-off off the diagonal, which a sphere's inertia has not. */
static void rotate_diag(double *O, const double *R, const double *d) {
  if (d[0] == d[1] && d[1] == d[2]) {
    for (int k = 0; k < 9; ++k) O[k] = k % 4 == 0 ? d[0] : 0.0;
    return;
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      O[3 * i + j] = R[3 * i + 0] * d[0] * R[3 * j + 0] + R[3 * i + 1] * d[1] * R[3 * j + 1] +
                     R[3 * i + 2] * d[2] * R[3 * j + 2];
}

void inertia_world(double *Iw, const double *R, const double *Ibody) { rotate_diag(Iw, R, Ibody); }

void inertia_world_inv(double *Iw_inv, const double *R, const double *Ibody) {
  double inv[3] = {1.0 / Ibody[0], 1.0 / Ibody[1], 1.0 / Ibody[2]};
  rotate_diag(Iw_inv, R, inv);
}

sg_err chol_factor(int n, const double *A, double *L) {
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j <= i; ++j) {
      double s = A[i * n + j];
      for (int k = 0; k < j; ++k) s -= L[i * n + k] * L[j * n + k];
      if (i == j) {
        if (!(s > 0.0)) return sg_error_set(SG_ERR_NUMERIC, "matrix not positive definite (pivot %d = %g)", i, s);
        L[i * n + i] = sqrt(s);
      } else {
        L[i * n + j] = s / L[j * n + j];
      }
    }
    for (int j = i + 1; j < n; ++j) L[i * n + j] = 0.0;
  }
  return SG_OK;
}

void chol_solve(int n, const double *L, const double *b, double *x) {
  for (int i = 0; i < n; ++i) {
    double s = b[i];
    for (int k = 0; k < i; ++k) s -= L[i * n + k] * x[k];
    x[i] = s / L[i * n + i];
  }
  for (int i = n - 1; i >= 0; --i) {
    double s = x[i];
    for (int k = i + 1; k < n; ++k) s -= L[k * n + i] * x[k];
    x[i] = s / L[i * n + i];
  }
}

/* 6x6 versions: the same algorithm with a constant size, unrolled, each column scaled by the
 * reciprocal of its pivot (one division per column instead of one per entry: the divisions of a
 * column are a serial chain). The diagonal is stored inverted in L to replace divisions by
 * multiplications in the solve (the hot path). */
sg_err chol6_factor(const double *A, double *L) {
  double l[6][6], inv[6];
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i) {
#pragma GCC unroll 6
    for (int j = 0; j < i; ++j) {
      double s = A[i * 6 + j];
#pragma GCC unroll 6
      for (int k = 0; k < j; ++k) s -= l[i][k] * l[j][k];
      l[i][j] = s * inv[j];
    }
    double s = A[i * 6 + i];
#pragma GCC unroll 6
    for (int k = 0; k < i; ++k) s -= l[i][k] * l[i][k];
    if (!(s > 0.0)) return sg_error_set(SG_ERR_NUMERIC, "6x6 block not positive definite (pivot %d = %g)", i, s);
    inv[i] = 1.0 / sqrt(s);
  }
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) L[i * 6 + j] = j < i ? l[i][j] : j == i ? inv[i] : 0.0;
  return SG_OK;
}

void chol6_solve(const double *L, const double *b, double *x) {
  double y[6];
  for (int i = 0; i < 6; ++i) {
    double s = b[i];
    for (int k = 0; k < i; ++k) s -= L[i * 6 + k] * y[k];
    y[i] = s * L[i * 7];
  }
  for (int i = 5; i >= 0; --i) {
    double s = y[i];
    for (int k = i + 1; k < 6; ++k) s -= L[k * 6 + i] * y[k];
    y[i] = s * L[i * 7];
  }
  for (int i = 0; i < 6; ++i) x[i] = y[i];
}

/* A^{-1} = L^{-T} L^{-1} as LAPACK's potri forms it: M = L^{-1} (lower triangular, by columns),
 * then the lower triangle of M^T M, mirrored, so the result is exactly symmetric. */
sg_err spd6_inverse(const double *A, double *Ainv) {
  double L[36], M[6][6];
  SG_CHECK(chol6_factor(A, L));
#pragma GCC unroll 6
  for (int j = 0; j < 6; ++j) {
    M[j][j] = L[7 * j];
#pragma GCC unroll 6
    for (int i = j + 1; i < 6; ++i) {
      double s = 0;
#pragma GCC unroll 6
      for (int k = j; k < i; ++k) s += L[i * 6 + k] * M[k][j];
      M[i][j] = -s * L[7 * i];
    }
  }
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i)
#pragma GCC unroll 6
    for (int j = 0; j <= i; ++j) {
      double s = 0;
#pragma GCC unroll 6
      for (int k = i; k < 6; ++k) s += M[k][i] * M[k][j];
      Ainv[i * 6 + j] = Ainv[j * 6 + i] = s;
    }
  return SG_OK;
}

/* One Jacobi rotation in the (p, r) plane that zeroes a[p][r] (Golub and Van Loan, Sec. 8.5.2). */
static void jacobi_rotate(double a[3][3], double Q[9], int p, int r) {
  if (a[p][r] == 0) return;
  const double tau = (a[r][r] - a[p][p]) / (2 * a[p][r]);
  const double t = (tau >= 0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1 + tau * tau)), c = 1 / sqrt(1 + t * t), s = t * c;
  for (int k = 0; k < 3; ++k) { /* A J */
    const double akp = a[k][p], akr = a[k][r];
    a[k][p] = c * akp - s * akr;
    a[k][r] = s * akp + c * akr;
  }
  for (int k = 0; k < 3; ++k) { /* J^T (A J) */
    const double apk = a[p][k], ark = a[r][k];
    a[p][k] = c * apk - s * ark;
    a[r][k] = s * apk + c * ark;
  }
  for (int k = 0; k < 3; ++k) { /* Q J */
    const double qp = Q[3 * k + p], qr = Q[3 * k + r];
    Q[3 * k + p] = c * qp - s * qr;
    Q[3 * k + r] = s * qp + c * qr;
  }
}

void m3_sym_eigen(const double *A, double w[3], double Q[9]) {
  double a[3][3];
  for (int i = 0; i < 9; ++i) {
    a[i / 3][i % 3] = A[i];
    Q[i] = i % 4 == 0 ? 1.0 : 0.0;
  }
  for (int sweep = 0; sweep < 50; ++sweep) {
    const double off = fabs(a[0][1]) + fabs(a[0][2]) + fabs(a[1][2]), diag = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
    if (!(off > 1e-18 * diag)) break;
    jacobi_rotate(a, Q, 0, 1);
    jacobi_rotate(a, Q, 0, 2);
    jacobi_rotate(a, Q, 1, 2);
  }
  for (int k = 0; k < 3; ++k) w[k] = a[k][k];
}
