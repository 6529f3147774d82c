/* Rolling resistance: a torque that opposes the relative rolling of two bodies in contact, of
 * magnitude mu_r R N (the constant-torque model, "type A" of Ai 2011, docs/REFERENCES.md), with mu_r the
 * material pair's rolling-friction coefficient, R the contact's rolling radius (R_a R_b / (R_a + R_b)
 * for two spheres, the sphere's radius against a wall) and N the contact's normal force.
 *
 * It enters the step as an angular impulse H on each body's free motion (b_j of paper 002 (8),
 * where gravity enters), so every solver honours it: per contact, with w_t the tangential part of
 * the relative angular velocity w_a - w_b at the start of the step and N dt the contact's normal
 * impulse of the last step (its warm start; none on a contact's first step),
 *   H_a = -H_b = -(w_t / |w_t|) min(mu_r R N dt, |w_t| / (1/I_a + 1/I_b)),
 * the second bound being the impulse that stops w_t by itself, so that the torque slows the
 * rolling and never reverses it. A sphere rolling on a plane then decelerates at 5/7 mu_r g
 * (docs/GRANULAR.md). Spin about the normal is not resisted. */
#include <math.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/la.h"
#include "step/stepper_internal.h"

static double rolling_radius(const sg_scene *s, int a, int b) {
  const int sa = s->shape[a] == SG_SHAPE_SPHERE, sb = s->shape[b] == SG_SHAPE_SPHERE;
  const double ra = s->size[3 * a], rb = s->size[3 * b];
  if (sa && sb) return ra * rb / (ra + rb);
  return sa ? ra : sb ? rb : 0.0;
}

/* 1 / I of a body about any axis: moving bodies with rolling resistance are spheres (sg_scene_validate). */
static double inverse_inertia(const sg_scene *s, int i) { return s->fixed[i] ? 0.0 : 1.0 / s->inertia[3 * i]; }

/* The impulse on body a of contact c whose last normal impulse was normal_impulse (N s). */
static void contact_rolling_impulse(const sg_scene *s, const sg_contact *c, double normal_impulse, double H[3]) {
  const double *n = c->cp.normal, *wa = s->state.vel + 6 * c->a + 3, *wb = s->state.vel + 6 * c->b + 3;
  double w[3], wt[3];
  v3_sub(w, wa, wb);
  v3_copy(wt, w);
  v3_axpy(wt, -v3_dot(w, n), n);
  const double speed = sqrt(v3_dot(wt, wt)), k = inverse_inertia(s, c->a) + inverse_inertia(s, c->b);
  memset(H, 0, 3 * sizeof *H);
  if (speed == 0 || k == 0) return;
  const double bound = sg_scene_rolling(s, c->a, c->b) * rolling_radius(s, c->a, c->b) * normal_impulse;
  v3_scale(H, wt, -fmin(bound, speed / k) / speed);
}

sg_err sg_stepper_rolling_resistance(sg_stepper *st) {
  const sg_scene *s = st->s;
  st->has_roll = sg_scene_has_rolling(s);
  if (!st->has_roll) return SG_OK;
  SG_CHECK(sg_grow((void **)&st->roll, &st->cap_roll, 3 * s->n + 1, sizeof(double), "rolling resistance"));
  memset(st->roll, 0, 3 * (size_t)s->n * sizeof(double));
  /* Each owned body sums its contacts in their canonical order: the same bits on any P. */
  int cursor = 0;
  for (int k = 0; k < st->contacts.n; ++k) {
    const sg_contact *c = &st->contacts.c[k];
    const sg_warm_entry *w = sg_stepper_warm_next(st, c, &cursor);
    if (!w || !(w->lambda[0] > 0) || sg_scene_rolling(s, c->a, c->b) == 0) continue;
    if (s->kind[c->a] == SG_BODY_TREE || s->kind[c->b] == SG_BODY_TREE) continue; /* spheres only: not a tree's link geoms */
    double H[3];
    contact_rolling_impulse(s, c, w->lambda[0], H);
    if (sg_stepper_owns(st, c->a)) v3_axpy(st->roll + 3 * c->a, 1.0, H);
    if (sg_stepper_owns(st, c->b)) v3_axpy(st->roll + 3 * c->b, -1.0, H);
  }
  return SG_OK;
}

void sg_stepper_add_rolling(sg_stepper *st) {
  if (!st->has_roll) return;
  /* b's angular rows are momenta in units of M L V (rigid6.c) */
  const double unit = st->units.mass * st->units.length * sg_units_velocity(&st->units);
  for (int i = 0; i < st->n_local; ++i)
    if (sg_stepper_owns(st, i) && st->s->kind[i] == SG_BODY_RIGID6) { /* rows 3-5: its angular momentum */
      double *b = st->prob.b + st->prob.sub_off[st->sub_of_body[i]] + 3;
      for (int r = 0; r < 3; ++r) b[r] += st->roll[3 * i + r] / unit;
    }
}
