/* The problem of a step's contacts (sg_assemble_rigid), with every subsystem's owner rank, and
 * each contact's keeper: the owner of its first moving body in gid order, who counts it in the
 * statistics, the metric and the checkpoint, so that each contact counts once whatever P. */
#include "signorini/assemble.h"
#include "signorini/body_kind.h"
#include "signorini/timing.h"
#include "signorini/tree.h"
#include "step/stepper_internal.h"

static void mark_keepers(sg_stepper *st) {
  const sg_scene *s = st->s;
  for (int k = 0; k < st->contacts.n; ++k) {
    const sg_contact *c = &st->contacts.c[k];
    st->kept[k] = sg_stepper_owns(st, c->a) || (s->fixed[c->a] && sg_stepper_owns(st, c->b));
  }
}

/* Joint limits (hard rows, paper 002 (3)), PD control (soft rows, (4)) and loop closures
 * (bilateral rows) of the trees this rank owns, after the contacts, each row on its tree's subsystem alone. The gather adapter numbers the
 * constraints by contact, so a whole-problem solver on several ranks cannot take them yet. */
static sg_err add_joint_rows(sg_stepper *st) {
  int total = 0;
  for (int i = 0; i < st->n_local; ++i) {
    int added = 0;
    if (sg_stepper_owns(st, i) && st->s->kind[i] == SG_BODY_TREE)
      SG_CHECK(sg_tree_add_joint_rows(st->s, i, st->sub_of_body[i], st->prm.dt, st->prm.erp, &st->units, &st->prob, &added));
    total += added;
  }
  if (total && st->size > 1 && st->solver->ops->layout == SG_SOLVER_WHOLE)
    return sg_error_set(SG_ERR_ARG, "joint limits, PD control and loop closures need a solver that works on each rank's part (subadmm, canal, "
                        "sap, nsn) on several ranks, not %s", st->solver->ops->name);
  return SG_OK;
}

sg_err sg_stepper_assemble(sg_stepper *st) {
  sg_scene *s = st->s;
  double t0 = MPI_Wtime();
  SG_CHECK(sg_grow((void **)&st->kept, &st->cap_kept, st->contacts.n + 1, 1, "contact keepers"));
  mark_keepers(st);
  SG_CHECK(sg_grow((void **)&st->sub_of_body, &st->cap_body, s->n + 1, sizeof(int), "body map"));
  SG_CHECK(sg_assemble_rigid(s, &st->contacts, &st->prm, &st->units, &st->prob, st->sub_of_body));
  sg_stepper_add_rolling(st);
  SG_CHECK(add_joint_rows(st));
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
  for (int r = 3 * st->contacts.n; r < nrow; ++r) st->lambda[r] = 0; /* the joint rows start cold */
  sg_timer_add(SG_PHASE_ASSEMBLY, t0);
  return SG_OK;
}
