/* subadmm_fused.h: the fused two-body contacts of SubADMM on vectors of SG_FUSED_LANES. The formulas
 * are subadmm.c's (paper 002 (38) for the cone's argument, (35) for the slacks, (39) for the sums),
 * written per lane in the order of the one-contact code: a + b * c - d * e is ((a + b c) - d e) in
 * both, and no operation is fused or reassociated (strict C17: no contraction), so each lane's
 * numbers are that code's. The GCC/Clang vector extension lowers to whatever the target has (SSE2
 * halves on any x86-64, AVX2 vectors where they run, picked once at setup). The bodies' six
 * velocities and sums are read and written as rows and turned into lanes by 4 x 4 transposes. */
#include "subadmm_fused.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/error.h"

enum { /* the packed numbers of a contact, each a row of SG_FUSED_LANES in its batch */
  NUM_R = 0,   /* the frame, row-major (9) */
  NUM_E = 9,   /* the error e (3) */
  NUM_MU = 12, /* the friction coefficient */
  NUM_LA = 13, /* the lever arm of the first body (sign +1) (3) */
  NUM_LB = 16, /* of the second (sign -1) (3) */
  SG_FUSED_NUMBERS = 19
};
enum { IDX_OFF_A = 0, IDX_OFF_B = 1, IDX_ROW = 2, IDX_PAIR = 3, SG_FUSED_INDICES = 4 };

typedef double vd __attribute__((vector_size(SG_FUSED_LANES * sizeof(double))));
typedef long long vm __attribute__((vector_size(SG_FUSED_LANES * sizeof(long long))));
typedef double v2 __attribute__((vector_size(2 * sizeof(double))));
_Static_assert(SG_FUSED_LANES == 4, "the transposes below are 4 x 4");

/* rows read or written in place (8-byte aligned; GCC and Clang let a vector alias its element type) */
typedef double vd_row __attribute__((vector_size(SG_FUSED_LANES * sizeof(double)), aligned(sizeof(double))));
typedef double v2_row __attribute__((vector_size(2 * sizeof(double)), aligned(sizeof(double))));
#define ROW(p) (*(vd_row *)(p))
#define CROW(p) (*(const vd_row *)(p))
#define ROW2(p) (*(v2_row *)(p))

/* mask ? a : b lane by lane (mask lanes all ones or all zeros, as comparisons give) */
#define SELECT(mask, a, b) ((vd)(((mask) & (vm)(a)) | (~(mask) & (vm)(b))))
/* lanes i, j, k, l of the eight of a then b */
#if defined(__clang__)
#define SHUF(a, b, i, j, k, l) __builtin_shufflevector((a), (b), i, j, k, l)
#else
#define SHUF(a, b, i, j, k, l) __builtin_shuffle((a), (b), (vm){i, j, k, l})
#endif

static void pack_lane(sg_fused_contacts *fc, const sg_problem *p, int b, int l, int i) {
  const int q = p->con_pair[i];
  double *D = fc->data + (size_t)b * SG_FUSED_NUMBERS * SG_FUSED_LANES + l;
  int *I = fc->index + (size_t)b * SG_FUSED_INDICES * SG_FUSED_LANES + l;
  for (int k = 0; k < 9; ++k) D[(NUM_R + k) * SG_FUSED_LANES] = p->frame[9 * i + k];
  for (int k = 0; k < 3; ++k) {
    D[(NUM_E + k) * SG_FUSED_LANES] = p->e[p->con_row[i] + k];
    D[(NUM_LA + k) * SG_FUSED_LANES] = p->lever[4 * q + k];
    D[(NUM_LB + k) * SG_FUSED_LANES] = p->lever[4 * (q + 1) + k];
  }
  D[NUM_MU * SG_FUSED_LANES] = p->mu[i];
  I[IDX_OFF_A * SG_FUSED_LANES] = p->sub_off[p->pair_sub[q]];
  I[IDX_OFF_B * SG_FUSED_LANES] = p->sub_off[p->pair_sub[q + 1]];
  I[IDX_ROW * SG_FUSED_LANES] = p->con_row[i];
  I[IDX_PAIR * SG_FUSED_LANES] = q;
}

/* A fused contact whose lambda row is followed by one more number (gather3 reads four). */
static int batchable(const sg_problem *p, int i, int fused) { return fused && p->con_row[i] + 4 <= sg_problem_n_rows(p); }

sg_err sg_fused_contacts_build(sg_fused_contacts *fc, const sg_problem *p, const int *con, const unsigned char *kind,
                               unsigned char fused_kind, int n, int use_vectors) {
  int nb = 0;
  for (int k = 0, run = 0; k < n; ++k) {
    run = batchable(p, con[k], kind[k] == fused_kind) ? run + 1 : 0;
    if (run == SG_FUSED_LANES) nb++, run = 0;
  }
  SG_CHECK(sg_grow((void **)&fc->start, &fc->cap_start, nb + 1, sizeof(int), "SubADMM fused contacts"));
  SG_CHECK(sg_grow((void **)&fc->data, &fc->cap_data, nb * SG_FUSED_NUMBERS * SG_FUSED_LANES + 1, sizeof(double), "SubADMM fused contacts"));
  SG_CHECK(sg_grow((void **)&fc->index, &fc->cap_index, nb * SG_FUSED_INDICES * SG_FUSED_LANES + 1, sizeof(int), "SubADMM fused contacts"));
  nb = 0;
  for (int k = 0, run = 0; k < n; ++k) {
    run = batchable(p, con[k], kind[k] == fused_kind) ? run + 1 : 0;
    if (run < SG_FUSED_LANES) continue;
    run = 0;
    fc->start[nb] = k - (SG_FUSED_LANES - 1);
    for (int l = 0; l < SG_FUSED_LANES; ++l) pack_lane(fc, p, nb, l, con[fc->start[nb] + l]);
    nb++;
  }
  fc->n_batch = nb;
  fc->vector_isa = use_vectors && sg_fused_avx2_available();
  return SG_OK;
}

int sg_fused_avx2_available(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports("avx2");
#else
  return 0;
#endif
}

void sg_fused_contacts_destroy(sg_fused_contacts *fc) {
  free(fc->start);
  free(fc->data);
  free(fc->index);
  memset(fc, 0, sizeof *fc);
}

/* out[l] = lane l of in[0..3] and out[k] lane k of in's rows: the 4 x 4 transpose, either way */
static inline __attribute__((always_inline)) void transpose4(const vd *in, vd *out) {
  const vd t0 = SHUF(in[0], in[1], 0, 4, 2, 6), t1 = SHUF(in[0], in[1], 1, 5, 3, 7);
  const vd t2 = SHUF(in[2], in[3], 0, 4, 2, 6), t3 = SHUF(in[2], in[3], 1, 5, 3, 7);
  out[0] = SHUF(t0, t2, 0, 1, 4, 5);
  out[1] = SHUF(t1, t3, 0, 1, 4, 5);
  out[2] = SHUF(t0, t2, 2, 3, 6, 7);
  out[3] = SHUF(t1, t3, 2, 3, 6, 7);
}

/* c[k], lane l = base[off[l] + k], k < 6: rows 0-3 and 2-5 of each lane read whole and transposed */
static inline __attribute__((always_inline)) void gather6(const double *base, const int *off, vd *c) {
  const vd r[4] = {CROW(base + off[0]), CROW(base + off[1]), CROW(base + off[2]), CROW(base + off[3])};
  transpose4(r, c);
  const vd s0 = CROW(base + off[0] + 2), s1 = CROW(base + off[1] + 2), s2 = CROW(base + off[2] + 2), s3 = CROW(base + off[3] + 2);
  const vd x = SHUF(s0, s1, 2, 6, 3, 7), y = SHUF(s2, s3, 2, 6, 3, 7); /* entries 4 and 5 of lanes 0, 1 and 2, 3 */
  c[4] = SHUF(x, y, 0, 1, 4, 5);
  c[5] = SHUF(x, y, 2, 3, 6, 7);
}

/* c[k], lane l = lambda[row[l] + k], k < 3: each lane's row read with the number after it (the build
 * makes sure there is one) and transposed. */
static inline __attribute__((always_inline)) void gather3(const double *lambda, const int *row, vd *c) {
  const vd r[4] = {CROW(lambda + row[0]), CROW(lambda + row[1]), CROW(lambda + row[2]), CROW(lambda + row[3])};
  vd cols[4];
  transpose4(r, cols);
  for (int k = 0; k < 3; ++k) c[k] = cols[k];
}

/* The lanes of six numbers c[0..5] as each lane's row: head[l] its entries 0-3; entries 4-5 of
 * lanes 0, 1 in the halves of tail[0], of lanes 2, 3 in those of tail[1]. */
typedef struct {
  vd head[SG_FUSED_LANES], tail[2];
} lane_rows;

static inline __attribute__((always_inline)) void rows_of(const vd *c, lane_rows *out) {
  transpose4(c, out->head);
  out->tail[0] = SHUF(c[4], c[5], 0, 4, 1, 5);
  out->tail[1] = SHUF(c[4], c[5], 2, 6, 3, 7);
}

/* lane l's entries 4 and 5 of rows_of's tails */
static inline __attribute__((always_inline)) v2 tail_of(const lane_rows *r, int l) {
  const vd t = r->tail[l / 2];
  return l % 2 ? (v2){t[2], t[3]} : (v2){t[0], t[1]};
}

/* base + off[l] += lane l's row, for body rows a then b of each lane in turn (the pass's order) */
static inline __attribute__((always_inline)) void add_rows(double *base, const int *oa, const int *ob, const lane_rows *ra,
                                                           const lane_rows *rb, int l) {
  double *sa = base + oa[l], *sb = base + ob[l];
  ROW(sa) = CROW(sa) + ra->head[l];
  ROW2(sa + 4) = ROW2(sa + 4) + tail_of(ra, l);
  ROW(sb) = CROW(sb) + rb->head[l];
  ROW2(sb + 4) = ROW2(sb + 4) + tail_of(rb, l);
}

/* three packed rows from `first` */
static inline __attribute__((always_inline)) void load3(const double *D, int first, vd *out) {
  for (int k = 0; k < 3; ++k) out[k] = CROW(D + (first + k) * SG_FUSED_LANES);
}

/* v_lin + w x r (sg_point_velocity) */
static inline __attribute__((always_inline)) void point_velocity(const vd *r, const vd *v, vd *out) {
  out[0] = v[0] + v[4] * r[2] - v[5] * r[1];
  out[1] = v[1] + v[5] * r[0] - v[3] * r[2];
  out[2] = v[2] + v[3] * r[1] - v[4] * r[0];
}

/* The world velocities v_lin + w x r of both bodies' contact points (unsigned), lane by lane. */
static inline __attribute__((always_inline)) void point_velocities(const double *D, const int *I, const double *v,
                                                                   vd *wa, vd *wb) {
  vd vel[6], lever[3];
  gather6(v, I + IDX_OFF_A * SG_FUSED_LANES, vel);
  load3(D, NUM_LA, lever);
  point_velocity(lever, vel, wa);
  gather6(v, I + IDX_OFF_B * SG_FUSED_LANES, vel);
  load3(D, NUM_LB, lever);
  point_velocity(lever, vel, wb);
}

/* R u (sg_frame_apply) and R^T f (sg_frame_t), R's rows packed at D */
static inline __attribute__((always_inline)) void frame_apply(const double *D, const vd *u, vd *out) {
  for (int k = 0; k < 3; ++k)
    out[k] = CROW(D + (NUM_R + 3 * k) * SG_FUSED_LANES) * u[0] + CROW(D + (NUM_R + 3 * k + 1) * SG_FUSED_LANES) * u[1] +
             CROW(D + (NUM_R + 3 * k + 2) * SG_FUSED_LANES) * u[2];
}
static inline __attribute__((always_inline)) void frame_t(const double *D, const vd *f, vd *out) {
  for (int c = 0; c < 3; ++c)
    out[c] = CROW(D + (NUM_R + c) * SG_FUSED_LANES) * f[0] + CROW(D + (NUM_R + 3 + c) * SG_FUSED_LANES) * f[1] +
             CROW(D + (NUM_R + 6 + c) * SG_FUSED_LANES) * f[2];
}

/* The strict cone's projection (sg_cone_project_strict) on every lane: the square root and the
 * division computed for all, kept where the lane slips (the same two correctly rounded operations) */
static inline __attribute__((always_inline)) void cone_strict(const double *D, const vd *ls, vd *ln) {
  const vd zero = {0, 0, 0, 0}, mu = CROW(D + NUM_MU * SG_FUSED_LANES);
  ln[0] = SELECT(ls[0] > zero, ls[0], zero);
  const vd t1 = ls[1], t2 = ls[2], r = mu * ln[0], nt2 = t1 * t1 + t2 * t2;
  vd nt;
  for (int l = 0; l < SG_FUSED_LANES; ++l) nt[l] = sqrt(nt2[l]);
  const vd s = SELECT(nt > zero, r / nt, zero);
  const vm slip = nt2 > r * r;
  ln[1] = SELECT(slip, t1 * s, t1);
  ln[2] = SELECT(slip, t2 * s, t2);
}

/* r x f, the torque of force f at lever r (sg_point_wrench_add's last three rows) */
static inline __attribute__((always_inline)) void torque(const vd *r, const vd *f, vd *out) {
  out[0] = r[1] * f[2] - r[2] * f[1];
  out[1] = r[2] * f[0] - r[0] * f[2];
  out[2] = r[0] * f[1] - r[1] * f[0];
}

/* The batch's ends: the wrenches [fa; ta] and [fb; tb] added into the bodies' sums and the new lambda
 * stored, lane after lane; theta_p raised by the lanes' squared slacks, in the same order. */
static inline __attribute__((always_inline)) double finish(const int *I, const vd *fa, const vd *ta, const vd *fb,
                                                           const vd *tb, const vd *ln, const vd *dp, double *lambda,
                                                           double *s_lam, double theta_p) {
  const int *oa = I + IDX_OFF_A * SG_FUSED_LANES, *ob = I + IDX_OFF_B * SG_FUSED_LANES, *row = I + IDX_ROW * SG_FUSED_LANES;
  const vd wa[6] = {fa[0], fa[1], fa[2], ta[0], ta[1], ta[2]}, wb[6] = {fb[0], fb[1], fb[2], tb[0], tb[1], tb[2]};
  const vd lc[4] = {ln[0], ln[1], ln[2], ln[2]};
  lane_rows ra, rb;
  vd rl[SG_FUSED_LANES];
  rows_of(wa, &ra);
  rows_of(wb, &rb);
  transpose4(lc, rl); /* each lane's lambda (and a fourth number not stored) */
  for (int l = 0; l < SG_FUSED_LANES; ++l) {
    add_rows(s_lam, oa, ob, &ra, &rb, l);
    double *li = lambda + row[l];
    ROW2(li) = (v2){rl[l][0], rl[l][1]};
    li[2] = rl[l][2];
    theta_p = theta_p > (*dp)[l] ? theta_p : (*dp)[l]; /* max2 */
  }
  return theta_p;
}

static inline __attribute__((always_inline)) double plain_lanes(const sg_fused_contacts *fc, int b, const double *v,
                                                                double *lambda, double *s_lam, double beta,
                                                                double inv_beta, double theta_p) {
  const double *D = fc->data + (size_t)b * SG_FUSED_NUMBERS * SG_FUSED_LANES;
  const int *I = fc->index + (size_t)b * SG_FUSED_INDICES * SG_FUSED_LANES;
  vd lever[3], u[3], wb[3], Ru[3], e[3], li[3], ls[3], ln[3];
  point_velocities(D, I, v, u, wb);
  for (int r = 0; r < 3; ++r) u[r] = u[r] - wb[r]; /* the pairs' sum (38) */
  frame_apply(D, u, Ru);
  load3(D, NUM_E, e);
  gather3(lambda, I + IDX_ROW * SG_FUSED_LANES, li);
  const double step = beta * 0.5; /* exact */
  for (int r = 0; r < 3; ++r) ls[r] = li[r] - step * (Ru[r] + e[r]);
  cone_strict(D, ls, ln);
  vd dp = {0, 0, 0, 0}; /* (lambda_old - lambda_new) / beta: every pair's J v - z under the plain update */
  for (int r = 0; r < 3; ++r) {
    const vd dz = (li[r] - ln[r]) * inv_beta;
    dp = dp + dz * dz;
  }
  vd f[3], fb[3], ta[3], tb[3]; /* sg_point_wrench_sub: acc - x is acc + (-x) exactly */
  frame_t(D, ln, f);
  load3(D, NUM_LA, lever);
  torque(lever, f, ta);
  load3(D, NUM_LB, lever);
  torque(lever, f, tb);
  for (int r = 0; r < 3; ++r) {
    fb[r] = -f[r];
    tb[r] = -tb[r];
  }
  return finish(I, f, ta, fb, tb, ln, &dp, lambda, s_lam, theta_p);
}

static inline __attribute__((always_inline)) double relaxed_lanes(const sg_fused_contacts *fc, int b, const double *v,
                                                                  double *lambda, double *s_lam, double *z,
                                                                  double alpha, double beta, double inv_beta,
                                                                  double theta_p) {
  const double *D = fc->data + (size_t)b * SG_FUSED_NUMBERS * SG_FUSED_LANES;
  const int *I = fc->index + (size_t)b * SG_FUSED_INDICES * SG_FUSED_LANES, *row = I + IDX_ROW * SG_FUSED_LANES;
  const int *pair = I + IDX_PAIR * SG_FUSED_LANES;
  const int zoff[SG_FUSED_LANES] = {3 * pair[0], 3 * pair[1], 3 * pair[2], 3 * pair[3]};
  const vd zero = {0, 0, 0, 0};
  vd lever[3], ua[3], ub[3], zeta[6], wa[3], wb[3], sum_w[3], Rw[3], li[3], e[3], ls[3], ln[3];
  point_velocities(D, I, v, ua, ub); /* sign +1: u = w exactly; ub is signed below */
  gather6(z, zoff, zeta); /* the two pairs' world slacks, contiguous */
  for (int r = 0; r < 3; ++r) {
    ub[r] = -1.0 * ub[r];
    wa[r] = alpha * ua[r] + (1 - alpha) * zeta[r];
    wb[r] = alpha * ub[r] + (1 - alpha) * zeta[3 + r];
    sum_w[r] = zero + wa[r] + wb[r];
  }
  frame_apply(D, sum_w, Rw);
  load3(D, NUM_E, e);
  const double step = beta * 0.5; /* exact */
  gather3(lambda, row, li);
  for (int r = 0; r < 3; ++r) ls[r] = li[r] - step * (Rw[r] + e[r]);
  cone_strict(D, ls, ln);
  vd dl[3], shift[3], dpa = zero, dpb = zero; /* the new world slacks (35) and ||u - zeta||^2 per pair */
  for (int r = 0; r < 3; ++r) dl[r] = ln[r] - li[r];
  frame_t(D, dl, shift);
  for (int r = 0; r < 3; ++r) {
    zeta[r] = wa[r] + shift[r] * inv_beta;
    zeta[3 + r] = wb[r] + shift[r] * inv_beta;
    dpa = dpa + (ua[r] - zeta[r]) * (ua[r] - zeta[r]);
    dpb = dpb + (ub[r] - zeta[3 + r]) * (ub[r] - zeta[3 + r]);
  }
  const vd dp0 = SELECT(zero > dpa, zero, dpa), dp = SELECT(dp0 > dpb, dp0, dpb); /* max2(max2(0, dpa), dpb) */
  lane_rows rz;
  rows_of(zeta, &rz);
  for (int l = 0; l < SG_FUSED_LANES; ++l) {
    ROW(z + zoff[l]) = rz.head[l];
    ROW2(z + zoff[l] + 4) = tail_of(&rz, l);
  }
  vd f[3], fb[3], ta[3], tb[3]; /* sg_compact_jt_from: g = sign R^T lambda */
  frame_t(D, ln, f);
  for (int r = 0; r < 3; ++r) fb[r] = -1.0 * f[r];
  load3(D, NUM_LA, lever);
  torque(lever, f, ta);
  load3(D, NUM_LB, lever);
  torque(lever, fb, tb);
  return finish(I, f, ta, fb, tb, ln, &dp, lambda, s_lam, theta_p);
}

static inline __attribute__((always_inline)) void terms_lanes(const sg_fused_contacts *fc, int b, const double *v_lambda,
                                                              const double *lambda, double *terms) {
  const double *D = fc->data + (size_t)b * SG_FUSED_NUMBERS * SG_FUSED_LANES;
  const int *I = fc->index + (size_t)b * SG_FUSED_INDICES * SG_FUSED_LANES;
  const vd zero = {0, 0, 0, 0};
  vd w[3], u[3], ya[3], yb[3], ji[3], li[3], e[3], ls[3], t[3];
  point_velocities(D, I, v_lambda, u, w); /* sign +1: u = w exactly */
  frame_apply(D, u, ya);
  for (int r = 0; r < 3; ++r) u[r] = -1.0 * w[r];
  frame_apply(D, u, yb);
  gather3(lambda, I + IDX_ROW * SG_FUSED_LANES, li);
  load3(D, NUM_E, e);
  for (int r = 0; r < 3; ++r) {
    ji[r] = zero + ya[r] + yb[r];
    ls[r] = li[r] - (ji[r] + e[r]);
  }
  cone_strict(D, ls, t);
  vd sum = zero;
  for (int r = 0; r < 3; ++r) sum = sum + (li[r] - t[r]) * (li[r] - t[r]);
  ROW(terms) = sum;
}

/* each build of the kernel a function of its own, so that the entry points below only branch */
__attribute__((noinline)) static double plain_portable(const sg_fused_contacts *fc, int b, const double *v, double *lambda,
                                                       double *s_lam, double beta, double inv_beta, double theta_p) {
  return plain_lanes(fc, b, v, lambda, s_lam, beta, inv_beta, theta_p);
}
__attribute__((noinline)) static double relaxed_portable(const sg_fused_contacts *fc, int b, const double *v,
                                                         double *lambda, double *s_lam, double *z, double alpha,
                                                         double beta, double inv_beta, double theta_p) {
  return relaxed_lanes(fc, b, v, lambda, s_lam, z, alpha, beta, inv_beta, theta_p);
}

__attribute__((noinline)) static void terms_portable(const sg_fused_contacts *fc, int b, const double *v_lambda,
                                                     const double *lambda, double *terms) {
  terms_lanes(fc, b, v_lambda, lambda, terms);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void terms_avx2(const sg_fused_contacts *fc, int b, const double *v_lambda,
                                                       const double *lambda, double *terms) {
  terms_lanes(fc, b, v_lambda, lambda, terms);
}
__attribute__((target("avx2"))) static double plain_avx2(const sg_fused_contacts *fc, int b, const double *v,
                                                         double *lambda, double *s_lam, double beta, double inv_beta,
                                                         double theta_p) {
  return plain_lanes(fc, b, v, lambda, s_lam, beta, inv_beta, theta_p);
}
__attribute__((target("avx2"))) static double relaxed_avx2(const sg_fused_contacts *fc, int b, const double *v,
                                                           double *lambda, double *s_lam, double *z, double alpha,
                                                           double beta, double inv_beta, double theta_p) {
  return relaxed_lanes(fc, b, v, lambda, s_lam, z, alpha, beta, inv_beta, theta_p);
}
#endif

double sg_fused_contacts_plain(const sg_fused_contacts *fc, int b, const double *v, double *lambda, double *s_lam,
                               double beta, double inv_beta, double theta_p) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (fc->vector_isa) return plain_avx2(fc, b, v, lambda, s_lam, beta, inv_beta, theta_p);
#endif
  return plain_portable(fc, b, v, lambda, s_lam, beta, inv_beta, theta_p);
}

double sg_fused_contacts_relaxed(const sg_fused_contacts *fc, int b, const double *v, double *lambda, double *s_lam,
                                 double *z, double alpha, double beta, double inv_beta, double theta_p) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (fc->vector_isa) return relaxed_avx2(fc, b, v, lambda, s_lam, z, alpha, beta, inv_beta, theta_p);
#endif
  return relaxed_portable(fc, b, v, lambda, s_lam, z, alpha, beta, inv_beta, theta_p);
}

void sg_fused_contacts_terms(const sg_fused_contacts *fc, int b, const double *v_lambda, const double *lambda,
                             double *terms) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (fc->vector_isa) {
    terms_avx2(fc, b, v_lambda, lambda, terms);
    return;
  }
#endif
  terms_portable(fc, b, v_lambda, lambda, terms);
}
