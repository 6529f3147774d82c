/* One time step: collision -> assembly -> solve -> integration, with warm starts carried by
 * contact identity (gid_a, gid_b, feature) from one step to the next. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/fault.h"
#include "signorini/integrate.h"
#include "signorini/options.h"
#include "signorini/partition.h"
#include "signorini/step.h"
#include "signorini/timing.h"
#include "step/stepper_internal.h"

int sg_stepper_repartitions(const sg_stepper *st) { return st->repartitions; }

sg_err sg_step_params_from_options(MPI_Comm comm, const sg_scene *s, sg_step_params *p) {
  double hmin = INFINITY;
  for (int i = 0; i < s->n; ++i)
    if (!s->fixed[i]) hmin = fmin(hmin, sg_body_min_size(s, i));
  if (s->distributed) MPI_Allreduce(MPI_IN_PLACE, &hmin, 1, MPI_DOUBLE, MPI_MIN, comm); /* the same margin everywhere */
  if (!isfinite(hmin)) hmin = 0.01;
  SG_CHECK(sg_opt_real("-dt", 1.0 / 240.0, 1e-12, 1e3, "time step (s)", &p->dt));
  SG_CHECK(sg_opt_real("-theta", 0.0, 0.0, 0.999, "theta of paper 002 eq. (2): vhat = theta v_k + (1-theta) v_k+1 (0: implicit, inelastic impacts; 0.5: midpoint)", &p->theta));
  SG_CHECK(sg_opt_real("-contact_margin", 0.2 * hmin, 0.0, 1e6, "contacts with a gap below this enter the problem (m; default 0.2 x smallest body size)", &p->margin));
  SG_CHECK(sg_opt_real("-contact_erp", 0.2, 0.0, 1.0, "fraction of a penetration removed per step", &p->erp));
  SG_CHECK(sg_opt_int("-repartition_every", 240, 0, 1000000000, "steps between METIS repartitions on the contact graph (0: never)", &p->repartition_every));
  SG_CHECK(sg_opt_real("-repartition_imbalance", 1.2, 0.0, 1e9, "repartition when the solver time max/mean over ranks exceeds this (0: never)", &p->repartition_imbalance));
  long recheck = 0;
  SG_CHECK(sg_opt_int("-contact_recheck", 8, 0, 100, "solves added per step for the contacts the solved motion meets and the motion at the start of the step did not (a body stopped within the step by a third one)", &recheck));
  p->recheck = (int)recheck;
  return SG_OK;
}

sg_err sg_stepper_create(MPI_Comm comm, sg_scene *s, const sg_step_params *params, sg_solver *solver,
                         sg_stepper **out) {
  sg_stepper *st = sg_calloc(1, sizeof *st, "stepper");
  if (!st) return SG_ERR_MEM;
  st->comm = comm;
  st->s = s;
  st->prm = *params;
  st->solver = solver;
  st->units = sg_rigid_units(comm, s, params->dt);
  MPI_Comm_rank(comm, &st->rank);
  MPI_Comm_size(comm, &st->size);
  *out = st;
  st->distributed = solver->ops->distributed_scene;
  if (st->distributed) return sg_stepper_dist_create(st);
  if (st->size > 1) {
    SG_ALLOC(st->counts, st->size);
    SG_ALLOC(st->displs, st->size);
    /* owners: METIS on the contact or proximity graph of the moving bodies, computed on rank 0
     * (serial METIS) and broadcast, so that every rank holds the same map */
    int *owner = sg_calloc((size_t)s->n, sizeof *owner, "owners");
    if (!owner && s->n) return SG_ERR_MEM;
    int n_moving = 0;
    for (int i = 0; i < s->n; ++i) n_moving += !s->fixed[i];
    sg_err err = SG_OK;
    if (st->rank == 0) {
      if (n_moving >= st->size) {
        /* the work follows the contacts: partition their graph when the scene starts in contact
         * (a settled pile), the proximity graph otherwise (a pile about to be poured) */
        err = sg_find_contacts(s, st->prm.margin, st->prm.dt, &st->bp, &st->contacts);
        int linked = 0;
        for (int k = 0; !err && k < st->contacts.n && !linked; ++k)
          linked = !s->fixed[st->contacts.c[k].a] && !s->fixed[st->contacts.c[k].b];
        if (!err) err = sg_partition_compute(s, linked ? &st->contacts : NULL, st->size, SG_PARTITION_AUTO, 1, owner, NULL);
        st->contacts.n = 0;
      } else { /* fewer bodies than ranks: METIS cannot split; give them out in order */
        int k = 0;
        for (int i = 0; i < s->n; ++i) owner[i] = s->fixed[i] ? -1 : k++;
      }
    }
    err = sg_error_collective(comm, err);
    if (!err && MPI_Bcast(owner, s->n, MPI_INT, 0, comm) != MPI_SUCCESS)
      err = sg_error_set(SG_ERR_LIB, "cannot broadcast the partition");
    if (!err) err = sg_stepper_set_owners(st, owner);
    free(owner);
    SG_CHECK(err);
  }
  return SG_OK;
}

/* A distributed scene needs no owner array: each rank writes what it holds (sg_io_writes_body). */
const int *sg_stepper_body_owner(const sg_stepper *st) { return st->size > 1 && !st->distributed ? st->body_owner : NULL; }

sg_err sg_stepper_set_owners(sg_stepper *st, const int *owner) {
  SG_CHECK(sg_grow((void **)&st->body_owner, &st->cap_owner, st->s->n, sizeof(int), "body owners"));
  for (int i = 0; i < st->s->n; ++i) {
    if (!st->s->fixed[i] && (owner[i] < 0 || owner[i] >= st->size))
      return sg_error_set(SG_ERR_ARG, "body %lld: owner rank %d outside [0, %d)", (long long)st->s->gid[i], owner[i], st->size);
    st->body_owner[i] = owner[i];
  }
  return SG_OK;
}

/* Every rank gets every item (items at data[off[i]] .. data[off[i+1]]), each item sent by its owner:
 * the layout is derived from owner[] alone, which all ranks share, so no indices travel. */
static sg_err allgather_items(sg_stepper *st, int n, const int *owner, const int *off, double *data) {
  const int P = st->size;
  memset(st->counts, 0, (size_t)P * sizeof(int));
  for (int i = 0; i < n; ++i) st->counts[owner[i]] += off[i + 1] - off[i];
  int total = 0;
  for (int k = 0; k < P; ++k) { st->displs[k] = total; total += st->counts[k]; }
  SG_CHECK(sg_grow((void **)&st->gather_buf, &st->cap_gather, total, sizeof(double), "gather buffer"));
  double *mine = st->gather_buf + st->displs[st->rank];
  int m = 0;
  for (int i = 0; i < n; ++i)
    if (owner[i] == st->rank)
      for (int k = off[i]; k < off[i + 1]; ++k) mine[m++] = data[k];
  if (MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, st->gather_buf, st->counts, st->displs, MPI_DOUBLE, st->comm) != MPI_SUCCESS)
    return sg_error_set(SG_ERR_LIB, "all-gather of solver results failed");
  for (int k = 0; k < P; ++k) st->counts[k] = st->displs[k]; /* reuse as read positions */
  for (int i = 0; i < n; ++i) {
    int o = owner[i];
    for (int k = off[i]; k < off[i + 1]; ++k) data[k] = st->gather_buf[st->counts[o]++];
  }
  return SG_OK;
}

void sg_stepper_destroy(sg_stepper **pst) {
  sg_stepper *st = *pst;
  if (!st) return;
  sg_stepper_dist_destroy(st);
  sg_broadphase_destroy(&st->bp);
  sg_contacts_destroy(&st->contacts);
  sg_contacts_destroy(&st->recheck);
  sg_contacts_destroy(&st->merged);
  free(st->recheck_vel); free(st->merged_lambda); free(st->solved_vel);
  sg_problem_destroy(&st->prob);
  free(st->sub_of_body); free(st->v); free(st->lambda); free(st->warm);
  free(st->body_owner); free(st->sub_owner); free(st->con_keeper); free(st->gather_buf); free(st->counts); free(st->displs);
  free(st);
  *pst = NULL;
}

int sg_stepper_warm_count(const sg_stepper *st) { return st->n_warm; }
const sg_warm_entry *sg_stepper_warm(const sg_stepper *st) { return st->warm; }

const sg_warm_entry *sg_stepper_warm_written(sg_stepper *st, int *n) {
  if (!st->distributed) { *n = st->n_warm; return st->warm; }
  int m = 0;
  if (sg_grow((void **)&st->written, &st->cap_written, st->n_warm + 1, sizeof *st->written, "checkpoint entries")) { *n = -1; return NULL; }
  for (int k = 0; k < st->n_warm; ++k)
    if (st->warm_kept[k]) st->written[m++] = st->warm[k];
  *n = m;
  return st->written;
}

static int warm_order(const warm_entry *x, const warm_entry *y) {
  if (x->gid_a != y->gid_a) return x->gid_a < y->gid_a ? -1 : 1;
  if (x->gid_b != y->gid_b) return x->gid_b < y->gid_b ? -1 : 1;
  if (x->feature != y->feature) return x->feature < y->feature ? -1 : 1;
  return 0;
}

sg_err sg_stepper_set_warm(sg_stepper *st, const sg_warm_entry *entries, int n) {
  for (int k = 1; k < n; ++k)
    if (warm_order(&entries[k - 1], &entries[k]) >= 0)
      return sg_error_set(SG_ERR_FORMAT, "warm-start entries not sorted by contact identity (entry %d)", k);
  for (int k = 0; k < n; ++k)
    for (int r = 0; r < 3; ++r)
      if (!isfinite(entries[k].lambda[r])) return sg_error_set(SG_ERR_FORMAT, "warm-start entry %d is not finite", k);
  if (st->distributed) return sg_stepper_dist_set_warm(st, entries, n);
  SG_CHECK(sg_grow((void **)&st->warm, &st->cap_warm, n, sizeof *st->warm, "warm start"));
  if (n) memcpy(st->warm, entries, (size_t)n * sizeof *entries);
  st->n_warm = n;
  return SG_OK;
}

const sg_problem *sg_stepper_problem(const sg_stepper *st) { return &st->prob; }
const double *sg_stepper_lambda(const sg_stepper *st) { return st->lambda; }
const sg_contacts *sg_stepper_contacts(const sg_stepper *st) { return &st->contacts; }

static int warm_cmp(const warm_entry *w, const sg_contact *c) {
  if (w->gid_a != c->gid_a) return w->gid_a < c->gid_a ? -1 : 1;
  if (w->gid_b != c->gid_b) return w->gid_b < c->gid_b ? -1 : 1;
  if (w->feature != c->cp.feature) return w->feature < c->cp.feature ? -1 : 1;
  return 0;
}

void sg_stepper_warm_start_velocity(sg_stepper *st) {
  const sg_scene *s = st->s;
  for (int i = 0; i < s->n; ++i)
    if (st->sub_of_body[i] >= 0) sg_rigid_velocity_to_units(&st->units, s->vel + 6 * i, st->v + st->prob.sub_off[st->sub_of_body[i]]);
}

/* lambda of contacts seen last step (both lists sorted by identity: one merge pass); the entries
 * are kept in SI (checkpoints store them), the solver gets them in the problem's units. */
void sg_stepper_warm_start_lambda(sg_stepper *st) {
  const double unit = sg_units_impulse(&st->units);
  int k = 0;
  for (int i = 0; i < st->contacts.n; ++i) {
    double *l = st->lambda + 3 * i;
    l[0] = l[1] = l[2] = 0;
    while (k < st->n_warm && warm_cmp(&st->warm[k], &st->contacts.c[i]) < 0) ++k;
    if (k < st->n_warm && warm_cmp(&st->warm[k], &st->contacts.c[i]) == 0)
      for (int r = 0; r < 3; ++r) l[r] = st->warm[k].lambda[r] / unit;
  }
}

void sg_stepper_lambda_to_si(sg_stepper *st) {
  const double unit = sg_units_impulse(&st->units);
  for (int k = 0; k < 3 * st->contacts.n; ++k) st->lambda[k] *= unit;
}

void sg_stepper_integrate_body(sg_stepper *st, int i) {
  double v[6];
  sg_rigid_velocity_to_si(&st->units, st->v + st->prob.sub_off[st->sub_of_body[i]], v);
  sg_integrate_body(st->s, i, v, st->prm.theta, st->prm.dt);
}

sg_err sg_stepper_solved_motion(sg_stepper *st, double **vhat_si) {
  const sg_scene *s = st->s;
  SG_CHECK(sg_grow((void **)&st->solved_vel, &st->cap_solved_vel, 6 * s->n + 1, sizeof(double), "solved velocities"));
  for (int i = 0; i < s->n; ++i)
    if (st->sub_of_body[i] >= 0) sg_rigid_velocity_to_si(&st->units, st->v + st->prob.sub_off[st->sub_of_body[i]], st->solved_vel + 6 * i);
  *vhat_si = st->solved_vel;
  return SG_OK;
}

sg_err sg_stepper_save_warm_start(sg_stepper *st) {
  SG_CHECK(sg_grow((void **)&st->warm, &st->cap_warm, st->contacts.n, sizeof *st->warm, "warm start"));
  for (int i = 0; i < st->contacts.n; ++i) {
    const sg_contact *c = &st->contacts.c[i];
    warm_entry *w = &st->warm[i];
    w->gid_a = c->gid_a;
    w->gid_b = c->gid_b;
    w->feature = c->cp.feature;
    memcpy(w->lambda, st->lambda + 3 * i, sizeof w->lambda);
  }
  st->n_warm = st->contacts.n;
  return SG_OK;
}

/* New owners from a METIS partition of last step's contact graph (rank 0, broadcast). The scene and
 * the warm start are replicated, so nothing else has to move; the results do not depend on owners. */
static sg_err repartition(sg_stepper *st) {
  sg_scene *s = st->s;
  int *owner = sg_calloc((size_t)s->n, sizeof *owner, "owners");
  if (!owner && s->n) return SG_ERR_MEM;
  sg_err err = SG_OK;
  if (st->rank == 0) err = sg_partition_compute(s, &st->contacts, st->size, SG_PARTITION_AUTO, 1, owner, NULL);
  err = sg_error_collective(st->comm, err);
  if (!err && MPI_Bcast(owner, s->n, MPI_INT, 0, st->comm) != MPI_SUCCESS)
    err = sg_error_set(SG_ERR_LIB, "cannot broadcast the partition");
  if (!err) err = sg_stepper_set_owners(st, owner);
  free(owner);
  if (!err) st->repartitions++;
  return err;
}

/* Solver time of the last step on this rank against the mean over ranks. */
double sg_stepper_measure_imbalance(sg_stepper *st) {
  double mine = sg_timers.seconds[SG_PHASE_ITERATE] - st->last_iterate_seconds, mx = 0, sum = 0;
  st->last_iterate_seconds = sg_timers.seconds[SG_PHASE_ITERATE];
  MPI_Allreduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, st->comm);
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, st->comm);
  return sum > 0 ? mx / (sum / st->size) : 1.0;
}

/* The problem of st->contacts assembled, with the owners of its subsystems on several ranks. */
static sg_err assemble(sg_stepper *st) {
  sg_scene *s = st->s;
  double ta = MPI_Wtime();
  SG_CHECK(sg_grow((void **)&st->sub_of_body, &st->cap_body, s->n, sizeof(int), "body map"));
  SG_CHECK(sg_assemble_rigid(s, &st->contacts, &st->prm, &st->units, &st->prob, st->sub_of_body));
  const sg_problem *p = &st->prob;
  if (st->size > 1) {
    SG_CHECK(sg_grow((void **)&st->sub_owner, &st->cap_sub_owner, p->n_sub, sizeof(int), "subsystem owners"));
    for (int i = 0; i < s->n; ++i)
      if (st->sub_of_body[i] >= 0) st->sub_owner[st->sub_of_body[i]] = st->body_owner[i];
    SG_CHECK(sg_problem_set_owners(&st->prob, st->sub_owner));
  }
  int nv = sg_problem_n_v(p), nrow = p->n_con ? sg_problem_n_rows(p) : 0;
  SG_CHECK(sg_grow((void **)&st->v, &st->cap_v, nv, sizeof(double), "velocities"));
  SG_CHECK(sg_grow((void **)&st->lambda, &st->cap_row, nrow, sizeof(double), "multipliers"));
  sg_timer_add(SG_PHASE_ASSEMBLY, ta);
  return SG_OK;
}

/* Solve from vhat = the current velocities (exact for resting bodies) and st->lambda; every rank
 * gets the whole answer: owners hold vhat of their subsystems, keepers (owner of the first pair)
 * lambda. */
static sg_err solve(sg_stepper *st, sg_solve_info *info) {
  const sg_problem *p = &st->prob;
  sg_stepper_warm_start_velocity(st);
  SG_CHECK(sg_solver_solve(st->solver, p, st->v, st->lambda, info));
  if (st->size > 1 && st->prm.repartition_imbalance > 0) st->imbalance = sg_stepper_measure_imbalance(st);
  if (st->size > 1) {
    SG_CHECK(sg_grow((void **)&st->con_keeper, &st->cap_keeper, p->n_con, sizeof(int), "constraint keepers"));
    for (int i = 0; i < p->n_con; ++i) st->con_keeper[i] = st->sub_owner[p->pair_sub[p->con_pair[i]]];
    double tg = MPI_Wtime();
    SG_CHECK(allgather_items(st, p->n_sub, st->sub_owner, p->sub_off, st->v));
    SG_CHECK(allgather_items(st, p->n_con, st->con_keeper, p->con_row, st->lambda));
    sg_timer_add(SG_PHASE_GATHER, tg);
  }
  int nv = sg_problem_n_v(p);
  for (int k = 0; k < nv; ++k)
    if (!isfinite(st->v[k]))
      return sg_error_set(SG_ERR_NUMERIC, "solver returned a non-finite velocity at step %lld; state kept", (long long)st->s->step);
  return SG_OK;
}

/* Solved again while the solved motion meets contacts the problem lacks (recheck.c); every rank
 * holds the whole answer, so every rank takes the same decision. */
static sg_err solve_with_recheck(sg_stepper *st, sg_solve_info *info, sg_step_stats *stats) {
  SG_CHECK(solve(st, info));
  for (int round = 0; round < st->prm.recheck; ++round) {
    double *vhat, tc = MPI_Wtime();
    int overlapping = 0;
    SG_CHECK(sg_stepper_solved_motion(st, &vhat));
    SG_CHECK(sg_stepper_recheck_contacts(st, vhat, &overlapping));
    sg_timer_add(SG_PHASE_COLLISION, tc);
    if (!overlapping) break;
    int iterations = info->iterations, recoveries = info->recoveries;
    SG_CHECK(sg_stepper_recheck_add(st));
    SG_CHECK(assemble(st));
    SG_CHECK(solve(st, info));
    info->iterations += iterations;
    info->recoveries += recoveries;
    stats->resolves++;
  }
  return SG_OK;
}

sg_err sg_stepper_step(sg_stepper *st, sg_step_stats *stats) {
  if (st->distributed) return sg_stepper_dist_step(st, stats);
  sg_scene *s = st->s;
  double t0 = MPI_Wtime();
  memset(stats, 0, sizeof *stats);
  if (st->size > 1 && s->step > 0 && st->contacts.n > 0 && st->s->n > 0) {
    /* every rank takes the same decision: the step count and the reduced imbalance are shared */
    int n_moving = 0;
    for (int i = 0; i < s->n; ++i) n_moving += !s->fixed[i];
    /* an imbalance trigger waits 20 steps after the last repartition: timings are noisy */
    double imb = (long)s->step - st->last_repartition_step >= 20 ? st->imbalance : 0.0;
    if (n_moving >= st->size &&
        sg_partition_needs_update((long)s->step, st->prm.repartition_every, imb, st->prm.repartition_imbalance)) {
      SG_CHECK(repartition(st));
      st->last_repartition_step = (long)s->step;
    }
  }
  sg_err err = sg_find_contacts(s, st->prm.margin, st->prm.dt, &st->bp, &st->contacts);
  if (!err) err = sg_fault_check("collision", s->step + 1); /* a testing aid (fault.h) */
  SG_CHECK(sg_error_collective(st->comm, err));
  sg_timer_add(SG_PHASE_COLLISION, t0);
  /* the start-of-step contacts' statistics, before the recheck adds any */
  double maxpen = 0;
  for (int k = 0; k < st->contacts.n; ++k) maxpen = fmax(maxpen, -st->contacts.c[k].cp.gap);
  SG_CHECK(assemble(st));
  sg_stepper_warm_start_lambda(st); /* lambda by contact identity */
  sg_solve_info info;
  SG_CHECK(solve_with_recheck(st, &info, stats));
  const sg_problem *p = &st->prob;
  double tm = MPI_Wtime();
  SG_CHECK(sg_contact_residual(p, st->lambda, &stats->contact_residual));
  sg_timer_add(SG_PHASE_METRIC, tm);
  sg_stepper_lambda_to_si(st);
  SG_CHECK(sg_stepper_save_warm_start(st));

  double tint = MPI_Wtime();
  for (int i = 0; i < s->n; ++i)
    if (st->sub_of_body[i] >= 0) sg_stepper_integrate_body(st, i);
  sg_timer_add(SG_PHASE_INTEGRATE, tint);
  s->step++;
  s->time = s->step * st->prm.dt; /* no accumulated round-off in the clock */

  stats->time = s->time;
  stats->iterations = info.iterations;
  stats->residual_primal = info.residual_primal;
  stats->residual_dual = info.residual_dual;
  stats->converged = info.converged;
  stats->recoveries = info.recoveries;
  stats->n_contacts = st->contacts.n;
  stats->max_penetration = maxpen;
  stats->wall_seconds = MPI_Wtime() - t0;
  return SG_OK;
}
