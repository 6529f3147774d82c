/* Warm starts: the multipliers of last step's contacts, carried by contact identity (gid_a, gid_b,
 * feature) and kept in SI (checkpoints store them); the solver gets them in the problem's units,
 * with vhat started from the bodies' current velocities (exact for resting bodies), each body's
 * by its kind. Each rank keeps the entries touching its bodies; an entry's keeper writes it to a
 * checkpoint. */
#include <math.h>
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/body_kind.h"
#include "step/stepper_internal.h"

int sg_warm_entry_cmp(const void *a, const void *b) {
  const sg_warm_entry *x = a, *y = b;
  if (x->gid_a != y->gid_a) return x->gid_a < y->gid_a ? -1 : 1;
  if (x->gid_b != y->gid_b) return x->gid_b < y->gid_b ? -1 : 1;
  return (x->feature > y->feature) - (x->feature < y->feature);
}

/* A warm entry against a contact, by the same identity. */
static int warm_cmp(const warm_entry *w, const sg_contact *c) {
  const warm_entry key = {c->gid_a, c->gid_b, c->cp.feature, {0, 0, 0}};
  return sg_warm_entry_cmp(w, &key);
}

int sg_stepper_warm_count(const sg_stepper *st) { return st->n_warm; }
const sg_warm_entry *sg_stepper_warm(const sg_stepper *st) { return st->warm; }

const sg_warm_entry *sg_stepper_warm_written(sg_stepper *st, int *n) {
  int m = 0;
  if (sg_grow((void **)&st->written, &st->cap_written, st->n_warm + 1, sizeof *st->written, "checkpoint entries")) { *n = -1; return NULL; }
  for (int k = 0; k < st->n_warm; ++k)
    if (st->warm_kept[k]) st->written[m++] = st->warm[k];
  *n = m;
  return st->written;
}

sg_err sg_stepper_keep_local_warm(sg_stepper *st, const sg_warm_entry *e, int n) {
  const sg_scene *s = st->s;
  SG_CHECK(sg_grow((void **)&st->warm, &st->cap_warm, n + 1, sizeof *st->warm, "warm start"));
  SG_CHECK(sg_grow((void **)&st->warm_kept, &st->cap_warm_kept, n + 1, 1, "warm start"));
  int m = 0;
  for (int k = 0; k < n; ++k) {
    int a = sg_scene_find_gid(s, s->n, e[k].gid_a), b = sg_scene_find_gid(s, s->n, e[k].gid_b);
    int a_mine = a >= 0 && !s->fixed[a], b_mine = b >= 0 && !s->fixed[b], a_fixed = a >= 0 && s->fixed[a];
    if (!a_mine && !b_mine) continue;
    if (m > 0 && !sg_warm_entry_cmp(&st->warm[m - 1], &e[k])) continue; /* the same entry from two ranks */
    st->warm[m] = e[k];
    st->warm_kept[m++] = a_mine || (a_fixed && b_mine);
  }
  st->n_warm = m;
  return SG_OK;
}

sg_err sg_stepper_set_warm(sg_stepper *st, const sg_warm_entry *entries, int n) {
  for (int k = 1; k < n; ++k)
    if (sg_warm_entry_cmp(&entries[k - 1], &entries[k]) >= 0)
      return sg_error_set(SG_ERR_FORMAT, "warm-start entries not sorted by contact identity (entry %d)", k);
  for (int k = 0; k < n; ++k)
    for (int r = 0; r < 3; ++r)
      if (!isfinite(entries[k].lambda[r])) return sg_error_set(SG_ERR_FORMAT, "warm-start entry %d is not finite", k);
  return sg_stepper_keep_local_warm(st, entries, n);
}

void sg_stepper_warm_start_velocity(sg_stepper *st) {
  const sg_scene *s = st->s;
  for (int i = 0; i < s->n; ++i)
    if (st->sub_of_body[i] >= 0)
      sg_body_kind_of(s, i)->velocity_in_units(s, i, &st->units, st->v + st->prob.sub_off[st->sub_of_body[i]]);
}

void sg_stepper_warm_start_solved(sg_stepper *st, const double *vhat_si) {
  const sg_scene *s = st->s;
  for (int i = 0; i < s->n; ++i) {
    if (st->sub_of_body[i] < 0) continue;
    double *v = st->v + st->prob.sub_off[st->sub_of_body[i]];
    if (s->fixed[i] == SG_MOVING && s->kind[i] == SG_BODY_RIGID6) sg_rigid_velocity_to_units(&st->units, vhat_si + 6 * i, v);
    else sg_body_kind_of(s, i)->velocity_in_units(s, i, &st->units, v);
  }
}

const sg_warm_entry *sg_stepper_warm_next(const sg_stepper *st, const sg_contact *c, int *cursor) {
  while (*cursor < st->n_warm && warm_cmp(&st->warm[*cursor], c) < 0) ++*cursor;
  return *cursor < st->n_warm && warm_cmp(&st->warm[*cursor], c) == 0 ? &st->warm[*cursor] : NULL;
}

/* lambda of the contacts seen last step (both lists sorted by identity: one merge pass) */
void sg_stepper_warm_start_lambda(sg_stepper *st) {
  const double unit = sg_units_impulse(&st->units);
  int cursor = 0;
  for (int i = 0; i < st->contacts.n; ++i) {
    double *l = st->lambda + 3 * i;
    const warm_entry *w = sg_stepper_warm_next(st, &st->contacts.c[i], &cursor);
    for (int r = 0; r < 3; ++r) l[r] = w ? w->lambda[r] / unit : 0.0;
  }
}

sg_err sg_stepper_save_warm_start(sg_stepper *st) {
  const double unit = sg_units_impulse(&st->units);
  for (int k = 0; k < 3 * st->contacts.n; ++k) st->lambda[k] *= unit; /* SI from here on (accessors) */
  SG_CHECK(sg_grow((void **)&st->warm, &st->cap_warm, st->contacts.n + 1, sizeof *st->warm, "warm start"));
  SG_CHECK(sg_grow((void **)&st->warm_kept, &st->cap_warm_kept, st->contacts.n + 1, 1, "warm start"));
  for (int i = 0; i < st->contacts.n; ++i) {
    const sg_contact *c = &st->contacts.c[i];
    warm_entry *w = &st->warm[i];
    w->gid_a = c->gid_a;
    w->gid_b = c->gid_b;
    w->feature = c->cp.feature;
    memcpy(w->lambda, st->lambda + 3 * i, sizeof w->lambda);
  }
  memcpy(st->warm_kept, st->kept, (size_t)st->contacts.n);
  st->n_warm = st->contacts.n;
  return SG_OK;
}
