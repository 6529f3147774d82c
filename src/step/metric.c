/* The step's contact count and the paper-002 Sec. VII metric over the kept constraints (each
 * contact counted once whatever P) and the trees' joint rows: vhat of own subsystems, ghosts'
 * from their owners, the terms summed so that the bits do not depend on P (sg_sum_reproducible). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/exchange.h"
#include "signorini/timing.h"
#include "signorini/tree.h"
#include "step/stepper_internal.h"

/* The ghosts' vhat from their owners, written where their subsystems sit in v. Each body's values
 * travel in a slot of the widest kind's width (one width for every rank). Collective. */
static sg_err forward_ghost_velocities(sg_stepper *st, double *v, double *ghost_vals) {
  const sg_problem *p = &st->prob;
  const sg_scene *s = st->s;
  const int w = sg_scene_max_dof(s);
  double *own = sg_calloc((size_t)w * (size_t)st->n_local + 1, sizeof *own, "metric slots");
  sg_err err = sg_error_collective(st->comm, own ? SG_OK : SG_ERR_MEM);
  if (!err) {
    for (int i = 0; i < st->n_local; ++i)
      if (!s->fixed[i]) {
        const int j = st->sub_of_body[i];
        memcpy(own + (size_t)w * i, v + p->sub_off[j], (size_t)p->sub_dof[j] * sizeof(double));
      }
    err = sg_error_collective(st->comm, sg_ghosts_forward(&st->gh, own, NULL, w, ghost_vals));
  }
  free(own);
  SG_CHECK(err);
  for (int i = st->n_local; i < s->n; ++i) {
    const int j = st->sub_of_body[i];
    memcpy(v + p->sub_off[j], ghost_vals + (size_t)w * (i - st->n_local), (size_t)p->sub_dof[j] * sizeof(double));
  }
  return SG_OK;
}

sg_err sg_stepper_metric(sg_stepper *st, long long *n_contacts, double *residual) {
  const sg_problem *p = &st->prob;
  double t0 = MPI_Wtime();
  /* the joint rows (after the contacts: assemble.c) are on their tree's owner alone */
  long long n[2] = {0, p->n_con - st->contacts.n}; /* contacts, joint rows */
  for (int k = 0; k < st->contacts.n; ++k) n[0] += st->kept[k];
  MPI_Allreduce(MPI_IN_PLACE, n, 2, MPI_LONG_LONG, MPI_SUM, st->comm);
  *n_contacts = n[0];
  *residual = 0;
  int nv = sg_problem_n_v(p), n_ghosts = st->s->n - st->n_local;
  /* rank-local errors agreed on before each collective below (error.h) */
  sg_err err = sg_grow((void **)&st->metric_v, &st->cap_metric_v, nv + sg_scene_max_dof(st->s) * n_ghosts + 1, sizeof(double),
                       "metric");
  if (!err) err = sg_grow((void **)&st->metric_terms, &st->cap_metric_terms, p->n_con + 1, sizeof(double), "metric");
  if (!err) err = sg_metric_velocity(p, st->lambda, st->metric_v);
  SG_CHECK(sg_error_collective(st->comm, err));
  double *v = st->metric_v;
  if (st->size > 1) SG_CHECK(forward_ghost_velocities(st, v, v + nv));
  int m = 0;
  for (int k = 0; k < st->contacts.n; ++k)
    if (st->kept[k]) st->metric_terms[m++] = sg_metric_constraint_sq(p, k, st->lambda, v);
  for (int i = st->contacts.n; i < p->n_con; ++i) st->metric_terms[m++] = sg_metric_constraint_sq(p, i, st->lambda, v);
  double sum = sg_sum_reproducible(st->comm, st->metric_terms, m);
  if (n[0] + n[1] > 0) *residual = sqrt(sum) / (double)(n[0] + n[1]);
  sg_timer_add(SG_PHASE_METRIC, t0);
  return SG_OK;
}
