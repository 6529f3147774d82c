/* Problem assembly from a scene's bodies and contacts, paper 002 (29)-(31): one subsystem per
 * moving body and one contact constraint per contact, with a Jacobian block per moving body it
 * touches; each body's numbers come from its kind (body_kind.h). */
#include <math.h>
#include <stdlib.h>
#include "signorini/assemble.h"
#include "signorini/la.h"
#include "signorini/tree.h"

void sg_contact_frame(const double *n, double *t1, double *t2) {
  /* t1 is n crossed with the world axis least aligned with n: a deterministic function of n, so
   * the tangent components of a warm-started multiplier keep their meaning while n barely moves. */
  double ax[3] = {0, 0, 0};
  double fx = fabs(n[0]), fy = fabs(n[1]), fz = fabs(n[2]);
  ax[(fx <= fy && fx <= fz) ? 0 : (fy <= fz ? 1 : 2)] = 1.0;
  v3_cross(t1, n, ax);
  v3_normalize(t1);
  v3_cross(t2, n, t1);
}

double sg_contact_error(double gap, double dt, double erp) {
  /* J vhat + e >= 0 keeps gap + dt v_n >= 0 after the step (q_{k+1} = q_k + dt vhat): an open
   * gap may close exactly, a penetration is removed at the rate erp per step (Baumgarte-like),
   * which avoids the large separation velocities of a full correction. */
  return gap >= 0 ? gap / dt : erp * gap / dt;
}

void sg_rigid_scales(MPI_Comm comm, const sg_scene *s, double *least_mass, double *least_size) {
  double least[2]; /* mass, size: of the bodies held and of those the inflows will insert */
  sg_regions_least_body(s, &least[0], &least[1]);
  for (int i = 0; i < s->n; ++i) {
    if (s->fixed[i]) continue;
    least[0] = fmin(least[0], s->mass[i]);
    least[1] = fmin(least[1], sg_body_min_size(s, i));
  }
  if (s->distributed) MPI_Allreduce(MPI_IN_PLACE, least, 2, MPI_DOUBLE, MPI_MIN, comm); /* min is exact */
  *least_mass = least[0];
  *least_size = least[1];
}

sg_units sg_units_from_scales(double least_mass, double least_size, double dt) {
  sg_units u = {isfinite(least_mass) && least_mass > 0 ? least_mass : 1.0,
                isfinite(least_size) && least_size > 0 ? least_size : 1.0, dt};
  return u;
}

sg_units sg_rigid_units(MPI_Comm comm, const sg_scene *s, double dt) {
  double m, l;
  sg_rigid_scales(comm, s, &m, &l);
  return sg_units_from_scales(m, l, dt);
}

/* Room for the widest held body's A (dof x dof), b and sparsity, and a contact's two Jacobian blocks. */
typedef struct {
  double *A, *b, *J[2], *motion;
  double *mem;
  int *parent;
} scratch;

static sg_err scratch_alloc(const sg_scene *s, scratch *w) {
  size_t d = 1;
  for (int i = 0; i < s->n; ++i)
    if (!s->fixed[i] && (size_t)sg_body_dof(s, i) > d) d = (size_t)sg_body_dof(s, i);
  w->mem = sg_calloc(d * d + 13 * d, sizeof *w->mem, "assembly blocks");
  w->parent = sg_calloc(d, sizeof *w->parent, "assembly sparsity");
  if (!w->mem || !w->parent) {
    free(w->mem);
    free(w->parent);
    return SG_ERR_MEM;
  }
  w->A = w->mem;
  w->b = w->A + d * d;
  w->J[0] = w->b + d;
  w->J[1] = w->J[0] + 3 * d;
  w->motion = w->J[1] + 3 * d;
  return SG_OK;
}

/* Subsystem of a moving body: its A_j and b_j from its kind (paper 002 (8), (29)), and its sparsity
 * when the kind gives one. */
static sg_err add_body(const sg_scene *s, int i, const sg_step_params *prm, const sg_units *u, sg_problem *p,
                       const scratch *w, int *sub) {
  const sg_body_kind_ops *kind = sg_body_kind_of(s, i);
  kind->subsystem(s, i, u, prm->dt, prm->theta, w->A, w->b);
  SG_CHECK(sg_problem_add_subsystem(p, kind->dof(s, i), w->A, w->b, s->gid[i], sub));
  if (!kind->dof_parents) return SG_OK;
  kind->dof_parents(s, i, w->parent);
  SG_CHECK(sg_problem_set_dof_parents(p, *sub, w->parent));
  if (!kind->dof_motion || prm->dense_jacobians) return SG_OK;
  kind->dof_motion(s, i, u, w->motion);
  return sg_problem_set_dof_motion(p, *sub, w->motion);
}

/* Velocity (SI) of the material point x of link `link` of body i at the start of the step: a rigid
 * row's motion, or, for a tree, its point Jacobian (in SI units) times its velocities. */
static void body_point_velocity(const sg_scene *s, int i, int link, const double *x, double *u) {
  if (s->kind[i] != SG_BODY_TREE) {
    rigid_point_velocity(u, s->state.vel + 6 * i, s->state.pos + 3 * i, x);
    return;
  }
  static const double axes[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const sg_body_kind_ops *kind = sg_body_kind_of(s, i);
  const sg_units si = sg_units_si();
  const int dof = kind->dof(s, i);
  double J[3 * SG_TREE_MAX_DOF], v[SG_TREE_MAX_DOF];
  kind->point_jacobian(s, i, link, x, axes, 3, &si, 1.0, J);
  kind->velocity_in_units(s, i, &si, v);
  for (int r = 0; r < 3; ++r) {
    u[r] = 0;
    for (int c = 0; c < dof; ++c) u[r] += J[r * dof + c] * v[c];
  }
}

/* The normal velocity of A relative to B at the contact point at the start of the step (m/s; < 0:
 * approaching), and its change by gravity over the step (dt n . (g_A - g_B), moving bodies only). */
static double approach_velocity(const sg_scene *s, const sg_contact *ct, const double *n, double dt, double *gravity_dv) {
  double va[3], vb[3], d[3], xa[3], xb[3];
  sg_contact_point_of(ct, 0, xa);
  sg_contact_point_of(ct, 1, xb);
  body_point_velocity(s, ct->a, ct->link_a, xa, va);
  body_point_velocity(s, ct->b, ct->link_b, xb, vb);
  v3_sub(d, va, vb);
  double ga = s->fixed[ct->a] ? 0.0 : 1.0, gb = s->fixed[ct->b] ? 0.0 : 1.0;
  *gravity_dv = (ga - gb) * dt * v3_dot(n, s->gravity);
  return v3_dot(n, d);
}

/* The normal row's error (m/s): the gap term of sg_contact_error, or, for a pair with restitution
 * r > 0 whose contact closes within the step (gap + dt u_free <= 0) at an approach faster than the
 * threshold, also Newton's impact law u_{k+1} >= -r u_k (u the normal velocity of A relative to B,
 * k the start of the step). With vhat = theta v_k + (1 - theta) v_{k+1} (paper 002 eq. (2)) the law
 * reads J vhat + u_k ((1 - theta) r - theta) >= 0 (surface velocities aside), so it enters e as that
 * term; the tighter of the two bounds holds. */
static double normal_error(const sg_scene *s, const sg_contact *ct, const double *n, const sg_step_params *prm) {
  double e = sg_contact_error(ct->cp.gap, prm->dt, prm->erp), r = sg_scene_restitution(s, ct->a, ct->b);
  if (!(r > 0)) return e;
  double dv_gravity, uk = approach_velocity(s, ct, n, prm->dt, &dv_gravity);
  if (uk < -prm->bounce_threshold && ct->cp.gap + prm->dt * (uk + dv_gravity) <= 0)
    e = fmin(e, uk * ((1.0 - prm->theta) * r - prm->theta));
  return e;
}

/* The contact's error e / V (3 rows) at its points x[2]. A fixed body's velocity (v, w) does not
 * move it: it is the velocity of its surface (a belt, a turntable), which enters e, whose rows then
 * hold the velocity of A relative to B along (n, t1, t2) that J leaves out. */
static void contact_error(const sg_scene *s, const sg_contact *ct, const double *frame, double x[2][3],
                          const sg_step_params *prm, const sg_units *u, double *e) {
  double drag[3] = {0, 0, 0}, us[3];
  e[0] = normal_error(s, ct, frame, prm);
  e[1] = e[2] = 0;
  if (s->fixed[ct->a]) { rigid_point_velocity(us, s->state.vel + 6 * ct->a, s->state.pos + 3 * ct->a, x[0]); v3_add(drag, drag, us); }
  if (s->fixed[ct->b]) { rigid_point_velocity(us, s->state.vel + 6 * ct->b, s->state.pos + 3 * ct->b, x[1]); v3_sub(drag, drag, us); }
  for (int k = 0; k < 3; ++k) e[k] = (e[k] + v3_dot(frame + 3 * k, drag)) / sg_units_velocity(u);
}

/* Contact k in units u: each moving body's block J_ij from its kind (rows n, t1, t2; paper 002
 * (29)-(31), (44)), body B's with the opposite sign, and the error e / V. */
static sg_err add_dense_contact(const sg_scene *s, const sg_contact *ct, const sg_step_params *prm, const sg_units *u,
                                sg_problem *p, const int *sub_of_body, const scratch *w, const double *frame) {
  const int body[2] = {ct->a, ct->b};
  const double sign[2] = {1.0, -1.0};
  int subs[2], np = 0;
  const double *Js[2];
  double x[2][3];
  sg_contact_point_of(ct, 0, x[0]);
  sg_contact_point_of(ct, 1, x[1]);
  for (int side = 0; side < 2; ++side) {
    const int i = body[side];
    if (s->fixed[i]) continue;
    sg_body_kind_of(s, i)->point_jacobian(s, i, side ? ct->link_b : ct->link_a, x[side], frame, 3, u, sign[side], w->J[np]);
    subs[np] = sub_of_body[i];
    Js[np] = w->J[np];
    np++;
  }
  if (np == 2 && ct->a == ct->b) { /* two links of one tree: one block, J_A - J_B on its subsystem */
    const int n = 3 * sg_body_dof(s, ct->a);
    for (int k = 0; k < n; ++k) w->J[0][k] += w->J[1][k];
    np = 1;
  }
  double e[3];
  contact_error(s, ct, frame, x, prm, u, e);
  return sg_problem_add_constraint(p, SG_CON_CONTACT, e, sg_scene_friction(s, ct->a, ct->b), 0, 0, np, subs, Js, NULL);
}

/* The same contact in compact form (problem.h): the frame, and per moving body its lever arm and
 * sign, from which J_ij is sign [t_k^T, (r x t_k)^T] (paper 002 (44)) for a rigid-6 body (r from its
 * centre of mass), and the same row J_{i,b} times the tree's motions on the anchor's chain for a
 * link of a tree (r the world point). anchors[side] and side_levers[side] from compact_side. */
static sg_err add_compact_contact(const sg_scene *s, const sg_contact *ct, const sg_step_params *prm, const sg_units *u,
                                  sg_problem *p, const int *sub_of_body, const double *frame, const int anchors[2],
                                  const double side_levers[2][3]) {
  const int body[2] = {ct->a, ct->b};
  int subs[2], pair_anchor[2], np = 0;
  double x[2][3], levers[6], signs[2];
  sg_contact_point_of(ct, 0, x[0]);
  sg_contact_point_of(ct, 1, x[1]);
  for (int side = 0; side < 2; ++side) {
    const int i = body[side];
    if (s->fixed[i]) continue;
    pair_anchor[np] = anchors[side];
    v3_copy(levers + 3 * np, side_levers[side]);
    signs[np] = side ? -1.0 : 1.0;
    subs[np++] = sub_of_body[i];
  }
  double e[3];
  contact_error(s, ct, frame, x, prm, u, e);
  return sg_problem_add_rigid_contact(p, e, sg_scene_friction(s, ct->a, ct->b), frame, np, subs, levers, signs, pair_anchor,
                                      NULL);
}

/* Can side `side` of the contact take a compact pair? 1 for a fixed body; 1 with *anchor -1 and the
 * lever from the centre of mass for a rigid-6 body; 1 with its anchor and the world point as lever
 * for a link of a tree that has motions and whose link moves; else 0. */
static int compact_side(const sg_scene *s, const sg_contact *ct, int side, const sg_units *u, int *anchor, double lever[3]) {
  const int i = side ? ct->b : ct->a;
  *anchor = -1;
  if (s->fixed[i]) return 1;
  double x[3];
  sg_contact_point_of(ct, side, x);
  if (s->kind[i] == SG_BODY_RIGID6) {
    sg_rigid_lever(s, i, x, u, lever);
    return 1;
  }
  const sg_body_kind_ops *kind = sg_body_kind_of(s, i);
  if (!kind->point_anchor || !kind->dof_motion) return 0;
  *anchor = kind->point_anchor(s, i, side ? ct->link_b : ct->link_a, x, u, lever);
  return *anchor >= 0;
}

/* Contact k: compact when each moving side is a rigid-6 body or a moving link of a tree, and not two
 * links of one tree (their rows are one block J_A - J_B), unless dense blocks are asked for. */
static sg_err add_contact(const sg_scene *s, const sg_contact *ct, const sg_step_params *prm, const sg_units *u,
                          sg_problem *p, const int *sub_of_body, const scratch *w, int dense) {
  double frame[9];
  v3_copy(frame, ct->cp.normal);
  sg_contact_frame(frame, frame + 3, frame + 6);
  int anchors[2];
  double levers[2][3];
  const int compact = !dense && ct->a != ct->b && compact_side(s, ct, 0, u, &anchors[0], levers[0]) &&
                      compact_side(s, ct, 1, u, &anchors[1], levers[1]);
  if (compact) return add_compact_contact(s, ct, prm, u, p, sub_of_body, frame, anchors, levers);
  return add_dense_contact(s, ct, prm, u, p, sub_of_body, w, frame);
}

sg_err sg_assemble_rigid(const sg_scene *s, const sg_contacts *c, const sg_step_params *prm, const sg_units *u,
                         sg_problem *p, int *sub_of_body) {
  sg_problem_reset(p);
  p->units = *u;
  p->dt = prm->dt;
  scratch w;
  SG_CHECK(scratch_alloc(s, &w));
  sg_err err = SG_OK;
  for (int i = 0; i < s->n; ++i) {
    sub_of_body[i] = -1;
    if (!err && !s->fixed[i]) err = add_body(s, i, prm, u, p, &w, &sub_of_body[i]);
  }
  for (int k = 0; k < c->n && !err; ++k) err = add_contact(s, &c->c[k], prm, u, p, sub_of_body, &w, prm->dense_jacobians);
  free(w.mem);
  free(w.parent);
  return err;
}
