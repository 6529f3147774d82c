/* A tree's joint rows: each limit of a revolute or prismatic joint a hard row (paper 002 (3)),
 * 0 <= lambda _|_ J vhat + e >= 0, and its PD control a soft row (4), lambda = -k e - b J vhat, on the
 * tree's own subsystem. The row's Jacobian picks the joint's velocity (J = +1 at a lower limit,
 * -1 at an upper one), in the units of the subsystem's unknowns (tree.c: v_si = D v), so J = 1 and
 * an error e_si becomes e_si / D. */
#include <math.h>
#include <string.h>
#include "signorini/assemble.h"
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
  return SG_OK;
}
