/* SAP, the Semi-Analytic Primal solver of paper 000 (Castro, Permenter, Han), Alg. 2, on the problem
 * of problem.h:  A vhat = b + J^T lambda,  constraints hard / soft / contact.
 *
 * Model. SAP replaces the hard contact problem by the convex, regularized one (19)-(24):
 *   v* = A^{-1} b                                    free motion (13)-(14), per-block Cholesky;
 *   min_v l_p(v) = 1/2 ||v - v*||_A^2 + sum_i l_i(J_i v)                            (24)
 * with, per contact i (R_i = diag(Rn, Rt, Rt) > 0),
 *   y_i = -R_i^{-1} (v_c,i - vhat_c,i),  gamma_i = P_F(y_i) (projection in the R norm)  (23)
 *   l_i = 1/2 ||gamma_i||_R^2,  d l_i / d v_c = -gamma_i,  G_i = -d gamma_i / d v_c >= 0.
 * Row ordering: the paper orders a contact (t1, t2, n); ours is (n, t1, t2), so every formula below
 * is the paper's with the normal moved first. The normal gap velocity of our problem is J_n v + e_n,
 * so the paper's bias is vhat_c = (-e_n, 0, 0): gamma_n > 0 pushes J_n v towards -e_n - Rn gamma_n,
 * and R -> 0 gives back J_n v + e_n >= 0, gamma_n >= 0, complementarity. With a dissipation time
 * scale tau_d (paper (2)) the bias is vhat_n = -phi0 / (dt + tau_d) = -e_n dt / (dt + tau_d).
 * NOTE: the R -> 0 limit of (19) is the convex (Anitescu) relaxation of Coulomb friction: a sliding
 * contact separates at J_n v + e_n = mu ||J_t v||. It equals our problem's solution whenever every
 * contact sticks, separates, or mu = 0 (see tests/unit/test_sap_agreement.c).
 *
 * Regularization, near-rigid parameters (29)-(30): w_i = ||W_ii||_F / rows (the RMS norm of the
 * Delassus diagonal block W_ii = sum_j J_ij A_j^{-1} J_ij^T, computed per constraint from A_j's
 * Cholesky factor, O(n)),
 *   Rn = max(beta^2 / (4 pi^2) w_i, 1 / (dt k (dt + tau_d)))   (29)  (second term only with -sap_stiffness k)
 *   Rt = sigma w_i                                              (30)
 * Options: -sap_beta (1), -sap_sigma (1e-3), -sap_stiffness k (0: near-rigid term alone),
 * -sap_stick_predict (1: the stiction-predicting step below),
 * -sap_dissipation tau_d (0), -sap_dt (the time step these refer to: default the -dt option).
 *
 * Other constraint kinds. Hard rows: the frictionless one-row contact, gamma = max(0, y) in the R
 * norm (a scalar), with R = Rn as above; bilateral rows the same with gamma = y (the regularized
 * equality, whose R also keeps a redundant set of closure rows solvable). Soft rows, lambda = -k e - c J v, are linear: they enter the
 * cost as the quadratic k e (J v) + c/2 (J v)^2 (the potential of (4)), gradient -J^T lambda,
 * constant Hessian G = c.
 *
 * Newton (Alg. 2): grad = A (v - v*) - J^T gamma(v) (the momentum residual), H = A + J^T G J
 * (SPD, assembled and solved in parallel by newton_petsc.c: -sap_ksp_type / -sap_pc_type, default CG
 * with block Jacobi, sub-PC sparse Cholesky up to -sap_direct_max rows per rank, ICC(0) above:
 * choose_sub_pc()), dv = -H^{-1} grad. Exact line search: the unique root of
 *   dl/dalpha = dp^T (v + alpha dv - v*) - dv_c^T gamma(v_c + alpha dv_c),  dp = A dv, dv_c = J dv,
 *   d2l/dalpha2 = dv^T dp + dv_c^T G(alpha) dv_c,
 * (O(n_v + n_c) per evaluation) found by sg_rtsafe on a bracket [0, alpha_hi] grown by doubling.
 *
 * Stiction prediction (-sap_stick_predict, default on; not in the paper). Plain Newton converged only
 * linearly whenever many contacts go from sliding to stiction in one step (impacts, a pile during
 * pouring: 20-70 iterations per step on a 200-sphere pile, e_m stuck near 1, l_p decreasing
 * monotonically, the step an exact Newton step (||H dv + grad|| ~ 1e-15) and the exact line search
 * right (l'' matches finite differences along dv), and the same with v* as warm start). Cause: the
 * sliding branch linearizes gamma_t = mu gamma_n t with t frozen, so the Newton model keeps the full
 * friction mu gamma_n against the current slip and, as gamma_n grows, drives the slip through zero
 * and beyond (measured: |v_t| 0.006 -> -0.02 m/s for every such contact), while the stick band where
 * the solution lies is only |v_t| <= muhat (vhat_n - v_n) wide (~1e-5..1e-4 m/s: it scales with
 * sigma, which is why -sap_sigma 1e-1 needed few iterations). Each contact would need its own alpha
 * (|v_t| / (|v_t| + |v_t'|), 0.006..0.4 here); the single exact alpha stops where the first ones
 * enter their band (alpha 0.02-0.3), so each iteration moved a few contacts into stiction.
 * Fix: after the Newton step dv, the sliding contacts (mu > 0) whose slip it reverses,
 * v_t . (v_t + dv_t) < 0, are flagged, and the step is recomputed as the Newton step of the surrogate
 * cost in which each flagged contact uses its stick branch 1/2 ||y||_R^2 (>= l_i, equal in stiction):
 *   (A + J^T G' J) dv' = -(grad - J^T dy),  G'_i = R^{-1}, dy_i = y_i - gamma_i for flagged i.
 * Both steps get the exact line search on the true l_p, and the one ending lower is taken, so every
 * iteration decreases l_p at least as much as plain Newton (its global convergence is kept) and the
 * solution and stopping test are unchanged. Near the solution no slip reverses, nothing is flagged
 * and the iteration is plain Newton (quadratic tail). Cost: a second assembly, KSP solve and line
 * search in the iterations that flag contacts (the assemblies are counted in refactorizations).
 * `generate pile -n 200`, dt 1/240 s, -solver_tol 1e-3, Cholesky: t_final 0.0875 12.2 -> 1.33 mean
 * Newton iterations per step (max 44 -> 4); t_final 0.25 44.5 -> 5.7 (max 73 -> 14).
 *
 * Stopping: the shared test of every solver (solver.h), theta_p + theta_d < -solver_tol, with
 * theta_d = max_j ||grad_j|| (grad = A v - b - J^T gamma, the momentum residual) and theta_p = 0
 * (lambda = gamma(v) satisfies SAP's regularized law exactly). The paper's relative measure (25)-(26),
 * e_m = ||D grad|| / max(||D A v||, ||D J^T gamma||) with D = diag(A)^{-1/2}, is printed by the
 * monitor. -solver_max_it caps the Newton iterations (0: no cap). The solve also stops (reason
 * SG_DIVERGED_STAGNATION, no error) at the round-off floor: when dl/dalpha(0) >= 0 in floating point,
 * or when l_p has not decreased by more than 8 ulps for three iterations running (the floor of e_m
 * is about 1e-16 / min_i(R_i / w_i): ~1e-14 with the defaults, ~1e-9 with tiny beta / sigma).
 * Reported: iterations = Newton iterations; residual_primal = 0, residual_dual = theta_d;
 * beta = 0 and refactorizations = number of H assemblies.
 *
 * Warm start: the given v (v* if it is not finite); the given lambda is not used. Output: v and
 * lambda = gamma(v) (impulses; soft rows -k e - c J v). On NaN or a line search failure the result is
 * SG_ERR_NUMERIC and v / lambda hold the last iterate whose gradient was finite.
 * Parallel (SG_SOLVER_LOCAL): each rank works on its part of the problem: its owned subsystems, the
 * ghost subsystems owned elsewhere (A_j, b_j, warm start and J blocks the same bits as on their
 * owner) and every constraint touching an owned subsystem (one shared by two ranks is on both, with
 * its pairs in the same order). Sums over v run over the owned subsystems, sums over constraints over
 * those this rank counts (the owner of the constraint's first pair's subsystem, as the stepper's
 * keeper and SubADMM), each followed by one MPI_Allreduce: per Newton iteration one for l_p and the
 * norms of (25)-(26), one (max) for theta_d; per line search one for dp^T (v - v*), dv^T dp and one
 * per evaluation of l', l''. H's rows are the owned subsystems (newton_local.c), complete from local
 * data; the KSP solution comes back for the owned and the ghost unknowns, and ghosts take the same
 * alpha, so a ghost's v keeps its owner's bits and a shared constraint's gamma, G and stick flag are
 * the same on both ranks. Every decision (warm start, stick count, take, stagnation, alpha) follows
 * from reduced numbers, the same on every rank, so all ranks run the same collectives. One rank is
 * the degenerate case: no ghosts, every sum in the order of a serial loop, the reductions skipped.
 * PETSc log stages "SAP assembly" and "SAP KSP" show up in -log_view. */
#include <float.h>
#include <math.h>
#include <petscksp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/la.h"
#include "signorini/newton.h"
#include "signorini/options.h"
#include "signorini/sap.h"
#include "signorini/solver.h"
#include "signorini/timing.h"
#include "solvers/newton_internal.h"

typedef struct {
  double beta, sigma, stiffness, dissipation, dt;
  int stick_predict;                  /* -sap_stick_predict: the stiction-predicting step (see the header) */
  long direct_max;                    /* -sap_direct_max: largest local block factored exactly by default */
  int sub_pc_user, solver_user;       /* -sap_sub_pc_type / -sap_sub_pc_factor_mat_solver_type given */
  int choose_pc;                      /* a new matrix: pick the sub-PC at the next assembly */
  int ns_ready;
  sg_newton_sys ns;
  double *L;                          /* per subsystem: Cholesky factor of A_j */
  double *vstar, *vk, *grad, *dv, *dv2, *dp, *dscale, *jtg, *tmp; /* n_v */
  double *vc, *dvc, *gam, *dy;        /* n_rows */
  double *G;                          /* SG_NEWTON_GSTRIDE per constraint */
  double *Rn, *Rt, *vhat;             /* per constraint */
  int cap_a, cap_v, cap_r, cap_c, cap_g;
  /* distribution (see the header's "Parallel") */
  MPI_Comm comm;
  int rank, size;
  int any_sub, any_con;               /* some rank has a subsystem, a constraint */
  unsigned char *sub_mine, *con_mine; /* owned subsystems; constraints this rank counts in the sums */
  int cap_mine_sub, cap_mine_con;
} sap;

static PetscLogStage g_stage_asm = -1, g_stage_ksp = -1;

/* ---------------------------------------------------------------- per-contact pieces */

int sg_sap_contact(double mu, double Rn, double Rt, double vhat_n, const double *vc, double *gamma,
                   double *G, double *cost) {
  /* (23): y = -R^{-1} (vc - vhat_c), our order (n, t1, t2) */
  double yn = -(vc[0] - vhat_n) / Rn, y1 = -vc[1] / Rt, y2 = -vc[2] / Rt;
  double yr = sqrt(y1 * y1 + y2 * y2);
  double muhat = mu * Rt / Rn, mut2 = mu * muhat; /* muhat = mu Rt/Rn, mu~^2 = mu^2 Rt/Rn */
  int region;
  if (G) memset(G, 0, 9 * sizeof(double));
  if (yn >= 0 && yr <= mu * yn) { /* stiction: y inside F, gamma = y, G = R^{-1} (yn >= 0: see cone.h) */
    region = SG_SAP_STICK;
    gamma[0] = yn; gamma[1] = y1; gamma[2] = y2;
    if (G) { G[0] = 1.0 / Rn; G[4] = G[8] = 1.0 / Rt; }
  } else if (yn <= -muhat * yr) { /* no contact: y in the polar cone (in the R metric) */
    region = SG_SAP_NONE;
    gamma[0] = gamma[1] = gamma[2] = 0.0;
  } else { /* sliding: projection onto the cone's surface */
    region = SG_SAP_SLIDE;
    double c = 1.0 / (1.0 + mut2), gn = (yn + muhat * yr) * c;
    double t1 = yr > 0 ? y1 / yr : 0.0, t2 = yr > 0 ? y2 / yr : 0.0;
    gamma[0] = gn; gamma[1] = mu * gn * t1; gamma[2] = mu * gn * t2;
    if (G) {
      /* G = (d gamma / d y) R^{-1}: d gn/dy = c (1, muhat t), d gt/dy = mu (t d gn/dy + gn Pperp / yr) */
      double t[2] = {t1, t2}, pp = yr > 0 ? gn / yr : 0.0;
      G[0] = c / Rn;
      for (int a = 0; a < 2; ++a) {
        G[1 + a] = G[3 * (1 + a)] = mu * c * t[a] / Rn; /* = c muhat t / Rt */
        for (int b = 0; b < 2; ++b) {
          double P = t[a] * t[b], Pperp = (a == b ? 1.0 : 0.0) - P;
          G[3 * (1 + a) + 1 + b] = mu * (c * muhat * P + pp * Pperp) / Rt;
        }
      }
    }
  }
  if (cost) *cost = 0.5 * (Rn * gamma[0] * gamma[0] + Rt * (gamma[1] * gamma[1] + gamma[2] * gamma[2]));
  return region;
}

int sg_sap_hard(double R, double vhat, double vc, double *gamma, double *G, double *cost) {
  double y = (vhat - vc) / R;
  int on = y > 0;
  *gamma = on ? y : 0.0;
  if (G) *G = on ? 1.0 / R : 0.0;
  if (cost) *cost = 0.5 * R * *gamma * *gamma;
  return on ? SG_SAP_STICK : SG_SAP_NONE;
}

int sg_sap_bilateral(double R, double vhat, double vc, double *gamma, double *G, double *cost) {
  *gamma = (vhat - vc) / R;
  if (G) *G = 1.0 / R;
  if (cost) *cost = 0.5 * R * *gamma * *gamma;
  return SG_SAP_STICK;
}

/* ---------------------------------------------------------------- solver object */

static sg_err sap_create(sg_solver *s) {
  sap *d = sg_calloc(1, sizeof *d, "sap");
  if (!d) return SG_ERR_MEM;
  d->beta = 1.0;
  d->sigma = 1e-3;
  d->stick_predict = 1;
  d->direct_max = 8000;
  s->data = d;
  return SG_OK;
}

/* The KSP (once): CG + block Jacobi; the sub-PC is chosen per problem by choose_sub_pc() unless the
 * user gives -sap_sub_pc_type (the ICC(0) default that sg_newton_init writes into the database is
 * taken back, as CANAL does, so that a later SAP solver does not take it for the user's choice). */
static sg_err ensure_newton(sap *d, sg_solver *s) {
  if (d->ns_ready) return SG_OK;
  char prefix[64];
  SG_CHECK(sg_newton_init_auto_sub_pc(&d->ns, s->comm, sg_solver_prefixed(s, "sap_", prefix, sizeof prefix), "sub_pc_factor_mat_solver_type", &d->sub_pc_user,
                                      &d->solver_user));
  d->ns_ready = 1;
  return SG_OK;
}

/* The automatic sub-PC of block Jacobi: sparse Cholesky when the rank's diagonal block has at most
 * -sap_direct_max rows (CHOLMOD's supernodal factorization when PETSc has SuiteSparse, else PETSc's
 * own with nested dissection), ICC(0) above. Why: H = A + J^T G J with the near-rigid R (beta 0.1,
 * sigma 1e-3) is badly conditioned; on the 1,000-sphere pile CG + ICC(0) took ~1500 iterations per
 * Newton step (1.85 s), CHOLMOD 0.34 s per factorization and one CG iteration (docs/SOLVERS.md).
 * Called after KSPSetOperators and before the first KSPSolve on a new matrix (as CANAL's). */
static sg_err choose_sub_pc(sap *d) {
  if (d->sub_pc_user) return SG_OK;
  return sg_newton_choose_sub_pc(d->ns.ksp, "SAP", d->direct_max, !d->solver_user, !d->solver_user);
}

static sg_err sap_set_from_options(sg_solver *s) {
  sap *d = s->data;
  SG_CHECK(sg_opt_real("-sap_beta", d->beta, 1e-12, 1e6, "near-rigid normal parameter beta of (29): Rn = beta^2/(4 pi^2) w", &d->beta));
  SG_CHECK(sg_opt_real("-sap_sigma", d->sigma, 1e-16, 1e6, "tangential regularization sigma of (30): Rt = sigma w", &d->sigma));
  SG_CHECK(sg_opt_bool("-sap_stick_predict", d->stick_predict,
                       "stiction-predicting Newton step for sliding contacts whose slip the step reverses (0: plain Newton)",
                       &d->stick_predict));
  SG_CHECK(sg_opt_real("-sap_stiffness", 0.0, 0.0, 1e30, "contact stiffness k of (2), (29) (N/m; 0: near-rigid term alone)", &d->stiffness));
  SG_CHECK(sg_opt_real("-sap_dissipation", 0.0, 0.0, 1e30, "dissipation time scale tau_d of (2) (s)", &d->dissipation));
  SG_CHECK(sg_opt_real("-sap_dt", 0.0, 0.0, 1e3,
                       "time step that -sap_stiffness / -sap_dissipation refer to in a problem that does not carry one "
                       "(FCLIB); a run's problem carries its own", &d->dt));
  SG_CHECK(sg_opt_int("-sap_direct_max", d->direct_max, 0, 1000000000,
                      "default sub-PC: sparse Cholesky when the rank's block of H has at most this many rows, ICC(0) above (-sap_sub_pc_type overrides)",
                      &d->direct_max));
  /* the KSP reads its -sap_ksp_* / -sap_pc_* options now, before the unknown-option check */
  return ensure_newton(d, s);
}

/* H, its vectors and scatters, sized for the last problem (sg_solver_reset); the KSP and its options stay. */
static void sap_reset(sg_solver *s) {
  sap *d = s->data;
  if (d && d->ns_ready) sg_newton_begin_setup(&d->ns);
}

static void sap_destroy(sg_solver *s) {
  sap *d = s->data;
  if (!d) return;
  if (d->ns_ready) sg_newton_destroy(&d->ns);
  free(d->L); free(d->vstar); free(d->vk); free(d->grad); free(d->dv); free(d->dv2); free(d->dp); free(d->dscale);
  free(d->jtg); free(d->tmp); free(d->vc); free(d->dvc); free(d->gam); free(d->dy); free(d->G); free(d->Rn);
  free(d->Rt); free(d->vhat); free(d->sub_mine); free(d->con_mine);
  free(d);
  s->data = NULL;
}

static sg_err ensure_work(sap *d, const sg_problem *p) {
  int na = p->n_sub ? p->sub_aoff[p->n_sub] : 0, nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p), nc = p->n_con;
  int c;
  SG_CHECK(sg_grow((void **)&d->L, &d->cap_a, na + 1, sizeof(double), "SAP factors"));
  double **vs[] = {&d->vstar, &d->vk, &d->grad, &d->dv, &d->dv2, &d->dp, &d->dscale, &d->jtg, &d->tmp};
  int cv = d->cap_v;
  for (size_t k = 0; k < sizeof vs / sizeof vs[0]; ++k) {
    c = d->cap_v;
    SG_CHECK(sg_grow((void **)vs[k], &c, nv + 1, sizeof(double), "SAP vectors"));
    cv = c;
  }
  d->cap_v = cv;
  double **rs[] = {&d->vc, &d->dvc, &d->gam, &d->dy};
  int cr = d->cap_r;
  for (size_t k = 0; k < sizeof rs / sizeof rs[0]; ++k) {
    c = d->cap_r;
    SG_CHECK(sg_grow((void **)rs[k], &c, nr + 1, sizeof(double), "SAP row vectors"));
    cr = c;
  }
  d->cap_r = cr;
  double **cs[] = {&d->Rn, &d->Rt, &d->vhat};
  int cc = d->cap_c;
  for (size_t k = 0; k < sizeof cs / sizeof cs[0]; ++k) {
    c = d->cap_c;
    SG_CHECK(sg_grow((void **)cs[k], &c, nc + 1, sizeof(double), "SAP parameters"));
    cc = c;
  }
  d->cap_c = cc;
  SG_CHECK(sg_grow((void **)&d->G, &d->cap_g, SG_NEWTON_GSTRIDE * nc + 1, sizeof(double), "SAP Hessian blocks"));
  return SG_OK;
}

/* Cholesky factors of A_j, v* = A^{-1} b (13)-(14), D = diag(A)^{-1/2} (25), and per constraint the
 * regularization (29)-(30) from w_i = ||W_ii||_F / rows and the bias vhat. */
/* SAP's contact model (paper 000 (23)) is written for surfaces at rest: a tangential e (a moving
 * surface's drag) is refused rather than solved wrongly. */
static sg_err refuse_moving_surfaces(const sg_problem *p) {
  for (int i = 0; i < p->n_con; ++i) {
    const double *e = p->e + p->con_row[i];
    if (p->kind[i] == SG_CON_CONTACT && (e[1] != 0 || e[2] != 0))
      return sg_error_set(SG_ERR_ARG, "SAP does not model moving surfaces (contact %d touches a fixed body with a "
                          "velocity); use subadmm, pgs, canal or nsn", i);
  }
  return SG_OK;
}

static sg_err factor_and_regularize(sap *d, const sg_problem *p) {
  SG_CHECK(refuse_moving_surfaces(p));
  for (int j = 0; j < p->n_sub; ++j) {
    int dof = p->sub_dof[j], off = p->sub_aoff[j], vo = p->sub_off[j];
    if (chol_factor(dof, p->A + off, d->L + off))
      return sg_error_set(SG_ERR_NUMERIC, "SAP: A_j of subsystem %lld is not positive definite", (long long)p->sub_gid[j]);
    chol_solve(dof, d->L + off, p->b + vo, d->vstar + vo);
    for (int k = 0; k < dof; ++k) d->dscale[vo + k] = 1.0 / sqrt(p->A[off + k * dof + k]);
  }
  /* k and tau_d are physical (N/m, s); the compliance (29) is 1/mass, so in the problem's units it
   * is multiplied by the unit of mass */
  const double dt = p->dt > 0 ? p->dt : d->dt, mass_unit = p->units.mass > 0 ? p->units.mass : 1.0;
  if ((d->stiffness > 0 || d->dissipation > 0) && !(dt > 0))
    return sg_error_set(SG_ERR_ARG, "-sap_stiffness / -sap_dissipation need the time step: give -sap_dt");
  const double two_pi = 6.283185307179586476925, near = d->beta * d->beta / (two_pi * two_pi);
  const double soft_R = d->stiffness > 0 ? mass_unit / (dt * d->stiffness * (dt + d->dissipation)) : 0.0;
  const double bias = d->dissipation > 0 ? dt / (dt + d->dissipation) : 1.0;
  for (int i = 0; i < p->n_con; ++i) {
    int rows = sg_con_rows(p->kind[i]);
    if (p->kind[i] == SG_CON_SOFT) { d->Rn[i] = d->Rt[i] = 1.0; d->vhat[i] = 0; continue; }
    double W[9] = {0}, buf[SG_COMPACT_BLOCK];
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      int j = p->pair_sub[q], dof = p->sub_dof[j];
      const double *J = sg_problem_pair_block(p, i, q, buf), *L = d->L + p->sub_aoff[j];
      for (int r = 0; r < rows; ++r) {
        chol_solve(dof, L, J + r * dof, d->tmp); /* A_j^{-1} J_ij[r,:]^T */
        for (int c = 0; c < rows; ++c) {
          double acc = 0;
          for (int k = 0; k < dof; ++k) acc += J[c * dof + k] * d->tmp[k];
          W[c * rows + r] += acc;
        }
      }
    }
    double f = 0;
    for (int k = 0; k < rows * rows; ++k) f += W[k] * W[k];
    double w = sqrt(f) / rows;
    if (!(w > 0))
      return sg_error_set(SG_ERR_NUMERIC, "SAP: constraint %d has a zero Delassus block (empty Jacobian)", i);
    d->Rn[i] = fmax(near * w, soft_R); /* (29) */
    d->Rt[i] = d->sigma * w;           /* (30) */
    d->vhat[i] = -p->e[p->con_row[i]] * bias;
  }
  return SG_OK;
}

/* ---------------------------------------------------------------- distribution */

/* n summed over the ranks (one rank: n). */
static int count_over_ranks(const sap *d, int n) {
  if (d->size > 1) MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_SUM, d->comm);
  return n;
}

/* sum_k a_k b_k over the unknowns of the owned subsystems, in index order (a rank's part of a dot
 * product over the whole v: one rank sums exactly as a plain loop over v does). */
static double dot_owned(const sap *d, const sg_problem *p, const double *a, const double *b) {
  double s = 0;
  for (int j = 0; j < p->n_sub; ++j) {
    if (!d->sub_mine[j]) continue;
    for (int k = p->sub_off[j]; k < p->sub_off[j + 1]; ++k) s += a[k] * b[k];
  }
  return s;
}

/* gamma(vc) (and G when wanted) for every constraint of this rank (those shared with another rank
 * too: their rows of the gradient and of H need them); returns the sum of the costs of the
 * constraints it counts. */
static double eval_constraints(const sap *d, const sg_problem *p, const double *vc, double *gam, double *G) {
  double total = 0;
  for (int i = 0; i < p->n_con; ++i) {
    int r0 = p->con_row[i];
    double cost = 0, *Gi = G ? G + SG_NEWTON_GSTRIDE * i : NULL;
    switch (p->kind[i]) {
      case SG_CON_CONTACT:
        sg_sap_contact(p->mu[i], d->Rn[i], d->Rt[i], d->vhat[i], vc + r0, gam + r0, Gi, &cost);
        break;
      case SG_CON_HARD:
        sg_sap_hard(d->Rn[i], d->vhat[i], vc[r0], gam + r0, Gi, &cost);
        break;
      case SG_CON_BILATERAL:
        sg_sap_bilateral(d->Rn[i], d->vhat[i], vc[r0], gam + r0, Gi, &cost);
        break;
      default: { /* soft (4): lambda = -k e - c J v, potential k e (J v) + c/2 (J v)^2 */
        double k = p->stiff[i], c = p->damp[i], e = p->e[r0], x = vc[r0];
        gam[r0] = -k * e - c * x;
        if (Gi) Gi[0] = c;
        cost = k * e * x + 0.5 * c * x * x;
      }
    }
    if (d->con_mine[i]) total += cost;
  }
  return total;
}

/* Line search context: l'(alpha) = a0 + alpha a1 - dvc^T gamma(vc + alpha dvc), see the header.
 * a0, a1 are the global dot products; each rank adds its counted constraints' terms. */
typedef struct {
  const sap *d;
  const sg_problem *p;
  double a0, a1;
  double q0;    /* 1/2 (vk - v*)^T A (vk - v*) */
  double *vc_a; /* scratch n_rows */
  double *g_a;  /* scratch n_rows */
  int nan;
} ls_ctx;

static double ls_fdf(double alpha, double *df, void *ctx) {
  ls_ctx *c = ctx;
  const sg_problem *p = c->p;
  const sap *d = c->d;
  int nr = sg_problem_n_rows(p);
  for (int r = 0; r < nr; ++r) c->vc_a[r] = d->vc[r] + alpha * d->dvc[r];
  /* rank 0 starts from the quadratic part, so that one rank sums in the order of a serial loop */
  double fh[2] = {d->rank == 0 ? c->a0 + alpha * c->a1 : 0.0, d->rank == 0 ? c->a1 : 0.0};
  double f = fh[0], h = fh[1];
  for (int i = 0; i < p->n_con; ++i) {
    if (!d->con_mine[i]) continue;
    int r0 = p->con_row[i], rows = sg_con_rows(p->kind[i]);
    double G[9], *g = c->g_a + r0;
    const double *dvc = d->dvc + r0;
    switch (p->kind[i]) {
      case SG_CON_CONTACT:
        sg_sap_contact(p->mu[i], d->Rn[i], d->Rt[i], d->vhat[i], c->vc_a + r0, g, G, NULL);
        break;
      case SG_CON_HARD:
        sg_sap_hard(d->Rn[i], d->vhat[i], c->vc_a[r0], g, G, NULL);
        break;
      case SG_CON_BILATERAL:
        sg_sap_bilateral(d->Rn[i], d->vhat[i], c->vc_a[r0], g, G, NULL);
        break;
      default:
        g[0] = -p->stiff[i] * p->e[r0] - p->damp[i] * c->vc_a[r0];
        G[0] = p->damp[i];
    }
    for (int a = 0; a < rows; ++a) {
      f -= dvc[a] * g[a];
      double acc = 0;
      for (int b = 0; b < rows; ++b) acc += G[a * rows + b] * dvc[b];
      h += dvc[a] * acc;
    }
  }
  fh[0] = f;
  fh[1] = h;
  sg_ranks_sum(d->comm, d->size, fh, 2); /* one reduction per evaluation: every rank sees the same l', l'' */
  f = fh[0];
  h = fh[1];
  if (!isfinite(f)) c->nan = 1;
  *df = h;
  return f;
}

/* y = A x, blockwise. */
static void apply_A(const sg_problem *p, const double *x, double *y) {
  for (int j = 0; j < p->n_sub; ++j) {
    int dof = p->sub_dof[j], vo = p->sub_off[j];
    const double *A = p->A + p->sub_aoff[j];
    for (int r = 0; r < dof; ++r) {
      double acc = 0;
      for (int c = 0; c < dof; ++c) acc += A[r * dof + c] * x[vo + c];
      y[vo + r] = acc;
    }
  }
}

/* The stiction-predicting step (see the header): flags the sliding contacts (mu > 0) whose slip
 * velocity the Newton step dv (dvc = J dv) reverses, v_t . (v_t + dv_t) < 0; for each, puts the stick
 * branch's Hessian R^{-1} into G and its impulse offset y - gamma into dy (0 elsewhere). Returns the
 * number flagged. */
static int flag_stick(const sap *d, const sg_problem *p, double *G, double *dy) {
  /* a shared contact is flagged alike on both of its ranks (same vc, dvc bits): counted once */
  int nflag = 0;
  memset(dy, 0, (size_t)sg_problem_n_rows(p) * sizeof(double));
  for (int i = 0; i < p->n_con; ++i) {
    if (p->kind[i] != SG_CON_CONTACT || !(p->mu[i] > 0)) continue;
    int r0 = p->con_row[i];
    const double *vc = d->vc + r0, *dvc = d->dvc + r0, *g = d->gam + r0;
    double yn = -(vc[0] - d->vhat[i]) / d->Rn[i], y1 = -vc[1] / d->Rt[i], y2 = -vc[2] / d->Rt[i];
    double yr = sqrt(y1 * y1 + y2 * y2);
    if (yr <= p->mu[i] * yn || yn <= -p->mu[i] * d->Rt[i] / d->Rn[i] * yr) continue; /* not sliding */
    if (vc[1] * (vc[1] + dvc[1]) + vc[2] * (vc[2] + dvc[2]) >= 0) continue;       /* slip kept */
    double *Gi = G + SG_NEWTON_GSTRIDE * i;
    memset(Gi, 0, 9 * sizeof(double));
    Gi[0] = 1.0 / d->Rn[i];
    Gi[4] = Gi[8] = 1.0 / d->Rt[i];
    dy[r0] = yn - g[0];
    dy[r0 + 1] = y1 - g[1];
    dy[r0 + 2] = y2 - g[2];
    nflag += d->con_mine[i];
  }
  return count_over_ranks(d, nflag);
}

/* Exact line search along dv from vk: sets d->dp = A dv and d->dvc = J dv, returns in *alpha the
 * root of dl/dalpha and in *cost l_p(vk + alpha dv). *alpha = 0 (and SG_OK) when dv is not a descent
 * direction in floating point (dl/dalpha(0) >= 0). */
static sg_err line_search(sap *d, const sg_problem *p, ls_ctx *lc, const double *dv, int it, double *alpha,
                          double *cost) {
  int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  *alpha = 0;
  apply_A(p, dv, d->dp);
  sg_problem_apply_J(p, dv, d->dvc);
  for (int k = 0; k < nv; ++k) d->tmp[k] = d->vk[k] - d->vstar[k];
  double a[2] = {dot_owned(d, p, d->dp, d->tmp), dot_owned(d, p, dv, d->dp)};
  sg_ranks_sum(d->comm, d->size, a, 2);
  lc->a0 = a[0];
  lc->a1 = a[1];
  lc->nan = 0;
  double h0, f0 = ls_fdf(0.0, &h0, lc);
  if (!isfinite(f0) || !isfinite(lc->a1))
    return sg_error_set(SG_ERR_NUMERIC, "SAP diverged at Newton iteration %d: non-finite Newton step", it);
  if (f0 >= 0) return SG_OK; /* no descent in floating point */
  double lo = 0.0, hi = 1.0, hh, fh = ls_fdf(hi, &hh, lc), al = hi;
  while (isfinite(fh) && fh < 0 && hi < 1e8) { lo = hi; hi *= 2.0; fh = ls_fdf(hi, &hh, lc); }
  al = hi;
  if (fh != 0 && sg_rtsafe(ls_fdf, lc, lo, hi, 1e-15, 200, &al))
    return sg_error_set(SG_ERR_NUMERIC, "SAP line search failed at Newton iteration %d: %s", it, sg_error_message());
  if (!(al > 0) || lc->nan)
    return sg_error_set(SG_ERR_NUMERIC, "SAP line search failed at Newton iteration %d (alpha %g)", it, al);
  /* l_p(vk + a dv) = q0 + a x^T A dv + a^2/2 dv^T A dv + sum_i l_i,  x = vk - v* */
  *alpha = al;
  for (int r = 0; r < nr; ++r) lc->vc_a[r] = d->vc[r] + al * d->dvc[r];
  double lsum = eval_constraints(d, p, lc->vc_a, lc->g_a, NULL);
  sg_ranks_sum(d->comm, d->size, &lsum, 1);
  *cost = lc->q0 + al * lc->a0 + 0.5 * al * al * lc->a1 + lsum;
  return SG_OK;
}

static void register_stages(void) {
  if (g_stage_asm >= 0) return;
  if (PetscLogStageRegister("SAP assembly", &g_stage_asm)) g_stage_asm = -1;
  if (PetscLogStageRegister("SAP KSP", &g_stage_ksp)) g_stage_ksp = -1;
}

/* dir = H^{-1} rhs with H = A + J^T G J assembled from d->G (the stages show in -log_view). */
static sg_err newton_direction(sap *d, const sg_problem *p, const double *rhs, double *dir) {
  int kits = 0;
  if (g_stage_asm >= 0) PetscLogStagePush(g_stage_asm);
  sg_err err = sg_newton_assemble(&d->ns, p, d->G);
  if (g_stage_asm >= 0) PetscLogStagePop();
  if (err) return err;
  if (d->choose_pc) { SG_CHECK(choose_sub_pc(d)); d->choose_pc = 0; } /* a new matrix: the sub-PC for its size */
  if (g_stage_ksp >= 0) PetscLogStagePush(g_stage_ksp);
  err = sg_newton_solve(&d->ns, p, rhs, dir, &kits);
  if (g_stage_ksp >= 0) PetscLogStagePop();
  return err;
}

/* Factors, v*, the regularization and H's numbering: everything fixed during a solve. Collective:
 * a rank may hold no subsystem or no constraint while others do, and must take part all the same. */
static sg_err sap_setup(sg_solver *s, const sg_problem *p) {
  sap *d = s->data;
  d->comm = s->comm;
  MPI_Comm_rank(s->comm, &d->rank);
  MPI_Comm_size(s->comm, &d->size);
  int any[2] = {p->n_sub > 0, p->n_con > 0};
  if (d->size > 1) MPI_Allreduce(MPI_IN_PLACE, any, 2, MPI_INT, MPI_MAX, d->comm);
  d->any_sub = any[0];
  d->any_con = any[1];
  if (!d->any_sub) return SG_OK;
  double t0 = MPI_Wtime();
  sg_err err = ensure_work(d, p);
  if (!err) err = sg_newton_mark_mine(p, d->rank, &d->sub_mine, &d->cap_mine_sub, &d->con_mine, &d->cap_mine_con,
                                          "SAP ownership");
  if (!err) err = factor_and_regularize(d, p); /* ghosts too: a shared constraint's R needs their A_j */
  SG_CHECK(sg_error_collective(d->comm, err));
  if (d->any_con) {
    register_stages();
    SG_CHECK(ensure_newton(d, s));
    SG_CHECK(sg_newton_setup_local(&d->ns, p));
    d->choose_pc = 1;
  }
  sg_timer_add(SG_PHASE_FACTOR, t0);
  return SG_OK;
}

/* theta_d of the shared test: the largest momentum residual of an owned subsystem, ||grad_j||
 * (grad = A v - b - J^T gamma), over every rank. */
static double momentum_residual(const sap *d, const sg_problem *p, const double *grad) {
  double worst = 0;
  for (int j = 0; j < p->n_sub; ++j) {
    if (!d->sub_mine[j]) continue;
    double g2 = 0;
    for (int k = p->sub_off[j]; k < p->sub_off[j + 1]; ++k) g2 += grad[k] * grad[k];
    worst = fmax(worst, sqrt(g2));
  }
  sg_ranks_max(d->comm, d->size, &worst, 1); /* max: exact */
  return worst;
}

/* What one iterate's evaluation gives the loop: l_p (24), ||D grad|| and the scale of (26). */
typedef struct {
  double cost, ng, scale;
} sap_eval;

/* gamma, G and grad = A (v - v*) - J^T gamma at vk (Alg. 2), and the global sums of l_p and of the
 * scaled norms of (25)-(26) in one reduction; lc->q0 = 1/2 ||vk - v*||_A^2. */
static sap_eval evaluate(sap *d, const sg_problem *p, ls_ctx *lc) {
  const int nv = sg_problem_n_v(p);
  double sums[5];
  sg_problem_apply_J(p, d->vk, d->vc);
  sums[0] = eval_constraints(d, p, d->vc, d->gam, d->G);
  for (int k = 0; k < nv; ++k) d->tmp[k] = d->vk[k] - d->vstar[k];
  apply_A(p, d->tmp, d->grad);
  sums[1] = dot_owned(d, p, d->tmp, d->grad);
  memset(d->jtg, 0, (size_t)nv * sizeof(double));
  sg_problem_apply_JT_add(p, d->gam, d->jtg);
  apply_A(p, d->vk, d->tmp); /* A v, for the scale of (26) */
  double ng = 0, nm = 0, nj = 0;
  for (int j = 0; j < p->n_sub; ++j)
    for (int k = p->sub_off[j]; k < p->sub_off[j + 1]; ++k) {
      d->grad[k] -= d->jtg[k]; /* a ghost's entries lack the constraints of other ranks: not used */
      if (!d->sub_mine[j]) continue;
      double s2 = d->dscale[k];
      ng += (s2 * d->grad[k]) * (s2 * d->grad[k]);
      nm += (s2 * d->tmp[k]) * (s2 * d->tmp[k]);
      nj += (s2 * d->jtg[k]) * (s2 * d->jtg[k]);
    }
  sums[2] = ng;
  sums[3] = nm;
  sums[4] = nj;
  sg_ranks_sum(d->comm, d->size, sums, 5);
  lc->q0 = 0.5 * sums[1];
  sap_eval e = {sums[0], sqrt(sums[2]), fmax(sqrt(sums[3]), sqrt(sums[4]))};
  e.cost += lc->q0; /* l_p (24) */
  return e;
}

/* Stiction prediction (see the header) after the Newton step dv (d->dvc = J dv from its search): the
 * step of the surrogate with the stick branch for the sliding contacts dv reverses, taken (step,
 * alpha updated) when its exact line search ends lower than cost_new. */
static sg_err stick_step(sg_solver *s, sap *d, const sg_problem *p, ls_ctx *lc, int it, double cost, double cost_new,
                         const double **step, double *alpha, sg_solve_info *info) {
  const int nv = sg_problem_n_v(p);
  int nflag = flag_stick(d, p, d->G, d->dy);
  if (!nflag) return SG_OK;
  for (int k = 0; k < nv; ++k) d->tmp[k] = -d->grad[k];
  sg_problem_apply_JT_add(p, d->dy, d->tmp); /* -(grad - J^T dy): minus the surrogate's gradient */
  SG_CHECK(newton_direction(d, p, d->tmp, d->dv2));
  info->refactorizations++;
  double alpha2 = 0, cost2 = 0;
  if (line_search(d, p, lc, d->dv2, it, &alpha2, &cost2)) alpha2 = 0; /* a failed search: keep Newton */
  int take = alpha2 > 0 && cost2 < cost_new;
  if (take) { *step = d->dv2; *alpha = alpha2; }
  if (s->monitor && d->rank == 0)
    printf("  sap %4d  stick prediction: %d sliding contact(s) reversed, l_p %.6e vs Newton %.6e: %s\n", it, nflag,
           alpha2 > 0 ? cost2 : cost, cost_new, take ? "taken" : "not taken");
  return SG_OK;
}

/* The warm start: the given v, or v* when some rank's v is not finite (one choice for all ranks). */
static void warm_start(sap *d, const sg_problem *p, const double *v) {
  const int nv = sg_problem_n_v(p);
  int finite = 1;
  for (int k = 0; k < nv; ++k) finite &= isfinite(v[k]) != 0;
  if (d->size > 1) MPI_Allreduce(MPI_IN_PLACE, &finite, 1, MPI_INT, MPI_MIN, d->comm);
  memcpy(d->vk, finite ? v : d->vstar, (size_t)nv * sizeof(double));
}

static sg_err sap_solve(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info) {
  sap *d = s->data;
  int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  info->beta = 0;
  if (!d->any_sub) { info->reason = SG_CONVERGED_TRIVIAL; return SG_OK; }
  if (!d->any_con) { /* free motion is the answer */
    if (nv) memcpy(v, d->vstar, (size_t)nv * sizeof(double));
    info->reason = SG_CONVERGED_TRIVIAL;
    return SG_OK;
  }
  warm_start(d, p, v);

  /* scratch for the line search: dp and tmp hold n_v, we need two n_rows arrays */
  double *vc_a = malloc(sizeof(double) * (size_t)(2 * nr + 1));
  SG_CHECK(sg_error_collective(d->comm, vc_a ? SG_OK : sg_error_set(SG_ERR_MEM, "out of memory (SAP line search)")));
  ls_ctx lc = {.d = d, .p = p, .vc_a = vc_a, .g_a = vc_a + nr};
  sg_err err = SG_OK;
  int it = 0, stalled = 0;
  double theta_d = INFINITY, cost_prev = INFINITY;
  sg_converged_reason reason = SG_SOLVE_ITERATING;
  for (;;) {
    double ti = MPI_Wtime();
    sap_eval e = evaluate(d, p, &lc);
    if (!isfinite(e.ng) || !isfinite(e.scale)) {
      err = sg_error_set(SG_ERR_NUMERIC, "SAP diverged at Newton iteration %d: non-finite gradient", it);
      break;
    }
    /* the iterate is good: hand it to the caller */
    if (nv) memcpy(v, d->vk, (size_t)nv * sizeof(double));
    if (nr) memcpy(lambda, d->gam, (size_t)nr * sizeof(double));
    theta_d = momentum_residual(d, p, d->grad);
    double em = e.scale > 0 ? e.ng / e.scale : e.ng; /* (32) */
    char extra[64] = "";
    if (s->monitor_fn) snprintf(extra, sizeof extra, "e_m %.3e  ||D grad|| %.3e", em, e.ng);
    reason = sg_solver_test(s, it, 0.0, theta_d, extra); /* gamma(v) holds SAP's law exactly: theta_p = 0 */
    if (reason != SG_SOLVE_ITERATING) break;
    /* stagnation at round-off: l_p has not decreased by more than a few ulps three times running
     * (the gradient's round-off floor is about 1e-16 / min(R / w) relative) */
    stalled = it > 0 && e.cost >= cost_prev - 8 * DBL_EPSILON * fabs(cost_prev) ? stalled + 1 : 0;
    if (stalled >= 3) { reason = SG_DIVERGED_STAGNATION; break; }
    cost_prev = e.cost;

    /* Newton step: H dv = -grad, H = A + J^T G J (dv comes back for the ghosts too) */
    for (int k = 0; k < nv; ++k) d->tmp[k] = -d->grad[k];
    err = newton_direction(d, p, d->tmp, d->dv);
    if (err) break;
    info->refactorizations++;

    /* exact line search on l(alpha) = l_p(v + alpha dv) */
    double alpha, cost_new = 0;
    err = line_search(d, p, &lc, d->dv, it, &alpha, &cost_new);
    if (err) break;
    if (!(alpha > 0)) { reason = SG_DIVERGED_STAGNATION; break; } /* no descent left in floating point */
    const double *step = d->dv;
    if (d->stick_predict) err = stick_step(s, d, p, &lc, it, e.cost, cost_new, &step, &alpha, info);
    if (err) break;
    /* ghosts too, with the same alpha and their owner's step: they keep the owner's bits */
    for (int k = 0; k < nv; ++k) d->vk[k] += alpha * step[k];
    ++it;
    sg_timers.iterations += 1;
    sg_timer_add(SG_PHASE_ITERATE, ti);
  }
  free(vc_a);
  info->reason = err ? SG_DIVERGED_NAN : reason;
  info->iterations = it;
  info->residual_primal = 0;
  info->residual_dual = theta_d;
  return err;
}

static void sap_view(const sg_solver *s, FILE *f) {
  const sap *d = s->data;
  fprintf(f, "  beta %g, sigma %g, stiction prediction %s\n", d->beta, d->sigma, d->stick_predict ? "on" : "off");
  fprintf(f, "  stiffness %g N/m, dissipation %g s, dt for problems without one %g s\n", d->stiffness, d->dissipation, d->dt);
  fprintf(f, "  direct sub-PC up to %ld rows; KSP prefix %s\n", d->direct_max, d->ns_ready ? d->ns.prefix : "(not created)");
}

const sg_solver_ops sg_solver_sap_ops = {
  .name = "sap",
  .description = "SAP: regularized convex primal Newton with exact line search (paper 000 Alg. 2)",
  .create = sap_create,
  .set_from_options = sap_set_from_options,
  .setup = sap_setup,
  .reset = sap_reset,
  .view = sap_view,
  .solve = sap_solve,
  .destroy = sap_destroy,
  .layout = SG_SOLVER_LOCAL,
};
