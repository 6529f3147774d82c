/* SubADMM's batched update of the contacts between two bodies of a rank (src/solvers/subadmm_fused.h)
 * against the one-contact code, bit for bit, on the contacts of a settling pile of 300 spheres:
 *  - the kernel: every batch, under the plain and the over-relaxed update, in its portable build and
 *    (where the processor has AVX2) its AVX2 build, against the one-contact formulas written out here
 *    from compact.h and cone.h in the order of subadmm.c's update_fused_pair and
 *    update_compact_contact: lambda, the bodies' sums, the world slacks and theta_p identical
 *    (memcmp), from velocities and multipliers that put contacts in all three of the cone's regimes;
 *  - whole solves: SubADMM with -subadmm_batch 0, 1 and 2, plain and over-relaxed, from rest and from
 *    a warm start: v and lambda identical after 60 iterations.
 * A lane that associates one sum otherwise (v0 + (a - b) for (v0 + a) - b) or a batch that adds
 * its wrenches out of the pass's order changes bits and fails here. */
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/compact.h"
#include "signorini/cone.h"
#include "signorini/generate.h"
#include "sim_util.h"
#include "solvers/subadmm_fused.h"

/* A contact the batch takes: two compact pairs with signs +1 and -1. */
static int two_body(const sg_problem *p, int i) {
  const int q = p->con_pair[i];
  return p->con_pair[i + 1] - q == 2 && p->frame && sg_problem_pair_is_compact(p, q) &&
         sg_problem_pair_is_compact(p, q + 1) && p->lever[4 * q + 3] == 1.0 && p->lever[4 * q + 7] == -1.0;
}

static double max2(double a, double b) { return a > b ? a : b; }

/* update_fused_pair, one contact. */
static double plain_reference(const sg_problem *p, int i, const double *v, double *lambda, double *s_lam, double beta,
                              double inv_beta) {
  const int q = p->con_pair[i];
  const double *R = p->frame + 9 * i, *e = p->e + p->con_row[i], *la = p->lever + 4 * q, *lb = la + 4;
  const int oa = p->sub_off[p->pair_sub[q]], ob = p->sub_off[p->pair_sub[q + 1]];
  double *li = lambda + p->con_row[i], wa[3], wb[3], u[3], Ru[3], ls[3], ln[3], f[3], dp = 0;
  sg_point_velocity(la, v + oa, wa);
  sg_point_velocity(lb, v + ob, wb);
  for (int r = 0; r < 3; ++r) u[r] = wa[r] - wb[r];
  sg_frame_apply(R, u, Ru);
  for (int r = 0; r < 3; ++r) ls[r] = li[r] - beta * 0.5 * (Ru[r] + e[r]);
  sg_cone_project_strict(p->mu[i], ls, ln);
  for (int r = 0; r < 3; ++r) dp += ((li[r] - ln[r]) * inv_beta) * ((li[r] - ln[r]) * inv_beta);
  sg_frame_t(R, ln, f);
  sg_point_wrench_add(la, f, s_lam + oa);
  sg_point_wrench_sub(lb, f, s_lam + ob);
  memcpy(li, ln, sizeof ln);
  return dp;
}

/* update_compact_contact over-relaxed with world slacks, one contact of two pairs. */
static double relaxed_reference(const sg_problem *p, int i, const double *v, double *lambda, double *s_lam, double *z,
                                double alpha, double beta, double inv_beta) {
  const int q0 = p->con_pair[i];
  const double *R = p->frame + 9 * i, *e = p->e + p->con_row[i];
  double *li = lambda + p->con_row[i], u[2][3], w[2][3], sum_w[3] = {0, 0, 0}, Rw[3], ls[3], ln[3];
  for (int k = 0; k < 2; ++k) {
    sg_compact_world_velocity(p->lever + 4 * (q0 + k), v + p->sub_off[p->pair_sub[q0 + k]], u[k]);
    for (int r = 0; r < 3; ++r) {
      w[k][r] = alpha * u[k][r] + (1 - alpha) * z[3 * (q0 + k) + r];
      sum_w[r] += w[k][r];
    }
  }
  sg_frame_apply(R, sum_w, Rw);
  for (int r = 0; r < 3; ++r) ls[r] = li[r] - beta * 0.5 * (Rw[r] + e[r]);
  sg_cone_project_strict(p->mu[i], ls, ln);
  double dl[3] = {ln[0] - li[0], ln[1] - li[1], ln[2] - li[2]}, shift[3], theta = 0, Rtl[3];
  sg_frame_t(R, dl, shift);
  for (int k = 0; k < 2; ++k) {
    double *zeta = z + 3 * (q0 + k), dp = 0;
    for (int r = 0; r < 3; ++r) {
      zeta[r] = w[k][r] + shift[r] * inv_beta;
      dp += (u[k][r] - zeta[r]) * (u[k][r] - zeta[r]);
    }
    theta = max2(theta, dp);
  }
  sg_frame_t(R, ln, Rtl);
  for (int k = 0; k < 2; ++k) sg_compact_jt_from(p->lever + 4 * (q0 + k), Rtl, s_lam + p->sub_off[p->pair_sub[q0 + k]]);
  memcpy(li, ln, sizeof ln);
  return theta;
}

/* SubADMM's contact test, one contact: J v of each pair (pair_apply), summed, then the law's term. */
static double terms_reference(const sg_problem *p, int i, const double *v, const double *lambda) {
  double ji[3] = {0, 0, 0};
  for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
    double y[3];
    sg_compact_jv(p->frame + 9 * i, p->lever + 4 * q, v + p->sub_off[p->pair_sub[q]], y);
    for (int r = 0; r < 3; ++r) ji[r] += y[r];
  }
  return sg_metric_law_sq(p, i, lambda, ji);
}

/* A reproducible number in [-1, 1). */
static double noise(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (double)(*state >> 8) / (double)(1u << 23) - 1.0;
}

/* The batches of the pass over all contacts (those of two bodies, in runs) against the reference:
 * returns the number of contacts batched. */
static int compare_kernel(const sg_problem *p, int relaxed, int use_vectors) {
  const int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p), npair = p->con_pair[p->n_con], n = p->n_con;
  int *con = calloc((size_t)n, sizeof *con);
  unsigned char *kind = calloc((size_t)n, 1);
  double *v = calloc((size_t)nv, sizeof *v), *lam[2], *sum[2], *z[2];
  unsigned state = 12345u;
  for (int k = 0; k < 2; ++k) {
    lam[k] = calloc((size_t)nr, sizeof(double));
    sum[k] = calloc((size_t)nv, sizeof(double));
    z[k] = calloc((size_t)3 * npair, sizeof(double));
  }
  for (int i = 0; i < n; ++i) {
    con[i] = i;
    kind[i] = (unsigned char)two_body(p, i);
  }
  for (int k = 0; k < nv; ++k) v[k] = noise(&state);
  for (int k = 0; k < nr; ++k) lam[0][k] = lam[1][k] = 0.5 * noise(&state); /* open, sticking and slipping lanes */
  for (int k = 0; k < nv; ++k) sum[0][k] = sum[1][k] = noise(&state);
  for (int k = 0; k < 3 * npair; ++k) z[0][k] = z[1][k] = noise(&state);
  sg_fused_contacts fc;
  memset(&fc, 0, sizeof fc);
  CHECK_OK(sg_fused_contacts_build(&fc, p, con, kind, 1, n, use_vectors));
  int terms_same = 1; /* the contact test's terms at the starting lambda */
  for (int b = 0; b < fc.n_batch; ++b) {
    double t[SG_FUSED_LANES];
    sg_fused_contacts_terms(&fc, b, v, lam[0], t);
    for (int l = 0; l < SG_FUSED_LANES; ++l) {
      const double want = terms_reference(p, fc.start[b] + l, v, lam[0]);
      terms_same &= !memcmp(&t[l], &want, sizeof want);
    }
  }
  CHECK(terms_same);
  const double beta = 3.7, inv_beta = 1.0 / beta, alpha = 1.6;
  double theta[2] = {0, 0};
  int batched = 0, open = 0, slip = 0;
  for (int b = 0; b < fc.n_batch; ++b) {
    theta[0] = relaxed ? sg_fused_contacts_relaxed(&fc, b, v, lam[0], sum[0], z[0], alpha, beta, inv_beta, theta[0])
                       : sg_fused_contacts_plain(&fc, b, v, lam[0], sum[0], beta, inv_beta, theta[0]);
    for (int l = 0; l < SG_FUSED_LANES; ++l) {
      const int i = fc.start[b] + l;
      const double t = relaxed ? relaxed_reference(p, i, v, lam[1], sum[1], z[1], alpha, beta, inv_beta)
                               : plain_reference(p, i, v, lam[1], sum[1], beta, inv_beta);
      theta[1] = max2(theta[1], t);
      const double *ln = lam[1] + p->con_row[i];
      open += ln[0] == 0;
      slip += ln[0] > 0 && ln[1] * ln[1] + ln[2] * ln[2] >= 0.999 * p->mu[i] * p->mu[i] * ln[0] * ln[0];
      batched++;
    }
  }
  printf("  %s, %s build: %d of %d contacts in %d batches (%d open, %d slipping), theta_p %.6e; contact test's terms %s\n",
         relaxed ? "over-relaxed" : "plain", fc.vector_isa ? "AVX2" : "portable", batched, n, fc.n_batch, open, slip,
         theta[0], terms_same ? "the same" : "DIFFERENT");
  CHECK(batched >= n / 2);
  CHECK(open > 0 && slip > 0 && batched - open - slip > 0);
  CHECK(!memcmp(lam[0], lam[1], (size_t)nr * sizeof(double)));
  CHECK(!memcmp(sum[0], sum[1], (size_t)nv * sizeof(double)));
  CHECK(!memcmp(z[0], z[1], (size_t)3 * npair * sizeof(double)));
  CHECK(!memcmp(&theta[0], &theta[1], sizeof(double)));
  sg_fused_contacts_destroy(&fc);
  for (int k = 0; k < 2; ++k) {
    free(lam[k]);
    free(sum[k]);
    free(z[k]);
  }
  free(v);
  free(con);
  free(kind);
  return batched;
}

static void solve_with(const sg_problem *p, const char *batch, const double *v0, const double *l0, double *v, double *lambda) {
  const int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  memcpy(v, v0, (size_t)nv * sizeof(double));
  memcpy(lambda, l0, (size_t)nr * sizeof(double));
  PetscOptionsSetValue(NULL, "-subadmm_batch", batch);
  sg_solver *s = sim_solver("subadmm", 0.0, 60);
  PetscOptionsClearValue(NULL, "-subadmm_batch");
  sg_solve_info info;
  CHECK_OK(sg_solver_solve(s, p, v, lambda, &info));
  sg_solver_destroy(&s);
}

/* SubADMM with -subadmm_batch 0, 1, 2 from (v0, l0): the same bits. */
static void compare_solves(const sg_problem *p, const char *relax, const double *v0, const double *l0) {
  const int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  double *v[3], *l[3];
  PetscOptionsSetValue(NULL, "-subadmm_relax", relax);
  for (int b = 0; b < 3; ++b) {
    v[b] = calloc((size_t)nv, sizeof(double));
    l[b] = calloc((size_t)nr, sizeof(double));
    solve_with(p, b == 0 ? "0" : b == 1 ? "1" : "2", v0, l0, v[b], l[b]);
  }
  PetscOptionsClearValue(NULL, "-subadmm_relax");
  printf("  subadmm relax %s from %s, at most 60 iterations: max |lambda| %.3e, batched 1 and 2 %s as one at a time\n", relax,
         sg_test_max_abs(l0, nr) > 0 ? "a warm start" : "rest", sg_test_max_abs(l[0], nr),
         !memcmp(v[0], v[1], (size_t)nv * sizeof(double)) && !memcmp(v[0], v[2], (size_t)nv * sizeof(double)) ? "the same" : "NOT the same");
  CHECK(sg_test_max_abs(l[0], nr) > 0);
  for (int b = 1; b < 3; ++b) {
    CHECK(!memcmp(v[0], v[b], (size_t)nv * sizeof(double)));
    CHECK(!memcmp(l[0], l[b], (size_t)nr * sizeof(double)));
  }
  for (int b = 0; b < 3; ++b) {
    free(v[b]);
    free(l[b]);
  }
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  PetscOptionsSetValue(NULL, "-n", "300");
  PetscOptionsSetValue(NULL, "-spacing", "2.1");
  CHECK_OK(sg_scene_create(&s, 310, 1));
  CHECK_OK(sg_generate_pile(&s));
  CHECK_OK(sg_scene_update_mass(&s));
  sg_step_params prm = sim_params(1.0 / 240.0, 0.2 * s.size[3 * (s.n - 1)]);
  sg_broadphase bp;
  sg_contacts c;
  sim_settle_and_find(&s, &prm, 1e-6, 100, 40, &bp, &c);
  sg_problem p;
  memset(&p, 0, sizeof p);
  int *sub_of_body = calloc((size_t)s.n, sizeof(int));
  sg_units u = sg_rigid_units(PETSC_COMM_WORLD, &s, prm.dt);
  CHECK_OK(sg_assemble_rigid(&s, &c, &prm, &u, &p, sub_of_body));
  printf("pile of 300 spheres after 40 steps: %d contacts\n", p.n_con);
  for (int relaxed = 0; relaxed < 2; ++relaxed)
    for (int vec = 0; vec < 2; ++vec) compare_kernel(&p, relaxed, vec);
  const int nv = sg_problem_n_v(&p), nr = sg_problem_n_rows(&p);
  double *v0 = calloc((size_t)nv, sizeof(double)), *l0 = calloc((size_t)nr, sizeof(double));
  double *vw = calloc((size_t)nv, sizeof(double)), *lw = calloc((size_t)nr, sizeof(double));
  solve_with(&p, "0", v0, l0, vw, lw); /* the warm start: 60 iterations from rest */
  compare_solves(&p, "1", v0, l0);
  compare_solves(&p, "1.6", v0, l0);
  compare_solves(&p, "1", vw, lw);
  compare_solves(&p, "1.6", vw, lw);
  PetscOptionsSetValue(NULL, "-subadmm_contact_tol", "1e-3"); /* the contact test's batched terms decide the stop */
  PetscOptionsSetValue(NULL, "-subadmm_contact_every", "3");
  compare_solves(&p, "1.6", vw, lw);
  PetscOptionsClearValue(NULL, "-subadmm_contact_tol");
  PetscOptionsClearValue(NULL, "-subadmm_contact_every");
  free(v0); free(l0); free(vw); free(lw); free(sub_of_body);
  sg_problem_destroy(&p);
  sg_contacts_destroy(&c);
  sg_broadphase_destroy(&bp);
  sg_scene_destroy(&s);
  return sim_finish();
}
