/* State update of paper 002 eq. (2) for rigid bodies, and the stage that applies it to every
 * owned body with the solver's vhat. */
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/integrate.h"
#include "signorini/la.h"
#include "signorini/timing.h"
#include "step/stepper_internal.h"

void sg_integrate_body(sg_scene *s, int i, const double *vhat, double theta, double dt) {
  double *x = s->pos + 3 * i, *q = s->quat + 4 * i, *v = s->vel + 6 * i;
  const double inv = 1.0 / (1.0 - theta);
  double v_next[6];
  /* vhat = theta v_k + (1 - theta) v_{k+1} */
  for (int k = 0; k < 6; ++k) v_next[k] = (vhat[k] - theta * v[k]) * inv;
  /* positions move with the representative velocity: q_{k+1} = update(q_k, vhat, dt) */
  v3_axpy(x, dt, vhat);
  /* Angular momentum L_{k+1} = I(q_k) w_{k+1} is what the momentum balance determines; keeping it
   * and recomputing w_{k+1} = I(q_{k+1})^{-1} L_{k+1} after the rotation conserves L exactly for
   * torque-free motion, where an explicit gyroscopic force would gain energy. */
  double R[9], Iw[9], Iinv[9], L[3], q_half[4], w_mid[3];
  quat_to_mat(R, q);
  inertia_world(Iw, R, s->inertia + 3 * i);
  m3_mul_v(L, Iw, v_next + 3);
  /* The orientation turns with the angular velocity that L gives at the half-step orientation
   * (I^{-1} taken at q_k alone makes the rotation first order and lets a free spinning body gain
   * energy); for bodies at rest or in slow contact this equals vhat to O(dt). */
  memcpy(q_half, q, sizeof q_half);
  quat_integrate(q_half, vhat + 3, 0.5 * dt);
  quat_to_mat(R, q_half);
  inertia_world_inv(Iinv, R, s->inertia + 3 * i);
  m3_mul_v(w_mid, Iinv, L);
  if (theta > 0) /* vhat mixes v_k in: keep its weight on the rotation too */
    for (int k = 0; k < 3; ++k) w_mid[k] = theta * v[3 + k] + (1 - theta) * w_mid[k];
  quat_integrate(q, w_mid, dt); /* exponential map, renormalized */
  quat_to_mat(R, q);
  inertia_world_inv(Iinv, R, s->inertia + 3 * i);
  m3_mul_v(v_next + 3, Iinv, L);
  memcpy(v, v_next, sizeof v_next);
}

void sg_stepper_integrate(sg_stepper *st) {
  double t0 = MPI_Wtime(), v[6];
  for (int i = 0; i < st->n_local; ++i) {
    if (!sg_stepper_owns(st, i)) continue;
    sg_rigid_velocity_to_si(&st->units, st->v + st->prob.sub_off[st->sub_of_body[i]], v);
    sg_integrate_body(st->s, i, v, st->prm.theta, st->prm.dt);
  }
  sg_timer_add(SG_PHASE_INTEGRATE, t0);
}
