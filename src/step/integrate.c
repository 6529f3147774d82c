/* The integration stage: each owned body's state update of paper 002 eq. (2), by its kind, from
 * the solver's vhat. */
#include "signorini/body_kind.h"
#include "signorini/collision.h"
#include "signorini/timing.h"
#include "step/stepper_internal.h"

void sg_stepper_integrate(sg_stepper *st) {
  double t0 = MPI_Wtime();
  for (int i = 0; i < st->n_local; ++i) {
    if (!sg_stepper_owns(st, i)) continue;
    const double *vhat = st->v + st->prob.sub_off[st->sub_of_body[i]];
    sg_body_kind_of(st->s, i)->integrate(st->s, i, &st->units, vhat, st->prm.theta, st->prm.dt);
    sg_periodic_wrap(st->s, st->s->state.pos + 3 * i); /* no-op without periodic boundaries */
  }
  sg_timer_add(SG_PHASE_INTEGRATE, t0);
}
