/* Contacts of the solved motion. The broad phase pairs bodies by their relative motion at the
 * start of the step (collision.h), so bodies that fall together are not candidates of one
 * another. When the solve stops one of them within the step (a sphere landing on the floor),
 * the others go on falling into it. After the solve the broad and narrow phases run again with
 * each body's solved vhat as its velocity: over the step a body moves by dt vhat (paper 002
 * eq. (2)), so this finds the pairs the solved motion brings within reach. The contacts found
 * that the problem lacks are added to it, and the step is solved again. */
#include <string.h>
#include "signorini/collision.h"
#include "step/stepper_internal.h"

/* Bodies whose contacts this rank builds: its owned moving bodies with a distributed scene
 * (ghosts are the bodies after n_local), every moving body with a replicated one. */
static int solved_here(const sg_stepper *st, int i) {
  return !st->s->fixed[i] && (!st->distributed || i < st->n_local);
}

/* The contacts of the motion vhat (SI, 6 per body of s) into st->recheck. */
static sg_err contacts_of_motion(sg_stepper *st, const double *vhat_si) {
  sg_scene *s = st->s;
  SG_CHECK(sg_grow((void **)&st->recheck_vel, &st->cap_recheck_vel, 6 * s->n + 1, sizeof(double), "contact recheck"));
  memcpy(st->recheck_vel, s->vel, 6 * (size_t)s->n * sizeof(double));
  for (int i = 0; i < s->n; ++i)
    if (!s->fixed[i]) memcpy(s->vel + 6 * i, vhat_si + 6 * i, 6 * sizeof(double));
  sg_err err = sg_find_contacts(s, st->prm.margin, st->prm.dt, &st->bp, &st->recheck);
  memcpy(s->vel, st->recheck_vel, 6 * (size_t)s->n * sizeof(double)); /* the step starts from these */
  return err;
}

/* st->contacts and st->lambda grown by the contacts of st->recheck that they lack and that touch
 * a body solved here (lambda 0 for those); both lists are sorted by identity: one merge pass. */
static sg_err merge_new_contacts(sg_stepper *st, int *n_added) {
  const sg_contacts *old = &st->contacts, *found = &st->recheck;
  int n_max = old->n + found->n;
  SG_CHECK(sg_grow((void **)&st->merged.c, &st->merged.cap, n_max + 1, sizeof(sg_contact), "contact recheck"));
  SG_CHECK(sg_grow((void **)&st->merged_lambda, &st->cap_merged_lambda, 3 * n_max + 1, sizeof(double), "contact recheck"));
  int i = 0, j = 0, m = 0;
  *n_added = 0;
  while (i < old->n || j < found->n) {
    int order = i == old->n ? 1 : j == found->n ? -1 : sg_contact_key_cmp(&old->c[i], &found->c[j]);
    if (order <= 0) { /* a contact of the problem: kept with its multiplier */
      st->merged.c[m] = old->c[i];
      memcpy(st->merged_lambda + 3 * m++, st->lambda + 3 * i, 3 * sizeof(double));
      ++i;
      j += order == 0;
      continue;
    }
    const sg_contact *c = &found->c[j++];
    if (!solved_here(st, c->a) && !solved_here(st, c->b)) continue;
    st->merged.c[m] = *c;
    memset(st->merged_lambda + 3 * m++, 0, 3 * sizeof(double));
    ++*n_added;
  }
  st->merged.n = m;
  sg_contacts tc = st->contacts; st->contacts = st->merged; st->merged = tc;
  double *tl = st->lambda; st->lambda = st->merged_lambda; st->merged_lambda = tl;
  int cap = st->cap_row; st->cap_row = st->cap_merged_lambda; st->cap_merged_lambda = cap;
  return SG_OK;
}

sg_err sg_stepper_recheck_contacts(sg_stepper *st, const double *vhat_si, int *n_added) {
  *n_added = 0;
  SG_CHECK(contacts_of_motion(st, vhat_si));
  return merge_new_contacts(st, n_added);
}
