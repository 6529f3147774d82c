/* Projected Gauss-Seidel, the baseline of paper 002 Sec. VII, on the problem of problem.h.
 * It works in impulse space and keeps vhat = A^{-1} (b + J^T lambda) exact at all times:
 *   - once per solve: A_j^{-1} (the 6x6 inverse for rigid bodies, a Cholesky factor otherwise), the
 *     block M_q = A_j^{-1} J_ij^T of every (constraint, subsystem) pair q (stored rows x dof, like
 *     J_ij), and the Delassus diagonal block W_ii = sum_j J_ij M_q (rows x rows);
 *   - per sweep, for every constraint i in order: u_i = J_i vhat + e_i, the local update of lambda_i
 *     below with the other multipliers frozen, then vhat_j += M_q delta_i for the subsystems touched.
 * Local updates (each solves constraint i's law exactly, given the other constraints):
 *   hard:    lambda <- max(0, lambda - u / W);
 *   soft:    lambda = -k e - c J v with J v = u - e + W (lambda_new - lambda), a scalar linear equation;
 *   contact: the normal row first, lambda_n <- max(0, lambda_n - u_n / W_nn); then, with u_t updated
 *            for the change of lambda_n, the tangential pair minimizes the local quadratic
 *            1/2 l^T W_tt l + (u_t - W_tt lambda_t)^T l over the disc ||l|| <= mu lambda_n (the strict
 *            operator (17): a disc of radius fixed by the new normal impulse, no relaxation). Inside
 *            the disc this is the block step lambda_t - W_tt^{-1} u_t; on its boundary it is the
 *            projection in the W_tt metric, computed as a 2x2 trust-region problem. (Projecting the
 *            block step Euclidean-wise would stop at a different point, one that is not a zero of the
 *            paper-002 residual unless W_tt is a multiple of the identity.)
 * A fixed point of the sweep satisfies every constraint's law at once, i.e. it solves the problem.
 * Stopping: theta = max_i w_i ||lambda_i^new - lambda_i^old|| over one sweep, w_i the largest
 * diagonal entry of W_ii, so theta is the largest velocity change (m/s) that one sweep's impulse
 * changes cause at a constraint -- the same units as SubADMM's theta_p (42). The solve stops when
 * theta < -solver_tol (the shared test, with theta_p = theta, theta_d = 0). Reported: residual_primal = theta, residual_dual = 0 (exact by construction,
 * since vhat = A^{-1}(b + J^T lambda) is maintained). The warm start is lambda; the given v is
 * ignored and overwritten. A sweep is sequential: on several ranks every rank sweeps the whole
 * problem (gathered by the stepper, SG_SOLVER_WHOLE) the same way and gets the same answer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/la.h"
#include "signorini/solver.h"
#include "signorini/timing.h"

typedef struct {
  double *Ainv;  /* per subsystem: A^{-1} (dof 6) or its Cholesky factor */
  double *M;     /* per pair: A_j^{-1} J_ij^T stored as rows x dof (row r = A_j^{-1} J_ij[r,:]^T) */
  int *moff;     /* per pair: offset into M */
  double *W;     /* per constraint: W_ii, 3x3 row-major (1x1 in W[0] for scalar rows) */
  double *wscale;/* per constraint: largest diagonal entry of W_ii */
  double *tmp;   /* dof scratch */
  int cap_a, cap_m, cap_moff, cap_w, cap_ws, cap_tmp;
} pgs;

static sg_err pgs_create(sg_solver *s) {
  pgs *d = sg_calloc(1, sizeof *d, "pgs");
  if (!d) return SG_ERR_MEM;
  s->data = d;
  return SG_OK;
}

/* Frees the per-problem factors and blocks (sg_solver_reset). */
static void pgs_reset(sg_solver *s) {
  pgs *d = s->data;
  if (!d) return;
  free(d->Ainv); free(d->M); free(d->moff); free(d->W); free(d->wscale); free(d->tmp);
  memset(d, 0, sizeof *d);
}

static void pgs_destroy(sg_solver *s) {
  pgs_reset(s);
  free(s->data);
  s->data = NULL;
}

/* x = A_j^{-1} y (y and x may alias). */
static inline void apply_inv(const pgs *d, const sg_problem *p, int j, const double *y, double *x) {
  int dof = p->sub_dof[j];
  const double *L = d->Ainv + p->sub_aoff[j];
  if (dof == 6) {
    double t[6];
    for (int r = 0; r < 6; ++r)
      t[r] = L[6 * r] * y[0] + L[6 * r + 1] * y[1] + L[6 * r + 2] * y[2] + L[6 * r + 3] * y[3] +
             L[6 * r + 4] * y[4] + L[6 * r + 5] * y[5];
    memcpy(x, t, sizeof t);
  } else {
    chol_solve(dof, L, y, x);
  }
}

/* Factors, M blocks and Delassus diagonal blocks: fixed during a solve. */
static sg_err factor_blocks(pgs *d, const sg_problem *p) {
  int npair = p->n_con ? p->con_pair[p->n_con] : 0, maxd = 0, nm = 0;
  for (int j = 0; j < p->n_sub; ++j) maxd = p->sub_dof[j] > maxd ? p->sub_dof[j] : maxd;
  SG_CHECK(sg_grow((void **)&d->Ainv, &d->cap_a, (p->n_sub ? p->sub_aoff[p->n_sub] : 0) + 1, sizeof(double), "PGS factors"));
  SG_CHECK(sg_grow((void **)&d->tmp, &d->cap_tmp, maxd * maxd + 1, sizeof(double), "PGS scratch"));
  SG_CHECK(sg_grow((void **)&d->moff, &d->cap_moff, npair + 1, sizeof(int), "PGS offsets"));
  for (int i = 0; i < p->n_con; ++i)
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      d->moff[q] = nm;
      nm += sg_con_rows(p->kind[i]) * p->sub_dof[p->pair_sub[q]];
    }
  d->moff[npair] = nm;
  SG_CHECK(sg_grow((void **)&d->M, &d->cap_m, nm + 1, sizeof(double), "PGS blocks"));
  SG_CHECK(sg_grow((void **)&d->W, &d->cap_w, 9 * p->n_con + 1, sizeof(double), "PGS Delassus blocks"));
  SG_CHECK(sg_grow((void **)&d->wscale, &d->cap_ws, p->n_con + 1, sizeof(double), "PGS scales"));
  for (int j = 0; j < p->n_sub; ++j) {
    int dof = p->sub_dof[j], off = p->sub_aoff[j];
    sg_err err = dof == 6 ? spd6_inverse(p->A + off, d->Ainv + off) : chol_factor(dof, p->A + off, d->Ainv + off);
    if (err) return sg_error_set(SG_ERR_NUMERIC, "PGS: A_j of subsystem %lld is not positive definite", (long long)p->sub_gid[j]);
  }
  for (int i = 0; i < p->n_con; ++i) {
    int rows = sg_con_rows(p->kind[i]);
    double *W = d->W + 9 * i;
    memset(W, 0, 9 * sizeof(double));
    double buf[SG_COMPACT_BLOCK];
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      int j = p->pair_sub[q], dof = p->sub_dof[j];
      const double *J = sg_problem_pair_block(p, i, q, buf);
      double *M = d->M + d->moff[q];
      for (int r = 0; r < rows; ++r) apply_inv(d, p, j, J + r * dof, M + r * dof);
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < rows; ++c) {
          double acc = 0;
          for (int k = 0; k < dof; ++k) acc += J[r * dof + k] * M[c * dof + k];
          W[r * rows + c] += acc;
        }
    }
    if (rows == 3) { /* symmetrize against rounding */
      for (int r = 0; r < 3; ++r)
        for (int c = r + 1; c < 3; ++c) W[3 * r + c] = W[3 * c + r] = 0.5 * (W[3 * r + c] + W[3 * c + r]);
    }
    double ws = 0;
    for (int r = 0; r < rows; ++r) ws = fmax(ws, W[r * rows + r]);
    if (!(ws > 0))
      return sg_error_set(SG_ERR_NUMERIC, "PGS: constraint %d has a zero Delassus block (empty Jacobian)", i);
    d->wscale[i] = ws;
  }
  return SG_OK;
}

/* u = J_i vhat + e_i (rows entries). */
static inline void con_velocity(const sg_problem *p, int i, int rows, const double *v, double *u) {
  const double *e = p->e + p->con_row[i];
  double buf[SG_COMPACT_BLOCK];
  for (int r = 0; r < rows; ++r) u[r] = e[r];
  for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
    int j = p->pair_sub[q], dof = p->sub_dof[j];
    const double *J = sg_problem_pair_block(p, i, q, buf), *vj = v + p->sub_off[j];
    if (dof == 6) {
      for (int r = 0; r < rows; ++r, J += 6)
        u[r] += J[0] * vj[0] + J[1] * vj[1] + J[2] * vj[2] + J[3] * vj[3] + J[4] * vj[4] + J[5] * vj[5];
    } else {
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < dof; ++c) u[r] += J[r * dof + c] * vj[c];
    }
  }
}

/* vhat_j += M_q delta for every pair of constraint i. */
static inline void push_change(const pgs *d, const sg_problem *p, int i, int rows, const double *delta, double *v) {
  for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
    int j = p->pair_sub[q], dof = p->sub_dof[j];
    const double *M = d->M + d->moff[q];
    double *vj = v + p->sub_off[j];
    for (int r = 0; r < rows; ++r) {
      double dr = delta[r];
      if (dr == 0) continue;
      for (int c = 0; c < dof; ++c) vj[c] += M[r * dof + c] * dr;
    }
  }
}

/* argmin over ||x|| <= rad of 1/2 x^T W x + g^T x, W SPD 2x2 (W = [a b; b c]). Inside: x = -W^{-1} g.
 * Otherwise x = -(W + gamma I)^{-1} g on the circle, gamma > 0 found by Newton on
 * 1/||x(gamma)|| - 1/rad (concave and increasing in gamma: monotone convergence from gamma = 0). */
static void disc_qp(double a, double b, double c, const double *g, double rad, double *x) {
  if (!(rad > 0)) { x[0] = x[1] = 0; return; }
  double det = a * c - b * b;
  if (det > 1e-14 * (a * c) && a > 0 && c > 0) {
    x[0] = -(c * g[0] - b * g[1]) / det;
    x[1] = -(a * g[1] - b * g[0]) / det;
    if (x[0] * x[0] + x[1] * x[1] <= rad * rad) return;
  }
  /* eigen-decomposition of W: W = Q diag(l1, l2) Q^T, Q = [cs -sn; sn cs] */
  double half = 0.5 * (a - c), rt = sqrt(half * half + b * b), mean = 0.5 * (a + c);
  double l1 = mean + rt, l2 = mean - rt, ang = 0.5 * atan2(b, half), cs = cos(ang), sn = sin(ang);
  if (l2 < 1e-14 * l1) l2 = 1e-14 * l1; /* guard a (near) semi-definite W_tt */
  double g1 = cs * g[0] + sn * g[1], g2 = -sn * g[0] + cs * g[1]; /* Q^T g */
  double gn = sqrt(g1 * g1 + g2 * g2);
  if (gn == 0) { x[0] = x[1] = 0; return; }
  if (!(l1 > 0)) { x[0] = -rad * g[0] / gn; x[1] = -rad * g[1] / gn; return; } /* W_tt = 0: linear objective */
  double gamma = 0, y1 = 0, y2 = 0;
  for (int it = 0; it < 60; ++it) {
    double d1 = l1 + gamma, d2 = l2 + gamma;
    y1 = -g1 / d1; y2 = -g2 / d2;
    double n2 = y1 * y1 + y2 * y2, n = sqrt(n2);
    double psi = 1.0 / n - 1.0 / rad;
    if (fabs(n - rad) <= 1e-13 * rad) break;
    double dn2 = -2.0 * (y1 * y1 / d1 + y2 * y2 / d2); /* d(n^2)/dgamma */
    double dpsi = -0.5 * dn2 / (n2 * n);
    double step = -psi / dpsi;
    if (!(step == step) || step == 0) break;
    gamma += step;
    if (gamma < 0) gamma = 0;
  }
  /* back to the original frame, exactly on the circle */
  double n = sqrt(y1 * y1 + y2 * y2), sc = n > 0 ? rad / n : 0;
  y1 *= sc; y2 *= sc;
  x[0] = cs * y1 - sn * y2;
  x[1] = sn * y1 + cs * y2;
}

/* One sweep; returns theta (see the header). */
static double sweep(const pgs *d, const sg_problem *p, double *v, double *lambda) {
  double theta = 0;
  for (int i = 0; i < p->n_con; ++i) {
    int rows = sg_con_rows(p->kind[i]);
    double *li = lambda + p->con_row[i], u[3], delta[3] = {0, 0, 0};
    const double *W = d->W + 9 * i;
    con_velocity(p, i, rows, v, u);
    switch (p->kind[i]) {
      case SG_CON_HARD: {
        double ln = li[0] - u[0] / W[0];
        ln = ln > 0 ? ln : 0;
        delta[0] = ln - li[0];
        break;
      }
      case SG_CON_BILATERAL: /* u = J v + e driven to 0, lambda unbounded */
        delta[0] = -u[0] / W[0];
        break;
      case SG_CON_SOFT: { /* (1 + c W) lambda = -k e - c (J v - W lambda_old), J v = u - e */
        double jv = u[0] - p->e[p->con_row[i]], c = p->damp[i];
        double ln = (-p->stiff[i] * p->e[p->con_row[i]] - c * (jv - W[0] * li[0])) / (1.0 + c * W[0]);
        delta[0] = ln - li[0];
        break;
      }
      default: {
        double ln = li[0] - u[0] / W[0];
        ln = ln > 0 ? ln : 0;
        delta[0] = ln - li[0];
        /* tangential velocity after the normal change; local problem in the new l_t */
        double ut1 = u[1] + W[3] * delta[0], ut2 = u[2] + W[6] * delta[0];
        double g[2] = {ut1 - (W[4] * li[1] + W[5] * li[2]), ut2 - (W[7] * li[1] + W[8] * li[2])}, lt[2];
        disc_qp(W[4], W[5], W[8], g, p->mu[i] * ln, lt);
        delta[1] = lt[0] - li[1];
        delta[2] = lt[1] - li[2];
      }
    }
    double dn = 0;
    for (int r = 0; r < rows; ++r) { li[r] += delta[r]; dn += delta[r] * delta[r]; }
    if (dn > 0) push_change(d, p, i, rows, delta, v);
    dn = d->wscale[i] * sqrt(dn);
    theta = dn > theta ? dn : theta;
  }
  return theta;
}

static sg_err pgs_setup(sg_solver *s, const sg_problem *p) {
  if (p->n_sub == 0) return SG_OK;
  double t0 = MPI_Wtime();
  sg_err err = factor_blocks(s->data, p);
  sg_timer_add(SG_PHASE_FACTOR, t0);
  return err;
}

static sg_err pgs_solve(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info) {
  pgs *d = s->data;
  if (p->n_sub == 0) { info->reason = SG_CONVERGED_TRIVIAL; return SG_OK; }
  double t0 = MPI_Wtime();
  /* vhat = A^{-1}(b + J^T lambda) from the warm start */
  int nv = sg_problem_n_v(p);
  memcpy(v, p->b, (size_t)nv * sizeof(double));
  sg_problem_apply_JT_add(p, lambda, v);
  for (int j = 0; j < p->n_sub; ++j) apply_inv(d, p, j, v + p->sub_off[j], v + p->sub_off[j]);
  sg_timer_add(SG_PHASE_FACTOR, t0);
  info->refactorizations = 1;
  if (p->n_con == 0) { info->reason = SG_CONVERGED_TRIVIAL; return SG_OK; }
  int it = 0;
  double theta = INFINITY;
  sg_converged_reason reason = SG_SOLVE_ITERATING;
  while (reason == SG_SOLVE_ITERATING) {
    double ti = MPI_Wtime();
    theta = sweep(d, p, v, lambda);
    sg_timer_add(SG_PHASE_ITERATE, ti);
    sg_timers.iterations += 1;
    ++it;
    reason = sg_solver_test(s, it, theta, 0.0, "");
  }
  info->reason = reason;
  info->iterations = it;
  info->residual_primal = theta;
  info->residual_dual = 0;
  if (reason == SG_DIVERGED_NAN) return sg_error_set(SG_ERR_NUMERIC, "PGS diverged at sweep %d", it);
  return SG_OK;
}

static void pgs_view(const sg_solver *s, FILE *f) {
  (void)s;
  fprintf(f, "  theta_p: largest velocity change a sweep's impulse changes cause; theta_d = 0 (exact)\n");
}

const sg_solver_ops sg_solver_pgs_ops = {
  .name = "pgs",
  .description = "projected Gauss-Seidel on the Delassus blocks (paper 002 Sec. VII baseline); serial: the same sweeps on every rank",
  .create = pgs_create,
  .set_from_options = NULL,
  .setup = pgs_setup,
  .view = pgs_view,
  .solve = pgs_solve,
  .reset = pgs_reset,
  .destroy = pgs_destroy,
};
