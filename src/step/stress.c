/* Stress moments (asked for with sg_stepper_keep_stress): each owned moving body's sum over its
 * contacts of f (x) (x_c - x_i), the contact force f = lambda / dt on the body at the contact
 * point x_c, with x_i the body's centre at the start of the step (the Love-Weber sum). Summed over
 * the bodies of a volume V and divided by V it is the contact part of the mean stress there
 * (tension positive; docs/GRANULAR.md, "Stresses"): the quantity LAMMPS calls the per-atom virial.
 * Each body sums its contacts in their canonical order, so the moments are the same bits on any P. */
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/la.h"
#include "step/stepper_internal.h"

/* W += f (x) r (row-major 3 x 3). */
static void add_outer(double *W, const double *f, const double *r) {
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) W[3 * a + b] += f[a] * r[b];
}

/* The force of contact c on body A (N) from its impulse lambda (SI, along n, t1, t2). */
static void contact_force(const sg_contact *c, const double *lambda, double dt, double f[3]) {
  double frame[9];
  v3_copy(frame, c->cp.normal);
  sg_contact_frame(frame, frame + 3, frame + 6);
  for (int k = 0; k < 3; ++k) f[k] = (lambda[0] * frame[k] + lambda[1] * frame[3 + k] + lambda[2] * frame[6 + k]) / dt;
}

/* One side of contact c: body i (side 0: A, force f; side 1: B, force -f) when owned here. */
static void add_side(sg_stepper *st, const sg_contact *c, int side, const double *f) {
  const int i = side ? c->b : c->a;
  if (!sg_stepper_owns(st, i)) return;
  double x[3], r[3], fs[3];
  sg_contact_point_of(c, side, x);
  v3_sub(r, x, st->s->state.pos + 3 * i);
  v3_scale(fs, f, side ? -1.0 : 1.0);
  add_outer(st->stress + 9 * i, fs, r);
}

sg_err sg_stepper_stress_moments(sg_stepper *st) {
  const sg_scene *s = st->s;
  if (!st->keep_stress) return SG_OK;
  SG_CHECK(sg_grow((void **)&st->stress, &st->cap_stress, 9 * s->n + 1, sizeof(double), "stress moments"));
  SG_CHECK(sg_grow((void **)&st->stress_gid, &st->cap_stress_gid, s->n + 1, sizeof(int64_t), "stress moments"));
  memset(st->stress, 0, 9 * (size_t)s->n * sizeof(double));
  for (int k = 0; k < st->contacts.n; ++k) {
    double f[3];
    contact_force(&st->contacts.c[k], st->lambda + 3 * k, st->prm.dt, f); /* lambda in SI here */
    add_side(st, &st->contacts.c[k], 0, f);
    add_side(st, &st->contacts.c[k], 1, f);
  }
  /* the owned moving bodies' rows, packed in their (gid) order */
  int m = 0;
  for (int i = 0; i < st->n_local; ++i) {
    if (!sg_stepper_owns(st, i)) continue;
    memmove(st->stress + 9 * m, st->stress + 9 * i, 9 * sizeof(double));
    st->stress_gid[m++] = s->gid[i];
  }
  st->n_stress = m;
  return SG_OK;
}

/* Bodies deleted at the end of the step have no row in the frame: their moments go. */
void sg_stepper_stress_drop_deleted(sg_stepper *st) {
  if (!st->keep_stress || st->deleted.n == 0) return;
  int m = 0;
  for (int k = 0; k < st->n_stress; ++k) {
    int gone = 0;
    for (int d = 0; d < st->deleted.n && !gone; ++d) gone = st->deleted.ev[d].gid == st->stress_gid[k];
    if (gone) continue;
    memmove(st->stress + 9 * m, st->stress + 9 * k, 9 * sizeof(double));
    st->stress_gid[m++] = st->stress_gid[k];
  }
  st->n_stress = m;
}

void sg_stepper_keep_stress(sg_stepper *st, int keep) { st->keep_stress = keep; }

int sg_stepper_stress(const sg_stepper *st, const int64_t **gid, const double **W) {
  *gid = st->stress_gid;
  *W = st->stress;
  return st->keep_stress ? st->n_stress : 0;
}
