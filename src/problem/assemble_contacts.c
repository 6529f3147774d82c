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

sg_err sg_assemble_rigid(const sg_scene *s, const sg_contacts *c, const sg_step_params *prm,
                         sg_problem *p, int *sub_of_body) {
  sg_problem_reset(p);
  const double inv = 1.0 / (1.0 - prm->theta), dt = prm->dt;
  for (int i = 0; i < s->n; ++i) {
    sub_of_body[i] = -1;
    if (s->fixed[i]) continue;
    double R[9], Iw[9], A[36] = {0}, b[6], m = s->mass[i];
    quat_to_mat(R, s->quat + 4 * i);
    inertia_world(Iw, R, s->inertia + 3 * i);
    /* A = M_k / (1 - theta), b = A v_k + f_k dt with f = gravity; the gyroscopic term is not in f:
     * angular momentum is the integrated state (see integrate.c). */
    for (int k = 0; k < 3; ++k) A[7 * k] = m * inv;
    for (int r = 0; r < 3; ++r)
      for (int q = 0; q < 3; ++q) A[(3 + r) * 6 + 3 + q] = Iw[3 * r + q] * inv;
    const double *v = s->vel + 6 * i;
    for (int r = 0; r < 6; ++r) {
      double acc = 0;
      for (int q = 0; q < 6; ++q) acc += A[r * 6 + q] * v[q];
      b[r] = acc + (r < 3 ? m * s->gravity[r] * dt : 0.0);
    }
    SG_CHECK(sg_problem_add_subsystem(p, 6, A, b, s->gid[i], &sub_of_body[i]));
  }
  for (int k = 0; k < c->n; ++k) {
    const sg_contact *ct = &c->c[k];
    double frame[9], Ja[18], Jb[18], r[3];
    v3_copy(frame, ct->cp.normal);
    sg_contact_frame(frame, frame + 3, frame + 6);
    int subs[2], np = 0;
    const double *Js[2];
    if (!s->fixed[ct->a]) {
      v3_sub(r, ct->cp.point, s->pos + 3 * ct->a);
      body_jacobian(frame, r, 1.0, Ja);
      subs[np] = sub_of_body[ct->a];
      Js[np++] = Ja;
    }
    if (!s->fixed[ct->b]) {
      v3_sub(r, ct->cp.point, s->pos + 3 * ct->b);
      body_jacobian(frame, r, -1.0, Jb);
      subs[np] = sub_of_body[ct->b];
      Js[np++] = Jb;
    }
    double e[3] = {sg_contact_error(ct->cp.gap, dt, prm->erp), 0, 0};
    SG_CHECK(sg_problem_add_constraint(p, SG_CON_CONTACT, e, sg_scene_friction(s, ct->a, ct->b), 0, 0, np,
                                       subs, Js, NULL));
  }
  return SG_OK;
}
