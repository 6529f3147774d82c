/* Problem assembly from rigid bodies and contacts, paper 002 (29)-(31), (44):
 * one subsystem per moving body (6 unknowns: linear then angular velocity, world frame), and per
 * contact the body-wise Jacobian J_{i,b} = R_i [I3, -[r]x] (rows n, t1, t2 of the contact frame;
 * r = contact point - centre of mass), with the opposite sign for body B. */
#include <math.h>
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/la.h"

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

/* Row k of J_{i,b} = [t_k^T, (r x t_k)^T]: the velocity of the material point along t_k. */
static void body_jacobian(const double *frame /* 3 rows */, const double *r, double sign, double *J) {
  for (int k = 0; k < 3; ++k) {
    const double *t = frame + 3 * k;
    double rxt[3];
    v3_cross(rxt, r, t);
    for (int c = 0; c < 3; ++c) {
      J[6 * k + c] = sign * t[c];
      J[6 * k + 3 + c] = sign * rxt[c];
    }
  }
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

void sg_rigid_velocity_to_units(const sg_units *u, const double *v_si, double *v) {
  const double vel = sg_units_velocity(u);
  for (int k = 0; k < 3; ++k) {
    v[k] = v_si[k] / vel;
    v[3 + k] = v_si[3 + k] * u->time;
  }
}

void sg_rigid_velocity_to_si(const sg_units *u, const double *v, double *v_si) {
  const double vel = sg_units_velocity(u);
  for (int k = 0; k < 3; ++k) {
    v_si[k] = v[k] * vel;
    v_si[3 + k] = v[3 + k] / u->time;
  }
}

/* Subsystem of a moving body in units u: with v = V vt (linear), w = wt / T (angular), the rows of
 * M (v_k+1 - v_k) = f dt + J^T lambda divided by M V (linear) and M L V (angular), and lambda = M V
 * lambda_t, A and b become A_lin = m / M, A_ang = I / (M L^2), b = A v_k + (m / M) g dt / V. */
static sg_err add_body(const sg_scene *s, int i, const sg_step_params *prm, const sg_units *u, sg_problem *p,
                       int *sub) {
  const double inv = 1.0 / (1.0 - prm->theta), m = s->mass[i] / u->mass, L2 = u->length * u->length;
  double R[9], Iw[9], A[36] = {0}, b[6], v[6];
  quat_to_mat(R, s->quat + 4 * i);
  inertia_world(Iw, R, s->inertia + 3 * i);
  /* A = M_k / (1 - theta), b = A v_k + f_k dt with f = gravity; the gyroscopic term is not in f:
   * angular momentum is the integrated state (see integrate.c). */
  for (int k = 0; k < 3; ++k) A[7 * k] = m * inv;
  for (int r = 0; r < 3; ++r)
    for (int q = 0; q < 3; ++q) A[(3 + r) * 6 + 3 + q] = Iw[3 * r + q] / (u->mass * L2) * inv;
  sg_rigid_velocity_to_units(u, s->vel + 6 * i, v);
  const double gravity_to_units = prm->dt / sg_units_velocity(u);
  for (int r = 0; r < 6; ++r) {
    double acc = 0;
    for (int q = 0; q < 6; ++q) acc += A[r * 6 + q] * v[q];
    b[r] = acc + (r < 3 ? m * s->gravity[r] * gravity_to_units : 0.0);
  }
  return sg_problem_add_subsystem(p, 6, A, b, s->gid[i], sub);
}

/* Contact k in units u: Jacobian rows [t, (r x t) / L], error e / V. A fixed body's velocity
 * (v, w) does not move it: it is the velocity of its surface (a belt, a turntable), which enters e,
 * whose rows then hold the velocity of A relative to B along (n, t1, t2) that J leaves out. */
static sg_err add_contact(const sg_scene *s, const sg_contact *ct, const sg_step_params *prm, const sg_units *u,
                          sg_problem *p, const int *sub_of_body) {
  double frame[9], Ja[18], Jb[18], r[3];
  v3_copy(frame, ct->cp.normal);
  sg_contact_frame(frame, frame + 3, frame + 6);
  int subs[2], np = 0;
  const double *Js[2];
  if (!s->fixed[ct->a]) {
    v3_sub(r, ct->cp.point, s->pos + 3 * ct->a);
    v3_scale(r, r, 1.0 / u->length);
    body_jacobian(frame, r, 1.0, Ja);
    subs[np] = sub_of_body[ct->a];
    Js[np++] = Ja;
  }
  if (!s->fixed[ct->b]) {
    v3_sub(r, ct->cp.point, s->pos + 3 * ct->b);
    v3_scale(r, r, 1.0 / u->length);
    body_jacobian(frame, r, -1.0, Jb);
    subs[np] = sub_of_body[ct->b];
    Js[np++] = Jb;
  }
  double e[3] = {sg_contact_error(ct->cp.gap, prm->dt, prm->erp), 0, 0}, drag[3] = {0, 0, 0}, us[3];
  if (s->fixed[ct->a]) { rigid_point_velocity(us, s->vel + 6 * ct->a, s->pos + 3 * ct->a, ct->cp.point); v3_add(drag, drag, us); }
  if (s->fixed[ct->b]) { rigid_point_velocity(us, s->vel + 6 * ct->b, s->pos + 3 * ct->b, ct->cp.point); v3_sub(drag, drag, us); }
  for (int k = 0; k < 3; ++k) e[k] = (e[k] + v3_dot(frame + 3 * k, drag)) / sg_units_velocity(u);
  return sg_problem_add_constraint(p, SG_CON_CONTACT, e, sg_scene_friction(s, ct->a, ct->b), 0, 0, np, subs, Js, NULL);
}

sg_err sg_assemble_rigid(const sg_scene *s, const sg_contacts *c, const sg_step_params *prm, const sg_units *u,
                         sg_problem *p, int *sub_of_body) {
  sg_problem_reset(p);
  p->units = *u;
  p->dt = prm->dt;
  for (int i = 0; i < s->n; ++i) {
    sub_of_body[i] = -1;
    if (!s->fixed[i]) SG_CHECK(add_body(s, i, prm, u, p, &sub_of_body[i]));
  }
  for (int k = 0; k < c->n; ++k) SG_CHECK(add_contact(s, &c->c[k], prm, u, p, sub_of_body));
  return SG_OK;
}
