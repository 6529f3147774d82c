/* NSN: the non-smooth Newton method of paper 001 (Macklin et al.) on the problem of problem.h.
 *
 * Mapping to our velocity-level form. The paper's unknowns (u, lambda) are our (vhat, lambda) with
 * lambda an impulse; the momentum balance g (57) is g = A v - b - J^T lambda, its mass block H is A
 * (block diagonal SPD, no geometric stiffness), and every constraint function is read directly in
 * velocity units: C_n := J_n v + e_n (the normal gap velocity, >= 0 _|_ lambda_n >= 0), the friction
 * velocity D^T qdot := u_t = J_t v + e_t, hard rows like a normal row, soft rows by their linear law
 * lambda = -k e - c J v. With that reading all h factors of (53)-(60) and (66) drop out: h = 1.
 *
 * Residual functions (rows of one constraint i; c = J v + e):
 *   normal / hard row: phi = phi_FB(c, r lambda) (93), derivatives alpha (wrt c), beta (wrt lambda) (94)-(95);
 *   friction rows:     phi_f = u_t + W lambda_t (36), W = W_FB (104, with the digest's erratum) of the
 *                      current iterate. DEVIATION (default, -nsn_jacobian exact): the Newton rows use the
 *                      generalized Jacobian of phi_f, W not held constant:
 *                        dphi_f = M du_t + B_n dlambda_n + B_t dlambda_t,  M = I + W_v lambda_t u_t^T / |u_t|,
 *                        B_t = W I + W_l lambda_t lambda_t^T / |lambda_t|,  B_n = mu W_m lambda_t
 *                      (sg_friction_w_fb_grad). Reason: with W held (37) the iteration on the friction rows is a
 *                      fixed-point iteration, not Newton: on piles of touching spheres contacts of one body trade
 *                      load back and forth (40-sphere pile: 78 of 120 steps at a 200-step cap, FCLIB
 *                      spheres-in-a-box stalls at 5.5e-4); with the exact Jacobian 0 of 120 and 6e-16 in 32 steps.
 *                      M is singular at a sliding solution (W_v |lambda_t| = 1 on the cone), so these rows are
 *                      not divided by M (rows M (J A^{-1} J^T dl)_t + B dl = M (J A^{-1} g)_t - phi_f); the
 *                      operator is then nonsymmetric and the default KSP is GMRES (restart 100) instead of CR.
 *                      The W guard below disables the exact rows of that contact (lagged W_min instead).
 *                      -nsn_jacobian lagged: the paper's (37), W held constant (symmetric, CR); guarded: if W_FB is negative
 *                      or not finite (far outside the disc), the min-map value W_min (105) is used, which
 *                      is >= 0 and finite when mu lambda_n > 0; so C >= 0 and (59) stays SPD with eps > 0;
 *                      -nsn_friction min uses W_min (105) throughout. Safeguard (ours, not the paper's):
 *                      W may drop by at most the factor -nsn_w_decay (default 0.5) per Newton step,
 *                      W_k = max(W(iterate_k), decay W_{k-1}); at a fixed point W = W(iterate), so the
 *                      solution is unchanged. Without it, contacts of one rigid body that must slide
 *                      together (a box on a plane near the friction angle) cycle: the contacts inside
 *                      their disc get W ~ 0 (stick) and take the whole load, go outside, get a large W
 *                      while the others stick, and so on (a 2-cycle with theta_p ~ 1e-2 m/s forever);
 *                      -nsn_w_decay 0 gives the plain lagged W of (37). Lagged mode only (the exact Jacobian does
 *                      not need it: the incline slides with 1 Newton step per time step);
 *   soft row:          phi = c_s (J v) + lambda + k e (the compliant bilateral row (7)-(8): E = 1 / c_s);
 *   bilateral row:     phi = c (the rigid limit c_s -> 0 of the row above, divided by c_s: alpha = 1, C = 0);
 *   inactive friction (mu lambda_n <= 0, (106) "otherwise"): the rows are taken out of the coupling
 *                      (paper Sec. 6.1: zeroed rows, identity block) with phi = r lambda_t, so that the
 *                      Newton step is dlambda_t = -lambda_t.
 * Newton system (56) with each constraint row divided by its alpha, Schur complement on A (59):
 *   [J A^{-1} J^T + C + eps I] dlambda = J A^{-1} g - phi / alpha,   C = diag(beta / alpha) (friction: W),
 *   dv = A^{-1} (J^T dlambda - g) (60),   v += t dv, lambda += t dlambda (61)-(62), t = -nsn_damping,
 *   except (DEVIATION, adaptive damping) t = 1 after a Newton step that reduced theta_p + theta_d by at
 *   least the factor -nsn_full_step (default 0.5; 0: the paper's constant t). Reason: a constant t = 0.75
 *   caps the local rate at 0.25 per step (FCLIB spheres-in-a-box: 1e-10 needed 44 steps with the exact
 *   Jacobian, 32 with the full step near the solution: quadratic convergence).
 * A row whose alpha vanishes (FB with lambda = 0 and c > 0: a separating contact; soft rows without
 * damping; inactive friction) has an infinite C: its equation reads beta dlambda_i = -phi_i, so
 * dlambda_i is known. Such rows are eliminated exactly: their known dlambda_I moves to the right-hand
 * side (J A^{-1} (g - J_I^T dlambda_I)) and the operator keeps an identity-like row D_ii x_i for them
 * (sparsity and sizes fixed, as the paper does). Decoupled when alpha < 1e-8 (FB), 1/c_s > 1e8 D_ii (soft),
 * W > 1e8 r (friction of a contact whose normal impulse tends to 0 while it slides).
 * eps: the paper's identity shift (Sec. 8.4), absolute, in the units of J A^{-1} J^T (1/kg for a
 * point mass), option -nsn_eps (default 1e-6 as in the paper); it only changes the step, not the
 * solution. DEVIATION (Levenberg-Marquardt like): after a Newton step that reduced theta_p + theta_d by
 * less than 5% eps is multiplied by -nsn_eps_grow (default 100, at most max_i D_ii), after a better one
 * divided by it (down to -nsn_eps); 1 keeps it constant. Reason: on piles Newton stalls at points where
 * the (regularized) Jacobian is near singular with the residual outside its range (redundant sticking
 * contacts on one sphere): GMRES returns dl ~ 0 at its cap and theta_p stays constant for 170 steps
 * (40-sphere pile with the exact Jacobian: 8 steps at the cap with constant eps, 0 with the growth).
 * Still open: on 200 and 1000 spheres some steps still stall near theta_p ~ 1e-5 with eps at its cap
 * (the regularized step is no descent direction there); no globalization (merit line search) yet.
 *
 * Complementarity preconditioner (66) in velocity units: r_i = [J A^{-1} J^T]_ii of the normal (or
 * hard) row; for friction the mean of the two tangent diagonals (the isotropic W needs one r).
 *
 * Linear solver: KSP under prefix nsn_ (sg_ksp_create), default GMRES(100) + Jacobi with the exact friction
 * Jacobian (above), CR + Jacobi (the PCR of paper Sec. 8.2) with -nsn_jacobian lagged;
 * on a MATSHELL y = J A^{-1} J^T x + (C + eps) x with MATOP_GET_DIAGONAL (the Jacobi diagonal
 * D_ii + C_ii + eps; exact friction rows: M_aa D_ii + B_aa + eps, or D_ii + W + eps where
 * M_aa D_ii + B_aa < 1e-3 D_ii); the A^{-1} block solves use per-subsystem Cholesky factors (la.h). Default KSP
 * tolerances: rtol 1e-6, max_it 100 per Newton step (hitting the cap is accepted: the inexact step is
 * still used); any -nsn_ksp_* option overrides them.
 *
 * Distribution (SG_SOLVER_LOCAL): each rank works on its part of the problem: its owned subsystems,
 * the ghost subsystems owned elsewhere (A_j, b_j, warm start and J blocks the same bits as on their
 * owner) and every constraint touching an owned subsystem (a shared one on both ranks, in the same
 * order, with the same warm-start lambda). The rows of a constraint belong to the owner of its first
 * subsystem (sg_newton_mark_mine); the shell matrix and its vectors hold those rows, numbered by
 * sg_newton_number_rows, which also gives every other local row its owner's global row. Everything
 * per constraint (c = J v + e, D, r, W, C, phi, the eliminated rows' dl) is computed on every rank
 * holding the constraint, from the same bits, so it comes out the same. A^{-1} of a sum over
 * constraints is computed at the owned subsystems only (their sums are complete) and the ghosts get
 * their owner's values (sg_newton_share_ghosts): one MatMult is a gather of x at the shared rows, a
 * local J^T, A^{-1}, the ghost exchange, and a local J. dl comes back from the KSP's solution the
 * same way, dv from A^{-1} (J^T dl - g) with the ghost exchange, so a ghost's v and a shared
 * contact's lambda keep their owner's bits. theta_p runs over this rank's constraints, theta_d over
 * its owned subsystems, each followed by one MPI_Allreduce (max), as the largest Delassus diagonal;
 * every decision (damping, eps, stopping) follows from reduced numbers. One rank is the degenerate
 * case: no ghosts, no exchange, the same bits as the replicated solver.
 *
 * Stopping: with theta_p = max over constraints of the natural-map residual in velocity units
 *   normal/hard |min(c, r lambda)|, friction ||r lambda_t - P_{|x| <= r mu lambda_n^+}(r lambda_t - u_t)||,
 *   soft r |c_s J v + lambda + k e|,
 * (zero exactly at a solution; the same units as SubADMM's theta_p), and theta_d = max over
 * subsystems of ||A_j v_j - b_j - sum_i J_ij^T lambda_i|| (the momentum residual), the shared test
 * (solver.h) stops when theta_p + theta_d < -solver_tol, or after -solver_max_it Newton steps. Reported:
 * residual_primal = theta_p, residual_dual = theta_d, iterations = Newton steps.
 * A non-finite residual or step is SG_ERR_NUMERIC; the caller's v and lambda then hold the last
 * iterate whose residual was finite. -log_view shows the stages "NSN setup", "NSN Newton", "NSN linear". */
#include <math.h>
#include <petscksp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/la.h"
#include "signorini/ncp.h"
#include "signorini/newton.h"
#include "signorini/options.h"
#include "signorini/solver.h"
#include "signorini/timing.h"
#include "solvers/newton_internal.h"

#define NSN_PETSC(call)                                                         \
  do {                                                                          \
    if (call) return sg_error_set(SG_ERR_LIB, "NSN: PETSc call failed: %s", #call); \
  } while (0)

#define NSN_ALPHA_MIN 1e-8 /* FB rows with a smaller alpha are decoupled */
#define NSN_C_MAX 1e8      /* soft rows with 1/c_s > NSN_C_MAX D_ii, friction rows with W > NSN_C_MAX r are decoupled */

typedef struct {
  double damping, eps, w_decay, full_step, eps_grow, eps_cur;
  int wmin;              /* -nsn_friction min: W_min (105) instead of W_FB (104) */
  int exact;             /* -nsn_jacobian exact: the generalized Jacobian of the friction rows (W not held) */
  KSP ksp;
  /* PETSc objects sized for the current problem: the Schur operator and its vectors (this rank's
   * rows), every local row's value from its owner, v's numbering for the ghosts */
  Mat S;
  Vec x, rhs, lam_loc;
  VecScatter lam_to_loc;
  int n_loc, n_glob, n_glob_v;
  sg_newton_sys vs;
  int vs_ready;
  unsigned char *sub_mine, *con_mine; /* owned subsystems; constraints whose rows this rank owns */
  int cap_mine_sub, cap_mine_con;
  /* per problem */
  const sg_problem *p;
  int rank, size;
  double *L;             /* per subsystem: Cholesky factor of A_j */
  double *D, *r;         /* per row: Delassus diagonal [J A^{-1} J^T]_ii, complementarity scale (66) */
  double *Cd, *phis;     /* per row: C_ii and phi / alpha (coupled rows) */
  double *dl;            /* per row: the Newton step in lambda */
  unsigned char *act;    /* per row: 1 coupled, 0 eliminated (dl known) */
  double *c, *y, *xp;    /* per row: J v + e, scratch */
  double *g, *w, *dv;    /* per unknown: A v - b - J^T lambda, scratch, the Newton step in v */
  double *vv, *ll;       /* the iterate */
  double *Wprev;         /* per constraint: friction W of the previous Newton step */
  double *fM, *fB;       /* per constraint (exact Jacobian): M = dphi_f/du_t (2x2), [dphi_f/dlambda_n | dphi_f/dlambda_t] (2x3) */
  unsigned char *fx;     /* per row: 1 for a friction row with the exact Jacobian */
  int *row_con, *row_t;  /* per row: its constraint, its index within the constraint */
  int cap_con, cap_fM, cap_fB, cap_fx, cap_rc, cap_rt;
  int *gidx, *loc_row;   /* per row: global index; per owned row: problem row */
  int cap_a, cap_row, cap_v, cap_gidx, cap_loc;
} nsn;

static PetscLogStage g_stage_setup, g_stage_newton, g_stage_linear;
static int g_stages_registered = 0;

static sg_err nsn_create(sg_solver *s) {
  nsn *d = sg_calloc(1, sizeof *d, "nsn");
  if (!d) return SG_ERR_MEM;
  d->damping = 0.75;
  d->eps = 1e-6;
  d->w_decay = 0.5;
  d->full_step = 0.5;
  d->eps_grow = 100;
  d->exact = 1;
  s->data = d;
  return SG_OK;
}

static void free_petsc(nsn *d) {
  if (d->S) MatDestroy(&d->S);
  if (d->x) VecDestroy(&d->x);
  if (d->rhs) VecDestroy(&d->rhs);
  if (d->lam_loc) VecDestroy(&d->lam_loc);
  if (d->lam_to_loc) VecScatterDestroy(&d->lam_to_loc);
  if (d->vs_ready) sg_newton_begin_setup(&d->vs); /* frees its vectors and scatter */
  d->n_loc = d->n_glob = -1;
}

/* The PETSc objects sized for the last problem (sg_solver_reset); the KSP and its options stay. */
static void nsn_reset(sg_solver *s) {
  if (s->data) free_petsc(s->data);
}

static void nsn_destroy(sg_solver *s) {
  nsn *d = s->data;
  if (!d) return;
  free_petsc(d);
  if (d->vs_ready) sg_newton_destroy(&d->vs);
  if (d->ksp) KSPDestroy(&d->ksp);
  free(d->L); free(d->D); free(d->r); free(d->Cd); free(d->phis); free(d->dl); free(d->act);
  free(d->c); free(d->y); free(d->xp); free(d->g); free(d->w); free(d->dv); free(d->vv); free(d->ll);
  free(d->Wprev); free(d->fM); free(d->fB); free(d->fx); free(d->row_con); free(d->row_t);
  free(d->gidx); free(d->loc_row); free(d->sub_mine); free(d->con_mine);
  free(d);
  s->data = NULL;
}

/* The KSP (CR + Jacobi unless the options say otherwise) with NSN's default tolerances. */
static sg_err make_ksp(sg_solver *s, nsn *d) {
  if (d->ksp) return SG_OK;
  char prefix[64];
  SG_CHECK(sg_ksp_create(s->comm, sg_solver_prefixed(s, "nsn_", prefix, sizeof prefix), d->exact ? KSPGMRES : KSPCR, PCJACOBI, NULL, &d->ksp));
  NSN_PETSC(KSPSetTolerances(d->ksp, 1e-6, PETSC_DEFAULT, PETSC_DEFAULT, 100));
  if (d->exact) NSN_PETSC(KSPGMRESSetRestart(d->ksp, 100)); /* no restart within the 100 iterations */
  NSN_PETSC(KSPSetFromOptions(d->ksp)); /* -nsn_ksp_rtol / -nsn_ksp_max_it override the defaults */
  return SG_OK;
}

static sg_err nsn_set_from_options(sg_solver *s) {
  nsn *d = s->data;
  SG_CHECK(sg_opt_real("-nsn_damping", d->damping, 1e-3, 1.0, "NSN: constant Newton step fraction t (paper 001 Sec. 8.1)", &d->damping));
  SG_CHECK(sg_opt_real("-nsn_eps", d->eps, 0.0, 1e30, "NSN: identity shift eps of the Schur system (59) (paper 001 Sec. 8.4), units of J A^{-1} J^T", &d->eps));
  SG_CHECK(sg_opt_real("-nsn_w_decay", d->w_decay, 0.0, 1.0, "NSN: the friction compliance W may drop by at most this factor per Newton step (0: the plain lagged W of paper 001 (37))", &d->w_decay));
  SG_CHECK(sg_opt_real("-nsn_full_step", d->full_step, 0.0, 1.0, "NSN: take the full Newton step t = 1 after a step that reduced theta_p + theta_d by at least this factor (0: always -nsn_damping)", &d->full_step));
  SG_CHECK(sg_opt_real("-nsn_eps_grow", d->eps_grow, 1.0, 1e30, "NSN: after a Newton step that reduced theta_p + theta_d by less than 5%, eps is multiplied by this factor (up to max D_ii), after a better one divided (down to -nsn_eps); 1: constant eps", &d->eps_grow));
  char fr[8];
  SG_CHECK(sg_opt_choice("-nsn_friction", "fb", "fb|min", "NSN: friction compliance W_FB (104) or W_min (105) of paper 001 App. A.2", fr, sizeof fr));
  d->wmin = !strcmp(fr, "min");
  char jac[8];
  SG_CHECK(sg_opt_choice("-nsn_jacobian", d->exact ? "exact" : "lagged", "exact|lagged", "NSN: friction rows with the exact generalized Jacobian (nonsymmetric, GMRES) or W held constant (37) (symmetric, CR)", jac, sizeof jac));
  d->exact = !strcmp(jac, "exact");
  return make_ksp(s, d);
}

/* x = A_j^{-1} y for every subsystem, or for the owned ones only (in place allowed). */
static void apply_ainv(const nsn *d, const sg_problem *p, const double *y, double *x, int owned_only) {
  for (int j = 0; j < p->n_sub; ++j) {
    if (owned_only && !d->sub_mine[j]) continue;
    int off = p->sub_off[j];
    chol_solve(p->sub_dof[j], d->L + p->sub_aoff[j], y + off, x + off);
  }
}

/* out = A^{-1} (sign base + J^T x) (base NULL: 0): computed at the owned subsystems, whose sums over
 * constraints are complete here; the ghosts' entries come from their owners. */
static sg_err ainv_jt(nsn *d, const sg_problem *p, const double *base, double sign, const double *x, double *out) {
  int nv = sg_problem_n_v(p);
  if (base)
    for (int k = 0; k < nv; ++k) out[k] = sign * base[k];
  else
    memset(out, 0, (size_t)nv * sizeof(double));
  sg_problem_apply_JT_add(p, x, out);
  apply_ainv(d, p, out, out, 1);
  return sg_newton_share_ghosts(&d->vs, p, out);
}

/* Every local row's entry of a vector of the Schur system (owned rows here, the others from their
 * owners) into out; rows not coupled (act 0) keep out's value when keep_eliminated, else get 0. */
static PetscErrorCode gather_rows(nsn *d, int nrow, Vec x, double *out, int keep_eliminated) {
  const PetscScalar *a;
  PetscCall(VecScatterBegin(d->lam_to_loc, x, d->lam_loc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(d->lam_to_loc, x, d->lam_loc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(d->lam_loc, &a));
  for (int k = 0; k < nrow; ++k)
    if (d->act[k]) out[k] = a[k];
    else if (!keep_eliminated) out[k] = 0.0;
  PetscCall(VecRestoreArrayRead(d->lam_loc, &a));
  return 0;
}

/* Shell operator of (59): coupled rows J A^{-1} J^T x + (C + eps) x with the eliminated columns
 * zeroed; eliminated rows D_ii x_i. Two halo exchanges: x at the shared rows, A^{-1} J^T x at the ghosts. */
static PetscErrorCode shell_mult(Mat S, Vec x, Vec y) {
  nsn *d;
  const PetscScalar *xl;
  PetscScalar *ya;
  PetscCall(MatShellGetContext(S, &d));
  const sg_problem *p = d->p;
  PetscCall(gather_rows(d, sg_problem_n_rows(p), x, d->xp, 0));
  /* y = J A^{-1} J^T x */
  PetscCheck(!ainv_jt(d, p, NULL, 0.0, d->xp, d->w), PETSC_COMM_SELF, PETSC_ERR_LIB, "NSN: ghost exchange failed");
  sg_problem_apply_J(p, d->w, d->y);
  PetscCall(VecGetArrayRead(x, &xl));
  PetscCall(VecGetArray(y, &ya));
  for (int m = 0; m < d->n_loc; ++m) {
    int k = d->loc_row[m];
    if (d->fx[k]) { /* exact friction row a of the contact with normal row k0: M (D x)_t + B x + eps x */
      int a = d->row_t[k] - 1, k0 = k - a - 1, i = d->row_con[k];
      const double *M = d->fM + 4 * i + 2 * a, *B = d->fB + 6 * i + 3 * a;
      ya[m] = M[0] * d->y[k0 + 1] + M[1] * d->y[k0 + 2] + B[0] * d->xp[k0] + B[1] * d->xp[k0 + 1] + B[2] * d->xp[k0 + 2] + d->eps_cur * xl[m];
    } else
      ya[m] = d->act[k] ? d->y[k] + (d->Cd[k] + d->eps_cur) * xl[m] : d->D[k] * xl[m];
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xl));
  return 0;
}

static PetscErrorCode shell_diag(Mat S, Vec dg) {
  nsn *d;
  PetscScalar *a;
  PetscCall(MatShellGetContext(S, &d));
  PetscCall(VecGetArray(dg, &a));
  for (int m = 0; m < d->n_loc; ++m) {
    int k = d->loc_row[m];
    a[m] = d->act[k] ? d->D[k] + d->Cd[k] + d->eps_cur : d->D[k];
  }
  PetscCall(VecRestoreArray(dg, &a));
  return 0;
}

/* Factors, Delassus diagonal and scales of every subsystem and constraint this rank holds. */
static sg_err factor(nsn *d, const sg_problem *p) {
  int nv = sg_problem_n_v(p), nrow = sg_problem_n_rows(p), maxd = 0;
  for (int j = 0; j < p->n_sub; ++j) maxd = p->sub_dof[j] > maxd ? p->sub_dof[j] : maxd;
  SG_CHECK(sg_grow((void **)&d->L, &d->cap_a, (p->n_sub ? p->sub_aoff[p->n_sub] : 0) + 1, sizeof(double), "NSN factors"));
  int c;
#define GROW(ptr, cap, n, what)                                           \
  c = cap;                                                                \
  SG_CHECK(sg_grow((void **)&d->ptr, &c, n, sizeof(*d->ptr), what));
  GROW(D, d->cap_row, nrow + 1, "NSN rows") GROW(r, d->cap_row, nrow + 1, "NSN rows")
  GROW(Cd, d->cap_row, nrow + 1, "NSN rows") GROW(phis, d->cap_row, nrow + 1, "NSN rows")
  GROW(dl, d->cap_row, nrow + 1, "NSN rows") GROW(c, d->cap_row, nrow + 1, "NSN rows")
  GROW(y, d->cap_row, nrow + 1, "NSN rows") GROW(xp, d->cap_row, nrow + 1, "NSN rows")
  GROW(ll, d->cap_row, nrow + 1, "NSN rows") GROW(act, d->cap_row, nrow + 1, "NSN rows")
  d->cap_row = c;
  GROW(g, d->cap_v, nv + maxd + 1, "NSN unknowns") GROW(w, d->cap_v, nv + maxd + 1, "NSN unknowns")
  GROW(dv, d->cap_v, nv + maxd + 1, "NSN unknowns") GROW(vv, d->cap_v, nv + maxd + 1, "NSN unknowns")
  d->cap_v = c;
#undef GROW
  SG_CHECK(sg_grow((void **)&d->Wprev, &d->cap_con, p->n_con + 1, sizeof(double), "NSN friction"));
  memset(d->Wprev, 0, (size_t)(p->n_con + 1) * sizeof(double));
  SG_CHECK(sg_grow((void **)&d->fM, &d->cap_fM, 4 * p->n_con + 1, sizeof(double), "NSN friction"));
  SG_CHECK(sg_grow((void **)&d->fB, &d->cap_fB, 6 * p->n_con + 1, sizeof(double), "NSN friction"));
  SG_CHECK(sg_grow((void **)&d->fx, &d->cap_fx, nrow + 1, 1, "NSN rows"));
  SG_CHECK(sg_grow((void **)&d->row_con, &d->cap_rc, nrow + 1, sizeof(int), "NSN rows"));
  SG_CHECK(sg_grow((void **)&d->row_t, &d->cap_rt, nrow + 1, sizeof(int), "NSN rows"));
  memset(d->fx, 0, (size_t)nrow + 1);
  for (int i = 0; i < p->n_con; ++i)
    for (int k = p->con_row[i]; k < p->con_row[i + 1]; ++k) { d->row_con[k] = i; d->row_t[k] = k - p->con_row[i]; }
  SG_CHECK(sg_grow((void **)&d->gidx, &d->cap_gidx, nrow + 1, sizeof(int), "NSN numbering"));
  SG_CHECK(sg_grow((void **)&d->loc_row, &d->cap_loc, nrow + 1, sizeof(int), "NSN numbering"));
  SG_CHECK(sg_newton_mark_mine(p, d->rank, &d->sub_mine, &d->cap_mine_sub, &d->con_mine, &d->cap_mine_con, "NSN ownership"));
  for (int j = 0; j < p->n_sub; ++j) {
    int dof = p->sub_dof[j], off = p->sub_aoff[j];
    if (chol_factor(dof, p->A + off, d->L + off))
      return sg_error_set(SG_ERR_NUMERIC, "NSN: A_j of subsystem %lld is not positive definite", (long long)p->sub_gid[j]);
  }
  /* D_ii = sum_j J_ij[r,:] A_j^{-1} J_ij[r,:]^T; d->g is scratch (dof entries) */
  memset(d->D, 0, (size_t)nrow * sizeof(double));
  for (int i = 0; i < p->n_con; ++i) {
    int rows = sg_con_rows(p->kind[i]), r0 = p->con_row[i];
    double buf[SG_COMPACT_BLOCK];
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      int j = p->pair_sub[q], dof = p->sub_dof[j];
      const double *J = sg_problem_pair_block(p, i, q, buf);
      for (int r = 0; r < rows; ++r) {
        chol_solve(dof, d->L + p->sub_aoff[j], J + r * dof, d->g);
        double acc = 0;
        for (int k = 0; k < dof; ++k) acc += J[r * dof + k] * d->g[k];
        d->D[r0 + r] += acc;
      }
    }
    /* A zero row of a contact's tangents (a planar tree: no motion along one tangent) takes the
     * contact's largest diagonal as its scale: its velocity is 0 whatever lambda, so its multiplier
     * only meets the friction disc, and the row's Jacobi entry needs a positive scale. */
    double dmax = 0;
    for (int r = 0; r < rows; ++r) dmax = fmax(dmax, d->D[r0 + r]);
    for (int r = 0; r < rows; ++r) {
      if (!(d->D[r0 + r] > 0) && r > 0 && dmax > 0) d->D[r0 + r] = dmax;
      if (!(d->D[r0 + r] > 0))
        return sg_error_set(SG_ERR_NUMERIC, "NSN: constraint %d has a zero Delassus diagonal (empty Jacobian row)", i);
    }
    /* complementarity scale (66), velocity units */
    d->r[r0] = d->D[r0];
    if (rows == 3) d->r[r0 + 1] = d->r[r0 + 2] = 0.5 * (d->D[r0 + 1] + d->D[r0 + 2]);
  }
  return SG_OK;
}

/* The global numbering of the rows (this rank's: those of the constraints whose first subsystem it
 * owns) and of v's ghosts, and the PETSc objects of this problem: recreated per problem, the contact
 * set changes every step; KSPReset lets the KSP take operators of a new size and keeps its type, PC
 * type and tolerances. Collective. */
static sg_err number(sg_solver *s, nsn *d, const sg_problem *p) {
  int nrow = sg_problem_n_rows(p);
  free_petsc(d);
  if (!d->vs_ready) {
    sg_newton_init_numbering(&d->vs, s->comm);
    d->vs_ready = 1;
  }
  SG_CHECK(sg_newton_number_local(&d->vs, p));
  d->n_glob_v = d->vs.n_v;
  SG_CHECK(sg_newton_number_rows(s->comm, p, d->con_mine, d->gidx, &d->n_loc, &d->n_glob));
  int m = 0;
  for (int k = 0; k < nrow; ++k)
    if (d->con_mine[d->row_con[k]]) d->loc_row[m++] = k;
  NSN_PETSC(KSPReset(d->ksp));
  NSN_PETSC(MatCreateShell(s->comm, d->n_loc, d->n_loc, d->n_glob, d->n_glob, d, &d->S));
  NSN_PETSC(MatShellSetOperation(d->S, MATOP_MULT, (void (*)(void))shell_mult));
  NSN_PETSC(MatShellSetOperation(d->S, MATOP_GET_DIAGONAL, (void (*)(void))shell_diag));
  NSN_PETSC(MatSetOption(d->S, MAT_SYMMETRIC, d->exact ? PETSC_FALSE : PETSC_TRUE));
  NSN_PETSC(MatCreateVecs(d->S, &d->x, &d->rhs));
  PetscInt *idx = sg_calloc((size_t)nrow + 1, sizeof *idx, "NSN row scatter");
  SG_CHECK(sg_error_collective(s->comm, idx ? SG_OK : SG_ERR_MEM));
  for (int k = 0; k < nrow; ++k) idx[k] = d->gidx[k];
  IS from = NULL;
  PetscErrorCode perr = ISCreateGeneral(PETSC_COMM_SELF, nrow, idx, PETSC_COPY_VALUES, &from);
  free(idx);
  NSN_PETSC(perr);
  NSN_PETSC(VecCreateSeq(PETSC_COMM_SELF, nrow, &d->lam_loc));
  perr = VecScatterCreate(d->x, from, d->lam_loc, NULL, &d->lam_to_loc);
  ISDestroy(&from);
  NSN_PETSC(perr);
  return SG_OK;
}

/* c = J v + e, g = A v - b - J^T lambda. */
static void evaluate(nsn *d, const sg_problem *p) {
  int nrow = sg_problem_n_rows(p);
  sg_problem_apply_J(p, d->vv, d->c);
  for (int k = 0; k < nrow; ++k) d->c[k] += p->e[k];
  for (int j = 0; j < p->n_sub; ++j) {
    int dof = p->sub_dof[j], off = p->sub_off[j];
    const double *A = p->A + p->sub_aoff[j];
    for (int a = 0; a < dof; ++a) {
      double acc = -p->b[off + a];
      for (int b = 0; b < dof; ++b) acc += A[a * dof + b] * d->vv[off + b];
      d->g[off + a] = acc;
    }
  }
  for (int k = 0; k < nrow; ++k) d->xp[k] = -d->ll[k];
  sg_problem_apply_JT_add(p, d->xp, d->g);
}

/* theta_p (natural-map residuals, velocity units), theta_d (see the header), and theta_f, the
 * friction part of theta_p (for the monitor). */
static void residuals(const nsn *d, const sg_problem *p, MPI_Comm comm, double *theta_p, double *theta_d, double *theta_f) {
  double tp = 0, td = 0, tf = 0;
  for (int i = 0; i < p->n_con; ++i) {
    if (!d->con_mine[i]) continue;
    int k = p->con_row[i];
    const double *c = d->c + k, *l = d->ll + k, *r = d->r + k;
    double res;
    switch (p->kind[i]) {
      case SG_CON_SOFT:
        res = r[0] * fabs(p->damp[i] * (c[0] - p->e[k]) + l[0] + p->stiff[i] * p->e[k]);
        break;
      case SG_CON_HARD:
        res = fabs(fmin(c[0], r[0] * l[0]));
        break;
      case SG_CON_BILATERAL:
        res = fabs(c[0]);
        break;
      default: {
        res = fabs(fmin(c[0], r[0] * l[0]));
        double rad = r[1] * p->mu[i] * fmax(l[0], 0.0), z[2] = {r[1] * l[1] - c[1], r[1] * l[2] - c[2]};
        double zn = sqrt(z[0] * z[0] + z[1] * z[1]);
        if (zn > rad) { double sc = zn > 0 ? rad / zn : 0; z[0] *= sc; z[1] *= sc; }
        double e0 = r[1] * l[1] - z[0], e1 = r[1] * l[2] - z[1];
        tf = fmax(tf, sqrt(e0 * e0 + e1 * e1));
        res = fmax(res, sqrt(e0 * e0 + e1 * e1));
      }
    }
    if (!(res <= tp)) tp = res; /* NaN propagates */
  }
  for (int j = 0; j < p->n_sub; ++j) { /* the momentum residual of the shared test (solver.h) */
    if (!d->sub_mine[j]) continue;
    double g2 = 0;
    for (int k = p->sub_off[j]; k < p->sub_off[j + 1]; ++k) g2 += d->g[k] * d->g[k];
    double res = sqrt(g2);
    if (!(res <= td)) td = res;
  }
  double t[3] = {tp, td, tf};
  sg_ranks_max(comm, d->size, t, 3);
  *theta_p = t[0];
  *theta_d = t[1];
  *theta_f = t[2];
}

/* C, phi / alpha and the activity of every row at the current iterate; dl of eliminated rows. */
static void linearize(nsn *d, const sg_problem *p) {
  for (int i = 0; i < p->n_con; ++i) {
    int k = p->con_row[i];
    const double *c = d->c + k, *l = d->ll + k, *r = d->r + k;
    double alpha, beta, phi;
    switch (p->kind[i]) {
      case SG_CON_SOFT: { /* phi = c_s J v + lambda + k e: alpha = c_s, beta = 1 */
        double cs = p->damp[i];
        phi = cs * (c[0] - p->e[k]) + l[0] + p->stiff[i] * p->e[k];
        if (cs > 0 && 1.0 / cs <= NSN_C_MAX * d->D[k]) {
          d->act[k] = 1; d->Cd[k] = 1.0 / cs; d->phis[k] = phi / cs;
        } else {
          d->act[k] = 0; d->dl[k] = -phi;
        }
        break;
      }
      case SG_CON_BILATERAL: /* phi = c: alpha = 1, beta = 0 */
        d->act[k] = 1; d->Cd[k] = 0; d->phis[k] = c[0];
        break;
      default: /* hard, and the normal row of a contact: FB (93)-(95) */
        phi = sg_fb(c[0], l[0], r[0], &alpha, &beta);
        if (alpha >= NSN_ALPHA_MIN) {
          d->act[k] = 1; d->Cd[k] = beta / alpha; d->phis[k] = phi / alpha;
        } else {
          d->act[k] = 0; d->dl[k] = -phi / beta; /* beta = r (1 - r lambda / R) -> r as alpha -> 0 */
        }
        if (p->kind[i] == SG_CON_HARD) break;
        double mul = p->mu[i] * l[0], rt = r[1];
        if (!(mul > 0)) { /* inactive friction (106): phi = r lambda_t, dl = -lambda_t */
          d->Wprev[i] = 0;
          d->fx[k + 1] = d->fx[k + 2] = 0;
          d->act[k + 1] = d->act[k + 2] = 0;
          d->dl[k + 1] = -l[1];
          d->dl[k + 2] = -l[2];
          break;
        }
        double v = sqrt(c[1] * c[1] + c[2] * c[2]), lt = sqrt(l[1] * l[1] + l[2] * l[2]);
        double Wv = 0, Wm = 0, Wl = 0;
        double W = d->wmin ? sg_friction_w_min_grad(v, mul, lt, rt, &Wv, &Wm, &Wl) : sg_friction_w_fb_grad(v, mul, lt, rt, &Wv, &Wm, &Wl);
        int exact = d->exact;
        if (!(W >= 0) || !isfinite(W)) { /* guard: C >= 0 */
          W = sg_friction_w_min_grad(v, mul, lt, rt, &Wv, &Wm, &Wl);
          if (!d->wmin) exact = 0;
        }
        d->fx[k + 1] = d->fx[k + 2] = 0;
        /* W may drop by at most the factor -nsn_w_decay per Newton step (see the header) */
        if (!exact && W < d->w_decay * d->Wprev[i]) W = d->w_decay * d->Wprev[i];
        d->Wprev[i] = fmin(W, NSN_C_MAX * rt);
        if (W > NSN_C_MAX * rt) { /* almost no friction possible (mu lambda_n -> 0 while sliding): the
                                     row W lambda_t + u_t = 0 alone gives dl = -(lambda_t + u_t / W) */
          for (int t = 1; t < 3; ++t) {
            d->act[k + t] = 0;
            d->dl[k + t] = -(l[t] + c[t] / W);
          }
          break;
        }
        if (exact) { /* generalized Jacobian: dphi_f = M du_t + B [dlambda_n; dlambda_t] */
          double *M = d->fM + 4 * i, *B = d->fB + 6 * i;
          for (int a = 0; a < 2; ++a) {
            for (int b = 0; b < 2; ++b) {
              M[2 * a + b] = (a == b) + (v > 0 ? Wv * l[1 + a] * c[1 + b] / v : 0.0);
              B[3 * a + 1 + b] = (a == b) * W + (lt > 0 ? Wl * l[1 + a] * l[1 + b] / lt : 0.0);
            }
            B[3 * a] = p->mu[i] * Wm * l[1 + a];
            int kk = k + 1 + a;
            double dg = M[3 * a] * d->D[kk] + B[4 * a + 1];
            if (!(dg > 1e-3 * d->D[kk])) dg = d->D[kk] + W; /* Jacobi diagonal guard */
            d->act[kk] = 1;
            d->fx[kk] = 1;
            d->Cd[kk] = dg - d->D[kk];
            d->phis[kk] = c[1 + a] + W * l[1 + a]; /* phi itself (the row is not divided) */
          }
          break;
        }
        for (int t = 1; t < 3; ++t) {
          d->act[k + t] = 1;
          d->Cd[k + t] = W;                 /* (37): dphi_f / dlambda_t = W, held constant */
          d->phis[k + t] = c[t] + W * l[t]; /* (36), alpha = 1 */
        }
    }
  }
}

/* One Newton step: (59) by the KSP, then (60). Returns the KSP iterations. */
static sg_err newton_step(nsn *d, const sg_problem *p, int *its) {
  int nrow = sg_problem_n_rows(p);
  /* right-hand side: J A^{-1} (g - J_I^T dl_I) - phi / alpha on coupled rows, D_ii dl_i on eliminated rows */
  for (int k = 0; k < nrow; ++k) d->xp[k] = d->act[k] ? 0.0 : -d->dl[k];
  SG_CHECK(ainv_jt(d, p, d->g, 1.0, d->xp, d->w));
  sg_problem_apply_J(p, d->w, d->y);
  PetscScalar *a;
  NSN_PETSC(VecGetArray(d->rhs, &a));
  for (int m = 0; m < d->n_loc; ++m) {
    int k = d->loc_row[m];
    if (d->fx[k]) { /* M (J A^{-1} (g - J_I^T dl_I))_t - phi - B_n dl_n (dl_n known when eliminated) */
      int t = d->row_t[k] - 1, k0 = k - t - 1, i = d->row_con[k];
      const double *M = d->fM + 4 * i + 2 * t, *B = d->fB + 6 * i + 3 * t;
      a[m] = M[0] * d->y[k0 + 1] + M[1] * d->y[k0 + 2] - d->phis[k] - (d->act[k0] ? 0.0 : B[0] * d->dl[k0]);
    } else
      a[m] = d->act[k] ? d->y[k] - d->phis[k] : d->D[k] * d->dl[k];
  }
  NSN_PETSC(VecRestoreArray(d->rhs, &a));
  /* C changed: a new assembly state makes the Jacobi PC fetch the new diagonal */
  NSN_PETSC(MatAssemblyBegin(d->S, MAT_FINAL_ASSEMBLY));
  NSN_PETSC(MatAssemblyEnd(d->S, MAT_FINAL_ASSEMBLY));
  NSN_PETSC(KSPSetOperators(d->ksp, d->S, d->S));
  NSN_PETSC(PetscLogStagePush(g_stage_linear));
  PetscErrorCode perr = KSPSolve(d->ksp, d->rhs, d->x);
  PetscLogStagePop();
  NSN_PETSC(perr);
  KSPConvergedReason reason;
  PetscInt n = 0;
  NSN_PETSC(KSPGetConvergedReason(d->ksp, &reason));
  NSN_PETSC(KSPGetIterationNumber(d->ksp, &n));
  *its = (int)n;
  if (reason < 0 && reason != KSP_DIVERGED_ITS)
    return sg_error_set(SG_ERR_NUMERIC, "NSN: linear solver (-nsn_ksp_type) failed: %s after %d iterations",
                        KSPConvergedReasons[reason], (int)n);
  NSN_PETSC(gather_rows(d, nrow, d->x, d->dl, 1)); /* eliminated rows keep their exact dl */
  /* (60): dv = A^{-1} (J^T dl - g) */
  return ainv_jt(d, p, d->g, -1.0, d->dl, d->dv);
}

static sg_err nsn_setup(sg_solver *s, const sg_problem *p) {
  nsn *d = s->data;
  MPI_Comm_rank(s->comm, &d->rank);
  MPI_Comm_size(s->comm, &d->size);
  if (!g_stages_registered) {
    NSN_PETSC(PetscLogStageRegister("NSN setup", &g_stage_setup));
    NSN_PETSC(PetscLogStageRegister("NSN Newton", &g_stage_newton));
    NSN_PETSC(PetscLogStageRegister("NSN linear", &g_stage_linear));
    g_stages_registered = 1;
  }
  SG_CHECK(make_ksp(s, d));
  double t0 = MPI_Wtime();
  d->p = p;
  NSN_PETSC(PetscLogStagePush(g_stage_setup));
  sg_err err = sg_error_collective(s->comm, factor(d, p));
  if (!err) err = number(s, d, p);
  PetscLogStagePop();
  sg_timer_add(SG_PHASE_FACTOR, t0);
  return err;
}

static sg_err nsn_solve(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info) {
  nsn *d = s->data;
  if (d->n_glob_v == 0) { info->reason = SG_CONVERGED_TRIVIAL; return SG_OK; }
  int nv = sg_problem_n_v(p), nrow = sg_problem_n_rows(p);
  sg_err err = SG_OK;
  info->refactorizations = 1;
  if (d->n_glob == 0) { /* free motion: v = A^{-1} b, a ghost's the same bits as its owner's */
    apply_ainv(d, p, p->b, v, 0);
    info->reason = SG_CONVERGED_TRIVIAL;
    return SG_OK;
  }
  memcpy(d->vv, v, (size_t)nv * sizeof(double));
  memcpy(d->ll, lambda, (size_t)nrow * sizeof(double));
  double t = d->damping, theta_prev = INFINITY, dmax = 0;
  for (int k = 0; k < nrow; ++k) dmax = fmax(dmax, d->D[k]);
  sg_ranks_max(s->comm, d->size, &dmax, 1);
  double theta_p = INFINITY, theta_d = INFINITY, theta_f = INFINITY;
  int it = 0, lin_total = 0;
  sg_converged_reason reason = SG_SOLVE_ITERATING;
  NSN_PETSC(PetscLogStagePush(g_stage_newton));
  for (;;) {
    double ti = MPI_Wtime();
    evaluate(d, p);
    residuals(d, p, s->comm, &theta_p, &theta_d, &theta_f);
    if (!isfinite(theta_p) || !isfinite(theta_d)) {
      err = sg_error_set(SG_ERR_NUMERIC, "NSN diverged at Newton step %d (theta_p %g, theta_d %g); v and lambda kept at the last finite iterate",
                         it, theta_p, theta_d);
      break;
    }
    memcpy(v, d->vv, (size_t)nv * sizeof(double)); /* the last good state */
    memcpy(lambda, d->ll, (size_t)nrow * sizeof(double));
    char extra[64] = "";
    if (s->monitor_fn) snprintf(extra, sizeof extra, "friction %.3e  linear %d", theta_f, lin_total);
    reason = sg_solver_test(s, it, theta_p, theta_d, extra);
    if (reason != SG_SOLVE_ITERATING) break;
    /* adaptive damping (ours): full step after a good contraction, the paper's t otherwise */
    t = theta_p + theta_d <= d->full_step * theta_prev ? 1.0 : d->damping;
    /* adaptive shift (ours, Levenberg-Marquardt like): a stalled step grows eps */
    if (it == 0) d->eps_cur = d->eps;
    else if (theta_p + theta_d >= 0.95 * theta_prev) d->eps_cur = fmin(d->eps_cur * d->eps_grow, fmax(d->eps, dmax));
    else d->eps_cur = fmax(d->eps_cur / d->eps_grow, d->eps);
    theta_prev = theta_p + theta_d;
    linearize(d, p);
    sg_timer_add(SG_PHASE_ITERATE, ti);
    int its = 0;
    err = newton_step(d, p, &its);
    if (err) break;
    ti = MPI_Wtime();
    lin_total += its;
    for (int k = 0; k < nv; ++k) d->vv[k] += t * d->dv[k];    /* (62) */
    for (int k = 0; k < nrow; ++k) d->ll[k] += t * d->dl[k];  /* (61) */
    sg_timer_add(SG_PHASE_ITERATE, ti);
    sg_timers.iterations += 1;
    ++it;
  }
  PetscLogStagePop();
  info->reason = err ? SG_DIVERGED_NAN : reason;
  info->iterations = it;
  info->residual_primal = theta_p;
  info->residual_dual = theta_d;
  if (s->monitor && d->rank == 0)
    printf("  nsn: %d Newton steps, %d linear iterations, theta_p + theta_d %.3e\n", it, lin_total, theta_p + theta_d);
  return err;
}

static void nsn_view(const sg_solver *s, FILE *f) {
  const nsn *d = s->data;
  fprintf(f, "  damping %g, full step after a contraction by %g, eps %g (growth %g), W decay %g\n", d->damping, d->full_step,
          d->eps, d->eps_grow, d->w_decay);
  fprintf(f, "  friction compliance %s, Jacobian %s\n", d->wmin ? "W_min" : "W_FB", d->exact ? "exact" : "lagged");
}

const sg_solver_ops sg_solver_nsn_ops = {
  .name = "nsn",
  .description = "non-smooth Newton with Fischer-Burmeister and smooth friction, Schur complement by PCR (paper 001)",
  .create = nsn_create,
  .set_from_options = nsn_set_from_options,
  .setup = nsn_setup,
  .reset = nsn_reset,
  .view = nsn_view,
  .solve = nsn_solve,
  .destroy = nsn_destroy,
  .layout = SG_SOLVER_LOCAL,
};
