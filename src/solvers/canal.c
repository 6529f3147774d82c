/* CANAL, the cascaded Newton-based augmented Lagrangian of paper 002 (Sec. V, Alg. 1).
 *
 * Problem (8): A vhat = b + J^T lambda with (J vhat, lambda) in S_c. The AL surrogate (9)-(13) adds
 * a slack z = J vhat, a multiplier u and a penalty beta; per constraint the surrogate has the closed
 * form lambda_i = T(lambda*_i), lambda*_i = -beta J_i vhat - u_i - beta e~_i (18), with
 *   hard (14):    T = max(0, .),                         dT/dlambda* = 0 or 1;
 *   soft (15):    lambda = -(b (beta J vhat + u) + beta k e) / (b + beta)
 *                        = (b lambda* + beta (b - k) e) / (b + beta),   dT/dlambda* = b / (b + beta);
 *   contact (21): T = the Euclidean projection onto the Coulomb cone, with the De Saxce term of the
 *                 previous AL iterate frozen in e~ = e + [mu ||z^l_t||, 0, 0] (20)-(21), so that T is
 *                 the proximal operator of the cone's indicator; derivative (23) (cone.h).
 * The surrogate is then the minimization of the strongly convex (22)
 *   h(vhat) = 1/2 vhat^T A vhat - b^T vhat + sum_i phi_i(lambda*_i(vhat)),  grad h = r(vhat) = A vhat - b - sum_i J_i^T lambda_i
 * (phi_i = ||lambda_i||^2 / (2 beta) for hard and contact rows, the matching quadratic for soft rows),
 * solved by Newton (25) with the SPD Hessian (24) H = A + sum_i J_i^T (beta dT/dlambda*) J_i and the
 * exact line search (26): h is convex along d, so the minimizer is the root of the monotone
 * h'(a) = d^T r(vhat + a d), found by rtsafe. Only the line search needs h, and only through r.
 * After the inner Newton loop, the AL update (12): z = J vhat + (u + lambda)/beta and
 * u <- u + beta (J vhat - z) = -lambda, so u is never stored: u = -lambda of the previous AL loop
 * (which is also how the caller's lambda warm-starts u, and z^0 = J vhat^0). The AL residual is
 * J_i vhat - z_i = (lambda^{old}_i - lambda_i) / beta (velocity units).
 * Penalty (27): beta <- min(kappa beta, beta_max) when ||J vhat - z|| did not fall by the factor zeta,
 * but (safeguard, ours) only after an inner loop that met its stopping test; after one that hit
 * -canal_newton_max_it, beta <- max(beta / kappa, its first value). Why: a larger beta makes the inner
 * problem stiffer, and where the inner Newton hits its cap (dense piles) the plain rule keeps raising
 * beta on inaccurate multipliers: on the settled 1,000-sphere pile step with 10 Newton steps per
 * loop, beta went to 3.9e3 and theta_d from 4e-3 to 79 in 40 loops (nat 0.30); safeguarded, theta_p
 * stays within 2e-4..2e-3 over 250 loops (bounded, not convergent: docs/SOLVERS.md).
 *
 * Residuals as SubADMM's (paper 002 (42)), so that -solver_tol means the same thing:
 *   theta_p = max_i (||J_i vhat - z_i|| + mu_i | ||z^{l+1}_{i,t}|| - ||z^l_{i,t}|| |)
 * (the second term is the lag of the frozen De Saxce term, zero at a fixed point; without it a
 * converged AL loop would not certify Coulomb's law on the new z), and theta_d = max_j ||r_j||.
 * Stop when theta_p + theta_d < tol. -solver_max_it caps the AL loops (info->iterations); the total
 * number of Newton steps (one assembly and linear solve each) is info->refactorizations.
 *
 * Inexact AL (-canal_inexact eta, default 0.1): an inner Newton loop also ends once
 * theta_d <= eta * m * theta_p(current iterate), where theta_p(current iterate) is the primal
 * residual the AL update would give now (primal_residual()) and m the largest effective contact
 * mass (max_effective_mass(), turning velocities into momenta): the inner error is then a fraction of
 * the outer one, so it shrinks with it (summable, as inexact AL theory asks) and the last loop still
 * meets theta_p + theta_d < tol truthfully. Larger eta (or scaling by beta instead of m) was tried and
 * breaks the outer convergence on spheres-in-a-box; 0.1 saves ~10% of the Newton steps there.
 *
 * Linear solver: KSP under the prefix canal_, CG + block Jacobi, with -canal_ksp_rtol 1e-10 unless
 * given (an inexact step makes the inner loop only linearly convergent). Default sub-PC, per rank
 * block and per problem (choose_sub_pc(), shared with SAP): sparse Cholesky when the rank's block of
 * H has at most -canal_direct_max (8000) rows, ICC(0) above. The factorization is CHOLMOD's
 * supernodal one where PETSc has SuiteSparse (it runs on the BLAS: with OpenBLAS, which
 * scripts/setup.sh installs, 0.044 s on a 1000-sphere pile block of 6,000 rows, where PETSc's own
 * Cholesky with nested dissection takes 0.39 s), else PETSc's with nested dissection. Why direct:
 * with beta up to 1e4 times the contact masses H is badly conditioned, and on small, strongly
 * coupled problems ICC(0) drops the contact fill and CG needs ~1000 iterations per Newton step
 * (spheres-in-a-box: 10 s, Cholesky 0.3 s); on one rank CG then converges in one iteration. Only the
 * numeric factorization is redone per Newton step (the pattern is fixed over a solve: newton_petsc.c
 * inserts zero blocks too). -canal_sub_pc_type overrides it all; -canal_sub_pc_factor_mat_solver_type
 * or -canal_sub_pc_factor_mat_ordering_type pick the factorization (the latter: PETSc's own, in
 * that order).
 *
 * Distribution (SG_SOLVER_LOCAL): each rank works on its part of the problem: its owned
 * subsystems, the ghost subsystems owned elsewhere (A_j, b_j, warm start and J blocks the same bits
 * as on their owner) and every constraint touching an owned subsystem (one shared by two ranks is on
 * both, its pairs in the same order, its warm-start lambda the same bits). Per-constraint work (the
 * operators (14), (15), (21), the blocks of (24), the AL update (12), the frozen De Saxce terms
 * (20)-(21)) is done for every constraint a rank holds, so a shared one comes out the same on both
 * of its ranks. Sums and maxima over v run over the owned subsystems, those over constraints over
 * the constraints a rank counts (the owner of the first pair's subsystem, as SAP and the stepper's
 * keeper), each followed by one MPI_Allreduce: theta_d per evaluation of r; the largest effective
 * mass (setup) and max_j ||b_j|| (per solve); per Newton step one sum (d^T (A v - b), d^T A d,
 * d^T r) and one max (|d|, |v|), then one per evaluation of h', h'' in the line search; per AL
 * loop one max (the AL residual and theta_p of (42)), and one per inexact test (primal_residual()).
 * H's rows are the owned subsystems (sg_newton_setup_local, newton_local.c); the KSP solution comes
 * back for the owned and the ghost unknowns, and ghosts take the same alpha, so a ghost's v keeps
 * its owner's bits. Every decision (the inner and outer stopping tests, the line search's bracket
 * and root, stagnation, the beta rule (27)) follows from reduced numbers, the same on every rank,
 * so all ranks run the same collectives. One rank is the degenerate case: no ghosts, every sum in
 * the order of a serial loop, the reductions skipped. */
#include <float.h>
#include <math.h>
#include <petscksp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/cone.h"
#include "signorini/la.h"
#include "signorini/newton.h"
#include "signorini/options.h"
#include "signorini/solver.h"
#include "signorini/timing.h"

typedef struct {
  double beta0;        /* -canal_beta (0: beta_rel times the largest effective contact mass) */
  double beta_rel;     /* -canal_beta_rel */
  double kappa;        /* -canal_kappa (27) */
  double beta_max;     /* -canal_beta_max (0: beta_max_rel * beta0) */
  double beta_max_rel; /* -canal_beta_max_rel */
  double zeta;         /* -canal_zeta: required AL residual reduction per loop before beta grows */
  double newton_tol;   /* -canal_newton_tol: inner stop, relative to the momentum scale */
  int newton_max_it;   /* -canal_newton_max_it */
  long direct_max;     /* -canal_direct_max: largest local block factored exactly by default */
  int sub_pc_user;     /* -canal_sub_pc_type given: no automatic choice */
  int factor_user;     /* -canal_sub_pc_factor_mat_ordering_type or _mat_solver_type given: no automatic factorization */
  double eta;          /* -canal_inexact: inner stop theta_d <= eta * theta_p(current iterate) (0: exact) */
  int ns_ready;
  sg_newton_sys ns;
  /* work arrays */
  double *v, *d, *r, *av, *ad;            /* per v entry */
  double *jv, *jd, *ls, *lam, *lam_old;   /* per constraint row */
  double *G, *shift, *ztn;                /* per constraint: 9, 1, 1 */
  int cap_v, cap_row, cap_con;
  double *chol;                           /* Cholesky scratch for the effective masses */
  int cap_chol, chol_maxd;                /* chol_maxd: the largest subsystem's size */
  long newton_total;                      /* Newton steps since creation */
  double mmax;                            /* largest effective mass of a constraint (setup) */
  /* distribution (see the header's "Distribution") */
  MPI_Comm comm;
  int rank, size;
  int any_sub, any_con;                   /* some rank has a subsystem, a constraint */
  unsigned char *sub_mine, *con_mine;     /* owned subsystems; constraints this rank counts */
  int cap_mine_sub, cap_mine_con;
} canal;

static PetscLogStage g_stage_assembly = -1, g_stage_ksp = -1;

static sg_err canal_create(sg_solver *s) {
  canal *c = sg_calloc(1, sizeof *c, "canal");
  if (!c) return SG_ERR_MEM;
  c->beta_rel = 100.0;
  c->kappa = 10.0;
  c->beta_max_rel = 1e4;
  c->zeta = 0.25;
  c->newton_tol = 1e-10;
  c->newton_max_it = 50;
  c->eta = 0.1;
  c->direct_max = 8000;
  s->data = c;
  return SG_OK;
}

static sg_err ensure_newton(canal *c, sg_solver *s);

static sg_err canal_set_from_options(sg_solver *s) {
  canal *c = s->data;
  long it;
  SG_CHECK(sg_opt_real("-canal_beta", c->beta0, 0.0, 1e300,
                       "initial penalty beta (mass units; 0: -canal_beta_rel times the largest effective contact mass 1/trace-mean of the Delassus block)", &c->beta0));
  SG_CHECK(sg_opt_real("-canal_beta_rel", c->beta_rel, 1e-12, 1e12,
                       "automatic initial beta relative to the largest effective constraint mass", &c->beta_rel));
  SG_CHECK(sg_opt_real("-canal_kappa", c->kappa, 1.0 + 1e-12, 1e12, "penalty growth factor kappa of (27)", &c->kappa));
  SG_CHECK(sg_opt_real("-canal_beta_max", c->beta_max, 0.0, 1e300, "largest penalty of (27) (0: -canal_beta_max_rel times the initial beta)", &c->beta_max));
  SG_CHECK(sg_opt_real("-canal_beta_max_rel", c->beta_max_rel, 1.0, 1e300, "automatic beta_max relative to the initial beta", &c->beta_max_rel));
  SG_CHECK(sg_opt_real("-canal_zeta", c->zeta, 1e-12, 1.0, "grow beta when ||J vhat - z|| falls by less than this factor in an AL loop", &c->zeta));
  SG_CHECK(sg_opt_real("-canal_newton_tol", c->newton_tol, 0.0, 1.0,
                       "inner Newton stop: max_j ||r_j|| below this times max_j ||b_j|| (and below tol / 2)", &c->newton_tol));
  SG_CHECK(sg_opt_int("-canal_newton_max_it", c->newton_max_it, 1, 1000000, "Newton steps per AL loop at most", &it));
  c->newton_max_it = (int)it;
  SG_CHECK(sg_opt_int("-canal_direct_max", c->direct_max, 0, 1000000000,
                      "default sub-PC: sparse Cholesky (CHOLMOD, else PETSc's with nested dissection) when the rank's block of H has at most this many rows, ICC(0) above (-canal_sub_pc_type overrides)", &c->direct_max));
  SG_CHECK(sg_opt_real("-canal_inexact", c->eta, 0.0, 1e6,
                       "inexact AL: end an inner Newton loop once theta_d <= this times the primal residual its AL update would give (0: solve to -canal_newton_tol)", &c->eta));
  /* the KSP reads -canal_ksp_* / -canal_pc_* now, so that they count as used options */
  return ensure_newton(c, s);
}

static void canal_destroy(sg_solver *s) {
  canal *c = s->data;
  if (!c) return;
  if (c->ns_ready) sg_newton_destroy(&c->ns);
  free(c->v); free(c->d); free(c->r); free(c->av); free(c->ad);
  free(c->jv); free(c->jd); free(c->ls); free(c->lam); free(c->lam_old);
  free(c->G); free(c->shift); free(c->ztn); free(c->chol); free(c->sub_mine); free(c->con_mine);
  free(c);
  s->data = NULL;
}

static sg_err ensure_work(canal *c, const sg_problem *p) {
  int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p), nc = p->n_con, k;
  double **vv[] = {&c->v, &c->d, &c->r, &c->av, &c->ad};
  for (int m = 0; m < 5; ++m) { k = c->cap_v; SG_CHECK(sg_grow((void **)vv[m], &k, nv + 1, sizeof(double), "CANAL vectors")); }
  c->cap_v = k;
  double **rr[] = {&c->jv, &c->jd, &c->ls, &c->lam, &c->lam_old};
  for (int m = 0; m < 5; ++m) { k = c->cap_row; SG_CHECK(sg_grow((void **)rr[m], &k, nr + 1, sizeof(double), "CANAL rows")); }
  c->cap_row = k;
  k = c->cap_con; SG_CHECK(sg_grow((void **)&c->G, &k, SG_NEWTON_GSTRIDE * nc + 1, sizeof(double), "CANAL blocks"));
  k = c->cap_con; SG_CHECK(sg_grow((void **)&c->shift, &k, SG_NEWTON_GSTRIDE * nc + 1, sizeof(double), "CANAL De Saxce terms"));
  k = c->cap_con; SG_CHECK(sg_grow((void **)&c->ztn, &k, SG_NEWTON_GSTRIDE * nc + 1, sizeof(double), "CANAL slacks"));
  c->cap_con = k;
  return SG_OK;
}

/* y = A x, blockwise. */
static void apply_A(const sg_problem *p, const double *x, double *y) {
  for (int j = 0; j < p->n_sub; ++j) {
    int dof = p->sub_dof[j], off = p->sub_off[j];
    const double *A = p->A + p->sub_aoff[j];
    for (int a = 0; a < dof; ++a) {
      double s = 0;
      for (int b = 0; b < dof; ++b) s += A[a * dof + b] * x[off + b];
      y[off + a] = s;
    }
  }
}

/* lambda_i = T(lstar) for one constraint (14), (15), (21); D = dT/dlstar (rows x rows) when wanted. */
static void con_operator(const sg_problem *p, int i, double beta, const double *ls, double *lam, double *D) {
  const double *e = p->e + p->con_row[i];
  switch (p->kind[i]) {
    case SG_CON_HARD: /* (14) */
      lam[0] = ls[0] > 0 ? ls[0] : 0.0;
      if (D) D[0] = ls[0] > 0 ? 1.0 : 0.0;
      break;
    case SG_CON_BILATERAL: /* (14) with the projection onto R, the identity */
      lam[0] = ls[0];
      if (D) D[0] = 1.0;
      break;
    case SG_CON_SOFT: { /* (15), linear in lstar */
      double bd = p->damp[i], w = bd / (bd + beta);
      lam[0] = w * ls[0] + beta * (bd - p->stiff[i]) * e[0] / (bd + beta);
      if (D) D[0] = w;
      break;
    }
    default: { /* (21) proximal operator, derivative (23) */
      double Dl[9];
      sg_cone_project_euclid_jac(p->mu[i], ls, lam, Dl);
      if (D) memcpy(D, Dl, sizeof Dl);
    }
  }
}

/* lambda*_i = -beta (J_i vhat + e~_i) - u_i with u = -lam_old (18), e~ = e + [shift, 0, 0] (21). */
static inline void con_lstar(const sg_problem *p, const canal *c, int i, double beta, const double *jv, double *ls) {
  int r0 = p->con_row[i], nr = sg_con_rows(p->kind[i]);
  for (int r = 0; r < nr; ++r) ls[r] = -beta * (jv[r0 + r] + p->e[r0 + r]) + c->lam_old[r0 + r];
  if (p->kind[i] == SG_CON_CONTACT) ls[0] -= beta * c->shift[i];
}

/* At c->v: J v, lambda(v), the blocks G_i = beta dT/dlstar, r = A v - b - J^T lambda, A v, for
 * every constraint and subsystem of this rank (a ghost's r lacks the constraints of other ranks and
 * is not used); returns theta_d = max_j ||r_j|| over the owned subsystems of every rank. */
static double evaluate(canal *c, const sg_problem *p, double beta) {
  int nv = sg_problem_n_v(p);
  sg_problem_apply_J(p, c->v, c->jv);
  for (int i = 0; i < p->n_con; ++i) {
    int r0 = p->con_row[i], nr = sg_con_rows(p->kind[i]);
    double *G = c->G + SG_NEWTON_GSTRIDE * i;
    con_lstar(p, c, i, beta, c->jv, c->ls + r0);
    con_operator(p, i, beta, c->ls + r0, c->lam + r0, G);
    for (int k = 0; k < nr * nr; ++k) G[k] *= beta; /* (24) */
  }
  apply_A(p, c->v, c->av);
  for (int k = 0; k < nv; ++k) c->r[k] = c->av[k] - p->b[k];
  for (int k = 0; k < nv; ++k) c->d[k] = 0; /* J^T lambda, accumulated in d as scratch */
  sg_problem_apply_JT_add(p, c->lam, c->d);
  double theta_d = 0;
  for (int j = 0; j < p->n_sub; ++j) {
    double s = 0;
    for (int k = p->sub_off[j]; k < p->sub_off[j + 1]; ++k) {
      c->r[k] -= c->d[k];
      s += c->r[k] * c->r[k];
    }
    if (c->sub_mine[j]) theta_d = fmax(theta_d, s);
  }
  sg_ranks_max(c->comm, c->size, &theta_d, 1);
  return sqrt(theta_d);
}

/* Exact line search (26): h'(a) = d^T r(v + a d) = dr0 + a d^T A d - sum_i (J_i d)^T T(lstar_i - a beta J_i d).
 * dr0, d^T A d are global; each rank adds its counted constraints' terms, one reduction per
 * evaluation, so every rank sees the same h', h'' and brackets the same root. */
typedef struct {
  const sg_problem *p;
  const canal *c;
  double beta, dr0, dad;
} ls_ctx;

static double ls_fdf(double a, double *df, void *vctx) {
  const ls_ctx *x = vctx;
  const sg_problem *p = x->p;
  const canal *c = x->c;
  /* rank 0 starts from the quadratic part, so that one rank sums in the order of a serial loop */
  double fg[2] = {c->rank == 0 ? x->dr0 + a * x->dad : 0.0, c->rank == 0 ? x->dad : 0.0};
  double f = fg[0], g = fg[1];
  for (int i = 0; i < p->n_con; ++i) {
    if (!c->con_mine[i]) continue;
    int r0 = p->con_row[i], nr = sg_con_rows(p->kind[i]);
    const double *w = c->jd + r0, *l0 = c->ls + r0;
    double ls[3], lam[3], D[9];
    for (int r = 0; r < nr; ++r) ls[r] = l0[r] - a * x->beta * w[r];
    con_operator(p, i, x->beta, ls, lam, D);
    for (int r = 0; r < nr; ++r) {
      f -= w[r] * lam[r];
      double s = 0;
      for (int k = 0; k < nr; ++k) s += D[r * nr + k] * w[k];
      g += x->beta * w[r] * s;
    }
  }
  fg[0] = f;
  fg[1] = g;
  sg_ranks_sum(c->comm, c->size, fg, 2);
  *df = fg[1];
  return fg[0];
}

/* Cholesky factors of every A_j of this rank (ghosts too: a shared constraint's Delassus block
 * needs them) into c->chol; collective. */
static sg_err factor_blocks(canal *c, const sg_problem *p) {
  int maxd = 0, na = p->n_sub ? p->sub_aoff[p->n_sub] : 0;
  for (int j = 0; j < p->n_sub; ++j) maxd = p->sub_dof[j] > maxd ? p->sub_dof[j] : maxd;
  c->chol_maxd = maxd;
  sg_err err = sg_grow((void **)&c->chol, &c->cap_chol, na + 2 * maxd + 1, sizeof(double), "CANAL Cholesky factors");
  for (int j = 0; j < p->n_sub && !err; ++j)
    if (chol_factor(p->sub_dof[j], p->A + p->sub_aoff[j], c->chol + p->sub_aoff[j]))
      err = sg_error_set(SG_ERR_NUMERIC, "CANAL: A of subsystem %lld is not positive definite", (long long)p->sub_gid[j]);
  return sg_error_collective(c->comm, err);
}

/* m_i = rows_i / trace(J_i A^{-1} J_i^T) of constraint i, from the factors of factor_blocks(). */
static double effective_mass(canal *c, const sg_problem *p, int i) {
  int nr = sg_con_rows(p->kind[i]), na = p->n_sub ? p->sub_aoff[p->n_sub] : 0;
  double *L = c->chol, *rhs = L + na, *x = rhs + c->chol_maxd, tr = 0, buf[SG_COMPACT_BLOCK];
  for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
    int j = p->pair_sub[q], dof = p->sub_dof[j];
    const double *J = sg_problem_pair_block(p, i, q, buf);
    for (int r = 0; r < nr; ++r) {
      memcpy(rhs, J + r * dof, (size_t)dof * sizeof(double));
      chol_solve(dof, L + p->sub_aoff[j], rhs, x);
      for (int k = 0; k < dof; ++k) tr += J[r * dof + k] * x[k];
    }
  }
  return tr > 0 ? nr / tr : 0.0;
}

/* Largest effective mass over constraints, m_i = rows_i / trace(J_i A^{-1} J_i^T) (the inverse of
 * the mean diagonal of the Delassus block): the scale of beta (mass units, like lambda / (J v)).
 * Over the counted constraints of every rank (a maximum: exact whatever the ranks). */
static sg_err max_effective_mass(canal *c, const sg_problem *p, double *mmax) {
  SG_CHECK(factor_blocks(c, p));
  *mmax = 0;
  for (int i = 0; i < p->n_con; ++i)
    if (c->con_mine[i]) *mmax = fmax(*mmax, effective_mass(c, p, i));
  sg_ranks_max(c->comm, c->size, mmax, 1);
  if (!(*mmax > 0) || !isfinite(*mmax)) { /* no constraint with a Jacobian: any scale will do */
    *mmax = 0;
    for (int j = 0; j < p->n_sub; ++j) {
      int dof = p->sub_dof[j];
      for (int k = 0; k < dof && c->sub_mine[j]; ++k) *mmax = fmax(*mmax, p->A[p->sub_aoff[j] + k * dof + k]);
    }
    sg_ranks_max(c->comm, c->size, mmax, 1);
    if (!(*mmax > 0)) *mmax = 1.0;
  }
  return SG_OK;
}

/* ||z_t|| per contact from z = J v + e + (lambda - lambda_old) / beta (the slack of (12)). */
static void slack_tangent_norms(canal *c, const sg_problem *p, double beta, double *out) {
  for (int i = 0; i < p->n_con; ++i) {
    if (p->kind[i] != SG_CON_CONTACT) { out[i] = 0; continue; }
    int r0 = p->con_row[i];
    /* the tangential relative velocity: J_t v + e_t (e_t: a moving surface's drag) */
    double z1 = c->jv[r0 + 1] + p->e[r0 + 1] + (c->lam[r0 + 1] - c->lam_old[r0 + 1]) / beta;
    double z2 = c->jv[r0 + 2] + p->e[r0 + 2] + (c->lam[r0 + 2] - c->lam_old[r0 + 2]) / beta;
    out[i] = sqrt(z1 * z1 + z2 * z2);
  }
}

/* The primal residual theta_p that the AL update (12) would give at the current inner iterate
 * (c->jv, c->lam from evaluate()): max_i ||lambda_i - lambda^old_i|| / beta + mu_i | ||z_t|| - ||z^l_t|| |,
 * over the counted constraints of every rank. Collective. */
static double primal_residual(const canal *c, const sg_problem *p, double beta) {
  double tp = 0;
  for (int i = 0; i < p->n_con; ++i) {
    if (!c->con_mine[i]) continue;
    int r0 = p->con_row[i], nr = sg_con_rows(p->kind[i]);
    double s2 = 0, lag = 0;
    for (int r = 0; r < nr; ++r) {
      double dz = (c->lam[r0 + r] - c->lam_old[r0 + r]) / beta;
      s2 += dz * dz;
    }
    if (p->kind[i] == SG_CON_CONTACT) {
      double z1 = c->jv[r0 + 1] + (c->lam[r0 + 1] - c->lam_old[r0 + 1]) / beta;
      double z2 = c->jv[r0 + 2] + (c->lam[r0 + 2] - c->lam_old[r0 + 2]) / beta;
      lag = p->mu[i] * fabs(sqrt(z1 * z1 + z2 * z2) - c->ztn[i]);
    }
    tp = fmax(tp, sqrt(s2) + lag);
  }
  sg_ranks_max(c->comm, c->size, &tp, 1);
  return tp;
}

static sg_err ensure_newton(canal *c, sg_solver *s) {
  if (c->ns_ready) return SG_OK;
  if (g_stage_assembly < 0) {
    if (PetscLogStageRegister("CANAL assembly", &g_stage_assembly) || PetscLogStageRegister("CANAL KSP", &g_stage_ksp))
      return sg_error_set(SG_ERR_LIB, "CANAL: cannot register log stages");
  }
  /* choose_sub_pc() picks the sub-PC per problem (by the local size); the database default is
   * taken back, so choose_sub_pc sets the type before any factorization */
  char prefix[64], solver_type[96], sub_type[96], rtol[96];
  sg_solver_prefixed(s, "canal_", prefix, sizeof prefix);
  snprintf(solver_type, sizeof solver_type, "-%ssub_pc_factor_mat_solver_type", prefix);
  snprintf(sub_type, sizeof sub_type, "-%ssub_pc_type", prefix);
  snprintf(rtol, sizeof rtol, "-%sksp_rtol", prefix);
  SG_CHECK(sg_newton_init_auto_sub_pc(&c->ns, s->comm, prefix, "sub_pc_factor_mat_ordering_type", &c->sub_pc_user,
                                      &c->factor_user));
  PetscBool has_solver = PETSC_FALSE;
  if (PetscOptionsHasName(NULL, NULL, solver_type, &has_solver))
    return sg_error_set(SG_ERR_LIB, "CANAL: options database");
  c->factor_user |= has_solver == PETSC_TRUE;
  c->ns_ready = 1;
  /* PETSc's default rtol 1e-5 would make every Newton step inexact (linear convergence of the inner
   * loop); the matrices are small and well preconditioned, so ask for much more unless set. */
  PetscBool set = PETSC_FALSE, sub = PETSC_FALSE;
  /* the sub-PC default that sg_newton_init put in the database is read only at the first KSPSetUp:
   * query it here so that the unused-option check (before the first solve) accepts it */
  if (PetscOptionsHasName(NULL, NULL, sub_type, &sub) || PetscOptionsHasName(NULL, NULL, rtol, &set))
    return sg_error_set(SG_ERR_LIB, "CANAL: options database");
  /* the other -canal_sub_* options are marked used by sg_ksp_create */
  if (!set && KSPSetTolerances(c->ns.ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT))
    return sg_error_set(SG_ERR_LIB, "CANAL: KSPSetTolerances failed");
  return SG_OK;
}

/* The automatic sub-PC of block Jacobi (see the top comment): sparse Cholesky (CHOLMOD, or PETSc's
 * with nested dissection) on a rank block of at most -canal_direct_max rows, ICC(0) above. */
static sg_err choose_sub_pc(canal *c) {
  if (c->sub_pc_user) return SG_OK;
  return sg_newton_choose_sub_pc(c->ns.ksp, "CANAL", c->direct_max, !c->factor_user, !c->factor_user);
}

/* Work arrays, H's numbering and preallocation, and the effective masses: fixed during a solve.
 * Collective: a rank may hold no subsystem or no constraint while others do, and takes part all the
 * same. */
static sg_err canal_setup(sg_solver *s, const sg_problem *p) {
  canal *c = s->data;
  c->comm = s->comm;
  MPI_Comm_rank(s->comm, &c->rank);
  MPI_Comm_size(s->comm, &c->size);
  if (c->size > 1 && !p->has_owners)
    return sg_error_set(SG_ERR_ARG, "CANAL: a problem on %d ranks needs subsystem owners", c->size);
  int any[2] = {p->n_sub > 0, p->n_con > 0};
  if (c->size > 1) MPI_Allreduce(MPI_IN_PLACE, any, 2, MPI_INT, MPI_MAX, c->comm);
  c->any_sub = any[0];
  c->any_con = any[1];
  if (!c->any_sub) return SG_OK;
  double t0 = MPI_Wtime();
  sg_err err = ensure_work(c, p);
  if (!err) err = sg_newton_mark_mine(p, c->rank, &c->sub_mine, &c->cap_mine_sub, &c->con_mine, &c->cap_mine_con,
                                          "CANAL ownership");
  SG_CHECK(sg_error_collective(c->comm, err));
  SG_CHECK(ensure_newton(c, s));
  SG_CHECK(sg_newton_setup_local(&c->ns, p));
  c->mmax = 1.0;
  SG_CHECK(max_effective_mass(c, p, &c->mmax));
  sg_timer_add(SG_PHASE_FACTOR, t0);
  return SG_OK;
}

/* The momentum scale of the inner stop, max_j ||b_j|| over the owned subsystems of every rank. */
static double momentum_scale(const canal *c, const sg_problem *p) {
  double bscale = 0;
  for (int j = 0; j < p->n_sub; ++j) {
    if (!c->sub_mine[j]) continue;
    double s2 = 0;
    for (int k = p->sub_off[j]; k < p->sub_off[j + 1]; ++k) s2 += p->b[k] * p->b[k];
    bscale = fmax(bscale, sqrt(s2));
  }
  sg_ranks_max(c->comm, c->size, &bscale, 1);
  return bscale;
}

/* Warm start (Alg. 1 line 2): vhat^0 = v, u^0 = -lambda, z^0 = J vhat^0 (its tangential norms). A
 * ghost's v and a shared constraint's lambda are the same bits on every rank holding them. */
static void warm_start(canal *c, const sg_problem *p, const double *v, const double *lambda) {
  const int nv = sg_problem_n_v(p), nrow = sg_problem_n_rows(p);
  if (nv) memcpy(c->v, v, (size_t)nv * sizeof(double));
  if (nrow) memcpy(c->lam_old, lambda, (size_t)nrow * sizeof(double));
  sg_problem_apply_J(p, c->v, c->jv);
  for (int i = 0; i < p->n_con; ++i) {
    int r0 = p->con_row[i];
    c->ztn[i] = p->kind[i] == SG_CON_CONTACT ? sqrt(c->jv[r0 + 1] * c->jv[r0 + 1] + c->jv[r0 + 2] * c->jv[r0 + 2]) : 0;
  }
}

/* The Newton direction (24)-(25): c->d solves H d = -r with H assembled from c->G (owned rows); d
 * comes back for the owned and the ghost unknowns. first: a new matrix, whose sub-PC is chosen for
 * its size. */
static sg_err newton_direction(canal *c, const sg_problem *p, int first, int *its) {
  const int nv = sg_problem_n_v(p);
  PetscLogStagePush(g_stage_assembly);
  sg_err err = sg_newton_assemble(&c->ns, p, c->G);
  PetscLogStagePop();
  if (err) return err;
  if (first) SG_CHECK(choose_sub_pc(c));
  for (int k = 0; k < nv; ++k) c->r[k] = -c->r[k];
  PetscLogStagePush(g_stage_ksp);
  err = sg_newton_solve(&c->ns, p, c->r, c->d, its);
  PetscLogStagePop();
  if (err) return err;
  for (int k = 0; k < nv; ++k) c->r[k] = -c->r[k]; /* r back to its sign for the line search */
  return SG_OK;
}

/* The line search's dot products over the owned unknowns of every rank (one sum): d^T (A v - b)
 * and d^T A d into lc, d^T r into *dr; and (one max) max |d|, max |v| for the stagnation test. */
static void step_products(canal *c, const sg_problem *p, ls_ctx *lc, double *dr, double *dnorm, double *vnorm) {
  double sum[3] = {0, 0, 0}, mx[2] = {0, 0};
  apply_A(p, c->d, c->ad);
  for (int j = 0; j < p->n_sub; ++j) {
    if (!c->sub_mine[j]) continue;
    for (int k = p->sub_off[j]; k < p->sub_off[j + 1]; ++k) {
      sum[0] += c->d[k] * (c->av[k] - p->b[k]);
      sum[1] += c->d[k] * c->ad[k];
      sum[2] += c->d[k] * c->r[k];
      mx[0] = fmax(mx[0], fabs(c->d[k]));
      mx[1] = fmax(mx[1], fabs(c->v[k]));
    }
  }
  sg_ranks_sum(c->comm, c->size, sum, 3);
  sg_ranks_max(c->comm, c->size, mx, 2);
  lc->dr0 = sum[0];
  lc->dad = sum[1];
  *dr = sum[2];
  *dnorm = mx[0];
  *vnorm = mx[1];
}

/* What a line search step did to v. */
typedef enum { STEP_MOVED, STEP_NO_DESCENT, STEP_STAGNATED } step_result;

/* Exact line search (26) on h along c->d, and v += alpha d (ghosts too, with the same alpha and
 * their owner's d: they keep their owner's bits). NO_DESCENT: d^T r >= 0, r at round-off level for
 * this H; STAGNATED: v no longer changes. */
static sg_err line_search_step(canal *c, const sg_problem *p, double beta, int al_loop, step_result *res) {
  const int nv = sg_problem_n_v(p);
  ls_ctx lc = {.p = p, .c = c, .beta = beta, .dr0 = 0, .dad = 0};
  double dr, dnorm, vnorm;
  step_products(c, p, &lc, &dr, &dnorm, &vnorm);
  if (!isfinite(dr) || !isfinite(lc.dad))
    return sg_error_set(SG_ERR_NUMERIC, "CANAL diverged: non-finite Newton direction in AL loop %d (beta %g)", al_loop, beta);
  *res = STEP_NO_DESCENT;
  if (dr >= 0) return SG_OK;
  sg_problem_apply_J(p, c->d, c->jd);
  double df, lo = 0, hi = 1, alpha;
  int grow = 0;
  while (ls_fdf(hi, &df, &lc) < 0) { /* bracket the root of the increasing h' */
    lo = hi;
    hi *= 2;
    if (++grow > 60)
      return sg_error_set(SG_ERR_NUMERIC, "CANAL: line search found no minimum along the Newton direction (AL loop %d)", al_loop);
  }
  SG_CHECK(sg_rtsafe(ls_fdf, &lc, lo, hi, 1e-12, 100, &alpha));
  if (!isfinite(alpha) || alpha <= 0)
    return sg_error_set(SG_ERR_NUMERIC, "CANAL: line search failed (step %g, AL loop %d)", alpha, al_loop);
  for (int k = 0; k < nv; ++k) c->v[k] += alpha * c->d[k];
  *res = alpha * dnorm <= 4 * DBL_EPSILON * vnorm ? STEP_STAGNATED : STEP_MOVED;
  return SG_OK;
}

/* One AL loop's inner Newton loop (Alg. 1 lines 6-14) and its counters. */
typedef struct {
  double theta_d;
  int k_newton, done;      /* Newton steps of this loop; it met its stopping test (not the cap) */
  int newton_its, ksp_its; /* over the solve */
} inner_state;

/* Newton on the surrogate (22) at penalty beta from c->v, until theta_d <= inner_tol, the inexact
 * AL test, the Newton cap or stagnation. *ti: the running timer of the solve's phases. */
static sg_err inner_loop(canal *c, const sg_problem *p, double beta, double inner_tol, int al_loop, double *ti,
                         inner_state *in) {
  in->k_newton = 0;
  in->done = 1;
  for (;;) {
    in->theta_d = evaluate(c, p, beta);
    if (!isfinite(in->theta_d))
      return sg_error_set(SG_ERR_NUMERIC, "CANAL diverged: non-finite residual in AL loop %d, Newton step %d (beta %g)",
                          al_loop, in->k_newton, beta);
    if (in->theta_d <= inner_tol) return SG_OK;
    if (in->k_newton >= c->newton_max_it) { in->done = 0; return SG_OK; }
    /* inexact AL: the inner error need only be small against the outer one */
    if (c->eta > 0 && in->theta_d <= c->eta * c->mmax * primal_residual(c, p, beta)) return SG_OK;
    sg_timer_add(SG_PHASE_ITERATE, *ti);
    *ti = MPI_Wtime();
    int its = 0;
    SG_CHECK(newton_direction(c, p, in->newton_its == 0, &its));
    sg_timer_add(SG_PHASE_FACTOR, *ti);
    *ti = MPI_Wtime();
    in->ksp_its += its;
    ++in->k_newton;
    ++in->newton_its;
    step_result res = STEP_NO_DESCENT;
    SG_CHECK(line_search_step(c, p, beta, al_loop, &res));
    if (res == STEP_NO_DESCENT) return SG_OK;
    if (res == STEP_STAGNATED) {
      in->theta_d = evaluate(c, p, beta);
      return SG_OK;
    }
  }
}

/* AL update (12): z = J v + (lambda - lambda_old)/beta, u = -lambda, for every constraint of this
 * rank (a shared one comes out the same on both of its ranks); the AL residual max_i ||J_i v - z_i||
 * into *al and theta_p (42) into *theta_p, over the counted constraints of every rank. */
static void al_update(canal *c, const sg_problem *p, double beta, double *al, double *theta_p) {
  double mx[2] = {0, 0};
  slack_tangent_norms(c, p, beta, c->shift); /* shift no longer needed this loop: reuse for ||z^{l+1}_t|| */
  for (int i = 0; i < p->n_con; ++i) {
    int r0 = p->con_row[i], nr = sg_con_rows(p->kind[i]);
    double s2 = 0;
    for (int r = 0; r < nr; ++r) {
      double dz = (c->lam[r0 + r] - c->lam_old[r0 + r]) / beta;
      s2 += dz * dz;
    }
    double gap = sqrt(s2), lag = p->kind[i] == SG_CON_CONTACT ? p->mu[i] * fabs(c->shift[i] - c->ztn[i]) : 0;
    if (c->con_mine[i]) {
      mx[0] = fmax(mx[0], gap);
      mx[1] = fmax(mx[1], gap + lag);
    }
    c->ztn[i] = c->shift[i]; /* ||z^{l+1}_t|| freezes the next De Saxce term */
  }
  const int nrow = sg_problem_n_rows(p);
  if (nrow) memcpy(c->lam_old, c->lam, (size_t)nrow * sizeof(double));
  sg_ranks_max(c->comm, c->size, mx, 2);
  *al = mx[0];
  *theta_p = mx[1];
}

static sg_err canal_solve(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info) {
  canal *c = s->data;
  if (!c->any_sub) { info->reason = SG_CONVERGED_TRIVIAL; return SG_OK; }
  const int nv = sg_problem_n_v(p), nrow = sg_problem_n_rows(p);
  /* beta is a mass (lambda* = -beta J v): beta_rel = 100 times the stiffest constraint's effective
   * mass makes every AL loop contract the constraint error by about 1/(1 + beta W_ii) <= 1/100, as
   * the paper's 1e4 does for its 0.1-5 kg bodies, whatever the units of A. */
  double beta = c->beta0 > 0 ? c->beta0 : c->beta_rel * c->mmax;
  const double beta_first = beta;
  const double beta_max = c->beta_max > 0 ? fmax(c->beta_max, beta) : c->beta_max_rel * beta;
  /* inner stop: relative to the momentum scale max_j ||b_j||, and tight enough for the outer test */
  const double bscale = momentum_scale(c, p);
  double inner_tol = c->newton_tol * bscale;
  if (s->tol > 0) inner_tol = fmin(inner_tol, 0.5 * s->tol);
  inner_tol = fmax(inner_tol, 64 * DBL_EPSILON * bscale); /* what round-off lets r reach */
  warm_start(c, p, v, lambda);
  double theta_p = INFINITY, al_prev = INFINITY;
  int it = 0;
  inner_state in = {.theta_d = INFINITY};
  sg_converged_reason reason = SG_SOLVE_ITERATING;
  for (;;) {
    double ti = MPI_Wtime();
    /* (21): frozen De Saxce term from z^l */
    for (int i = 0; i < p->n_con; ++i) c->shift[i] = p->kind[i] == SG_CON_CONTACT ? p->mu[i] * c->ztn[i] : 0;
    SG_CHECK(inner_loop(c, p, beta, inner_tol, it + 1, &ti, &in));
    double al;
    al_update(c, p, beta, &al, &theta_p);
    sg_timer_add(SG_PHASE_ITERATE, ti);
    sg_timers.iterations += 1;
    ++it;
    if (!isfinite(theta_p))
      return sg_error_set(SG_ERR_NUMERIC, "CANAL diverged at AL loop %d (theta_p %g, theta_d %g)", it, theta_p, in.theta_d);
    /* a good AL iterate: hand it to the caller now, so that a later failure leaves this state */
    if (nv) memcpy(v, c->v, (size_t)nv * sizeof(double));
    if (nrow) memcpy(lambda, c->lam, (size_t)nrow * sizeof(double));
    char extra[96] = "";
    if (s->monitor_fn)
      snprintf(extra, sizeof extra, "beta %.3e  newton %d  (total newton %d, ksp %d)", beta, in.k_newton, in.newton_its,
               in.ksp_its);
    reason = !c->any_con ? SG_CONVERGED_TRIVIAL : sg_solver_test(s, it, theta_p, in.theta_d, extra);
    if (reason != SG_SOLVE_ITERATING) break;
    /* (27), only after an inner loop that met its stopping test; after one that hit its Newton cap,
     * beta steps back instead (safeguard, ours; the top comment says why). al is reduced: every
     * rank takes the same decision. */
    if (!in.done) beta = fmax(beta / c->kappa, beta_first);
    else if (al > c->zeta * al_prev) beta = fmin(c->kappa * beta, beta_max);
    al_prev = al;
  }
  c->newton_total += in.newton_its;
  info->reason = reason;
  info->iterations = it;
  info->residual_primal = theta_p;
  info->residual_dual = in.theta_d;
  info->beta = beta;
  info->refactorizations = in.newton_its;
  return SG_OK;
}

static void canal_view(const sg_solver *s, FILE *f) {
  const canal *c = s->data;
  if (c->beta0 > 0) fprintf(f, "  initial beta %g\n", c->beta0);
  else fprintf(f, "  initial beta %g x the largest effective mass\n", c->beta_rel);
  fprintf(f, "  kappa %g, zeta %g, beta_max %g (relative %g)\n", c->kappa, c->zeta, c->beta_max, c->beta_max_rel);
  fprintf(f, "  Newton: tol %g, at most %d per AL loop, inexact %g; direct sub-PC up to %ld rows; KSP prefix %s\n",
          c->newton_tol, c->newton_max_it, c->eta, c->direct_max, c->ns_ready ? c->ns.prefix : "(not created)");
}

const sg_solver_ops sg_solver_canal_ops = {
  .name = "canal",
  .description = "cascaded Newton-based augmented Lagrangian (paper 002 Alg. 1), PETSc Newton systems",
  .create = canal_create,
  .set_from_options = canal_set_from_options,
  .setup = canal_setup,
  .view = canal_view,
  .solve = canal_solve,
  .destroy = canal_destroy,
  .layout = SG_SOLVER_LOCAL,
};
