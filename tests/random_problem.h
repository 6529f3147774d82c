/* Small random contact problems shared by the solver tests (test_pgs, test_solver_agreement,
 * test_fclib_roundtrip): 2-6 rigid bodies (6 DOF, random SPD A_j = B B^T + 2 I, b in [-2, 2]), at
 * most as many 3-row contacts as bodies with random Jacobians (entries in [-1, 1]), touching one or
 * two bodies, normal error e_n in [-2, 0.1]. With at most half as many rows as unknowns,
 * W = J A^{-1} J^T is positive definite and the frictionless solution is unique (a strictly convex
 * QP); with friction (mu in [0, 1], odd trials) uniqueness is not guaranteed in general, so callers
 * keep only the well-conditioned ones (random_problem_make's return value, cond(W) <= 1e3). The
 * sequence of problems depends only on the seed, not on the caller. */
#ifndef SG_RANDOM_PROBLEM_H
#define SG_RANDOM_PROBLEM_H
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/la.h"
#include "signorini/problem.h"
#include "test_util.h"

typedef struct {
  int n_bodies, n_contacts, frictionless;
  double cond; /* cond(W), power iterations */
} random_problem_info;

/* Largest / smallest eigenvalue of the SPD W = J A^{-1} J^T by power iterations (6-DOF subsystems). */
static double random_problem_cond_W(const sg_problem *p) {
  int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  double *W = calloc((size_t)nr * nr, sizeof *W), *x = calloc((size_t)nv, sizeof *x), *y = calloc((size_t)nr, sizeof *y);
  double *lam = calloc((size_t)nr, sizeof *lam), L[36];
  for (int c = 0; c < nr; ++c) { /* column c: J A^{-1} J^T e_c */
    memset(lam, 0, sizeof(double) * nr);
    lam[c] = 1;
    memset(x, 0, sizeof(double) * nv);
    sg_problem_apply_JT_add(p, lam, x);
    for (int j = 0; j < p->n_sub; ++j) {
      chol_factor(6, p->A + p->sub_aoff[j], L);
      chol_solve(6, L, x + p->sub_off[j], x + p->sub_off[j]);
    }
    sg_problem_apply_J(p, x, y);
    for (int r = 0; r < nr; ++r) W[r * nr + c] = y[r];
  }
  double emax = 0, emin = 0, *z = calloc((size_t)nr, sizeof *z), *t = calloc((size_t)nr, sizeof *t);
  for (int pass = 0; pass < 2; ++pass) { /* pass 1 on emax I - W gives emax - emin */
    for (int r = 0; r < nr; ++r) z[r] = 1.0 + 0.1 * r;
    double ev = 0;
    for (int it = 0; it < 5000; ++it) {
      double n = 0;
      for (int r = 0; r < nr; ++r) {
        double acc = pass ? emax * z[r] : 0;
        for (int c = 0; c < nr; ++c) acc += (pass ? -1 : 1) * W[r * nr + c] * z[c];
        t[r] = acc;
        n += acc * acc;
      }
      n = sqrt(n);
      ev = n;
      for (int r = 0; r < nr; ++r) z[r] = t[r] / n;
    }
    if (pass) emin = emax - ev;
    else emax = ev;
  }
  free(W); free(x); free(y); free(lam); free(z); free(t);
  return emin > 0 ? emax / emin : INFINITY;
}

/* Trial `trial` of the sequence drawn from *seed into the empty problem p (frictionless on even
 * trials). Returns 1 when the problem is kept (frictionless, or cond(W) <= 1e3), 0 when a caller
 * should skip it (p is filled either way; the caller destroys it). */
static int random_problem_make(unsigned long long *seed, int trial, sg_problem *p, random_problem_info *info) {
  int nb = 2 + trial % 5, nc = 1 + (int)sg_test_rand(seed, 0, nb); /* 1..nb contacts */
  int frictionless = trial % 2 == 0;
  for (int j = 0; j < nb; ++j) {
    double B[36], A[36], b[6];
    for (int k = 0; k < 36; ++k) B[k] = sg_test_rand(seed, -1, 1);
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c) {
        double acc = r == c ? 2.0 : 0.0;
        for (int k = 0; k < 6; ++k) acc += B[r * 6 + k] * B[c * 6 + k];
        A[r * 6 + c] = acc;
      }
    for (int k = 0; k < 6; ++k) b[k] = sg_test_rand(seed, -2, 2);
    CHECK_OK(sg_problem_add_subsystem(p, 6, A, b, j, NULL));
  }
  for (int i = 0; i < nc; ++i) {
    double J1[18], J2[18], e[3] = {sg_test_rand(seed, -2.0, 0.1), 0, 0};
    for (int k = 0; k < 18; ++k) { J1[k] = sg_test_rand(seed, -1, 1); J2[k] = sg_test_rand(seed, -1, 1); }
    int s0 = (int)sg_test_rand(seed, 0, nb), s1 = (s0 + 1 + (int)sg_test_rand(seed, 0, nb - 1)) % nb;
    int two = sg_test_rand(seed, 0, 1) < 0.6, subs[2] = {s0, s1};
    const double *Js[2] = {J1, J2};
    double mu = frictionless ? 0.0 : sg_test_rand(seed, 0, 1);
    CHECK_OK(sg_problem_add_constraint(p, SG_CON_CONTACT, e, mu, 0, 0, two ? 2 : 1, subs, Js, NULL));
  }
  info->n_bodies = nb;
  info->n_contacts = nc;
  info->frictionless = frictionless;
  info->cond = random_problem_cond_W(p);
  return frictionless || info->cond <= 1e3;
}
#endif
