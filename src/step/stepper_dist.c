/* The distributed step (step.h): each rank holds its owned moving bodies and every fixed body.
 * Per step: ghosts of nearby remote bodies are appended to the scene, the contacts touching an
 * owned body are found and assembled (a contact between two ranks' bodies is found by both, from
 * the same data, so both build the same constraint), SubADMM exchanges the halo, and each rank
 * integrates its own bodies; the ghosts are dropped again. Every rank keeps the warm start of its
 * contacts. A contact's keeper (the owner of its first moving body in gid order) counts it in the
 * statistics, the metric and the checkpoint, so each contact counts once whatever P. */
#include <math.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/exchange.h"
#include "signorini/fault.h"
#include "signorini/integrate.h"
#include "signorini/partition.h"
#include "signorini/partition_dist.h"
#include "signorini/problem_gather.h"
#include "signorini/timing.h"
#include "step/stepper_internal.h"

static int owned(const sg_stepper *st, int i) { return i < st->n_local && !st->s->fixed[i]; }

/* Give the pages freed by a partition (METIS's graph on rank 0, the scene copies of a migration)
 * back to the system, so that they do not stay resident beside the arrays of the steps to come. */
static void release_free_memory(void) {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

/* Index of the body with global id g among the bodies held (ascending gid), or -1. */
static int find_gid(const sg_scene *s, int n, int64_t g) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (s->gid[mid] == g) return mid;
    if (s->gid[mid] < g) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

void sg_stepper_dist_destroy(sg_stepper *st) {
  sg_ghosts_destroy(&st->gh);
  if (st->ghosts.cap) sg_scene_destroy(&st->ghosts);
  free(st->ws_owner); free(st->kept); free(st->warm_kept); free(st->written); free(st->metric_v); free(st->metric_terms);
}

static sg_err count_moving(sg_stepper *st) {
  long long n = 0;
  for (int i = 0; i < st->s->n; ++i) n += !st->s->fixed[i];
  MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_LONG_LONG, MPI_SUM, st->comm);
  st->n_moving_global = n;
  return SG_OK;
}

sg_err sg_stepper_dist_create(sg_stepper *st) {
  MPI_Comm comm = st->comm;
  sg_scene *s = st->s;
  SG_CHECK(sg_error_collective(comm, sg_scene_keep_block(comm, s)));
  SG_CHECK(sg_error_collective(comm, sg_scene_create(&st->ghosts, 16, s->n_materials)));
  count_moving(st);
  if (st->size == 1) return SG_OK;
  /* owners: METIS on rank 0 on the proximity graph of the bodies' bounding spheres */
  int *owner = sg_calloc((size_t)s->n + 1, sizeof *owner, "owners");
  sg_err err = sg_error_collective(comm, owner ? SG_OK : SG_ERR_MEM);
  if (!err) err = sg_partition_distributed(comm, s, NULL, 0, owner);
  if (!err) err = sg_error_collective(comm, sg_scene_migrate(comm, s, owner));
  free(owner);
  release_free_memory();
  return err;
}

static int warm_key_cmp(const void *a, const void *b) {
  const sg_warm_entry *x = a, *y = b;
  if (x->gid_a != y->gid_a) return x->gid_a < y->gid_a ? -1 : 1;
  if (x->gid_b != y->gid_b) return x->gid_b < y->gid_b ? -1 : 1;
  return (x->feature > y->feature) - (x->feature < y->feature);
}

/* Keep the entries that touch a body held here (sorted input stays sorted), with their keepers. */
static sg_err keep_local_warm(sg_stepper *st, const sg_warm_entry *e, int n) {
  const sg_scene *s = st->s;
  SG_CHECK(sg_grow((void **)&st->warm, &st->cap_warm, n + 1, sizeof *st->warm, "warm start"));
  SG_CHECK(sg_grow((void **)&st->warm_kept, &st->cap_warm_kept, n + 1, 1, "warm start"));
  int m = 0;
  for (int k = 0; k < n; ++k) {
    int a = find_gid(s, s->n, e[k].gid_a), b = find_gid(s, s->n, e[k].gid_b);
    int a_mine = a >= 0 && !s->fixed[a], b_mine = b >= 0 && !s->fixed[b], a_fixed = a >= 0 && s->fixed[a];
    if (!a_mine && !b_mine) continue;
    if (m > 0 && !warm_key_cmp(&st->warm[m - 1], &e[k])) continue; /* the same entry from two ranks */
    st->warm[m] = e[k];
    st->warm_kept[m++] = a_mine || (a_fixed && b_mine);
  }
  st->n_warm = m;
  return SG_OK;
}

sg_err sg_stepper_dist_set_warm(sg_stepper *st, const sg_warm_entry *entries, int n) {
  return keep_local_warm(st, entries, n);
}

/* New owners from METIS on last step's contact graph, then bodies and warm-start entries move. */
static sg_err repartition(sg_stepper *st) {
  MPI_Comm comm = st->comm;
  sg_scene *s = st->s;
  const int P = st->size;
  int nc = 0;
  for (int k = 0; k < st->contacts.n; ++k) nc += st->kept[k];
  int64_t *pairs = sg_calloc((size_t)2 * nc + 2, sizeof *pairs, "contact pairs");
  int *owner = sg_calloc((size_t)s->n + 1, sizeof *owner, "owners");
  sg_err err = sg_error_collective(comm, pairs && owner ? SG_OK : SG_ERR_MEM);
  if (err) { free(pairs); free(owner); return err; }
  /* last step's contacts: indices below n_local are held bodies, above are ghosts (moving) */
  for (int k = 0, m = 0; k < st->contacts.n; ++k) {
    if (!st->kept[k]) continue;
    const sg_contact *c = &st->contacts.c[k];
    pairs[2 * m] = c->a < st->n_local && s->fixed[c->a] ? -1 : c->gid_a;
    pairs[2 * m + 1] = c->b < st->n_local && s->fixed[c->b] ? -1 : c->gid_b;
    m++;
  }
  err = sg_partition_distributed(comm, s, pairs, nc, owner);
  free(pairs);
  /* warm entries go to the new owners of the bodies this rank owns among their two */
  int *off = NULL, *dest = NULL;
  if (!err) {
    off = sg_calloc((size_t)st->n_warm + 1, sizeof *off, "warm plan");
    dest = sg_calloc((size_t)2 * st->n_warm + 1, sizeof *dest, "warm plan");
    if (!off || !dest) err = SG_ERR_MEM;
  }
  for (int k = 0; k < st->n_warm && !err; ++k) {
    int nd = off[k];
    int a = find_gid(s, s->n, st->warm[k].gid_a), b = find_gid(s, s->n, st->warm[k].gid_b);
    if (a >= 0 && !s->fixed[a]) dest[nd++] = owner[a];
    if (b >= 0 && !s->fixed[b] && !(nd > off[k] && dest[nd - 1] == owner[b])) dest[nd++] = owner[b];
    off[k + 1] = nd;
  }
  err = sg_error_collective(comm, err);
  sg_warm_entry *recv = NULL;
  int n_recv = 0;
  if (!err) { /* counts, then the entries as bytes (ranks share one architecture) */
    int *sc = sg_calloc((size_t)P, sizeof *sc, "warm counts"), *rc = sg_calloc((size_t)P, sizeof *rc, "warm counts");
    int *sd = sg_calloc((size_t)P + 1, sizeof *sd, "warm offsets"), *rd = sg_calloc((size_t)P + 1, sizeof *rd, "warm offsets");
    sg_warm_entry *sbuf = sg_calloc((size_t)off[st->n_warm] + 1, sizeof *sbuf, "warm buffer");
    err = sc && rc && sd && rd && sbuf ? SG_OK : SG_ERR_MEM;
    err = sg_error_collective(comm, err);
    if (!err) {
      for (int m = 0; m < off[st->n_warm]; ++m) sc[dest[m]]++;
      MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
      for (int k = 0; k < P; ++k) { sd[k + 1] = sd[k] + sc[k]; rd[k + 1] = rd[k] + rc[k]; }
      int *fill = sg_calloc((size_t)P, sizeof *fill, "warm offsets");
      recv = sg_calloc((size_t)rd[P] + 1, sizeof *recv, "warm buffer");
      err = sg_error_collective(comm, fill && recv ? SG_OK : SG_ERR_MEM);
      if (!err) {
        memcpy(fill, sd, (size_t)P * sizeof *fill);
        for (int k = 0; k < st->n_warm; ++k)
          for (int m = off[k]; m < off[k + 1]; ++m) sbuf[fill[dest[m]]++] = st->warm[k];
        const int w = (int)sizeof(sg_warm_entry);
        for (int k = 0; k < P; ++k) { sc[k] *= w; rc[k] *= w; sd[k] *= w; }
        int *rdb = sg_calloc((size_t)P, sizeof *rdb, "warm offsets");
        for (int k = 0; rdb && k < P; ++k) rdb[k] = rd[k] * w;
        n_recv = rd[P];
        if (!rdb || MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, recv, rc, rdb, MPI_BYTE, comm) != MPI_SUCCESS)
          err = sg_error_set(SG_ERR_LIB, "repartition: the warm-start exchange failed");
        free(rdb);
      }
      free(fill);
    }
    free(sc); free(rc); free(sd); free(rd); free(sbuf);
  }
  free(off);
  free(dest);
  err = sg_error_collective(comm, err);
  if (!err) err = sg_error_collective(comm, sg_scene_migrate(comm, s, owner));
  if (!err) {
    qsort(recv, (size_t)n_recv, sizeof *recv, warm_key_cmp);
    err = keep_local_warm(st, recv, n_recv);
  }
  free(recv);
  free(owner);
  st->contacts.n = 0; /* its indices named the old bodies */
  if (!err) st->repartitions++;
  release_free_memory();
  return sg_error_collective(comm, err);
}

/* The paper-002 metric over the kept constraints: vhat of own subsystems, ghosts' from their
 * owners, terms summed so that the bits do not depend on P (sg_sum_reproducible). */
static sg_err metric(sg_stepper *st, long long n_global, double *residual) {
  const sg_problem *p = &st->prob;
  const sg_scene *s = st->s;
  int nv = sg_problem_n_v(p);
  *residual = 0;
  int n_ghosts = s->n - st->n_local;
  /* rank-local errors agreed on before each collective below (error.h) */
  sg_err err = sg_grow((void **)&st->metric_v, &st->cap_metric_v, nv + 6 * n_ghosts + 1, sizeof(double), "metric");
  if (!err) err = sg_grow((void **)&st->metric_terms, &st->cap_metric_terms, st->contacts.n + 1, sizeof(double), "metric");
  if (!err) err = sg_metric_velocity(p, st->lambda, st->metric_v);
  SG_CHECK(sg_error_collective(st->comm, err));
  double *v = st->metric_v, *ghost_vals = st->metric_v + nv;
  if (st->size > 1) { /* the ghosts' vhat from their owners, where their subsystems sit in v */
    int *offset = sg_calloc((size_t)st->n_local + 1, sizeof *offset, "metric offsets");
    err = sg_error_collective(st->comm, offset ? SG_OK : SG_ERR_MEM);
    if (!err) {
      for (int i = 0; i < st->n_local; ++i)
        if (!s->fixed[i]) offset[i] = p->sub_off[st->sub_of_body[i]];
      err = sg_error_collective(st->comm, sg_ghosts_forward(&st->gh, v, offset, 6, ghost_vals));
    }
    free(offset);
    SG_CHECK(err);
    for (int i = st->n_local; i < s->n; ++i)
      memcpy(v + p->sub_off[st->sub_of_body[i]], ghost_vals + 6 * (i - st->n_local), 6 * sizeof(double));
  }
  int m = 0;
  for (int k = 0; k < st->contacts.n; ++k)
    if (st->kept[k]) st->metric_terms[m++] = sg_metric_constraint_sq(p, k, st->lambda, v);
  double sum = sg_sum_reproducible(st->comm, st->metric_terms, m);
  if (n_global > 0) *residual = sqrt(sum) / (double)n_global;
  return SG_OK;
}

/* Per contact: this rank keeps it (the owner of its first moving body in gid order). */
static void mark_keepers(sg_stepper *st) {
  const sg_scene *s = st->s;
  for (int k = 0; k < st->contacts.n; ++k) {
    const sg_contact *c = &st->contacts.c[k];
    st->kept[k] = owned(st, c->a) || (s->fixed[c->a] && owned(st, c->b));
  }
}

/* The problem of st->contacts assembled, the owners of its subsystems set. */
static sg_err assemble(sg_stepper *st) {
  sg_scene *s = st->s;
  double ta = MPI_Wtime();
  SG_CHECK(sg_grow((void **)&st->kept, &st->cap_kept, st->contacts.n + 1, 1, "contact keepers"));
  mark_keepers(st);
  SG_CHECK(sg_grow((void **)&st->sub_of_body, &st->cap_body, s->n + 1, sizeof(int), "body map"));
  SG_CHECK(sg_assemble_rigid(s, &st->contacts, &st->prm, &st->units, &st->prob, st->sub_of_body));
  if (st->size > 1) {
    SG_CHECK(sg_grow((void **)&st->sub_owner, &st->cap_sub_owner, st->prob.n_sub + 1, sizeof(int), "subsystem owners"));
    for (int i = 0; i < s->n; ++i)
      if (st->sub_of_body[i] >= 0) st->sub_owner[st->sub_of_body[i]] = st->ws_owner[i];
    SG_CHECK(sg_problem_set_owners(&st->prob, st->sub_owner));
  }
  const sg_problem *p = &st->prob;
  int nv = sg_problem_n_v(p), nrow = p->n_con ? sg_problem_n_rows(p) : 0;
  SG_CHECK(sg_grow((void **)&st->v, &st->cap_v, nv + 1, sizeof(double), "velocities"));
  SG_CHECK(sg_grow((void **)&st->lambda, &st->cap_row, nrow + 1, sizeof(double), "multipliers"));
  sg_timer_add(SG_PHASE_ASSEMBLY, ta);
  return SG_OK;
}

/* Ghosts in, contacts of owned bodies found and assembled, the problem's owners set. */
static sg_err build_problem(sg_stepper *st) {
  sg_scene *s = st->s;
  double t0 = MPI_Wtime();
  if (st->size > 1) {
    SG_CHECK(sg_ghosts_update(&st->gh, st->comm, s, st->prm.margin, st->prm.dt, &st->ghosts));
    for (int m = 0; m < st->ghosts.n; ++m) SG_CHECK(sg_scene_copy_body(s, &st->ghosts, m));
  }
  sg_timer_add(SG_PHASE_GHOSTS, t0);
  double tc = MPI_Wtime();
  SG_CHECK(sg_grow((void **)&st->ws_owner, &st->cap_ws_owner, s->n + 1, sizeof(int), "body owners"));
  for (int i = 0; i < s->n; ++i)
    st->ws_owner[i] = i < st->n_local ? (s->fixed[i] ? -1 : st->rank) : st->gh.ghost_owner[i - st->n_local];
  SG_CHECK(sg_find_contacts(s, st->prm.margin, st->prm.dt, &st->bp, &st->contacts));
  SG_CHECK(sg_fault_check("collision", s->step + 1)); /* a testing aid (fault.h) */
  int m = 0; /* the contacts of owned bodies, in the canonical order */
  for (int k = 0; k < st->contacts.n; ++k) {
    const sg_contact c = st->contacts.c[k];
    if (owned(st, c.a) || owned(st, c.b)) st->contacts.c[m++] = c;
  }
  st->contacts.n = m;
  sg_timer_add(SG_PHASE_COLLISION, tc);
  return assemble(st);
}

/* Solve from vhat = the current velocities (ghosts' too) and st->lambda. */
static sg_err solve(sg_stepper *st, sg_solve_info *info) {
  const sg_scene *s = st->s;
  const sg_problem *p = &st->prob;
  sg_err err = SG_OK;
  sg_stepper_warm_start_velocity(st);
  SG_CHECK(sg_solver_solve(st->solver, p, st->v, st->lambda, info));
  if (st->size > 1 && st->prm.repartition_imbalance > 0) st->imbalance = sg_stepper_measure_imbalance(st);
  for (int i = 0; i < st->n_local && !err; ++i)
    for (int r = 0; owned(st, i) && r < 6 && !err; ++r)
      if (!isfinite(st->v[p->sub_off[st->sub_of_body[i]] + r]))
        err = sg_error_set(SG_ERR_NUMERIC, "solver returned a non-finite velocity at step %lld (body %lld); state kept",
                           (long long)s->step, (long long)s->gid[i]);
  return sg_error_collective(st->comm, err);
}

/* The solved motion of owned bodies, and of ghosts from their owners (SI). */
static sg_err solved_motion(sg_stepper *st, double **vhat) {
  sg_err err = sg_stepper_solved_motion(st, vhat);
  if (!err && st->size > 1) err = sg_ghosts_forward(&st->gh, *vhat, NULL, 6, *vhat + 6 * st->n_local);
  return sg_error_collective(st->comm, err);
}

/* Solved again while the solved motion meets contacts the problem lacks on any rank (recheck.c). */
static sg_err solve_with_recheck(sg_stepper *st, sg_solve_info *info, sg_step_stats *stats) {
  SG_CHECK(solve(st, info));
  for (int round = 0; round < st->prm.recheck; ++round) {
    double *vhat, tc = MPI_Wtime();
    int overlapping = 0;
    SG_CHECK(solved_motion(st, &vhat));
    SG_CHECK(sg_error_collective(st->comm, sg_stepper_recheck_contacts(st, vhat, &overlapping)));
    MPI_Allreduce(MPI_IN_PLACE, &overlapping, 1, MPI_INT, MPI_SUM, st->comm);
    sg_timer_add(SG_PHASE_COLLISION, tc);
    if (!overlapping) break;
    int iterations = info->iterations, recoveries = info->recoveries;
    sg_err err = sg_stepper_recheck_add(st);
    if (!err) err = assemble(st);
    SG_CHECK(sg_error_collective(st->comm, err));
    SG_CHECK(solve(st, info));
    info->iterations += iterations;
    info->recoveries += recoveries;
    stats->resolves++;
  }
  return SG_OK;
}

static sg_err solve_and_integrate(sg_stepper *st, sg_step_stats *stats) {
  /* the start-of-step contacts' largest penetration, before the recheck adds any */
  double maxpen = 0;
  for (int k = 0; k < st->contacts.n; ++k) maxpen = fmax(maxpen, -st->contacts.c[k].cp.gap);
  MPI_Allreduce(MPI_IN_PLACE, &maxpen, 1, MPI_DOUBLE, MPI_MAX, st->comm);
  sg_stepper_warm_start_lambda(st); /* by contact identity */
  sg_solve_info info;
  SG_CHECK(solve_with_recheck(st, &info, stats));
  /* statistics over the kept contacts: each contact counts once whatever P */
  long long counts[1] = {0};
  for (int k = 0; k < st->contacts.n; ++k) counts[0] += st->kept[k];
  MPI_Allreduce(MPI_IN_PLACE, counts, 1, MPI_LONG_LONG, MPI_SUM, st->comm);
  double tm = MPI_Wtime();
  SG_CHECK(sg_error_collective(st->comm, metric(st, counts[0], &stats->contact_residual)));
  sg_timer_add(SG_PHASE_METRIC, tm);
  sg_stepper_lambda_to_si(st);
  SG_CHECK(sg_stepper_save_warm_start(st));
  SG_CHECK(sg_grow((void **)&st->warm_kept, &st->cap_warm_kept, st->contacts.n + 1, 1, "warm start"));
  memcpy(st->warm_kept, st->kept, (size_t)st->contacts.n);

  double tint = MPI_Wtime();
  for (int i = 0; i < st->n_local; ++i)
    if (owned(st, i)) sg_stepper_integrate_body(st, i);
  sg_timer_add(SG_PHASE_INTEGRATE, tint);
  stats->iterations = info.iterations;
  stats->residual_primal = info.residual_primal;
  stats->residual_dual = info.residual_dual;
  stats->converged = info.converged;
  stats->recoveries = info.recoveries;
  stats->n_contacts = (int)counts[0];
  stats->max_penetration = maxpen;
  st->last_global_contacts = counts[0];
  return SG_OK;
}

sg_err sg_stepper_dist_step(sg_stepper *st, sg_step_stats *stats) {
  sg_scene *s = st->s;
  double t0 = MPI_Wtime();
  memset(stats, 0, sizeof *stats);
  if (st->size > 1 && s->step > 0 && st->last_global_contacts > 0 && st->n_moving_global >= st->size) {
    /* every rank takes the same decision: the step count and the reduced imbalance are shared;
     * an imbalance trigger waits 20 steps after the last repartition (timings are noisy) */
    double imb = (long)s->step - st->last_repartition_step >= 20 ? st->imbalance : 0.0;
    if (sg_partition_needs_update((long)s->step, st->prm.repartition_every, imb, st->prm.repartition_imbalance)) {
      SG_CHECK(repartition(st));
      st->last_repartition_step = (long)s->step;
    }
  }
  st->n_local = s->n;
  sg_err err = sg_error_collective(st->comm, build_problem(st));
  if (!err) err = solve_and_integrate(st, stats);
  s->n = st->n_local; /* the ghosts go; on an error the held bodies are as they were */
  if (err) return err;
  s->step++;
  s->time = s->step * st->prm.dt; /* no accumulated round-off in the clock */
  stats->time = s->time;
  stats->wall_seconds = MPI_Wtime() - t0;
  return SG_OK;
}

sg_err sg_stepper_whole_problem(sg_stepper *st, int root, sg_problem *buf, const sg_problem **whole) {
  *whole = &st->prob;
  if (!st->distributed || st->size == 1) return SG_OK;
  const sg_problem *p = &st->prob;
  unsigned char *mine = sg_calloc((size_t)p->n_sub + 1, 1, "subsystem owners");
  int64_t *key = sg_calloc((size_t)3 * st->contacts.n + 1, sizeof *key, "contact keys");
  sg_err err = sg_error_collective(st->comm, mine && key ? SG_OK : SG_ERR_MEM);
  if (!err) {
    for (int j = 0; j < p->n_sub; ++j) mine[j] = p->sub_owner[j] == st->rank;
    for (int k = 0; k < st->contacts.n; ++k) {
      key[3 * k] = st->contacts.c[k].gid_a;
      key[3 * k + 1] = st->contacts.c[k].gid_b;
      key[3 * k + 2] = st->contacts.c[k].cp.feature;
    }
    err = sg_problem_gather(st->comm, p, mine, st->kept, key, root, buf);
  }
  free(mine);
  free(key);
  *whole = st->rank == root ? buf : NULL;
  return err;
}
