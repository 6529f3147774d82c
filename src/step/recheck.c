/* Contacts of the solved motion. The broad phase pairs bodies by their motion at the start of the
 * step (collision.h: relative, and with -contact_sweep_stops each body while the other stands
 * still), which does not foresee what else the solve does: a grain deflected into another. After the solve the broad and
 * narrow phases run again with each body's solved vhat as its velocity: over the step a body moves
 * by dt vhat (paper 002 eq. (2)), so this finds the pairs the solved motion brings within reach.
 * When one of the contacts found that the problem lacks would end the step overlapping by more
 * than a tenth of the contact margin (exactly between two spheres, to first order otherwise), all
 * of them are added and the step is solved again; overlaps smaller than that are left to the next
 * step's contacts, which remove them at the rate -contact_erp. */
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/collision.h"
#include "signorini/la.h"
#include "step/stepper_internal.h"

/* Velocity of the material point x of body i under the motion vhat (a kinematic body: its
 * prescribed velocity); a fixed body's geometry does not move (its velocity is its surface's,
 * which changes no gap). */
static void point_velocity(const sg_scene *s, const double *vhat, int i, const double *x, double *u) {
  if (s->fixed[i] == SG_FIXED) { u[0] = u[1] = u[2] = 0; return; }
  rigid_point_velocity(u, s->fixed[i] == SG_KINEMATIC ? s->state.vel + 6 * i : vhat + 6 * i, s->state.pos + 3 * i, x);
}

/* x_b - x_a of contact c at the start of the step (B's periodic image where it is met through the
 * boundary). */
static void pair_offset(const sg_scene *s, const sg_contact *c, double d[3]) {
  for (int k = 0; k < 3; ++k) d[k] = s->state.pos[3 * c->b + k] + c->shift[k] - s->state.pos[3 * c->a + k];
}

/* Two spheres' centres move on straight lines over the step (q_{k+1} = q_k + dt vhat, paper 002
 * eq. (2)), so their least gap along the step is exact: the first-order gap takes a grazing pair
 * (much sideways motion, some along the normal) for an overlap the motion never reaches. */
static double sphere_pair_least_gap(const sg_stepper *st, const double *vhat, const sg_contact *c) {
  const sg_scene *s = st->s;
  const double ra = s->size[3 * c->a], rb = s->size[3 * c->b];
  double ua[3], ub[3], p[3], d[3];
  point_velocity(s, vhat, c->a, s->state.pos + 3 * c->a, ua);
  point_velocity(s, vhat, c->b, s->state.pos + 3 * c->b, ub);
  pair_offset(s, c, p);
  v3_sub(d, ub, ua);
  v3_scale(d, d, st->prm.dt);
  return sg_spheres_least_gap(p, d, ra + rb);
}

/* Gap of contact c at the end of the step under the motion vhat: the least along the step for two
 * spheres, to first order otherwise. */
static double gap_after_step(const sg_stepper *st, const double *vhat, const sg_contact *c) {
  if (sg_body_is_rigid_sphere(st->s, c->a) && sg_body_is_rigid_sphere(st->s, c->b)) return sphere_pair_least_gap(st, vhat, c);
  double ua[3], ub[3], rel[3], xa[3], xb[3];
  sg_contact_point_of(c, 0, xa);
  sg_contact_point_of(c, 1, xb);
  point_velocity(st->s, vhat, c->a, xa, ua);
  point_velocity(st->s, vhat, c->b, xb, ub);
  v3_sub(rel, ua, ub); /* the normal points from b toward a */
  return c->cp.gap + st->prm.dt * v3_dot(rel, c->cp.normal);
}


/* Flag the bodies whose pairs the recheck must search when every moving body is a rigid sphere and no
 * kinematic body turns: the spheres that the solved motion moves more than a quarter margin from where
 * their start motion does, dt |vhat - v| > margin / 4 (a ghost's vhat is its owner's: the same flags on
 * every rank), and the walls other than planes. Why the other pairs need no search: a pair that the
 * step's search did not find stays margin apart along its relative start motion p + t d0, t in [0, 1]
 * (collision.h: the broad phase rejects only such pairs, and the narrow phase keeps every gap below a
 * reach >= margin + |d0|). Under vhat the relative motion is p + t d1, |d1 - d0| <= dt |vhat_a - v_a| +
 * dt |vhat_b - v_b| <= margin / 2 for two unflagged bodies, so they stay half a margin apart along it
 * (not contacts the solved motion meets; any bound below a margin would do, and a smaller one adds
 * more of the found contacts with an overlapping one, which saves later added solves), and the
 * recheck's measure of their overlap sees that: exactly for two spheres (the least gap along the
 * motion), and for a sphere and a plane (the gap is linear in the motion). A wall's first-order gap is
 * not bounded so (a sphere passing a box's edge): walls are flagged. So the count of overlaps is the
 * whole search's; only contacts of two unflagged bodies are not added with them (the next step's search
 * finds them). */
static sg_err flag_changed(sg_stepper *st, const double *vhat_si) {
  const sg_scene *s = st->s;
  SG_CHECK(sg_grow((void **)&st->recheck_changed, &st->cap_recheck_changed, s->n + 1, 1, "contact recheck"));
  for (int i = 0; i < s->n; ++i) {
    double d[3];
    if (s->fixed[i] != SG_MOVING) {
      st->recheck_changed[i] = s->shape[i] != SG_SHAPE_PLANE && s->shape[i] != SG_SHAPE_SPHERE;
      continue;
    }
    v3_sub(d, vhat_si + 6 * i, s->state.vel + 6 * i);
    st->recheck_changed[i] = st->prm.dt * v3_norm(d) > 0.25 * st->prm.margin;
  }
  return SG_OK;
}

/* The contacts of the motion vhat (SI, 6 per body of s) into st->recheck: with spheres_only, those of
 * the bodies it changed (flag_changed). */
static sg_err contacts_of_motion(sg_stepper *st, const double *vhat_si, int spheres_only) {
  sg_scene *s = st->s;
  SG_CHECK(sg_grow((void **)&st->recheck_vel, &st->cap_recheck_vel, 6 * s->n + 1, sizeof(double), "contact recheck"));
  if (spheres_only) SG_CHECK(flag_changed(st, vhat_si));
  memcpy(st->recheck_vel, s->state.vel, 6 * (size_t)s->n * sizeof(double));
  for (int i = 0; i < s->n; ++i)
    if (!s->fixed[i]) memcpy(s->state.vel + 6 * i, vhat_si + 6 * i, 6 * sizeof(double));
  st->bp.changed = spheres_only ? st->recheck_changed : NULL;
  sg_err err = sg_find_contacts_periodic(s, st->prm.margin, st->prm.dt, &st->bp, &st->images, &st->recheck);
  st->bp.changed = NULL;
  memcpy(s->state.vel, st->recheck_vel, 6 * (size_t)s->n * sizeof(double)); /* the step starts from these */
  return err;
}

/* Are both bodies of c on every rank that owns one of them? Fixed bodies are everywhere; two
 * moving bodies when their centres are within the ghosts' reach (sg_body_reach, at the start of
 * the step). The solve may push a body past that reach, and only one of the two ranks would then
 * see the contact: such a contact is left to the next step on any number of ranks. */
static int seen_by_both_owners(const sg_stepper *st, const sg_contact *c) {
  const sg_scene *s = st->s;
  if (s->fixed[c->a] || s->fixed[c->b]) return 1;
  double d[3];
  pair_offset(s, c, d);
  const double dt = st->prm.dt, margin = st->prm.margin;
  /* a hair inside the reach: the ghosts' box test then holds whatever its roundings */
  return v3_norm(d) < (1 - 1e-9) * (sg_body_reach(s, c->a, dt, margin) + sg_body_reach(s, c->b, dt, margin) + margin);
}

/* The contacts of st->recheck that st->contacts lacks and that touch a body solved here, in one
 * merge pass over the two lists (both sorted by identity): counted (those overlapping beyond the
 * tolerance at the end of the step under vhat) when merged is NULL, else written into merged with
 * the problem's contacts (their multipliers from st->lambda into merged_lambda, 0 for the new). */
static int walk_new_contacts(sg_stepper *st, const double *vhat, sg_contact *merged, double *merged_lambda) {
  const sg_contacts *old = &st->contacts, *found = &st->recheck;
  const double tolerance = 0.1 * st->prm.margin;
  int i = 0, j = 0, m = 0, n_overlapping = 0;
  while (i < old->n || j < found->n) {
    int order = i == old->n ? 1 : j == found->n ? -1 : sg_contact_key_cmp(&old->c[i], &found->c[j]);
    if (order <= 0) { /* a contact of the problem */
      if (merged) {
        merged[m] = old->c[i];
        memcpy(merged_lambda + 3 * m++, st->lambda + 3 * i, 3 * sizeof(double));
      }
      ++i;
      j += order == 0;
      continue;
    }
    const sg_contact *c = &found->c[j++];
    if (!sg_stepper_owns(st, c->a) && !sg_stepper_owns(st, c->b)) continue;
    if (!seen_by_both_owners(st, c)) continue;
    if (!merged) {
      n_overlapping += gap_after_step(st, vhat, c) < -tolerance;
      continue;
    }
    merged[m] = *c;
    memset(merged_lambda + 3 * m++, 0, 3 * sizeof(double));
  }
  if (merged) st->merged.n = m;
  return n_overlapping;
}

sg_err sg_stepper_recheck_contacts(sg_stepper *st, const double *vhat_si, int spheres_only, int *n_overlapping) {
  *n_overlapping = 0;
  SG_CHECK(contacts_of_motion(st, vhat_si, spheres_only)); /* none counted when the search fails */
  *n_overlapping = walk_new_contacts(st, vhat_si, NULL, NULL);
  return SG_OK;
}

sg_err sg_stepper_recheck_add(sg_stepper *st) {
  int n_max = st->contacts.n + st->recheck.n;
  SG_CHECK(sg_grow((void **)&st->merged.c, &st->merged.cap, n_max + 1, sizeof(sg_contact), "contact recheck"));
  SG_CHECK(sg_grow((void **)&st->merged_lambda, &st->cap_merged_lambda, 3 * n_max + 1, sizeof(double), "contact recheck"));
  walk_new_contacts(st, NULL, st->merged.c, st->merged_lambda);
  sg_contacts tc = st->contacts; st->contacts = st->merged; st->merged = tc;
  double *tl = st->lambda; st->lambda = st->merged_lambda; st->merged_lambda = tl;
  int cap = st->cap_row; st->cap_row = st->cap_merged_lambda; st->cap_merged_lambda = cap;
  return SG_OK;
}
