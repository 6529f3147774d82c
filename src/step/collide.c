/* The contacts of a step: broad and narrow phase over the held bodies and ghosts, kept when they
 * touch an owned body (a contact between two ranks' bodies is found by both, from the same data). */
#include "signorini/fault.h"
#include "signorini/timing.h"
#include "step/stepper_internal.h"

sg_err sg_stepper_collide(sg_stepper *st) {
  sg_scene *s = st->s;
  double t0 = MPI_Wtime();
  SG_CHECK(sg_find_contacts_periodic(s, st->prm.margin, st->prm.dt, &st->bp, &st->images, &st->contacts));
  SG_CHECK(sg_fault_check("collision", s->state.step + 1)); /* a testing aid (fault.h) */
  int m = 0; /* the contacts of owned bodies, in the canonical order */
  for (int k = 0; k < st->contacts.n; ++k) {
    const sg_contact c = st->contacts.c[k];
    if (sg_stepper_owns(st, c.a) || sg_stepper_owns(st, c.b)) st->contacts.c[m++] = c;
  }
  st->contacts.n = m;
  sg_timer_add(SG_PHASE_COLLISION, t0);
  return SG_OK;
}
