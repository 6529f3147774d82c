/* SubADMM, paper 002 Alg. 2: subsystem-wise ADMM on the reformulated problem (32)-(33).
 * One iteration is three passes with the halo exchange between the second and the third:
 *   1. v-update per subsystem (34): vhat_j = H_j^{-1} (b_j + sum_i J_ij^T (beta z_ij - u_ij)),
 *      H_j = A_j + beta sum_i J_ij^T J_ij factorized once per step and when beta changes (40)-(41);
 *   2. per (constraint, subsystem) pair: y_ij = beta J_ij vhat_j + u_ij, with u_ij = -lambda_i (39)
 *      -- the only quantity a remote subsystem's owner has to send to the constraint's owner;
 *   3. per constraint: lambda_i by (36) hard, (37) soft, (38) strict cone, then beta z_ij = y_ij + lambda_i,
 *      and the per-subsystem sums needed by the next v-update and by theta_d (42).
 * u is never stored: u_ij = -lambda_i (39). For a compact contact (problem.h) passes 2 and 3 are one:
 * y of a pair whose subsystem is here and not on a rank boundary is computed where the contact is
 * updated, by the same formula as a sent one.
 * Distribution: each rank updates the subsystems it owns (problem->sub_owner) and every constraint
 * touching one of them; for a constraint shared by two ranks both compute the same lambda from the
 * same y values in the same order, so only y of shared pairs crosses ranks (one message per
 * neighbour per iteration) and the result does not depend on the number of ranks, bit for bit. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/anderson.h"
#include "signorini/compact.h"
#include "signorini/cone.h"
#include "signorini/exchange.h"
#include "signorini/fault.h"
#include "signorini/la.h"
#include "signorini/options.h"
#include "signorini/solver.h"
#include "signorini/timing.h"
#include "soft_fold.h"
#include "subadmm_fused.h"

typedef struct {
  double gamma;      /* -subadmm_gamma: residual ratio that triggers the adaptive penalty (43) */
  double beta_user;  /* -subadmm_beta: fixed initial penalty (0: pseudo-density rule) */
  double beta_factor; /* -subadmm_beta_factor: the pseudo-density rule's multiple */
  double beta_setup; /* the penalty setup factorized H_j with */
  int any_sub, any_con; /* some rank has a subsystem, a constraint (setup) */
  int adapt;         /* -subadmm_adapt */
  int beta_warm;     /* -subadmm_beta_warm: start from the solver's warm penalty when it has one */
  double relax;      /* -subadmm_relax: over-relaxation alpha of J v in (35) */
  int check_every;   /* -subadmm_check_every: iterations between residual checks */
  int max_restarts;  /* -subadmm_restarts: restarts from the saved iterate after a blow-up */
  double blowup;     /* -subadmm_blowup: residual growth over the saved iterate's that counts as one */
  /* the ablation of paper 002 Table III: without the subsystem split (-subadmm_split none: the solve
   * runs on `merged`, all subsystems as one, sg_problem_merge_subsystems) and without the body split
   * (-subadmm_factor dense: a tree's H_j factorized as a dense block, not by (40)-(41)) */
  int no_split, dense_trees;
  sg_problem merged;
  int fold_soft;      /* -subadmm_soft_rows fold: soft rows of one subsystem folded into its block (soft_fold.h) */
  sg_soft_fold fold;
  /* the saved iterate: (v, lambda) whenever theta_p + theta_d halves, returned in place of a worse
   * last iterate and the point a restart starts from */
  double *saved_v, *saved_lambda, saved_tp, saved_td, saved_beta;
  int saved_valid, cap_saved_v, cap_saved_lambda;
  int anderson_m;   /* -subadmm_anderson: memory of the Anderson acceleration (0: off) */
  sg_anderson aa;
  double *state, *image, *diff; /* (s_rhs, lambda) before and after one iteration, and image - state */
  unsigned char *state_mine;    /* entries of the state this rank counts in Anderson's sums */
  int cap_state;
  int desaxce;       /* -subadmm_cone desaxce: Euclidean projection with the lagged De Saxce term */
  int shift_every;   /* -subadmm_desaxce_every: iterations between updates of the frozen De Saxce term */
  double *shift;     /* per constraint: frozen mu ||z_t|| */
  int cap_shift;
  /* the stopping test on the contact residual of paper 002 Sec. VII, the step's metric */
  double contact_tol; /* -subadmm_contact_tol: on its RMS per constraint, in the problem's velocity unit (0: off) */
  int contact_every;  /* -subadmm_contact_every: iterations between its evaluations */
  double *Afac;       /* per own subsystem: A_j^{-1} (rigid body) or the Cholesky factor of A_j */
  double *vm, *terms; /* v(lambda) = A^{-1}(b + J^T lambda); per constraint counted here, its squared term */
  long long n_counted; /* constraints over all ranks, each counted once */
  int cap_afac, cap_vm, cap_terms;
  /* work arrays, grown on demand */
  double *L;         /* per subsystem: H_j^{-1} (6x6) or the Cholesky factor of H_j */
  double *s_rhs;     /* per v entry: sum_i J_ij^T (beta z_ij + lambda_i) */
  double *s_lam;     /* per v entry: sum_i J_ij^T lambda_i */
  double *y;         /* per pair, 3 entries: y_ij */
  double *z;         /* per pair, 3 entries: z_ij (kept only with over-relaxation or the De Saxce cone); of a
                      * compact contact's pair with rebuilt sums, R_i^T z_ij in world axes (world_slacks) */
  int keep_z;
  /* -subadmm_rebuild_sums: pass 3 sums J^T lambda only, and pass 1 rebuilds the rest of s_rhs from
   * v (v_update_range), with or without over-relaxation; off with the De Saxce cone and Anderson
   * (Anderson's state is s_rhs itself) */
  int rebuild_sums, rebuild_option;
  int *sub_npairs;   /* contact count per subsystem (pseudo-density) */
  unsigned char *sub_ltl; /* per subsystem: H_j factorized with its tree's sparsity (ltl_factor), not densely */
  unsigned char *sub_ashape; /* per own 6-unknown subsystem: the zeros of its A_j (a6_shape) */
  double *adiag;     /* per v entry of a 6-unknown subsystem with a diagonal A_j: the diagonal, contiguous */
  double *avb;       /* per v entry of a 6-unknown subsystem, sums rebuilt: A_j vhat_j - b_j of the last v-update */
  int cap_adiag, cap_avb;
  double *hb;        /* per unknown of a subsystem with motions (problem.h), 6x6: the H_b of (40)-(41) of the
                      * compact tree pairs anchored there, then their sum over its subtree */
  /* per unknown of a subsystem with motions, 6 each (laid out as problem.h's motion): the motion of
   * the link the unknown's chain moves after the v-update (its chain's sum of m_c v_c), and the
   * wrenches J_{i,b}^T f of the pass's compact tree pairs anchored there (of lambda, and of w when the
   * sums are not rebuilt), turned into the chain's J^T sums by flush_wrenches: the body split of
   * (40)-(41) in the iteration, each such pair O(1) instead of O(chain) */
  double *twist, *wrench_l, *wrench_w;
  int cap_a, cap_v, cap_pair, cap_sub, cap_ltl, cap_ashape, cap_hb, cap_twist, cap_wl, cap_ww;
  /* distribution */
  MPI_Comm comm;
  int rank, size;
  unsigned char *sub_mine, *con_mine; /* owned subsystems; constraints touching one */
  int cap_mine_sub, cap_mine_con;
  int *my_sub, *my_con, n_my_sub, n_my_con, cap_my_sub, cap_my_con; /* the same as index lists */
  int *scount, *rcount, *soff, *roff; /* per rank: pairs sent / received, offsets */
  int *send_pairs, *recv_pairs, cap_send, cap_recv;
  /* overlap: my subsystems with a pair to send come first in my_sub (n_boundary of them); my pairs
   * as (constraint, pair) lists, those of boundary subsystems apart */
  int n_boundary;
  int *bpairs, *ipairs, n_bpairs, n_ipairs, cap_bpairs, cap_ipairs;
  unsigned char *boundary;
  int cap_boundary;
  /* pairs whose y is computed where their constraint is updated (pass 2 fused into pass 3: the
   * compact contacts' interior pairs, strict cone), not by pair_values */
  unsigned char *fused;
  int cap_fused;
  /* per entry of my_con: 0 another constraint; a rigid compact contact under the strict cone
   * (update_compact_contact): COMPACT_SOME, or COMPACT_FUSED_1 / _2 when all its 1 or 2 pairs are fused
   * (_2: with signs +1, -1) */
  unsigned char *con_compact;
  int cap_con_compact;
  /* -subadmm_batch: the COMPACT_FUSED_2 contacts updated SG_FUSED_LANES at a time (subadmm_fused.h)
   * under the plain and the over-relaxed update: 0 one at a time; 1 batched with the portable build of
   * the kernel (slower than one at a time: for tests); 2 batched where AVX2 runs, else one at a time */
  int batch;
  sg_fused_contacts fc;
  int nreq;
  double *send_buf, *recv_buf;
  int cap_sbuf, cap_rbuf;
  MPI_Request *req;
} subadmm;

static sg_err subadmm_create(sg_solver *s) {
  subadmm *d = sg_calloc(1, sizeof *d, "subadmm");
  if (!d) return SG_ERR_MEM;
  d->gamma = 10.0;
  d->adapt = 1;
  d->beta_factor = 10.0;
  d->beta_warm = 0;
  d->relax = 1.0;
  d->check_every = 1;
  d->max_restarts = 2;
  d->blowup = 1e3;
  d->contact_every = 10;
  d->batch = 2;
  s->data = d;
  return SG_OK;
}

static sg_err subadmm_set_from_options(sg_solver *s) {
  subadmm *d = s->data;
  SG_CHECK(sg_opt_real("-subadmm_gamma", d->gamma, 1.0 + 1e-12, 1e12,
                       "adaptive penalty (43): rescale beta when theta_p/theta_d leaves [1/gamma, gamma]", &d->gamma));
  SG_CHECK(sg_opt_real("-subadmm_beta", 0.0, 0.0, 1e30,
                       "initial penalty beta (0: geometric mean of the pseudo-densities)", &d->beta_user));
  SG_CHECK(sg_opt_real("-subadmm_beta_factor", d->beta_factor, 1e-6, 1e6,
                       "the initial penalty is this multiple of the pseudo-density rule", &d->beta_factor));
  SG_CHECK(sg_opt_bool("-subadmm_adapt", 1, "adapt beta by (43)", &d->adapt));
  SG_CHECK(sg_opt_bool("-subadmm_beta_warm", d->beta_warm,
                       "start each step from the penalty the previous step ended with (a stepper's warm penalty) rather than the pseudo-density rule",
                       &d->beta_warm));
  char cone[16];
  SG_CHECK(sg_opt_choice("-subadmm_cone", "strict", "strict|desaxce", "contact operator in (38): the strict operator (17), or the Euclidean cone projection with the De Saxce term of the previous iterate (as CANAL (21))", cone, sizeof cone));
  d->desaxce = !strcmp(cone, "desaxce");
  long every;
  SG_CHECK(sg_opt_int("-subadmm_desaxce_every", 1, 1, 1000000, "iterations between updates of the frozen De Saxce term (desaxce cone); it is also updated when the residual falls below -solver_tol, and the solve ends only once it is current", &every));
  d->shift_every = (int)every;
  long m;
  SG_CHECK(sg_opt_int("-subadmm_anderson", d->anderson_m, 0, 32, "Anderson acceleration memory on the iteration state (sum_i J^T (beta z + lambda), lambda); 0: off", &m));
  d->anderson_m = (int)m;
  long check;
  SG_CHECK(sg_opt_int("-subadmm_check_every", d->check_every, 1, 1000000, "iterations between residual checks (the all-reduce of (42), the stopping test and the adaptive beta)", &check));
  d->check_every = (int)check;
  long batch;
  SG_CHECK(sg_opt_int("-subadmm_batch", d->batch, 0, 2, "contacts between two bodies of a rank updated four at a time: 0 no, 1 with portable vectors (slower: for tests), 2 where the processor has AVX2 (the same numbers each way)", &batch));
  d->batch = (int)batch;
  SG_CHECK(sg_opt_real("-subadmm_relax", d->relax, 0.1, 1.99, "over-relaxation: J v is replaced by alpha J v + (1 - alpha) z in (35)", &d->relax));
  long restarts;
  SG_CHECK(sg_opt_int("-subadmm_restarts", d->max_restarts, 0, 1000, "restarts from the best saved iterate, with a 4x smaller fixed penalty, after a blow-up (not with the desaxce cone)", &restarts));
  d->max_restarts = (int)restarts;
  SG_CHECK(sg_opt_real("-subadmm_blowup", d->blowup, 1.0 + 1e-12, 1e300, "a residual this many times the saved iterate's is a blow-up", &d->blowup));
  char split[16], factor[16];
  SG_CHECK(sg_opt_choice("-subadmm_split", "subsystems", "subsystems|none", "subsystems: one per body (paper 002 Alg. 2); none: all of them as one subsystem, the whole system's equation (28) each iteration (an ablation, one rank)", split, sizeof split));
  d->no_split = !strcmp(split, "none");
  int size;
  MPI_Comm_size(s->comm, &size);
  if (d->no_split && size > 1) return sg_error_set(SG_ERR_ARG, "-subadmm_split none runs on one rank, not %d (SubADMM options)", size);
  SG_CHECK(sg_opt_choice("-subadmm_factor", "tree", "tree|dense", "a tree's H_j: tree: with the tree's sparsity (40)-(41) where it keeps it; dense: a dense Cholesky (an ablation)", factor, sizeof factor));
  d->dense_trees = !strcmp(factor, "dense");
  char soft[16];
  SG_CHECK(sg_opt_choice("-subadmm_soft_rows", "fold", "fold|split", "soft rows (4) that touch one subsystem (PD control, joint springs): fold: into the subsystem's block, solved exactly in the v-update; split: as ADMM rows (37) like the others", soft, sizeof soft));
  d->fold_soft = !strcmp(soft, "fold");
  SG_CHECK(sg_opt_bool("-subadmm_rebuild_sums", 1,
                       "rebuild sum_i J^T (beta z + lambda) of each subsystem from its v-update instead of summing it over the pairs (half the scattered sums; not with the desaxce cone or Anderson)",
                       &d->rebuild_option));
  SG_CHECK(sg_opt_real("-subadmm_contact_tol", 0.0, 0.0, 1e30,
                       "also stop when the RMS per constraint of the contact residual of paper 002 Sec. VII is below this, in units of the smallest body's size per step (L/dt); 0: off",
                       &d->contact_tol));
  long contact_every;
  SG_CHECK(sg_opt_int("-subadmm_contact_every", d->contact_every, 1, 1000000,
                      "iterations between evaluations of -subadmm_contact_tol (each costs about two thirds of an iteration)", &contact_every));
  d->contact_every = (int)contact_every;
  return SG_OK;
}

static void subadmm_destroy(sg_solver *s) {
  subadmm *d = s->data;
  if (!d) return;
  free(d->L); free(d->s_rhs); free(d->s_lam); free(d->y); free(d->z); free(d->state); free(d->image); free(d->diff); free(d->state_mine); free(d->shift);
  free(d->sub_mine); free(d->con_mine); free(d->my_sub); free(d->my_con); free(d->scount); free(d->rcount); free(d->soff); free(d->roff);
  free(d->send_pairs); free(d->recv_pairs); free(d->send_buf); free(d->recv_buf); free(d->req);
  free(d->bpairs); free(d->ipairs); free(d->boundary); free(d->fused); free(d->con_compact); free(d->Afac); free(d->vm); free(d->terms);
  sg_problem_destroy(&d->merged);
  sg_soft_fold_destroy(&d->fold);
  sg_fused_contacts_destroy(&d->fc);
  sg_anderson_destroy(&d->aa); free(d->sub_npairs); free(d->sub_ltl); free(d->sub_ashape); free(d->adiag); free(d->avb); free(d->hb); free(d->twist); free(d->wrench_l); free(d->wrench_w);
  free(d->saved_v); free(d->saved_lambda);
  free(d);
  s->data = NULL;
}

static sg_err ensure_work(subadmm *d, const sg_problem *p) {
  int na = p->n_sub ? p->sub_aoff[p->n_sub] : 0, nv = sg_problem_n_v(p), npair = p->n_con ? p->con_pair[p->n_con] : 0;
  int c;
  c = d->cap_a;
  SG_CHECK(sg_grow((void **)&d->L, &c, na, sizeof(double), "SubADMM factors"));
  d->cap_a = c;
  c = d->cap_v;
  SG_CHECK(sg_grow((void **)&d->s_rhs, &c, nv, sizeof(double), "SubADMM sums"));
  c = d->cap_v;
  SG_CHECK(sg_grow((void **)&d->s_lam, &c, nv, sizeof(double), "SubADMM sums"));
  d->cap_v = c;
  c = d->cap_pair;
  SG_CHECK(sg_grow((void **)&d->y, &c, 3 * npair, sizeof(double), "SubADMM pair values"));
  d->keep_z = d->relax != 1.0 || d->desaxce; /* the plain update (35) needs z of this iteration only */
  c = d->cap_pair;
  if (d->keep_z) SG_CHECK(sg_grow((void **)&d->z, &c, 3 * npair, sizeof(double), "SubADMM slacks"));
  d->cap_pair = c;
  SG_CHECK(sg_grow((void **)&d->sub_npairs, &d->cap_sub, p->n_sub, sizeof(int), "SubADMM counts"));
  SG_CHECK(sg_grow((void **)&d->sub_ltl, &d->cap_ltl, p->n_sub, 1, "SubADMM factor kinds"));
  SG_CHECK(sg_grow((void **)&d->sub_ashape, &d->cap_ashape, p->n_sub, 1, "SubADMM mass shapes"));
  SG_CHECK(sg_grow((void **)&d->adiag, &d->cap_adiag, nv + 1, sizeof(double), "SubADMM mass diagonals"));
  SG_CHECK(sg_grow((void **)&d->avb, &d->cap_avb, nv + 1, sizeof(double), "SubADMM mass products"));
  SG_CHECK(sg_grow((void **)&d->hb, &d->cap_hb, 6 * p->n_motion + 1, sizeof(double), "SubADMM link blocks"));
  SG_CHECK(sg_grow((void **)&d->twist, &d->cap_twist, p->n_motion + 1, sizeof(double), "SubADMM link motions"));
  SG_CHECK(sg_grow((void **)&d->wrench_l, &d->cap_wl, p->n_motion + 1, sizeof(double), "SubADMM link wrenches"));
  SG_CHECK(sg_grow((void **)&d->wrench_w, &d->cap_ww, p->n_motion + 1, sizeof(double), "SubADMM link wrenches"));
  if (p->n_motion) { /* flush_wrenches clears them after each pass */
    memset(d->wrench_l, 0, (size_t)p->n_motion * sizeof(double));
    memset(d->wrench_w, 0, (size_t)p->n_motion * sizeof(double));
  }
  return SG_OK;
}

/* acc_w += J^T w and acc_l += J^T l of a compact pair. */
static inline void compact_jt2(const double *R, const double *lever, const double *w, const double *l, double *acc_w,
                               double *acc_l) {
  sg_compact_jt(R, lever, w, acc_w);
  sg_compact_jt(R, lever, l, acc_l);
}

enum { COMPACT_SOME = 1, COMPACT_FUSED_1 = 2, COMPACT_FUSED_2 = 3 }; /* values of con_compact */

/* Are all of constraint i's pairs rigid compact ones (the fused kernel's)? */
static inline int rigid_compact(const sg_problem *p, int i) {
  for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q)
    if (!sg_problem_pair_is_compact(p, q)) return 0;
  return 1;
}

/* A rigid compact contact under the strict cone: update_compact_contact's. */
static inline int compact_contact(const subadmm *d, const sg_problem *p, int i) {
  return !d->desaxce && p->kind[i] == SG_CON_CONTACT && rigid_compact(p, i);
}

/* The default update (no z kept, sums rebuilt): a compact contact needs only the sum over its pairs
 * of J_ij vhat_j, so its pairs' values are their world velocities (compact_world_velocity), summed
 * before the one rotation into the contact's frame. */
static inline int plain_update(const subadmm *d) { return !d->keep_z && d->rebuild_sums; }

/* Over-relaxed with rebuilt sums: a compact contact keeps its pairs' slacks in world axes,
 * zeta_ij = R_i^T z_ij, so that it still needs one rotation of a sum (relaxed_cone_argument). */
static inline int world_slacks(const subadmm *d) { return d->keep_z && d->rebuild_sums; }

/* J_q v_j for pair q of constraint i (rows x dof block, or compact). */
static inline void pair_apply(const sg_problem *p, int i, int q, int rows, const double *v, double *out) {
  int j = p->pair_sub[q], dof = p->sub_dof[j];
  if (sg_problem_pair_is_compact(p, q)) {
    sg_compact_jv(p->frame + 9 * i, p->lever + 4 * q, v + p->sub_off[j], out);
    return;
  }
  if (!sg_problem_pair_is_dense(p, q)) { /* a compact tree pair: the body split of (40)-(41) */
    sg_problem_tree_jv(p, i, q, v, out);
    return;
  }
  const double *J = p->J + p->pair_joff[q], *vj = v + p->sub_off[j];
  for (int r = 0; r < rows; ++r) {
    double acc = 0;
    for (int c = 0; c < dof; ++c) acc += J[r * dof + c] * vj[c];
    out[r] = acc;
  }
}

/* 3x6 blocks (a contact on a rigid body): fixed sizes the compiler unrolls and vectorizes. */
static inline void jv_3x6(const double *J, const double *v, double *out) {
  for (int r = 0; r < 3; ++r)
    out[r] = J[6 * r] * v[0] + J[6 * r + 1] * v[1] + J[6 * r + 2] * v[2] + J[6 * r + 3] * v[3] +
             J[6 * r + 4] * v[4] + J[6 * r + 5] * v[5];
}

/* acc_w += J^T w and acc_l += J^T l in one pass over J. */
static inline void jt2_3x6(const double *J, const double *w, const double *l, double *acc_w, double *acc_l) {
  for (int c = 0; c < 6; ++c) {
    acc_w[c] += J[c] * w[0] + J[6 + c] * w[1] + J[12 + c] * w[2];
    acc_l[c] += J[c] * l[0] + J[6 + c] * l[1] + J[12 + c] * l[2];
  }
}

static inline double max2(double a, double b) { return a > b ? a : b; }

/* acc_j += J_q^T w (rows) for pair q of constraint i */
static inline void pair_apply_T(const sg_problem *p, int i, int q, int rows, const double *w, double *acc) {
  int j = p->pair_sub[q], dof = p->sub_dof[j];
  double *aj = acc + p->sub_off[j];
  if (sg_problem_pair_is_compact(p, q)) {
    sg_compact_jt(p->frame + 9 * i, p->lever + 4 * q, w, aj);
    return;
  }
  if (!sg_problem_pair_is_dense(p, q)) {
    sg_problem_tree_jt_add(p, i, q, w, acc);
    return;
  }
  const double *J = p->J + p->pair_joff[q];
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < dof; ++c) aj[c] += J[r * dof + c] * w[r];
}

static inline int owner_of(const sg_problem *p, int j) { return p->has_owners ? p->sub_owner[j] : 0; }

/* Runs of COMPACT_FUSED_2 contacts packed for their batched update (subadmm_fused.h). */
static sg_err pack_fused(subadmm *d, const sg_problem *p) {
  d->fc.n_batch = 0;
  if (!d->batch || (d->batch == 2 && !sg_fused_avx2_available())) return SG_OK;
  return sg_fused_contacts_build(&d->fc, p, d->my_con, d->con_compact, COMPACT_FUSED_2, d->n_my_con, d->batch == 2);
}

/* Overlap of the halo exchange with interior work: subsystems whose y is sent are updated first,
 * their pairs' y computed and sent, and the rest of passes 1-2 runs while the messages travel.
 * Every y is computed by the same formula whatever the order, so results keep their bits. */
static sg_err plan_overlap(subadmm *d, const sg_problem *p) {
  SG_CHECK(sg_grow((void **)&d->boundary, &d->cap_boundary, p->n_sub + 1, 1, "halo plan"));
  memset(d->boundary, 0, (size_t)p->n_sub);
  int n_send = d->size > 1 ? d->soff[d->size] : 0;
  for (int m = 0; m < n_send; ++m) d->boundary[p->pair_sub[d->send_pairs[m]]] = 1;
  int nb = 0; /* stable partition of my_sub: boundary first */
  for (int k = 0; k < d->n_my_sub; ++k)
    if (d->boundary[d->my_sub[k]]) nb++;
  int *tmp = sg_calloc((size_t)d->n_my_sub + 1, sizeof *tmp, "halo plan");
  if (!tmp) return SG_ERR_MEM;
  int b = 0, in = nb;
  for (int k = 0; k < d->n_my_sub; ++k) tmp[d->boundary[d->my_sub[k]] ? b++ : in++] = d->my_sub[k];
  memcpy(d->my_sub, tmp, (size_t)d->n_my_sub * sizeof *tmp);
  free(tmp);
  d->n_boundary = nb;
  const int npair = p->n_con ? p->con_pair[p->n_con] : 0;
  SG_CHECK(sg_grow((void **)&d->fused, &d->cap_fused, npair + 1, 1, "halo plan"));
  memset(d->fused, 0, (size_t)npair);
  SG_CHECK(sg_grow((void **)&d->con_compact, &d->cap_con_compact, d->n_my_con + 1, 1, "halo plan"));
  for (int k = 0; k < d->n_my_con; ++k) d->con_compact[k] = compact_contact(d, p, d->my_con[k]);
  int npb = 0, npi = 0;
  for (int pass = 0; pass < 2; ++pass) {
    npb = npi = 0;
    for (int k = 0; k < d->n_my_con; ++k) {
      int i = d->my_con[k];
      for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
        int j = p->pair_sub[q];
        if (!d->sub_mine[j]) continue;
        if (!d->boundary[j] && d->con_compact[k]) { d->fused[q] = 1; continue; }
        int *list = d->boundary[j] ? d->bpairs : d->ipairs, at = d->boundary[j] ? npb++ : npi++;
        if (pass) { list[2 * at] = i; list[2 * at + 1] = q; }
      }
    }
    if (!pass) {
      SG_CHECK(sg_grow((void **)&d->bpairs, &d->cap_bpairs, 2 * npb + 2, sizeof(int), "halo plan"));
      SG_CHECK(sg_grow((void **)&d->ipairs, &d->cap_ipairs, 2 * npi + 2, sizeof(int), "halo plan"));
    }
  }
  d->n_bpairs = npb;
  d->n_ipairs = npi;
  for (int k = 0; k < d->n_my_con; ++k) {
    const int i = d->my_con[k], q0 = p->con_pair[i], nz = p->con_pair[i + 1] - q0;
    if (!d->con_compact[k] || !d->fused[q0]) continue;
    if (nz == 1) d->con_compact[k] = COMPACT_FUSED_1;
    else if (nz == 2 && d->fused[q0 + 1] && p->lever[4 * q0 + 3] == 1.0 && p->lever[4 * q0 + 7] == -1.0)
      d->con_compact[k] = COMPACT_FUSED_2; /* the assembly's signs: body a +1, body b -1 (update_fused_pair) */
  }
  return pack_fused(d, p);
}

/* Which subsystems and constraints this rank works on, and the halo plan: for every neighbour, the
 * pairs whose y it sends and receives, both listed in (constraint, pair) order so that the two
 * sides agree on the layout of a message without exchanging indices. */
static sg_err build_halo(subadmm *d, const sg_problem *p) {
  const int P = d->size, me = d->rank;
  SG_CHECK(sg_grow((void **)&d->sub_mine, &d->cap_mine_sub, p->n_sub, 1, "ownership"));
  SG_CHECK(sg_grow((void **)&d->con_mine, &d->cap_mine_con, p->n_con, 1, "ownership"));
  for (int j = 0; j < p->n_sub; ++j) d->sub_mine[j] = owner_of(p, j) == me;
  SG_CHECK(sg_soft_fold_build(&d->fold, p, d->sub_mine, d->fold_soft));
  for (int i = 0; i < p->n_con; ++i) {
    d->con_mine[i] = 0;
    if (sg_soft_fold_has(&d->fold, i)) continue; /* in its subsystem's block, not iterated */
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) d->con_mine[i] |= d->sub_mine[p->pair_sub[q]];
  }
  /* index lists, so that the iteration never scans what other ranks own */
  SG_CHECK(sg_grow((void **)&d->my_sub, &d->cap_my_sub, p->n_sub, sizeof(int), "ownership"));
  SG_CHECK(sg_grow((void **)&d->my_con, &d->cap_my_con, p->n_con, sizeof(int), "ownership"));
  d->n_my_sub = d->n_my_con = 0;
  for (int j = 0; j < p->n_sub; ++j)
    if (d->sub_mine[j]) d->my_sub[d->n_my_sub++] = j;
  for (int i = 0; i < p->n_con; ++i)
    if (d->con_mine[i]) d->my_con[d->n_my_con++] = i;
  if (P == 1) return plan_overlap(d, p);
  if (!d->scount) {
    SG_ALLOC(d->scount, P); SG_ALLOC(d->rcount, P); SG_ALLOC(d->soff, P + 1); SG_ALLOC(d->roff, P + 1);
    SG_ALLOC(d->req, 2 * P);
  }
  memset(d->scount, 0, (size_t)P * sizeof(int));
  memset(d->rcount, 0, (size_t)P * sizeof(int));
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      d->soff[0] = d->roff[0] = 0;
      for (int k = 0; k < P; ++k) {
        d->soff[k + 1] = d->soff[k] + d->scount[k];
        d->roff[k + 1] = d->roff[k] + d->rcount[k];
      }
      SG_CHECK(sg_grow((void **)&d->send_pairs, &d->cap_send, d->soff[P], sizeof(int), "halo plan"));
      SG_CHECK(sg_grow((void **)&d->recv_pairs, &d->cap_recv, d->roff[P], sizeof(int), "halo plan"));
      int c = d->cap_sbuf;
      SG_CHECK(sg_grow((void **)&d->send_buf, &c, 3 * d->soff[P], sizeof(double), "halo buffers"));
      d->cap_sbuf = c;
      c = d->cap_rbuf;
      SG_CHECK(sg_grow((void **)&d->recv_buf, &c, 3 * d->roff[P], sizeof(double), "halo buffers"));
      d->cap_rbuf = c;
      memset(d->scount, 0, (size_t)P * sizeof(int));
      memset(d->rcount, 0, (size_t)P * sizeof(int));
    }
    for (int i = 0; i < p->n_con; ++i) {
      if (!d->con_mine[i]) continue;
      int q0 = p->con_pair[i], q1 = p->con_pair[i + 1];
      for (int q = q0; q < q1; ++q) {
        int o = owner_of(p, p->pair_sub[q]);
        if (o != me) { /* y of a remote pair: received from its owner */
          if (pass) d->recv_pairs[d->roff[o] + d->rcount[o]] = q;
          d->rcount[o]++;
          continue;
        }
        for (int q2 = q0; q2 < q1; ++q2) { /* sent once to every other rank sharing the constraint */
          int o2 = owner_of(p, p->pair_sub[q2]), seen = 0;
          if (o2 == me) continue;
          for (int q3 = q0; q3 < q2; ++q3) seen |= owner_of(p, p->pair_sub[q3]) == o2;
          if (seen) continue;
          if (pass) d->send_pairs[d->soff[o2] + d->scount[o2]] = q;
          d->scount[o2]++;
        }
      }
    }
  }
  return plan_overlap(d, p);
}

/* The halo exchange of one iteration, y of shared pairs to and from every neighbour: posted as soon
 * as the boundary pairs are known, completed before the constraint update. */
static void exchange_start(subadmm *d) {
  const int P = d->size;
  d->nreq = 0;
  for (int k = 0; k < P; ++k)
    if (d->rcount[k])
      MPI_Irecv(d->recv_buf + 3 * d->roff[k], 3 * d->rcount[k], MPI_DOUBLE, k, 77, d->comm, &d->req[d->nreq++]);
  for (int k = 0; k < P; ++k) {
    if (!d->scount[k]) continue;
    for (int m = d->soff[k]; m < d->soff[k + 1]; ++m) memcpy(d->send_buf + 3 * m, d->y + 3 * d->send_pairs[m], 3 * sizeof(double));
    MPI_Isend(d->send_buf + 3 * d->soff[k], 3 * d->scount[k], MPI_DOUBLE, k, 77, d->comm, &d->req[d->nreq++]);
  }
}

static sg_err exchange_finish(subadmm *d) {
  const int P = d->size;
  double t0 = MPI_Wtime();
  int ok = MPI_Waitall(d->nreq, d->req, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
  sg_timer_add(SG_PHASE_HALO_WAIT, t0);
  sg_timers.halo_bytes += 3.0 * sizeof(double) * d->soff[P];
  for (int k = 0; k < P; ++k) sg_timers.halo_messages += d->scount[k] > 0;
  if (!ok) return sg_error_set(SG_ERR_LIB, "SubADMM: halo exchange failed");
  for (int m = 0; m < d->roff[P]; ++m) memcpy(d->y + 3 * d->recv_pairs[m], d->recv_buf + 3 * m, 3 * sizeof(double));
  return SG_OK;
}

/* The contact count per subsystem (pseudo-density of the initial beta): fixed during a step. */
static void count_pairs(subadmm *d, const sg_problem *p) {
  memset(d->sub_npairs, 0, (size_t)p->n_sub * sizeof(int));
  for (int i = 0; i < p->n_con; ++i)
    if (!sg_soft_fold_has(&d->fold, i))
      for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) d->sub_npairs[p->pair_sub[q]]++;
}

/* Does H_j (dof x dof) keep the sparsity of subsystem j's tree (problem.h: its unknowns' parents),
 * H_ab = 0 unless a and b are on one path to the root? A tree's A_j does (the CRBA's M), and so does
 * J^T J of a constraint along one path; a contact between two branches of one tree (J_A - J_B)
 * couples them, and H_j is then factorized densely. */
static int has_tree_sparsity(const sg_problem *p, int j, const double *Hj) {
  const int *parent = sg_problem_dof_parents(p, j), dof = p->sub_dof[j];
  uint64_t path[64]; /* path[k]: bit i set for i = k and each ancestor of k */
  if (!parent || dof > 64) return 0;
  for (int k = 0; k < dof; ++k) path[k] = (parent[k] >= 0 ? path[parent[k]] : 0) | (uint64_t)1 << k;
  for (int a = 0; a < dof; ++a)
    for (int b = 0; b < a; ++b)
      if (!(path[a] >> b & 1) && Hj[a * dof + b] != 0) return 0;
  return 1;
}

/* Row k of a compact pair (paper 002 (44)): g = sign [t_k^T, (r x t_k)^T]. */
static inline void compact_row(const double *R, const double *r, int k, double *g) {
  const double sign = r[3], *t = R + 3 * k;
  g[0] = sign * t[0], g[1] = sign * t[1], g[2] = sign * t[2];
  g[3] = sign * (r[1] * t[2] - r[2] * t[1]), g[4] = sign * (r[2] * t[0] - r[0] * t[2]), g[5] = sign * (r[0] * t[1] - r[1] * t[0]);
}

/* H += beta J^T J of a compact pair, 6 x 6: a tree link's H_b at its anchor. */
static void add_compact_outer(double *H, const double *R, const double *r, double beta) {
  for (int k = 0; k < 3; ++k) {
    double g[6];
    compact_row(R, r, k, g);
    for (int a = 0; a < 6; ++a)
      for (int b = 0; b < 6; ++b) H[6 * a + b] += beta * g[a] * g[b];
  }
}

/* The same into a rigid body's H, its lower triangle only (all that spd6_inverse reads), in closed
 * form: with J's rows sign [t_k; r x t_k] and the frame's rows orthonormal (sum_k t_k t_k^T = I),
 * J^T J = [I, [r]x^T; [r]x, |r|^2 I - r r^T], whatever the frame. */
static void add_compact_lower(double *restrict H, const double *r, double beta) {
  const double br[3] = {beta * r[0], beta * r[1], beta * r[2]}, rr = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  for (int a = 0; a < 3; ++a) H[7 * a] += beta;
  H[19] -= br[2], H[20] += br[1]; /* [r]x: rows 3-5, columns 0-2 (its diagonal is zero) */
  H[24] += br[2], H[26] -= br[0];
  H[30] -= br[1], H[31] += br[0];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b <= a; ++b) H[6 * (3 + a) + 3 + b] += (a == b ? beta * rr : 0) - br[a] * r[b];
}

/* H_b += beta J_{i,b}^T J_{i,b} of a compact tree pair at its anchor (paper 002 (40)-(41), (44)):
 * the link rows, 6 wide, instead of 3 x dof. */
static void add_link_block(subadmm *d, const sg_problem *p, int i, int q, double beta) {
  const int j = p->pair_sub[q];
  add_compact_outer(d->hb + 6 * (p->motion_off[j] + 6 * sg_problem_pair_anchor(p, q)), p->frame + 9 * i,
                    p->lever + 4 * q, beta);
}

/* H_j += the link blocks through the tree, as the composite-rigid-body algorithm sums link inertias
 * (Featherstone 2008, Sec. 6.2): C_c = H_c + the C of c's children; then for each unknown c,
 * F = C_c m_c and H_ac = m_a . F for a = c and each ancestor a (H's tree sparsity kept). */
static void add_tree_blocks(subadmm *d, const sg_problem *p, int j) {
  const int dof = p->sub_dof[j], *parent = sg_problem_dof_parents(p, j);
  const double *m = sg_problem_dof_motion(p, j);
  double *C = d->hb + 6 * p->motion_off[j], *H = d->L + p->sub_aoff[j];
  for (int c = dof - 1; c >= 0; --c) /* children after their parents: a backward sweep sums subtrees */
    if (parent[c] >= 0)
      for (int e = 0; e < 36; ++e) C[36 * parent[c] + e] += C[36 * c + e];
  for (int c = 0; c < dof; ++c) {
    double F[6];
    for (int a = 0; a < 6; ++a) {
      F[a] = 0;
      for (int b = 0; b < 6; ++b) F[a] += C[36 * c + 6 * a + b] * m[6 * c + b];
    }
    for (int a = c; a >= 0; a = parent[a]) {
      double h = 0;
      for (int e = 0; e < 6; ++e) h += m[6 * a + e] * F[e];
      H[a * dof + c] += h;
      if (a != c) H[c * dof + a] += h;
    }
  }
}

/* H_j = A_j + beta sum_i J_ij^T J_ij, factorized (40)-(41) (A'_j with folded soft rows). H is summed where its factor goes (no
 * Gram block is kept: 288 bytes less per body, for one pass over the pairs when beta changes); a
 * compact tree pair's share through its link block (add_link_block, add_tree_blocks). */
static sg_err factorize(subadmm *d, const sg_problem *p, double beta) {
  for (int k = 0; k < d->n_my_sub; ++k) {
    int j = d->my_sub[k], dof = p->sub_dof[j], off = p->sub_aoff[j];
    memcpy(d->L + off, sg_soft_fold_A(&d->fold, p, j), (size_t)dof * dof * sizeof(double));
    if (sg_problem_dof_motion(p, j)) memset(d->hb + 6 * p->motion_off[j], 0, 36 * (size_t)dof * sizeof(double));
  }
  for (int k = 0; k < d->n_my_con; ++k) { /* every constraint touching one of my subsystems */
    int i = d->my_con[k], rows = sg_con_rows(p->kind[i]);
    double buf[SG_COMPACT_BLOCK];
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      int j = p->pair_sub[q], dof = p->sub_dof[j];
      if (!d->sub_mine[j]) continue;
      if (sg_problem_pair_anchor(p, q) >= 0) {
        add_link_block(d, p, i, q, beta);
        continue;
      }
      if (sg_problem_pair_is_compact(p, q) && dof == 6) { /* a rigid body's pair: no 3 x 6 block expanded */
        add_compact_lower(d->L + p->sub_aoff[j], p->lever + 4 * q, beta);
        continue;
      }
      const double *J = sg_problem_pair_block(p, i, q, buf);
      double *H = d->L + p->sub_aoff[j];
      for (int r = 0; r < rows; ++r)
        for (int a = 0; a < dof; ++a) {
          double ja = beta * J[r * dof + a];
          if (ja == 0) continue;
          for (int b = 0; b < dof; ++b) H[a * dof + b] += ja * J[r * dof + b];
        }
    }
  }
  for (int k = 0; k < d->n_my_sub; ++k)
    if (sg_problem_dof_motion(p, d->my_sub[k])) add_tree_blocks(d, p, d->my_sub[k]);
  double H[36];
  for (int k = 0; k < d->n_my_sub; ++k) {
    int j = d->my_sub[k], dof = p->sub_dof[j], off = p->sub_aoff[j];
    sg_err err;
    d->sub_ltl[j] = dof != 6 && !d->dense_trees && has_tree_sparsity(p, j, d->L + off);
    if (dof == 6) {
      memcpy(H, d->L + off, sizeof H);
      err = spd6_inverse(H, d->L + off); /* rigid bodies keep H^{-1}: the v-update is one mat-vec */
    } else if (d->sub_ltl[j]) {
      err = ltl_factor(dof, sg_problem_dof_parents(p, j), d->L + off); /* (40)-(41): no fill-in */
    } else {
      double *Hj = d->L + off; /* factor in place of a copy */
      double *tmp = sg_calloc((size_t)dof * dof, sizeof *tmp, "SubADMM factor");
      if (!tmp) return SG_ERR_MEM;
      memcpy(tmp, Hj, (size_t)dof * dof * sizeof *tmp);
      err = chol_factor(dof, tmp, Hj);
      free(tmp);
    }
    if (err)
      return sg_error_set(SG_ERR_NUMERIC, "SubADMM: H_j of subsystem %lld is not positive definite", (long long)p->sub_gid[j]);
  }
  return SG_OK;
}

/* factorize, then on the rank that SG_FAULT names the injected failure of fault_phase (fault.h) */
static sg_err factorize_or_fault(subadmm *d, const sg_problem *p, double beta, const char *fault_phase) {
  SG_CHECK(factorize(d, p, beta));
  return sg_fault_check(fault_phase, sg_fault_step());
}

/* The sum over the pairs of each of my subsystems that is not a rigid body's (dof != 6) of the mass
 * its rows feel, rows / sum_rc J_rc^2 / A_cc (the mean over its rows of 1 / J A^-1 J^T, with A's
 * diagonal for A), into msum (one entry per subsystem). */
static void tree_pair_masses(const subadmm *d, const sg_problem *p, double *msum) {
  for (int k = 0; k < d->n_my_con; ++k) {
    int i = d->my_con[k], rows = sg_con_rows(p->kind[i]);
    double buf[SG_COMPACT_BLOCK];
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      int j = p->pair_sub[q], dof = p->sub_dof[j];
      if (!d->sub_mine[j] || dof == 6) continue;
      const double *J = sg_problem_pair_block(p, i, q, buf), *A = p->A + p->sub_aoff[j]; /* the mass, not A'_j */
      double den = 0;
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < dof; ++c) den += J[r * dof + c] * J[r * dof + c] / A[c * dof + c];
      if (den > 0) msum[j] += rows / den;
    }
  }
}

/* Initial penalty: geometric mean over subsystems with constraints of the pseudo-density
 * (mass / number of contact points), paper 002 Sec. VI-D. The mass of a rigid body's block is its
 * largest diagonal entry (the body mass). A tree's diagonal entries are moments of inertia about its
 * joints (m l^2), which its contacts' rows meet with their levers l (J ~ l): its mass is the mean
 * over its pairs of the mass each pair's rows feel (tree_pair_masses), so that beta J^T J is of the
 * order of A for it as for a rigid body. Its largest A_cc would make beta J^T J larger than A by
 * (l / unit length)^2, and the penalty's slow primal-dual balance then stalls the iteration; a ratio
 * of traces counts the masses of velocities no row moves (a floating link beside a slider's limit);
 * a largest ratio per velocity, a joint its contacts barely move. Folded soft rows (soft_fold.h)
 * are no contact points. Each rank sums the logarithms of its own
 * subsystems (whose pair counts are complete: every constraint touching them is here) and the sum
 * over ranks is exact (sg_sum_reproducible), so beta has the same bits whatever P. */
static sg_err initial_beta(const subadmm *d, const sg_problem *p, double *beta) {
  double *logs = sg_calloc((size_t)d->n_my_sub + 1, sizeof *logs, "SubADMM pseudo-densities");
  double *msum = sg_calloc((size_t)p->n_sub + 1, sizeof *msum, "SubADMM pseudo-densities");
  SG_CHECK(sg_error_collective(d->comm, logs && msum ? SG_OK : SG_ERR_MEM)); /* before the reduction below */
  tree_pair_masses(d, p, msum);
  int n = 0;
  for (int k = 0; k < d->n_my_sub; ++k) {
    int j = d->my_sub[k];
    if (!d->sub_npairs[j]) continue;
    int dof = p->sub_dof[j];
    const double *A = p->A + p->sub_aoff[j];
    double m = 0;
    if (dof == 6)
      for (int c = 0; c < dof; ++c) m = fmax(m, A[c * dof + c]);
    else
      m = msum[j] / d->sub_npairs[j];
    if (m > 0) logs[n++] = log(m / d->sub_npairs[j]);
  }
  free(msum);
  double sum = sg_sum_reproducible(d->comm, logs, n);
  long long count = n;
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_LONG_LONG, MPI_SUM, d->comm);
  free(logs);
  *beta = d->beta_factor * (count ? exp(sum / (double)count) : 1.0);
  return SG_OK;
}

/* The motion (lin, ang) each unknown's chain gives its link at vhat_j: T_c = T_parent(c) + m_c v_c. */
static void link_motions(subadmm *d, const sg_problem *p, int j, const double *vj) {
  const int dof = p->sub_dof[j], *parent = sg_problem_dof_parents(p, j);
  const double *m = sg_problem_dof_motion(p, j);
  double *T = d->twist + p->motion_off[j];
  for (int c = 0; c < dof; ++c)
    for (int e = 0; e < 6; ++e) T[6 * c + e] = (parent[c] >= 0 ? T[6 * parent[c] + e] : 0.0) + m[6 * c + e] * vj[c];
}

/* acc_j += J_q^T f for pair q on my subsystem j: a compact tree pair's J_{i,b}^T f into its anchor's
 * wrench (wrench: d->wrench_l or d->wrench_w), any other pair at once into acc (s_lam or s_rhs). */
static inline void sum_jt(const sg_problem *p, int i, int q, int rows, const double *f, double *acc, double *wrench) {
  const int anchor = sg_problem_pair_anchor(p, q);
  if (anchor < 0) {
    pair_apply_T(p, i, q, rows, f, acc);
    return;
  }
  sg_compact_jt(p->frame + 9 * i, p->lever + 4 * q, f, wrench + p->motion_off[p->pair_sub[q]] + 6 * anchor);
}

/* The pass's anchored wrenches into the J^T sums: summed from the leaves up (children after their
 * parents), the chain of unknown c carries the wrench W_c of its subtree, so sum_J^T f at c is
 * m_c . W_c. Cleared for the next pass. */
static void flush_wrenches(subadmm *d, const sg_problem *p) {
  for (int k = 0; k < d->n_my_sub; ++k) {
    const int j = d->my_sub[k];
    if (!sg_problem_dof_motion(p, j)) continue;
    const int dof = p->sub_dof[j], *parent = sg_problem_dof_parents(p, j), off = p->sub_off[j];
    const double *m = sg_problem_dof_motion(p, j);
    for (int which = 0; which < (d->rebuild_sums ? 1 : 2); ++which) {
      double *W = (which ? d->wrench_w : d->wrench_l) + p->motion_off[j], *acc = (which ? d->s_rhs : d->s_lam) + off;
      for (int c = dof - 1; c >= 0; --c) {
        if (parent[c] >= 0)
          for (int e = 0; e < 6; ++e) W[6 * parent[c] + e] += W[6 * c + e];
        acc[c] += m[6 * c] * W[6 * c] + m[6 * c + 1] * W[6 * c + 1] + m[6 * c + 2] * W[6 * c + 2] + m[6 * c + 3] * W[6 * c + 3] +
                  m[6 * c + 4] * W[6 * c + 4] + m[6 * c + 5] * W[6 * c + 5];
      }
      memset(W, 0, 6 * (size_t)dof * sizeof *W);
    }
  }
}

/* The zeros of a 6-unknown A_j, exactly: a sphere's mass matrix is diagonal and any rigid body's
 * [m I, 0; 0, I_world] (a folded soft row or another kind of subsystem fills it). A_j v then skips
 * the products with zeros, which add nothing to the dense sums: the same values. */
enum { A6_DENSE, A6_RIGID, A6_DIAGONAL };
static unsigned char a6_shape(const double *A) {
  int diagonal = 1, rigid = 1;
  for (int a = 0; a < 6; ++a)
    for (int c = 0; c < 6; ++c) {
      if (a == c || A[6 * a + c] == 0) continue;
      diagonal = 0;
      if (a < 3 || c < 3) rigid = 0;
    }
  return diagonal ? A6_DIAGONAL : rigid ? A6_RIGID : A6_DENSE;
}

/* The shapes of my 6-unknown subsystems' A_j, and the diagonal ones' diagonals in a row of six (the
 * products below read one cache line instead of five). */
static void classify_masses(subadmm *d, const sg_problem *p) {
  for (int k = 0; k < d->n_my_sub; ++k) {
    const int j = d->my_sub[k];
    if (p->sub_dof[j] != 6) continue;
    const double *A = sg_soft_fold_A(&d->fold, p, j);
    d->sub_ashape[j] = a6_shape(A);
    for (int a = 0; a < 6; ++a) d->adiag[p->sub_off[j] + a] = A[7 * a];
  }
}

/* out = A v for a 6-unknown A of the given shape (diag: its diagonal, classify_masses), each row
 * summed left to right as the dense product. */
static inline void a6_times(const double *A, unsigned char shape, const double *diag, const double *v, double *out) {
  if (shape == A6_DIAGONAL) {
    for (int a = 0; a < 6; ++a) out[a] = diag[a] * v[a];
    return;
  }
  if (shape == A6_DENSE) {
    for (int a = 0; a < 6; ++a)
      out[a] = A[6 * a] * v[0] + A[6 * a + 1] * v[1] + A[6 * a + 2] * v[2] + A[6 * a + 3] * v[3] + A[6 * a + 4] * v[4] +
               A[6 * a + 5] * v[5];
    return;
  }
  for (int a = 0; a < 3; ++a) out[a] = diag[a] * v[a]; /* A6_RIGID: [m I, 0; 0, I_world] */
  for (int a = 3; a < 6; ++a) out[a] = A[6 * a + 3] * v[3] + A[6 * a + 4] * v[4] + A[6 * a + 5] * v[5];
}

/* The next T of rebuilt sums (below) from b, T and L_old of an entry and its A vhat. Over-relaxed
 * (alpha != 1), beta z_new = beta (alpha J vhat + (1 - alpha) z_old) - lambda_old + lambda_new, so
 * sum J^T (beta z_new + lambda_new) = alpha beta G vhat + (1 - alpha) (T + L_old) - L_old + 2 L_new,
 * sum J^T beta z_old being T + L_old: T' = alpha (b + T + 2 L_old - A vhat) + (1 - alpha) (T + L_old) - L_old. */
static inline double next_rebuilt_t(int relaxed, double alpha, double b, double t, double l_old, double av) {
  if (!relaxed) return b + t + l_old - av;
  return alpha * (b + t + 2 * l_old - av) + (1 - alpha) * (t + l_old) - l_old;
}

/* Pass 1 (34): vhat_j = H_j^{-1} (b_j + s_rhs_j) for my subsystems my_sub[from .. to). The sums
 * are then cleared for pass 3 to accumulate the next ones (here, where they are in cache, rather
 * than by a pass of their own).
 * With rebuilt sums: pass 3 of the last iteration, from y_ij = beta J_ij vhat_j - lambda_i (39),
 * gave s_rhs = sum J^T (y + 2 lambda_new) = beta G_j vhat_j - L_old + 2 L_new, G_j = sum J_ij^T J_ij,
 * L = sum J^T lambda. Since H_j = A_j + beta G_j, beta G_j vhat_j = b_j + s_rhs_j - A_j vhat_j: here, with
 * L_old still in s_lam, s_rhs keeps T = b_j + s_rhs_j - A_j vhat_j - L_old, pass 3 sums only L_new into
 * s_lam, and the next s_rhs is T + 2 L_new: one J^T product per pair instead of two. `relaxed` is
 * alpha != 1, a constant at each call (v_update_range) for a loop without its test. */
static inline __attribute__((always_inline)) void v_update_body(subadmm *d, const sg_problem *p, double *v, int from,
                                                                int to, int relaxed) {
  for (int m = from; m < to; ++m) {
    int j = d->my_sub[m];
    int dof = p->sub_dof[j], off = p->sub_off[j];
    const double *L = d->L + p->sub_aoff[j], *b = sg_soft_fold_b(&d->fold, p, j);
    double *sr = d->s_rhs + off, *sl = d->s_lam + off, *vj = v + off;
    if (dof == 6) {
      double rhs[6];
      if (d->rebuild_sums)
        for (int k = 0; k < 6; ++k) rhs[k] = b[k] + sr[k] + 2 * sl[k];
      else
        for (int k = 0; k < 6; ++k) rhs[k] = b[k] + sr[k];
      /* H_j^{-1} rhs by columns (H_j^{-1} is exactly symmetric: column c is row c, contiguous), each
       * entry summed over c left to right as by rows: the same values, in vector registers */
      double acc[6];
      for (int r = 0; r < 6; ++r) acc[r] = L[r] * rhs[0];
      for (int c = 1; c < 6; ++c)
        for (int r = 0; r < 6; ++r) acc[r] += L[6 * c + r] * rhs[c];
      memcpy(vj, acc, sizeof acc);
    } else {
      for (int k = 0; k < dof; ++k) vj[k] = d->rebuild_sums ? b[k] + sr[k] + 2 * sl[k] : b[k] + sr[k];
      if (d->sub_ltl[j]) ltl_solve(dof, sg_problem_dof_parents(p, j), L, vj);
      else chol_solve(dof, L, vj, vj);
    }
    if (d->rebuild_sums && dof == 6) { /* T from A vhat (next_rebuilt_t) */
      double av[6];
      a6_times(sg_soft_fold_A(&d->fold, p, j), d->sub_ashape[j], d->adiag + off, vj, av);
      for (int a = 0; a < 6; ++a) {
        sr[a] = next_rebuilt_t(relaxed, d->relax, b[a], sr[a], sl[a], av[a]);
        d->avb[off + a] = av[a] - b[a]; /* for theta_d (dual_residual) */
      }
    } else if (d->rebuild_sums) {
      const double *A = sg_soft_fold_A(&d->fold, p, j);
      for (int a = 0; a < dof; ++a) { /* T as above */
        double av = 0;
        for (int c = 0; c < dof; ++c) av += A[a * dof + c] * vj[c];
        sr[a] = next_rebuilt_t(relaxed, d->relax, b[a], sr[a], sl[a], av);
      }
    } else {
      memset(sr, 0, (size_t)dof * sizeof(double));
    }
    if (dof == 6) memset(sl, 0, 6 * sizeof(double)); /* a fixed size: inlined */
    else memset(sl, 0, (size_t)dof * sizeof(double));
    if (sg_problem_dof_motion(p, j)) link_motions(d, p, j, vj);
  }
}

/* Built twice, for AVX2 and the baseline, the processor's picked at load time: the same operations
 * in the same order (no contraction under strict C17), on wider vectors where they run. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void v_update_range(subadmm *d, const sg_problem *p, double *v, int from, int to) {
  if (d->relax == 1.0) v_update_body(d, p, v, from, to, 0);
  else v_update_body(d, p, v, from, to, 1);
}

/* y_ij = beta xhat_ij - lambda_i of pair q from y = J_ij vhat_j (in place), xhat_ij = alpha J_ij
 * vhat_j + (1 - alpha) z_ij: one formula for a pair whose y is sent and one whose y is fused. */
static inline void pair_y_from_jv(const subadmm *d, int keep_z, int q, const double *li, double beta, int rows, double *y) {
  if (!keep_z) {
    for (int r = 0; r < rows; ++r) y[r] = beta * y[r] - li[r];
    return;
  }
  const double alpha = d->relax, *z = d->z + 3 * q;
  for (int r = 0; r < rows; ++r) y[r] = beta * (alpha * y[r] + (1 - alpha) * z[r]) - li[r];
}

/* Pass 2: y_ij = beta xhat_ij - lambda_i for the (constraint, pair) entries of list, xhat_ij = alpha
 * J_ij vhat_j + (1 - alpha) z_ij (alpha = 1 is the plain update (35); alpha > 1 is the usual ADMM
 * over-relaxation). */
static void pair_values(subadmm *d, const sg_problem *p, const double *v, const double *lambda, double beta,
                        const int *list, int n) {
  const int rebuilt = d->rebuild_sums; /* plain, or relaxed with world slacks */
  for (int m = 0; m < n; ++m) {
    int i = list[2 * m], q = list[2 * m + 1];
    int rows = sg_con_rows(p->kind[i]), j = p->pair_sub[q];
    const double *li = lambda + p->con_row[i];
    double *y = d->y + 3 * q;
    if (rebuilt && compact_contact(d, p, i)) { /* update_compact_contact sums and rotates it */
      sg_compact_world_velocity(p->lever + 4 * q, v + p->sub_off[j], y);
      continue;
    }
    const int anchor = sg_problem_pair_anchor(p, q);
    if (sg_problem_pair_is_compact(p, q)) sg_compact_jv(p->frame + 9 * i, p->lever + 4 * q, v + p->sub_off[j], y);
    else if (anchor >= 0) sg_compact_jv(p->frame + 9 * i, p->lever + 4 * q, d->twist + p->motion_off[j] + 6 * anchor, y); /* link_motions */
    else if (rows == 3 && p->sub_dof[j] == 6 && sg_problem_pair_is_dense(p, q)) jv_3x6(p->J + p->pair_joff[q], v + p->sub_off[j], y);
    else pair_apply(p, i, q, rows, v, y);
    pair_y_from_jv(d, d->keep_z, q, li, beta, rows, y);
  }
}

/* The new z_ij (35) of a pair from its y and lambda before and after, and its squared
 * ||J_ij vhat_j - z_ij||, J v recovered from y = beta (alpha J v + (1 - alpha) z_old) - lambda_old. */
static inline double pair_slack(const subadmm *d, const double *y, const double *li, const double *ln, double *z,
                                int rows, double inv_beta) {
  const double alpha = d->relax, inv_alpha = 1.0 / alpha;
  double dp = 0;
  for (int r = 0; r < rows; ++r) {
    const double jv = ((y[r] + li[r]) * inv_beta - (1 - alpha) * z[r]) * inv_alpha;
    z[r] = (y[r] + ln[r]) * inv_beta;
    dp += (jv - z[r]) * (jv - z[r]);
  }
  return dp;
}

/* The largest squared ||J_ij vhat_j - z_ij|| over the pairs q0.. of a contact and, with
 * over-relaxation, the new z_ij (35). Under the plain update every pair has J_ij vhat_j - z_ij =
 * (lambda_old - lambda_new) / beta. */
static inline double compact_slacks(subadmm *d, int keep_z, int q0, int nz, double y[2][3], const double *li,
                                    const double *ln, double inv_beta) {
  double theta_p = 0;
  if (!keep_z) {
    for (int r = 0; r < 3; ++r) {
      const double dz = (li[r] - ln[r]) * inv_beta;
      theta_p += dz * dz;
    }
    return theta_p;
  }
  for (int k = 0; k < nz; ++k) theta_p = max2(theta_p, pair_slack(d, y[k], li, ln, d->z + 3 * (q0 + k), 3, inv_beta));
  return theta_p;
}

/* The cone's argument ls = -(sum_j y_ij + beta e_i) / n_i of (38) for a compact contact under the
 * default update, from its pairs' world velocities u_j (computed here for a fused pair, in y by
 * pair_values otherwise; left in y[k]): sum_j y_ij = beta R sum_j u_j - n_i lambda_i, so
 * ls = lambda_i - (beta / n_i) (R sum_j u_j + e_i), one rotation per contact. */
static inline __attribute__((always_inline)) void summed_cone_argument(const subadmm *d, const sg_problem *p, int i,
                                                                       const double *v, const double *li, double beta,
                                                                       int nz, int fused_nz, double y[2][3], double *ls) {
  const int q0 = p->con_pair[i];
  const double *R = p->frame + 9 * i, *e = p->e + p->con_row[i];
  double u[3] = {0, 0, 0}, Ru[3];
  for (int k = 0; k < nz; ++k) {
    const int q = q0 + k;
    if (fused_nz || d->fused[q]) sg_compact_world_velocity(p->lever + 4 * q, v + p->sub_off[p->pair_sub[q]], y[k]);
    else memcpy(y[k], d->y + 3 * q, sizeof y[k]);
    for (int r = 0; r < 3; ++r) u[r] += y[k][r];
  }
  sg_frame_apply(R, u, Ru);
  const double step = beta * (nz == 2 ? 0.5 : 1.0); /* exact */
  for (int r = 0; r < 3; ++r) ls[r] = li[r] - step * (Ru[r] + e[r]);
}

/* The same over-relaxed (35) with world slacks: y_ij = beta (alpha R u_j + (1 - alpha) R zeta_ij) - lambda_i,
 * so ls = lambda_i - (beta / n_i) (R sum_j w_j + e_i) with w_j = alpha u_j + (1 - alpha) zeta_ij, again
 * one rotation per contact. Leaves u_j in u[k] and w_j in w[k]. */
static inline __attribute__((always_inline)) void relaxed_cone_argument(const subadmm *d, const sg_problem *p, int i,
                                                                        const double *v, const double *li, double beta,
                                                                        int nz, int fused_nz, double u[2][3],
                                                                        double w[2][3], double *ls) {
  const int q0 = p->con_pair[i];
  const double *R = p->frame + 9 * i, *e = p->e + p->con_row[i], alpha = d->relax;
  double sum_w[3] = {0, 0, 0}, Rw[3];
  for (int k = 0; k < nz; ++k) {
    const int q = q0 + k;
    const double *zeta = d->z + 3 * q;
    if (fused_nz || d->fused[q]) sg_compact_world_velocity(p->lever + 4 * q, v + p->sub_off[p->pair_sub[q]], u[k]);
    else memcpy(u[k], d->y + 3 * q, sizeof u[k]);
    for (int r = 0; r < 3; ++r) {
      w[k][r] = alpha * u[k][r] + (1 - alpha) * zeta[r];
      sum_w[r] += w[k][r];
    }
  }
  sg_frame_apply(R, sum_w, Rw);
  const double step = beta * (nz == 2 ? 0.5 : 1.0); /* exact */
  for (int r = 0; r < 3; ++r) ls[r] = li[r] - step * (Rw[r] + e[r]);
}

/* The new world slacks zeta_ij = R^T z_ij = w_j + R^T (lambda_new - lambda_old) / beta (35) and the
 * largest squared ||J_ij vhat_j - z_ij|| = ||u_j - zeta_ij|| (R is orthonormal) of the pairs. */
static inline double world_slack_update(subadmm *d, const double *R, int q0, int nz, double u[2][3], double w[2][3],
                                        const double *li, const double *ln, double inv_beta) {
  double dl[3] = {ln[0] - li[0], ln[1] - li[1], ln[2] - li[2]}, shift[3], theta_p = 0;
  sg_frame_t(R, dl, shift);
  for (int k = 0; k < nz; ++k) {
    double *zeta = d->z + 3 * (q0 + k), dp = 0;
    for (int r = 0; r < 3; ++r) {
      zeta[r] = w[k][r] + shift[r] * inv_beta;
      dp += (u[k][r] - zeta[r]) * (u[k][r] - zeta[r]);
    }
    theta_p = max2(theta_p, dp);
  }
  return theta_p;
}

/* The same from each pair's y_ij (35) (computed here for a fused pair, received otherwise; left in
 * y[k]): with z kept (over-relaxation) or sums not rebuilt, which need each pair's. */
static inline __attribute__((always_inline)) void pairs_cone_argument(const subadmm *d, const sg_problem *p, int i,
                                                                      const double *v, const double *li, double beta,
                                                                      int nz, int fused_nz, int keep_z, double y[2][3],
                                                                      double *ls) {
  const int q0 = p->con_pair[i];
  const double *R = p->frame + 9 * i, *e = p->e + p->con_row[i];
  const double inv_nz = nz == 2 ? 0.5 : 1.0;
  double sum_y[3] = {0, 0, 0};
  for (int k = 0; k < nz; ++k) {
    const int q = q0 + k;
    if (fused_nz || d->fused[q]) {
      sg_compact_jv(R, p->lever + 4 * q, v + p->sub_off[p->pair_sub[q]], y[k]);
      pair_y_from_jv(d, keep_z, q, li, beta, 3, y[k]);
    } else {
      memcpy(y[k], d->y + 3 * q, sizeof y[k]);
    }
    for (int r = 0; r < 3; ++r) sum_y[r] += y[k][r];
  }
  for (int r = 0; r < 3; ++r) ls[r] = -(sum_y[r] + beta * e[r]) * inv_nz;
}

/* Pass 3 for a compact contact (strict cone): the values of its fused pairs computed here from
 * vhat (pass 2 fused in, while the frame is in cache), lambda by the strict cone (38), and
 * w = beta z_ij - u_ij = y_ij + 2 lambda_i (35), (39) summed into the owners' J^T sums. Returns
 * the largest squared ||J_ij vhat_j - z_ij|| of its pairs. keep_z and rebuild are d's, passed as
 * constants where the caller knows them (the default: no z, rebuilt sums) for a kernel without
 * their tests; fused_nz likewise: 1 or 2 when the contact has that many pairs, all fused (so
 * mine), 0 to look. Inlined at each call so that each gets its constants (GCC otherwise makes one
 * clone that tests them). */
static inline __attribute__((always_inline)) double
update_compact_contact(subadmm *d, const sg_problem *p, int i, const double *v, double *lambda, double beta,
                       double inv_beta, int keep_z, int rebuild, int fused_nz) {
  const int q0 = p->con_pair[i];
  const int nz = fused_nz ? fused_nz : p->con_pair[i + 1] - q0 == 2 ? 2 : 1; /* a contact has 1 or 2 pairs */
  const double *R = p->frame + 9 * i;
  double *li = lambda + p->con_row[i];
  double y[2][3], relaxed_u[2][3], ls[3], ln[3], dp;
  if (!keep_z && rebuild) summed_cone_argument(d, p, i, v, li, beta, nz, fused_nz, y, ls);
  else if (rebuild) relaxed_cone_argument(d, p, i, v, li, beta, nz, fused_nz, relaxed_u, y, ls);
  else pairs_cone_argument(d, p, i, v, li, beta, nz, fused_nz, keep_z, y, ls);
  sg_cone_project_strict(p->mu[i], ls, ln);
  if (keep_z && rebuild) dp = world_slack_update(d, R, q0, nz, relaxed_u, y, li, ln, inv_beta);
  else dp = compact_slacks(d, keep_z, q0, nz, y, li, ln, inv_beta);
  double Rtl[3] = {0, 0, 0}; /* R^T lambda_i, shared by the pairs (their signs are exact) */
  if (rebuild) sg_frame_t(R, ln, Rtl);
  for (int k = 0; k < nz; ++k) {
    const int q = q0 + k, j = p->pair_sub[q];
    if (!fused_nz && !d->sub_mine[j]) continue; /* the owner accumulates (a fused pair is mine) */
    if (rebuild) {
      sg_compact_jt_from(p->lever + 4 * q, Rtl, d->s_lam + p->sub_off[j]);
      continue;
    }
    const double w[3] = {y[k][0] + 2 * ln[0], y[k][1] + 2 * ln[1], y[k][2] + 2 * ln[2]};
    compact_jt2(R, p->lever + 4 * q, w, ln, d->s_rhs + p->sub_off[j], d->s_lam + p->sub_off[j]);
  }
  for (int r = 0; r < 3; ++r) li[r] = ln[r];
  return dp;
}

/* update_compact_contact's default case (no z, rebuilt sums) for a contact between two bodies of
 * mine, its pairs' signs +1 and -1, with the signs folded into a difference of the bodies' point
 * velocities and a sum and a difference of their wrenches: the same values, without the sign
 * products (exact: see sg_point_wrench_add). */
static inline double update_fused_pair(subadmm *d, const sg_problem *p, int i, const double *v, double *lambda,
                                       double beta, double inv_beta) {
  const int q0 = p->con_pair[i];
  const double *R = p->frame + 9 * i, *e = p->e + p->con_row[i];
  const double *lever_a = p->lever + 4 * q0, *lever_b = lever_a + 4;
  const int off_a = p->sub_off[p->pair_sub[q0]], off_b = p->sub_off[p->pair_sub[q0 + 1]];
  double *li = lambda + p->con_row[i];
  double wa[3], wb[3], u[3], Ru[3], ls[3], ln[3], Rtl[3];
  sg_point_velocity(lever_a, v + off_a, wa);
  sg_point_velocity(lever_b, v + off_b, wb);
  for (int r = 0; r < 3; ++r) u[r] = wa[r] - wb[r]; /* the pairs' sum (38) */
  sg_frame_apply(R, u, Ru);
  const double step = beta * 0.5; /* exact */
  for (int r = 0; r < 3; ++r) ls[r] = li[r] - step * (Ru[r] + e[r]);
  sg_cone_project_strict(p->mu[i], ls, ln);
  const double dp = compact_slacks(d, 0, q0, 2, NULL, li, ln, inv_beta);
  sg_frame_t(R, ln, Rtl);
  sg_point_wrench_add(lever_a, Rtl, d->s_lam + off_a);
  sg_point_wrench_sub(lever_b, Rtl, d->s_lam + off_b);
  for (int r = 0; r < 3; ++r) li[r] = ln[r];
  return dp;
}

/* Pass 3 for any other constraint: lambda_i by (36) hard or bilateral, (37) soft or (38) contact (strict, or
 * Euclidean with the De Saxce term), z_ij (35), and the owners' J^T sums. Returns the largest
 * squared ||J_ij vhat_j - z_ij|| of its pairs. */
static double update_constraint(subadmm *d, const sg_problem *p, int i, double *lambda, double beta, double inv_beta) {
  int rows = sg_con_rows(p->kind[i]), q0 = p->con_pair[i], q1 = p->con_pair[i + 1], nz = q1 - q0;
  const double inv_nz = nz == 2 ? 0.5 : 1.0 / nz;
  double *li = lambda + p->con_row[i];
  const double *e = p->e + p->con_row[i];
  double sum_y[3] = {0, 0, 0}, ln[3], theta_p = 0;
  for (int q = q0; q < q1; ++q)
    for (int r = 0; r < rows; ++r) sum_y[r] += d->y[3 * q + r];
  switch (p->kind[i]) {
    case SG_CON_HARD: /* (36) */
      ln[0] = max2(0.0, -(sum_y[0] + beta * e[0]) * inv_nz);
      break;
    case SG_CON_BILATERAL: /* (36) with the projection onto R, the identity */
      ln[0] = -(sum_y[0] + beta * e[0]) * inv_nz;
      break;
    case SG_CON_SOFT: /* (37) */
      ln[0] = -(p->damp[i] * sum_y[0] + beta * p->stiff[i] * e[0]) / (p->damp[i] * nz + beta);
      break;
    default: { /* (38) */
      double ls[3];
      for (int r = 0; r < 3; ++r) ls[r] = -(sum_y[r] + beta * e[r]) * inv_nz;
      if (d->desaxce) {
        /* De Saxce: (z + e + [mu ||z_t||, 0, 0]) in C* _|_ lambda in C is Coulomb's law; with
         * z_t from the previous iterate the projection is convex (the prox of C's indicator) */
        ls[0] -= beta * d->shift[i] * inv_nz;
        sg_cone_project_euclid(p->mu[i], ls, ln);
      } else {
        sg_cone_project_strict(p->mu[i], ls, ln);
      }
    }
  }
  for (int q = q0; q < q1; ++q) {
    double w[3], z_here[3] = {0, 0, 0}, *z = d->keep_z ? d->z + 3 * q : z_here;
    theta_p = max2(theta_p, pair_slack(d, d->y + 3 * q, li, ln, z, rows, inv_beta)); /* squared; one sqrt at the end */
    for (int r = 0; r < rows; ++r) w[r] = d->y[3 * q + r] + 2 * ln[r]; /* beta z_ij - u_ij with u_ij = -lambda_i (39) */
    int j = p->pair_sub[q];
    if (!d->sub_mine[j]) continue; /* the owner accumulates */
    if (d->rebuild_sums) {
      if (sg_problem_pair_is_compact(p, q)) sg_compact_jt(p->frame + 9 * i, p->lever + 4 * q, ln, d->s_lam + p->sub_off[j]);
      else sum_jt(p, i, q, rows, ln, d->s_lam, d->wrench_l);
      continue;
    }
    if (sg_problem_pair_is_compact(p, q)) {
      compact_jt2(p->frame + 9 * i, p->lever + 4 * q, w, ln, d->s_rhs + p->sub_off[j], d->s_lam + p->sub_off[j]);
    } else if (rows == 3 && p->sub_dof[j] == 6 && sg_problem_pair_is_dense(p, q)) {
      jt2_3x6(p->J + p->pair_joff[q], w, ln, d->s_rhs + p->sub_off[j], d->s_lam + p->sub_off[j]);
    } else {
      sum_jt(p, i, q, rows, w, d->s_rhs, d->wrench_w);
      sum_jt(p, i, q, rows, ln, d->s_lam, d->wrench_l);
    }
  }
  for (int r = 0; r < rows; ++r) li[r] = ln[r];
  return theta_p;
}

/* The batch of fused contacts that starts at position k of the pass (subadmm_fused.h) or -1; `at`
 * walks the batches in order. */
static inline int batch_at(const subadmm *d, int k, int *at) {
  if (*at >= d->fc.n_batch || d->fc.start[*at] != k) return -1;
  return (*at)++;
}

/* Pass 3 under the default update (no z, rebuilt sums): its own loop, without the other cases'
 * tests. Returns the largest squared ||J_ij vhat_j - z_ij||. */
static double plain_pass(subadmm *d, const sg_problem *p, const double *v, double *lambda, double beta, double inv_beta) {
  double theta_p = 0;
  for (int k = 0, at = 0; k < d->n_my_con; ++k) {
    const int i = d->my_con[k], kind = d->con_compact[k], b = batch_at(d, k, &at);
    if (b >= 0) { /* this contact and the next SG_FUSED_LANES - 1 */
      theta_p = sg_fused_contacts_plain(&d->fc, b, v, lambda, d->s_lam, beta, inv_beta, theta_p);
      k += SG_FUSED_LANES - 1;
      continue;
    }
    double t;
    if (kind == COMPACT_FUSED_2) t = update_fused_pair(d, p, i, v, lambda, beta, inv_beta);
    else if (kind == COMPACT_FUSED_1) t = update_compact_contact(d, p, i, v, lambda, beta, inv_beta, 0, 1, 1);
    else if (kind) t = update_compact_contact(d, p, i, v, lambda, beta, inv_beta, 0, 1, 0);
    else t = update_constraint(d, p, i, lambda, beta, inv_beta);
    theta_p = max2(theta_p, t);
  }
  return theta_p;
}

/* Pass 3 over my constraints; returns theta_p = max ||J_ij vhat_j - z_ij|| (42). */
static double constraint_update(subadmm *d, const sg_problem *p, const double *v, double *lambda, double beta) {
  const double inv_beta = 1.0 / beta; /* no divisions per pair; the sums were cleared by pass 1 */
  const int relaxed = d->keep_z && d->rebuild_sums; /* over-relaxed with world slacks: its own fused copies */
  double theta_p = 0;
  if (plain_update(d)) theta_p = plain_pass(d, p, v, lambda, beta, inv_beta);
  else
    for (int k = 0, at = 0; k < d->n_my_con; ++k) {
      const int i = d->my_con[k], kind = d->con_compact[k], b = relaxed ? batch_at(d, k, &at) : -1;
      if (b >= 0) { /* this contact and the next SG_FUSED_LANES - 1 */
        theta_p = sg_fused_contacts_relaxed(&d->fc, b, v, lambda, d->s_lam, d->z, d->relax, beta, inv_beta, theta_p);
        k += SG_FUSED_LANES - 1;
        continue;
      }
      double t;
      if (!kind) t = update_constraint(d, p, i, lambda, beta, inv_beta);
      else if (relaxed && kind == COMPACT_FUSED_2) t = update_compact_contact(d, p, i, v, lambda, beta, inv_beta, 1, 1, 2);
      else if (relaxed && kind == COMPACT_FUSED_1) t = update_compact_contact(d, p, i, v, lambda, beta, inv_beta, 1, 1, 1);
      else t = update_compact_contact(d, p, i, v, lambda, beta, inv_beta, d->keep_z, d->rebuild_sums, 0);
      theta_p = max2(theta_p, t);
    }
  if (p->has_motion) flush_wrenches(d, p);
  return sqrt(theta_p);
}

/* De Saxce term mu ||sum_j z_ij,t|| of contact i at the current slacks. */
static double shift_now(const subadmm *d, const sg_problem *p, int i) {
  if (p->kind[i] != SG_CON_CONTACT || !d->con_mine[i]) return 0;
  double zt[2] = {0, 0};
  for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) { zt[0] += d->z[3 * q + 1]; zt[1] += d->z[3 * q + 2]; }
  return p->mu[i] * sqrt(zt[0] * zt[0] + zt[1] * zt[1]);
}

/* Freeze the De Saxce terms at the current slacks until the next update. */
static void update_shift(subadmm *d, const sg_problem *p) {
  for (int i = 0; i < p->n_con; ++i) d->shift[i] = shift_now(d, p, i);
}

/* Largest change an update would make, over all ranks: the frozen terms are part of the problem
 * being solved, so a residual below tolerance means convergence only if they are current. */
static double shift_staleness(const subadmm *d, const sg_problem *p) {
  double loc = 0, glob;
  for (int i = 0; i < p->n_con; ++i) loc = max2(loc, fabs(shift_now(d, p, i) - d->shift[i]));
  if (d->size == 1) return loc;
  MPI_Allreduce(&loc, &glob, 1, MPI_DOUBLE, MPI_MAX, d->comm); /* max is exact in any order */
  return glob;
}

/* theta_d = max_j ||A_j vhat_j - b_j - sum_i J_ij^T lambda_i|| (42) (A'_j, b'_j with folded soft rows). */
static double dual_residual(const subadmm *d, const sg_problem *p, const double *v) {
  double theta_d = 0;
  for (int k = 0; k < d->n_my_sub; ++k) {
    int j = d->my_sub[k];
    int dof = p->sub_dof[j], off = p->sub_off[j];
    double s = 0;
    if (dof == 6 && d->rebuild_sums) { /* A_j vhat_j - b_j kept by the v-update: the same numbers */
      for (int a = 0; a < 6; ++a) {
        double r = d->avb[off + a] - d->s_lam[off + a];
        s += r * r;
      }
      theta_d = max2(theta_d, s);
      continue;
    }
    const double *A = sg_soft_fold_A(&d->fold, p, j), *bj = sg_soft_fold_b(&d->fold, p, j);
    if (dof == 6) {
      double av[6];
      a6_times(A, d->sub_ashape[j], d->adiag + off, v + off, av);
      for (int a = 0; a < 6; ++a) {
        double r = av[a] - bj[a] - d->s_lam[off + a];
        s += r * r;
      }
      theta_d = max2(theta_d, s);
      continue;
    }
    for (int a = 0; a < dof; ++a) {
      double r = -bj[a] - d->s_lam[off + a];
      for (int b = 0; b < dof; ++b) r += A[a * dof + b] * v[off + b];
      s += r * r;
    }
    theta_d = max2(theta_d, s);
  }
  return sqrt(theta_d);
}

/* A_j^{-1} of my rigid bodies (the test's v is then one mat-vec) and the Cholesky factor of A_j of
 * my other subsystems, for v(lambda) = A^{-1}(b + J^T lambda) of the contact residual test. */
static sg_err factor_masses(subadmm *d, const sg_problem *p) {
  SG_CHECK(sg_grow((void **)&d->Afac, &d->cap_afac, (p->n_sub ? p->sub_aoff[p->n_sub] : 0) + 1, sizeof(double),
                   "SubADMM mass factors"));
  for (int k = 0; k < d->n_my_sub; ++k) {
    const int j = d->my_sub[k], dof = p->sub_dof[j], off = p->sub_aoff[j];
    const double *A = sg_soft_fold_A(&d->fold, p, j);
    sg_err err = dof == 6 ? spd6_inverse(A, d->Afac + off) : chol_factor(dof, A, d->Afac + off);
    if (err)
      return sg_error_set(SG_ERR_NUMERIC, "A_j of subsystem %lld is not positive definite (SubADMM contact residual test)",
                          (long long)p->sub_gid[j]);
  }
  return SG_OK;
}

/* A constraint is counted by the owner of its first pair's subsystem: once over the ranks. */
static inline int counted_here(const subadmm *d, const sg_problem *p, int i) {
  return owner_of(p, p->pair_sub[p->con_pair[i]]) == d->rank;
}

/* Room for the contact residual test and the number of constraints it averages over. Collective. */
static sg_err setup_contact_test(subadmm *d, const sg_problem *p) {
  sg_err err = sg_grow((void **)&d->vm, &d->cap_vm, sg_problem_n_v(p) + 1, sizeof(double), "SubADMM contact test");
  if (!err) err = sg_grow((void **)&d->terms, &d->cap_terms, d->n_my_con + 1, sizeof(double), "SubADMM contact test");
  SG_CHECK(sg_error_collective(d->comm, err));
  long long n = d->fold.n; /* folded rows hold exactly: terms of 0, counted by their subsystem's owner */
  for (int k = 0; k < d->n_my_con; ++k) n += counted_here(d, p, d->my_con[k]);
  MPI_Allreduce(&n, &d->n_counted, 1, MPI_LONG_LONG, MPI_SUM, d->comm);
  return SG_OK;
}

/* v(lambda) = A_j^{-1}(b_j + sum_i J_ij^T lambda_i) of my subsystems, the sums being pass 3's s_lam. */
static void contact_test_velocity(subadmm *d, const sg_problem *p) {
  for (int k = 0; k < d->n_my_sub; ++k) {
    const int j = d->my_sub[k], dof = p->sub_dof[j], off = p->sub_off[j];
    const double *F = d->Afac + p->sub_aoff[j];
    const double *b = sg_soft_fold_b(&d->fold, p, j);
    double rhs[6], *vj = d->vm + off;
    if (dof == 6) {
      for (int c = 0; c < 6; ++c) rhs[c] = b[c] + d->s_lam[off + c];
      for (int r = 0; r < 6; ++r)
        vj[r] = F[6 * r] * rhs[0] + F[6 * r + 1] * rhs[1] + F[6 * r + 2] * rhs[2] + F[6 * r + 3] * rhs[3] +
                F[6 * r + 4] * rhs[4] + F[6 * r + 5] * rhs[5];
      continue;
    }
    for (int c = 0; c < dof; ++c) vj[c] = b[c] + d->s_lam[off + c];
    chol_solve(dof, F, vj, vj);
  }
}

/* The RMS per constraint of the residual of paper 002 Sec. VII at lambda: the step's metric
 * (src/step/metric.c) times sqrt(n), the same terms to round-off. J_ij v_j of every pair goes
 * into y (free until the next pass 2), the shared pairs' through the iteration's halo exchange;
 * the terms are summed reproducibly, so the stop is the same whatever P. Collective. */
static sg_err contact_rms(subadmm *d, const sg_problem *p, const double *lambda, double *rms) {
  double t0 = MPI_Wtime();
  contact_test_velocity(d, p);
  for (int k = 0, at = 0; k < d->n_my_con; ++k) {
    if (batch_at(d, k, &at) >= 0) { /* a batch of fused contacts: its terms below, from vm */
      k += SG_FUSED_LANES - 1;
      continue;
    }
    const int i = d->my_con[k], rows = sg_con_rows(p->kind[i]);
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q)
      if (d->sub_mine[p->pair_sub[q]]) pair_apply(p, i, q, rows, d->vm, d->y + 3 * q);
  }
  sg_timer_add(SG_PHASE_METRIC, t0);
  sg_err err = SG_OK;
  if (d->size > 1) {
    exchange_start(d);
    err = exchange_finish(d);
  }
  t0 = MPI_Wtime();
  int m = 0;
  for (int k = 0, at = 0; k < d->n_my_con; ++k) {
    const int b = batch_at(d, k, &at);
    if (b >= 0) { /* four contacts, all counted here (both their bodies are mine) */
      sg_fused_contacts_terms(&d->fc, b, d->vm, lambda, d->terms + m);
      m += SG_FUSED_LANES;
      k += SG_FUSED_LANES - 1;
      continue;
    }
    const int i = d->my_con[k], rows = sg_con_rows(p->kind[i]);
    if (!counted_here(d, p, i)) continue;
    double ji[3] = {0, 0, 0};
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q)
      for (int r = 0; r < rows; ++r) ji[r] += d->y[3 * q + r];
    d->terms[m++] = sg_metric_law_sq(p, i, lambda, ji);
  }
  const double sum = sg_sum_reproducible(d->comm, d->terms, m);
  *rms = d->n_counted ? sqrt(sum / (double)d->n_counted) : 0;
  sg_timer_add(SG_PHASE_METRIC, t0);
  return sg_error_collective(d->comm, err);
}

/* Slacks and sums for the first v-update from the warm start, taking z^0_ij = J_ij vhat^0_j. */
static void initial_sums(subadmm *d, const sg_problem *p, const double *v, const double *lambda, double beta) {
  int nv = sg_problem_n_v(p);
  memset(d->s_rhs, 0, (size_t)nv * sizeof(double));
  memset(d->s_lam, 0, (size_t)nv * sizeof(double));
  for (int i = 0; i < p->n_con; ++i) {
    if (!d->con_mine[i]) continue;
    int rows = sg_con_rows(p->kind[i]);
    const double *li = lambda + p->con_row[i];
    const int world = world_slacks(d) && compact_contact(d, p, i);
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      double w[3], z_here[3], *z = d->keep_z && !world ? d->z + 3 * q : z_here;
      pair_apply(p, i, q, rows, v, z); /* the warm start vhat^0 is known for every subsystem */
      if (world) sg_compact_world_velocity(p->lever + 4 * q, v + p->sub_off[p->pair_sub[q]], d->z + 3 * q);
      if (!d->sub_mine[p->pair_sub[q]]) continue;
      for (int r = 0; r < rows; ++r) w[r] = beta * z[r] + li[r];
      pair_apply_T(p, i, q, rows, w, d->s_rhs);
      if (d->rebuild_sums) pair_apply_T(p, i, q, rows, li, d->s_lam);
    }
  }
  /* rebuilt sums (v_update_range): s_lam holds L_old = sum J^T lambda^0 and s_rhs the rest, T =
   * sum J^T (beta z^0 + lambda^0) - 2 L_old, as if an iteration had ended with lambda^0 */
  if (d->rebuild_sums)
    for (int k = 0; k < nv; ++k) d->s_rhs[k] -= 2 * d->s_lam[k];
}

/* Room for the saved iterate, once per solve (allocation is rank-local: agreed on by the caller). */
static sg_err reserve_saved(subadmm *d, const sg_problem *p) {
  SG_CHECK(sg_grow((void **)&d->saved_v, &d->cap_saved_v, sg_problem_n_v(p) + 1, sizeof(double), "SubADMM saved iterate"));
  return sg_grow((void **)&d->saved_lambda, &d->cap_saved_lambda, sg_problem_n_rows(p) + 1, sizeof(double),
                 "SubADMM saved iterate");
}

/* Keep (v, lambda) when theta_p + theta_d has halved since the last kept iterate (a few copies per
 * solve, not one per iteration). Every rank decides on the reduced residuals: the same everywhere. */
static void save_if_better(subadmm *d, const sg_problem *p, const double *v, const double *lambda, double theta_p,
                           double theta_d, double beta) {
  if (d->saved_valid && !(theta_p + theta_d <= 0.5 * (d->saved_tp + d->saved_td))) return;
  memcpy(d->saved_v, v, (size_t)sg_problem_n_v(p) * sizeof(double));
  memcpy(d->saved_lambda, lambda, (size_t)sg_problem_n_rows(p) * sizeof(double));
  d->saved_tp = theta_p;
  d->saved_td = theta_d;
  d->saved_beta = beta;
  d->saved_valid = 1;
}

/* With the De Saxce terms frozen over several iterations each update starts a new inner problem:
 * a residual of the previous one does not compare with the next one's. */
static void forget_saved_if_outer(subadmm *d) {
  if (d->shift_every > 1) d->saved_valid = 0;
}

static void restore_saved(const subadmm *d, const sg_problem *p, double *v, double *lambda) {
  memcpy(v, d->saved_v, (size_t)sg_problem_n_v(p) * sizeof(double));
  memcpy(lambda, d->saved_lambda, (size_t)sg_problem_n_rows(p) * sizeof(double));
}

/* A residual that is not finite, or has grown -subadmm_blowup times past the saved iterate's. */
static int blew_up(const subadmm *d, double theta_p, double theta_d) {
  if (!isfinite(theta_p) || !isfinite(theta_d)) return 1;
  return d->saved_valid && theta_p + theta_d > d->blowup * (d->saved_tp + d->saved_td);
}

/* Start again from the saved iterate with a 4x smaller penalty, held fixed: in the frictional
 * regime a smaller beta is the stable side (docs/SOLVERS.md, "Frictional piles"). The plain and the
 * over-relaxed updates keep no state besides the sums and z, which initial_sums rebuilds from
 * (v, lambda) as at the start of a solve (z = J v); the De Saxce terms are state of their own. */
static sg_err restart_from_saved(subadmm *d, const sg_problem *p, double *v, double *lambda, double *beta) {
  restore_saved(d, p, v, lambda);
  *beta = 0.25 * d->saved_beta;
  d->saved_beta = *beta;
  SG_CHECK(sg_error_collective(d->comm, factorize(d, p, *beta)));
  initial_sums(d, p, v, lambda, *beta);
  if (d->anderson_m > 0) sg_anderson_reset(&d->aa);
  return SG_OK;
}

/* The adaptive penalty (43) to nb: factorize first; if H_j is no longer numerically positive
 * definite at nb (round-off at an extreme penalty), keep beta, refactorize it and stop adapting in
 * this solve. beta z_ij is kept, so the stored sums are rescaled on success. Returns 1 if taken back. */
static sg_err adapt_penalty(subadmm *d, const sg_problem *p, double nb, double *beta, int *taken_back) {
  double ti = MPI_Wtime();
  sg_err err = sg_error_collective(d->comm, factorize_or_fault(d, p, nb, "refactorization"));
  *taken_back = err == SG_ERR_NUMERIC;
  if (*taken_back) {
    sg_error_clear();
    err = sg_error_collective(d->comm, factorize(d, p, *beta));
  }
  sg_timer_add(SG_PHASE_FACTOR, ti);
  SG_CHECK(err);
  if (*taken_back) return SG_OK;
  const double ratio = nb / *beta;
  if (d->rebuild_sums) /* s_rhs holds T = full - 2 L (v_update_range): T' = full' - 2 L */
    for (int k = 0, nv = sg_problem_n_v(p); k < nv; ++k) d->s_rhs[k] = ratio * (d->s_rhs[k] + d->s_lam[k]) - d->s_lam[k];
  else
    for (int k = 0, nv = sg_problem_n_v(p); k < nv; ++k) d->s_rhs[k] = ratio * (d->s_rhs[k] - d->s_lam[k]) + d->s_lam[k];
  if (d->anderson_m > 0) sg_anderson_reset(&d->aa); /* a new map: old differences do not apply */
  *beta = nb;
  return SG_OK;
}

/* Anderson's memory and the state vectors of one solve (-subadmm_anderson m > 0). */
static sg_err setup_anderson(subadmm *d, const sg_problem *p, int nv, int nrow) {
  const int nstate = nv + nrow;
  if (d->aa.n != nstate || d->aa.m != d->anderson_m) {
    sg_anderson_destroy(&d->aa);
    SG_CHECK(sg_anderson_init(&d->aa, d->anderson_m, nstate));
  }
  sg_anderson_reset(&d->aa);
  int c = d->cap_state;
  SG_CHECK(sg_grow((void **)&d->state, &c, nstate, sizeof(double), "SubADMM state"));
  c = d->cap_state;
  SG_CHECK(sg_grow((void **)&d->image, &c, nstate, sizeof(double), "SubADMM state"));
  c = d->cap_state;
  SG_CHECK(sg_grow((void **)&d->diff, &c, nstate, sizeof(double), "SubADMM state"));
  c = d->cap_state;
  SG_CHECK(sg_grow((void **)&d->state_mine, &c, nstate, 1, "SubADMM state"));
  d->cap_state = c;
  /* each entry counted once over the ranks: s_rhs of own subsystems, lambda of the constraints
   * whose first pair is own (a shared constraint's lambda is the same on both ranks); the sums are
   * reproducible, so the accelerated iterates keep their bits whatever P */
  memset(d->state_mine, 0, (size_t)nstate);
  for (int k = 0; k < d->n_my_sub; ++k) {
    int j = d->my_sub[k];
    memset(d->state_mine + p->sub_off[j], 1, (size_t)p->sub_dof[j]);
  }
  for (int k = 0; k < d->n_my_con; ++k) {
    int i = d->my_con[k];
    if (owner_of(p, p->pair_sub[p->con_pair[i]]) == d->rank)
      memset(d->state_mine + nv + p->con_row[i], 1, (size_t)sg_con_rows(p->kind[i]));
  }
  sg_anderson_set_reduction(&d->aa, d->comm, d->state_mine);
  return SG_OK;
}

/* The initial penalty and the factorizations of H_j (40)-(41) with it: -subadmm_beta, else the warm
 * penalty (the previous step's final beta: the adaptive rule (43) need not climb again from the
 * cold rule every step), else the pseudo-density rule. A warm penalty that no longer factorizes
 * (the problem changed more than a step usually changes it) is dropped for the cold rule. */
static sg_err setup_penalty(sg_solver *s, const sg_problem *p, double *beta) {
  subadmm *d = s->data;
  *beta = d->beta_user;
  if (!(*beta > 0) && d->beta_warm && s->warm_penalty > 0) {
    sg_err err = sg_error_collective(d->comm, factorize_or_fault(d, p, s->warm_penalty, "factorization"));
    if (err != SG_ERR_NUMERIC) {
      *beta = s->warm_penalty;
      return err;
    }
    sg_error_clear();
  }
  if (!(*beta > 0)) SG_CHECK(sg_error_collective(d->comm, initial_beta(d, p, beta)));
  return sg_error_collective(d->comm, factorize_or_fault(d, p, *beta, "factorization"));
}

/* The halo plan, the pair counts, the initial penalty and the factorizations of H_j (40)-(41). */
static sg_err subadmm_setup(sg_solver *s, const sg_problem *p) {
  subadmm *d = s->data;
  d->comm = s->comm;
  MPI_Comm_rank(s->comm, &d->rank);
  MPI_Comm_size(s->comm, &d->size);
  if (d->size > 1 && !p->has_owners) return sg_error_set(SG_ERR_ARG, "SubADMM: a problem on %d ranks needs subsystem owners", d->size);
  if (d->no_split) {
    SG_CHECK(sg_problem_merge_subsystems(p, &d->merged));
    p = &d->merged;
  }
  /* with a distributed scene a rank may hold no subsystem or no constraint while others do: the
   * ranks decide together, so that all of them take part in the same collectives */
  int any[2] = {p->n_sub > 0, p->n_con > 0};
  if (d->size > 1) MPI_Allreduce(MPI_IN_PLACE, any, 2, MPI_INT, MPI_MAX, d->comm);
  d->any_sub = any[0];
  d->any_con = any[1];
  if (!d->any_sub) return SG_OK; /* nothing moves */
  double t0 = MPI_Wtime();
  sg_err err = ensure_work(d, p);
  if (!err) err = build_halo(d, p);
  SG_CHECK(sg_error_collective(d->comm, err));
  classify_masses(d, p);
  count_pairs(d, p);
  double beta = 0;
  SG_CHECK(setup_penalty(s, p, &beta));
  d->beta_setup = beta;
  if (d->contact_tol > 0) SG_CHECK(sg_error_collective(d->comm, factor_masses(d, p)));
  sg_timer_add(SG_PHASE_FACTOR, t0);
  return SG_OK;
}

static sg_err subadmm_solve(sg_solver *s, const sg_problem *p, double *v, double *lambda, sg_solve_info *info) {
  subadmm *d = s->data;
  if (d->no_split) p = &d->merged; /* the same unknowns and rows as the problem given (setup) */
  if (!d->any_sub) {
    info->reason = SG_CONVERGED_TRIVIAL;
    return SG_OK;
  }
  double beta = d->beta_setup;
  info->refactorizations = 1;
  d->rebuild_sums = d->rebuild_option && !d->desaxce && d->anderson_m == 0;
  if (!d->any_con) { /* free motion: one exact solve */
    memset(d->s_rhs, 0, (size_t)sg_problem_n_v(p) * sizeof(double));
    memset(d->s_lam, 0, (size_t)sg_problem_n_v(p) * sizeof(double));
    v_update_range(d, p, v, 0, d->n_my_sub);
    info->reason = SG_CONVERGED_TRIVIAL;
    info->beta = beta;
    return SG_OK;
  }
  initial_sums(d, p, v, lambda, beta);
  double theta_p = INFINITY, theta_d = INFINITY, fnorm_prev = INFINITY;
  const int nv = sg_problem_n_v(p), nrow = sg_problem_n_rows(p), nstate = nv + nrow;
  if (d->anderson_m > 0) {
    if (d->relax != 1.0) return sg_error_set(SG_ERR_ARG, "-subadmm_anderson needs -subadmm_relax 1");
    if (d->check_every != 1) return sg_error_set(SG_ERR_ARG, "-subadmm_anderson needs -subadmm_check_every 1");
    SG_CHECK(sg_error_collective(d->comm, setup_anderson(d, p, nv, nrow)));
  }
  if (d->desaxce) {
    SG_CHECK(sg_error_collective(d->comm, sg_grow((void **)&d->shift, &d->cap_shift, p->n_con, sizeof(double), "De Saxce terms")));
    update_shift(d, p);
  }
  if (d->contact_tol > 0) SG_CHECK(setup_contact_test(d, p));
  int it = 0, shifted_at = 0, adapt = d->adapt, restarts = 0;
  sg_err failed = SG_OK; /* a rank-local error, held until the next reduction stops every rank (error.h) */
  d->saved_valid = 0;
  SG_CHECK(sg_error_collective(d->comm, reserve_saved(d, p)));
  for (;;) {
    if (d->desaxce && it - shifted_at >= d->shift_every) {
      update_shift(d, p);
      shifted_at = it;
      if (d->anderson_m > 0) sg_anderson_reset(&d->aa); /* the map changed */
      forget_saved_if_outer(d);
    }
    if (d->anderson_m > 0) { /* the iteration is a map of (s_rhs, lambda) alone */
      memcpy(d->state, d->s_rhs, (size_t)nv * sizeof(double));
      memcpy(d->state + nv, lambda, (size_t)nrow * sizeof(double));
    }
    double ti = MPI_Wtime();
    /* boundary first, its y on the way while the interior is updated */
    v_update_range(d, p, v, 0, d->n_boundary);
    pair_values(d, p, v, lambda, beta, d->bpairs, d->n_bpairs);
    if (d->size > 1) exchange_start(d);
    v_update_range(d, p, v, d->n_boundary, d->n_my_sub);
    pair_values(d, p, v, lambda, beta, d->ipairs, d->n_ipairs);
    sg_timer_add(SG_PHASE_ITERATE, ti);
    if (d->size > 1) {
      sg_err halo = exchange_finish(d);
      if (!failed) failed = halo;
    }
    ti = MPI_Wtime();
    theta_p = constraint_update(d, p, v, lambda, beta);
    if (!failed && it == 2) failed = sg_fault_check("solve", sg_fault_step()); /* a testing aid (fault.h) */
    /* residuals (42) and their reduction every check_every iterations (and at the cap): fewer
     * global synchronizations; beta adapts only then, so it stays the same on every rank */
    const int check = (it + 1) % d->check_every == 0 || (s->max_it > 0 && it + 1 >= s->max_it);
    /* the contact residual test at the checks on its own multiples: beta adapts as without it */
    const int contact_due = check && d->contact_tol > 0 && (it + 1) % d->contact_every == 0;
    if (check) theta_d = dual_residual(d, p, v);
    sg_timer_add(SG_PHASE_ITERATE, ti);
    sg_timers.iterations += 1;
    if (!check) {
      ++it;
      continue;
    }
    int stop = failed != SG_OK;
    if (d->size > 1) { /* max is exact in any order: every rank sees the same residuals and failure flag */
      double loc[3] = {theta_p, theta_d, stop}, glob[3];
      ti = MPI_Wtime();
      MPI_Allreduce(loc, glob, 3, MPI_DOUBLE, MPI_MAX, d->comm);
      sg_timer_add(SG_PHASE_REDUCE, ti);
      theta_p = glob[0];
      theta_d = glob[1];
      stop = glob[2] > 0;
    }
    if (stop) return sg_error_collective(d->comm, failed); /* the failing rank's message, on every rank */
    ++it;
    double rms = INFINITY;
    if (contact_due) SG_CHECK(contact_rms(d, p, lambda, &rms));
    char extra[64] = "";
    if (s->monitor_fn && contact_due) snprintf(extra, sizeof extra, "beta %.3e contact RMS %.3e", beta, rms);
    else if (s->monitor_fn) snprintf(extra, sizeof extra, "beta %.3e", beta);
    const sg_converged_reason reason = sg_solver_test(s, it, theta_p, theta_d, extra);
    if (rms < d->contact_tol) { /* lambda and s_lam are this iteration's: the measured iterate is returned */
      info->reason = SG_CONVERGED_CONTACT;
      break;
    }
    if (blew_up(d, theta_p, theta_d)) {
      if (!d->saved_valid)
        return sg_error_set(SG_ERR_NUMERIC, "SubADMM diverged at iteration %d (theta_p %g, theta_d %g)", it, theta_p, theta_d);
      if (restarts >= d->max_restarts || d->desaxce) { /* the saved iterate is returned below */
        info->reason = SG_DIVERGED_BREAKDOWN;
        break;
      }
      SG_CHECK(restart_from_saved(d, p, v, lambda, &beta));
      restarts++;
      info->recoveries++;
      info->refactorizations++;
      adapt = 0;
      if (s->max_it > 0 && it >= s->max_it) break;
      continue;
    }
    save_if_better(d, p, v, lambda, theta_p, theta_d, beta);
    if (reason > 0) {
      /* with the De Saxce terms frozen over several iterations (-subadmm_desaxce_every > 1) this is
       * the end of an inner solve: stop only if they are current, otherwise start the next one now */
      if (!d->desaxce || shift_staleness(d, p) < s->tol) { info->reason = reason; break; }
      update_shift(d, p);
      shifted_at = it;
      if (d->anderson_m > 0) sg_anderson_reset(&d->aa);
      forget_saved_if_outer(d);
    }
    if (reason < 0) { info->reason = reason; break; }
    if (s->max_it > 0 && it >= s->max_it) break; /* a tolerance met with stale De Saxce terms, at the cap */
    if (d->anderson_m > 0) {
      memcpy(d->image, d->s_rhs, (size_t)nv * sizeof(double));
      memcpy(d->image + nv, lambda, (size_t)nrow * sizeof(double));
      for (int k = 0; k < nstate; ++k) d->diff[k] = d->image[k] - d->state[k];
      const double *dv = d->diff;
      double fn;
      sg_dots_reproducible(d->comm, 1, &dv, &dv, nstate, d->state_mine, &fn);
      fn = sqrt(fn);
      /* safeguard: a jump in the fixed-point residual means the history misleads; start over */
      if (fn > 2 * fnorm_prev) sg_anderson_reset(&d->aa);
      fnorm_prev = fn;
      failed = sg_anderson_step(&d->aa, d->state, d->image); /* checked with the next residuals */
      memcpy(d->s_rhs, d->image, (size_t)nv * sizeof(double));
      memcpy(lambda, d->image + nv, (size_t)nrow * sizeof(double));
    }
    /* adaptive penalty (43) */
    if (adapt && theta_p > 0 && theta_d > 0 && (theta_p > d->gamma * theta_d || theta_d > d->gamma * theta_p)) {
      int taken_back;
      SG_CHECK(adapt_penalty(d, p, beta * sqrt(theta_p / theta_d), &beta, &taken_back));
      info->refactorizations += 1 + taken_back;
      info->recoveries += taken_back;
      if (taken_back) adapt = 0;
    }
  }
  /* an iterate that ends worse than the saved one (a stall that drifted, a blow-up) gives way to it */
  if (info->reason <= 0 && d->saved_valid && !(theta_p + theta_d <= d->saved_tp + d->saved_td)) {
    restore_saved(d, p, v, lambda);
    theta_p = d->saved_tp;
    theta_d = d->saved_td;
    info->recoveries++;
  }
  sg_soft_fold_multipliers(&d->fold, p, v, lambda);
  info->iterations = it;
  info->residual_primal = theta_p;
  info->residual_dual = theta_d;
  info->beta = beta;
  return SG_OK;
}

static void subadmm_view(const sg_solver *s, FILE *f) {
  const subadmm *d = s->data;
  if (d->beta_user > 0) fprintf(f, "  initial beta %g (-subadmm_beta)\n", d->beta_user);
  else fprintf(f, "  initial beta: %spseudo-density rule\n", d->beta_warm ? "the previous step's final beta (-subadmm_beta_warm), else the " : "");
  fprintf(f, "  adaptive beta (43): %s, gamma %g; over-relaxation %g; residual check every %d iteration(s)\n",
          d->adapt ? "on" : "off", d->gamma, d->relax, d->check_every);
  fprintf(f, "  cone: %s", d->desaxce ? "desaxce" : "strict");
  if (d->desaxce) fprintf(f, " (updated every %d)", d->shift_every);
  fprintf(f, "; Anderson memory %d; restarts %d (blow-up factor %g)\n", d->anderson_m, d->max_restarts, d->blowup);
  if (d->contact_tol > 0)
    fprintf(f, "  also stops at a contact residual (RMS per constraint, L/dt) below %g, tested every %d iterations\n",
            d->contact_tol, d->contact_every);
  if (d->no_split || d->dense_trees)
    fprintf(f, "  ablation: %s%s\n", d->no_split ? "no subsystem split (one subsystem) " : "", d->dense_trees ? "trees factorized densely" : "");
}

const sg_solver_ops sg_solver_subadmm_ops = {
  .name = "subadmm",
  .description = "subsystem-based ADMM (paper 002 Alg. 2), the distributed default",
  .create = subadmm_create,
  .set_from_options = subadmm_set_from_options,
  .setup = subadmm_setup,
  .view = subadmm_view,
  .solve = subadmm_solve,
  .destroy = subadmm_destroy,
  .layout = SG_SOLVER_LOCAL,
};
