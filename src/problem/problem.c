/* Building, checking and applying the solver-independent problem (paper 002 (29)-(31)). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/la.h"
#include "signorini/problem.h"

void sg_problem_reset(sg_problem *p) {
  p->n_sub = 0;
  p->n_con = 0;
  p->has_owners = 0;
  p->has_dof_parent = 0;
  p->has_motion = 0;
  p->n_motion = 0;
  p->units = sg_units_si();
  p->dt = 0;
  p->n_j = 0;
  if (p->sub_off) p->sub_off[0] = 0;
  if (p->sub_aoff) p->sub_aoff[0] = 0;
  if (p->con_row) p->con_row[0] = 0;
  if (p->con_pair) p->con_pair[0] = 0;
}

void sg_problem_destroy(sg_problem *p) {
  free(p->sub_dof); free(p->sub_off); free(p->sub_aoff); free(p->A); free(p->b); free(p->sub_gid);
  free(p->kind); free(p->con_row); free(p->e); free(p->mu); free(p->stiff); free(p->damp);
  free(p->con_pair); free(p->pair_sub); free(p->pair_joff); free(p->J); free(p->sub_owner);
  free(p->frame); free(p->lever); free(p->dof_parent); free(p->motion_off); free(p->motion);
  memset(p, 0, sizeof *p);
}

/* Grow the arrays indexed by subsystem / constraint; offsets arrays carry one extra entry. */
static sg_err grow_sub(sg_problem *p, int n) {
  if (n + 1 <= p->cap_sub) return SG_OK;
  int cap = p->cap_sub, c2 = cap;
  SG_CHECK(sg_grow((void **)&p->sub_dof, &c2, n + 1, sizeof(int), "subsystems")); c2 = cap;
  SG_CHECK(sg_grow((void **)&p->sub_off, &c2, n + 1, sizeof(int), "subsystems")); c2 = cap;
  SG_CHECK(sg_grow((void **)&p->sub_aoff, &c2, n + 1, sizeof(int), "subsystems")); c2 = cap;
  SG_CHECK(sg_grow((void **)&p->sub_gid, &c2, n + 1, sizeof(int64_t), "subsystems"));
  p->cap_sub = c2;
  return SG_OK;
}

static sg_err grow_con(sg_problem *p, int n) {
  if (n + 1 <= p->cap_con) return SG_OK;
  int cap = p->cap_con, c2 = cap;
  SG_CHECK(sg_grow((void **)&p->kind, &c2, n + 1, sizeof(int), "constraints")); c2 = cap;
  SG_CHECK(sg_grow((void **)&p->con_row, &c2, n + 1, sizeof(int), "constraints")); c2 = cap;
  SG_CHECK(sg_grow((void **)&p->mu, &c2, n + 1, sizeof(double), "constraints")); c2 = cap;
  SG_CHECK(sg_grow((void **)&p->stiff, &c2, n + 1, sizeof(double), "constraints")); c2 = cap;
  SG_CHECK(sg_grow((void **)&p->damp, &c2, n + 1, sizeof(double), "constraints")); c2 = cap;
  SG_CHECK(sg_grow((void **)&p->con_pair, &c2, n + 1, sizeof(int), "constraints"));
  p->cap_con = c2;
  return SG_OK;
}

sg_err sg_problem_add_subsystem(sg_problem *p, int dof, const double *A, const double *b,
                                int64_t gid, int *index) {
  if (dof <= 0) return sg_error_set(SG_ERR_ARG, "subsystem with %d unknowns", dof);
  int j = p->n_sub;
  SG_CHECK(grow_sub(p, j + 1));
  if (j == 0) { p->sub_off[0] = 0; p->sub_aoff[0] = 0; }
  int voff = p->sub_off[j], aoff = p->sub_aoff[j];
  SG_CHECK(sg_grow((void **)&p->b, &p->cap_v, voff + dof, sizeof(double), "problem vector b"));
  SG_CHECK(sg_grow((void **)&p->A, &p->cap_a, aoff + dof * dof, sizeof(double), "problem blocks A"));
  memcpy(p->A + aoff, A, (size_t)dof * dof * sizeof(double));
  memcpy(p->b + voff, b, (size_t)dof * sizeof(double));
  p->sub_dof[j] = dof;
  p->sub_gid[j] = gid;
  p->sub_off[j + 1] = voff + dof;
  p->sub_aoff[j + 1] = aoff + dof * dof;
  p->n_sub = j + 1;
  if (index) *index = j;
  if (p->has_motion) {
    SG_CHECK(sg_grow((void **)&p->motion_off, &p->cap_motion_off, j + 1, sizeof(int), "problem motions"));
    p->motion_off[j] = -1;
  }
  if (!p->has_dof_parent) return SG_OK;
  SG_CHECK(sg_grow((void **)&p->dof_parent, &p->cap_parent, voff + dof, sizeof(int), "problem sparsity"));
  for (int k = 0; k < dof; ++k) p->dof_parent[voff + k] = -2; /* dense until given a tree's sparsity */
  return SG_OK;
}

sg_err sg_problem_set_dof_parents(sg_problem *p, int j, const int *parent) {
  const int n = sg_problem_n_v(p), off = p->sub_off[j], dof = p->sub_dof[j];
  for (int k = 0; k < dof; ++k)
    if (parent[k] < -1 || parent[k] >= k)
      return sg_error_set(SG_ERR_ARG, "subsystem %lld: unknown %d has parent %d, expected -1 or an earlier unknown",
                          (long long)p->sub_gid[j], k, parent[k]);
  SG_CHECK(sg_grow((void **)&p->dof_parent, &p->cap_parent, n, sizeof(int), "problem sparsity"));
  if (!p->has_dof_parent)
    for (int k = 0; k < n; ++k) p->dof_parent[k] = -2;
  p->has_dof_parent = 1;
  memcpy(p->dof_parent + off, parent, (size_t)dof * sizeof *parent);
  return SG_OK;
}

sg_err sg_problem_set_dof_motion(sg_problem *p, int j, const double *motion) {
  const int dof = p->sub_dof[j];
  if (!sg_problem_dof_parents(p, j))
    return sg_error_set(SG_ERR_ARG, "subsystem %lld: motions need the unknowns' parents", (long long)p->sub_gid[j]);
  SG_CHECK(sg_grow((void **)&p->motion_off, &p->cap_motion_off, p->n_sub, sizeof(int), "problem motions"));
  if (!p->has_motion)
    for (int k = 0; k < p->n_sub; ++k) p->motion_off[k] = -1;
  p->has_motion = 1;
  SG_CHECK(sg_grow((void **)&p->motion, &p->cap_motion, p->n_motion + 6 * dof, sizeof(double), "problem motions"));
  memcpy(p->motion + p->n_motion, motion, 6 * (size_t)dof * sizeof(double));
  p->motion_off[j] = p->n_motion;
  p->n_motion += 6 * dof;
  return SG_OK;
}

/* Room for one more constraint's rows and n_pairs pairs (its frame and levers if compact). */
static sg_err grow_rows_pairs(sg_problem *p, int i, int rows, int n_pairs, int compact) {
  int roff = p->con_row[i], poff = p->con_pair[i];
  SG_CHECK(sg_grow((void **)&p->e, &p->cap_row, roff + rows, sizeof(double), "constraint errors"));
  int cap = p->cap_pair;
  SG_CHECK(sg_grow((void **)&p->pair_sub, &cap, poff + n_pairs, sizeof(int), "constraint pairs"));
  cap = p->cap_pair;
  SG_CHECK(sg_grow((void **)&p->pair_joff, &cap, poff + n_pairs, sizeof(int), "constraint pairs"));
  p->cap_pair = cap;
  if (!compact) return SG_OK;
  SG_CHECK(sg_grow((void **)&p->frame, &p->cap_frame, 9 * (i + 1), sizeof(double), "contact frames"));
  return sg_grow((void **)&p->lever, &p->cap_lever, 4 * (poff + n_pairs), sizeof(double), "lever arms");
}

sg_err sg_problem_add_constraint(sg_problem *p, int kind, const double *e, double mu, double stiff,
                                 double damp, int n_pairs, const int *subs, const double *const *Js,
                                 int *index) {
  if (kind < SG_CON_HARD || kind > SG_CON_BILATERAL) return sg_error_set(SG_ERR_ARG, "unknown constraint kind %d", kind);
  if (n_pairs < 1) return sg_error_set(SG_ERR_ARG, "constraint touching no subsystem");
  int i = p->n_con, rows = sg_con_rows(kind);
  SG_CHECK(grow_con(p, i + 1));
  if (i == 0) { p->con_row[0] = 0; p->con_pair[0] = 0; }
  SG_CHECK(grow_rows_pairs(p, i, rows, n_pairs, 0));
  int roff = p->con_row[i], poff = p->con_pair[i], joff = p->n_j;
  int need = joff;
  for (int k = 0; k < n_pairs; ++k) {
    if (subs[k] < 0 || subs[k] >= p->n_sub) return sg_error_set(SG_ERR_ARG, "constraint %d: subsystem %d out of range", i, subs[k]);
    need += rows * p->sub_dof[subs[k]];
  }
  SG_CHECK(sg_grow((void **)&p->J, &p->cap_j, need, sizeof(double), "Jacobian blocks"));
  memcpy(p->e + roff, e, (size_t)rows * sizeof(double));
  for (int k = 0; k < n_pairs; ++k) {
    int sz = rows * p->sub_dof[subs[k]];
    p->pair_sub[poff + k] = subs[k];
    p->pair_joff[poff + k] = joff;
    memcpy(p->J + joff, Js[k], (size_t)sz * sizeof(double));
    joff += sz;
  }
  p->n_j = joff;
  p->kind[i] = kind;
  p->mu[i] = mu;
  p->stiff[i] = stiff;
  p->damp[i] = damp;
  p->con_row[i + 1] = roff + rows;
  p->con_pair[i + 1] = poff + n_pairs;
  p->n_con = i + 1;
  if (index) *index = i;
  return SG_OK;
}

/* Pair k's subsystem takes a compact pair: rigid-6 (anchor -1), or a tree with motions and the anchor among its unknowns. */
static sg_err check_compact_pair(const sg_problem *p, int i, int sub, int anchor) {
  if (sub < 0 || sub >= p->n_sub) return sg_error_set(SG_ERR_ARG, "constraint %d: subsystem %d out of range", i, sub);
  if (anchor < 0 && p->sub_dof[sub] != 6)
    return sg_error_set(SG_ERR_ARG, "constraint %d: a compact rigid pair needs a rigid-6 subsystem", i);
  if (anchor >= 0 && !(sg_problem_dof_motion(p, sub) && anchor < p->sub_dof[sub]))
    return sg_error_set(SG_ERR_ARG, "constraint %d: a compact tree pair needs a subsystem with motions and its anchor among its unknowns", i);
  return SG_OK;
}

sg_err sg_problem_add_rigid_contact(sg_problem *p, const double *e, double mu, const double *frame, int n_pairs,
                                    const int *subs, const double *levers, const double *signs, const int *anchors,
                                    int *index) {
  if (n_pairs < 1 || n_pairs > 2) return sg_error_set(SG_ERR_ARG, "a compact contact touches one or two subsystems, not %d", n_pairs);
  int i = p->n_con;
  SG_CHECK(grow_con(p, i + 1));
  if (i == 0) { p->con_row[0] = 0; p->con_pair[0] = 0; }
  SG_CHECK(grow_rows_pairs(p, i, 3, n_pairs, 1));
  int roff = p->con_row[i], poff = p->con_pair[i];
  for (int k = 0; k < n_pairs; ++k) {
    const int anchor = anchors ? anchors[k] : -1;
    SG_CHECK(check_compact_pair(p, i, subs[k], anchor));
    p->pair_sub[poff + k] = subs[k];
    p->pair_joff[poff + k] = -2 - anchor; /* -1: rigid */
    memcpy(p->lever + 4 * (poff + k), levers + 3 * k, 3 * sizeof(double));
    p->lever[4 * (poff + k) + 3] = signs[k];
  }
  memcpy(p->e + roff, e, 3 * sizeof(double));
  memcpy(p->frame + 9 * i, frame, 9 * sizeof(double));
  p->kind[i] = SG_CON_CONTACT;
  p->mu[i] = mu;
  p->stiff[i] = 0;
  p->damp[i] = 0;
  p->con_row[i + 1] = roff + 3;
  p->con_pair[i + 1] = poff + n_pairs;
  p->n_con = i + 1;
  if (index) *index = i;
  return SG_OK;
}

void sg_compact_block(const double *frame, const double *lever, double *out) {
  const double sign = lever[3];
  for (int k = 0; k < 3; ++k) {
    const double *t = frame + 3 * k;
    double rxt[3];
    v3_cross(rxt, lever, t); /* the same operations as the rigid body's point Jacobian: the same bits */
    for (int c = 0; c < 3; ++c) {
      out[6 * k + c] = sign * t[c];
      out[6 * k + 3 + c] = sign * rxt[c];
    }
  }
}

/* A compact tree pair's rows (problem.h): sign t_k . (m_c,lin + m_c,ang x r) on the anchor's chain. */
static void tree_block(const sg_problem *p, int i, int q, double *out) {
  const int j = p->pair_sub[q], dof = p->sub_dof[j], *parent = sg_problem_dof_parents(p, j);
  const double *m = sg_problem_dof_motion(p, j), *R = p->frame + 9 * i, *lever = p->lever + 4 * q, sign = lever[3];
  memset(out, 0, 3 * (size_t)dof * sizeof *out);
  for (int c = sg_problem_pair_anchor(p, q); c >= 0; c = parent[c]) {
    double u[3];
    v3_cross(u, m + 6 * c + 3, lever);
    v3_add(u, u, m + 6 * c);
    for (int k = 0; k < 3; ++k) out[k * dof + c] = sign * v3_dot(R + 3 * k, u);
  }
}

void sg_problem_tree_jv(const sg_problem *p, int i, int q, const double *v, double *out) {
  const int j = p->pair_sub[q], *parent = sg_problem_dof_parents(p, j);
  const double *m = sg_problem_dof_motion(p, j), *vj = v + p->sub_off[j], *R = p->frame + 9 * i, *r = p->lever + 4 * q;
  double lin[3] = {0, 0, 0}, ang[3] = {0, 0, 0}, u[3];
  for (int c = sg_problem_pair_anchor(p, q); c >= 0; c = parent[c])
    for (int e = 0; e < 3; ++e) lin[e] += m[6 * c + e] * vj[c], ang[e] += m[6 * c + 3 + e] * vj[c];
  v3_cross(u, ang, r); /* the point's velocity, lin + ang x r */
  v3_add(u, u, lin);
  for (int k = 0; k < 3; ++k) out[k] = r[3] * v3_dot(R + 3 * k, u);
}

void sg_problem_tree_jt_add(const sg_problem *p, int i, int q, const double *f, double *acc) {
  const int j = p->pair_sub[q], *parent = sg_problem_dof_parents(p, j);
  const double *m = sg_problem_dof_motion(p, j), *R = p->frame + 9 * i, *r = p->lever + 4 * q;
  double g[3], rxg[3], *aj = acc + p->sub_off[j];
  for (int c = 0; c < 3; ++c) g[c] = r[3] * (R[c] * f[0] + R[3 + c] * f[1] + R[6 + c] * f[2]); /* J_{i,b}^T f: force */
  v3_cross(rxg, r, g);                                                                        /* and moment */
  for (int c = sg_problem_pair_anchor(p, q); c >= 0; c = parent[c]) aj[c] += v3_dot(m + 6 * c, g) + v3_dot(m + 6 * c + 3, rxg);
}

const double *sg_problem_pair_block(const sg_problem *p, int i, int q, double *buf) {
  if (p->pair_joff[q] >= 0) return p->J + p->pair_joff[q];
  if (sg_problem_pair_is_compact(p, q)) sg_compact_block(p->frame + 9 * i, p->lever + 4 * q, buf);
  else tree_block(p, i, q, buf);
  return buf;
}

sg_err sg_problem_set_owners(sg_problem *p, const int *owner) {
  SG_CHECK(sg_grow((void **)&p->sub_owner, &p->cap_owner, p->n_sub, sizeof(int), "subsystem owners"));
  if (p->n_sub) memcpy(p->sub_owner, owner, (size_t)p->n_sub * sizeof(int));
  p->has_owners = 1;
  return SG_OK;
}

static int all_finite(const double *x, int n) {
  for (int k = 0; k < n; ++k)
    if (!isfinite(x[k])) return 0;
  return 1;
}

/* Is a compact pair's block finite, judged from its frame and lever without expanding it? Each
 * entry is a signed frame entry or a signed difference of two products of lever and frame entries
 * (sg_compact_block), finite when its factors are finite and below 1e100; larger ones are left to
 * the expanded check. */
static int compact_surely_finite(const double *frame, const double *lever) {
  for (int k = 0; k < 9; ++k)
    if (!(fabs(frame[k]) < 1e100)) return 0;
  for (int k = 0; k < 4; ++k)
    if (!(fabs(lever[k]) < 1e100)) return 0;
  return 1;
}

sg_err sg_problem_validate(const sg_problem *p) {
  for (int j = 0; j < p->n_sub; ++j) {
    int d = p->sub_dof[j];
    const double *A = p->A + p->sub_aoff[j];
    if (!all_finite(A, d * d) || !all_finite(p->b + p->sub_off[j], d))
      return sg_error_set(SG_ERR_NUMERIC, "subsystem %lld: NaN or Inf in A or b", (long long)p->sub_gid[j]);
    for (int r = 0; r < d; ++r)
      if (!(A[r * d + r] > 0))
        return sg_error_set(SG_ERR_NUMERIC, "subsystem %lld: non-positive diagonal in A", (long long)p->sub_gid[j]);
  }
  for (int i = 0; i < p->n_con; ++i) {
    int rows = sg_con_rows(p->kind[i]);
    if (!all_finite(p->e + p->con_row[i], rows) || !isfinite(p->mu[i]) || p->mu[i] < 0)
      return sg_error_set(SG_ERR_NUMERIC, "constraint %d: NaN, Inf or negative friction", i);
    if (p->kind[i] == SG_CON_SOFT && !(p->stiff[i] >= 0 && p->damp[i] > 0))
      return sg_error_set(SG_ERR_NUMERIC, "soft constraint %d: needs k >= 0 and b > 0", i);
    double buf[SG_COMPACT_BLOCK];
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q)
      if (!(sg_problem_pair_is_compact(p, q) && compact_surely_finite(p->frame + 9 * i, p->lever + 4 * q)) &&
          !all_finite(sg_problem_pair_block(p, i, q, buf), rows * p->sub_dof[p->pair_sub[q]]))
        return sg_error_set(SG_ERR_NUMERIC, "constraint %d: NaN or Inf in its Jacobian", i);
  }
  return SG_OK;
}

void sg_problem_apply_J(const sg_problem *p, const double *v, double *y) {
  for (int i = 0; i < p->n_con; ++i) {
    int rows = sg_con_rows(p->kind[i]);
    double *yi = y + p->con_row[i], buf[SG_COMPACT_BLOCK];
    for (int r = 0; r < rows; ++r) yi[r] = 0;
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      int j = p->pair_sub[q], d = p->sub_dof[j];
      if (sg_problem_pair_anchor(p, q) >= 0) {
        double t[3];
        sg_problem_tree_jv(p, i, q, v, t);
        for (int r = 0; r < 3; ++r) yi[r] += t[r];
        continue;
      }
      const double *Jq = sg_problem_pair_block(p, i, q, buf), *vj = v + p->sub_off[j];
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < d; ++c) yi[r] += Jq[r * d + c] * vj[c];
    }
  }
}

void sg_problem_apply_JT_add(const sg_problem *p, const double *lambda, double *x) {
  for (int i = 0; i < p->n_con; ++i) {
    int rows = sg_con_rows(p->kind[i]);
    const double *li = lambda + p->con_row[i];
    double buf[SG_COMPACT_BLOCK];
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      int j = p->pair_sub[q], d = p->sub_dof[j];
      if (sg_problem_pair_anchor(p, q) >= 0) {
        sg_problem_tree_jt_add(p, i, q, li, x);
        continue;
      }
      const double *Jq = sg_problem_pair_block(p, i, q, buf);
      double *xj = x + p->sub_off[j];
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < d; ++c) xj[c] += Jq[r * d + c] * li[r];
    }
  }
}
