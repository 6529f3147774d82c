/* The problem of a step's contacts (sg_assemble_rigid), with every subsystem's owner rank, and
 * each contact's keeper: the owner of its first moving body in gid order, who counts it in the
 * statistics, the metric and the checkpoint, so that each contact counts once whatever P. */
#include "signorini/assemble.h"
#include "signorini/timing.h"
#include "step/stepper_internal.h"

static void mark_keepers(sg_stepper *st) {
  const sg_scene *s = st->s;
  for (int k = 0; k < st->contacts.n; ++k) {
    const sg_contact *c = &st->contacts.c[k];
    st->kept[k] = sg_stepper_owns(st, c->a) || (s->fixed[c->a] && sg_stepper_owns(st, c->b));
  }
}

sg_err sg_stepper_assemble(sg_stepper *st) {
  sg_scene *s = st->s;
  double t0 = MPI_Wtime();
  SG_CHECK(sg_grow((void **)&st->kept, &st->cap_kept, st->contacts.n + 1, 1, "contact keepers"));
  mark_keepers(st);
  SG_CHECK(sg_grow((void **)&st->sub_of_body, &st->cap_body, s->n + 1, sizeof(int), "body map"));
  SG_CHECK(sg_assemble_rigid(s, &st->contacts, &st->prm, &st->units, &st->prob, st->sub_of_body));
  sg_stepper_add_rolling(st);
  if (st->size > 1) { /* one rank: no owners, every subsystem is this rank's */
    SG_CHECK(sg_grow((void **)&st->sub_owner, &st->cap_sub_owner, st->prob.n_sub + 1, sizeof(int), "subsystem owners"));
    for (int i = 0; i < s->n; ++i)
      if (st->sub_of_body[i] >= 0) st->sub_owner[st->sub_of_body[i]] = st->ws_owner[i];
    SG_CHECK(sg_problem_set_owners(&st->prob, st->sub_owner));
  }
  const sg_problem *p = &st->prob;
  int nv = sg_problem_n_v(p), nrow = p->n_con ? sg_problem_n_rows(p) : 0;
  SG_CHECK(sg_grow((void **)&st->v, &st->cap_v, nv + 1, sizeof(double), "velocities"));
  SG_CHECK(sg_grow((void **)&st->lambda, &st->cap_row, nrow + 1, sizeof(double), "multipliers"));
  sg_timer_add(SG_PHASE_ASSEMBLY, t0);
  return SG_OK;
}
