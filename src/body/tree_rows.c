/* A tree's joint rows: each limit of a revolute or prismatic joint a hard row (paper 002 (3)),
 * 0 <= lambda _|_ J vhat + e >= 0, its PD control a soft row (4), lambda = -k e - b J vhat, and each
 * loop closure three bilateral rows J vhat + e = 0, all on the tree's own subsystem. The row's Jacobian picks the joint's velocity (J = +1 at a lower limit,
 * -1 at an upper one), in the units of the subsystem's unknowns (tree.c: v_si = D v), so J = 1 and
 * an error e_si becomes e_si / D. */
#include <math.h>
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/la.h"
#include "signorini/tree.h"

/* SI per problem unit of the link's velocity: 1/time for a revolute joint, length/time for a prismatic one. */
static double unit_scale(const sg_link *L, const sg_units *u) {
  return L->type == SG_JOINT_PRISMATIC ? sg_units_velocity(u) : 1.0 / u->time;
}

/* A hard row on velocity a with direction sign (+1: q may not fall below the bound, -1: not rise
 * above it); gap = sign (q - bound), whose error is the contacts' (sg_contact_error: an open gap may
 * close exactly in the step, a violation is removed at the rate erp). */
static sg_err add_limit(sg_problem *p, int sub, int a, double sign, double gap, double D, double dt, double erp) {
  double J[SG_TREE_MAX_DOF] = {0}, e = sg_contact_error(gap, dt, erp) / D;
  const double *Js[1] = {J};
  J[a] = sign;
  return sg_problem_add_constraint(p, SG_CON_HARD, &e, 0, 0, 0, 1, &sub, Js, NULL);
}

/* The PD law's impulse over the step, dt (kp (target - q) - kd qdot), as (4) with J vhat the joint's
 * velocity: e = (q - target) / dt (a velocity, like the hard rows' errors), k = kp dt^2, b = kd dt,
 * each scaled to the problem's units (an impulse l_si on velocity a is D l_si / (mass V^2) there). */
static sg_err add_pd(sg_problem *p, int sub, int a, const sg_link *L, double q, double D, double dt, const sg_units *u) {
  const double V = sg_units_velocity(u), scale = D * D / (u->mass * V * V);
  double J[SG_TREE_MAX_DOF] = {0}, e = (q - L->pd[2]) / dt / D;
  const double *Js[1] = {J};
  J[a] = 1;
  return sg_problem_add_constraint(p, SG_CON_SOFT, &e, 0, L->pd[0] * dt * dt * scale, L->pd[1] * dt * scale, 1, &sub, Js, NULL);
}

/* A direction along which the closure's points cannot move relative to each other at this
 * configuration (J J^T's eigenvalue below this fraction of the largest: a planar loop's normal) gets
 * no row: the row would be zero, or round-off, and no solver can take it. */
#define CLOSURE_RANK_TOL 1e-12

/* Closure c's rows: J_rel = (J_a - J_b) D / V (tree.c's units), the velocity of point a relative
 * to point b, taken along the eigenvectors n_k of J_rel J_rel^T (orthonormal world directions, rows
 * orthogonal to each other) that the mechanism can move along, with e = erp n_k . d / dt / V for
 * the gap d = x_a - x_b: after the step (x += dt J vhat) the gap is (1 - erp) d, the drift removed
 * as a contact's penetration is. *added: the rows appended (0 to 3). */
static sg_err add_closure(sg_problem *p, int sub, const sg_tree *t, const sg_tree_kin *k, int c, double dt, double erp,
                          const sg_units *u, int *added) {
  const sg_closure *C = &t->closure[c];
  const int nv = t->nv;
  const double V = sg_units_velocity(u);
  double xa[3], xb[3], Ja[3 * SG_TREE_MAX_DOF], Jb[3 * SG_TREE_MAX_DOF] = {0}, J[SG_TREE_MAX_DOF], G[9] = {0}, w[3], Q[9];
  const double *Js[1] = {J};
  sg_tree_closure_points(t, k, c, xa, xb);
  sg_tree_point_jacobian(t, k, C->link[0], xa, Ja);
  if (C->link[1] >= 0) sg_tree_point_jacobian(t, k, C->link[1], xb, Jb);
  for (int a = 0; a < nv; ++a) {
    const double D = sg_tree_dof_is_linear(t, a) ? V : 1.0 / u->time;
    for (int r = 0; r < 3; ++r) Ja[r * nv + a] = (Ja[r * nv + a] - Jb[r * nv + a]) * D / V;
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) G[3 * r + s] += Ja[r * nv + a] * Ja[s * nv + a];
  }
  m3_sym_eigen(G, w, Q);
  const double largest = fmax(w[0], fmax(w[1], w[2]));
  *added = 0;
  for (int m = 0; m < 3; ++m) {
    if (!(w[m] > CLOSURE_RANK_TOL * largest)) continue;
    const double n[3] = {Q[m], Q[3 + m], Q[6 + m]};
    for (int a = 0; a < nv; ++a) J[a] = n[0] * Ja[a] + n[1] * Ja[nv + a] + n[2] * Ja[2 * nv + a];
    const double e = erp * (n[0] * (xa[0] - xb[0]) + n[1] * (xa[1] - xb[1]) + n[2] * (xa[2] - xb[2])) / dt / V;
    SG_CHECK(sg_problem_add_constraint(p, SG_CON_BILATERAL, &e, 0, 0, 0, 1, &sub, Js, NULL));
    ++*added;
  }
  return SG_OK;
}

sg_err sg_tree_add_joint_rows(const sg_scene *s, int i, int sub, double dt, double erp, const sg_units *u, sg_problem *p,
                              int *added) {
  const sg_tree *t = sg_scene_tree_by_gid(s, s->gid[i]);
  *added = 0;
  for (int l = 0; t && l < t->n_links; ++l) {
    const sg_link *L = &t->link[l];
    if (L->type != SG_JOINT_REVOLUTE && L->type != SG_JOINT_PRISMATIC) continue;
    const int a = L->v_off;
    const double q = t->q[L->q_off], D = unit_scale(L, u);
    if (L->limit[0] > -INFINITY) {
      SG_CHECK(add_limit(p, sub, a, 1.0, q - L->limit[0], D, dt, erp));
      ++*added;
    }
    if (L->limit[1] < INFINITY) {
      SG_CHECK(add_limit(p, sub, a, -1.0, L->limit[1] - q, D, dt, erp));
      ++*added;
    }
    if (L->pd[0] != 0 || L->pd[1] != 0) {
      SG_CHECK(add_pd(p, sub, a, L, q, D, dt, u));
      ++*added;
    }
  }
  if (!t || t->n_closures == 0) return SG_OK;
  sg_tree_kin k;
  sg_tree_kinematics(t, t->q, &k);
  for (int c = 0; c < t->n_closures; ++c) {
    int rows = 0;
    SG_CHECK(add_closure(p, sub, t, &k, c, dt, erp, u, &rows));
    *added += rows;
  }
  return SG_OK;
}
