/* One time step on any number of ranks (step.h): repartition when due, ghosts in, collide,
 * assemble, solve, metric, warm start kept, integrate, ghosts out. One rank is the same pipeline
 * with no ghosts. The stages live one per file (stepper_internal.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/options.h"
#include "signorini/step.h"
#include "signorini/timing.h"
#include "step/stepper_internal.h"

void sg_step_params_scales(MPI_Comm comm, const sg_scene *s, sg_step_params *p) {
  sg_rigid_scales(comm, s, &p->least_mass, &p->least_size);
}

sg_err sg_step_params_from_options(MPI_Comm comm, const sg_scene *s, sg_step_params *p) {
  if (p->least_size == 0) sg_step_params_scales(comm, s, p);
  double hmin = isfinite(p->least_size) ? p->least_size : 0.01;
  SG_CHECK(sg_opt_real("-dt", 1.0 / 240.0, 1e-12, 1e3, "time step (s)", &p->dt));
  SG_CHECK(sg_opt_real("-theta", 0.0, 0.0, 0.999, "theta of paper 002 eq. (2): vhat = theta v_k + (1-theta) v_k+1 (0: implicit, inelastic impacts; 0.5: midpoint)", &p->theta));
  double margin_factor = 0.2;
  SG_CHECK(sg_opt_real("-contact_margin_factor", margin_factor, 0.0, 1e3, "the default -contact_margin as a multiple of the smallest body size", &margin_factor));
  SG_CHECK(sg_opt_real("-contact_margin", margin_factor * hmin, 0.0, 1e6, "contacts with a gap below this enter the problem (m; default -contact_margin_factor x smallest body size)", &p->margin));
  SG_CHECK(sg_opt_real("-contact_skin", 2 * p->margin, 0.0, 1e6, "the contact search keeps the pairs within margin + skin while no body moves skin / 2 (m; default 2 x -contact_margin; 0: a whole search every step)", &p->skin));
  SG_CHECK(sg_opt_real("-contact_erp", 0.2, 0.0, 1.0, "fraction of a penetration removed per step", &p->erp));
  double g = sqrt(s->gravity[0] * s->gravity[0] + s->gravity[1] * s->gravity[1] + s->gravity[2] * s->gravity[2]);
  SG_CHECK(sg_opt_real("-restitution_threshold", 2.0 * g * p->dt, 0.0, 1e9,
                       "impacts slower than this (m/s) are inelastic whatever /materials/restitution says (default 2 |g| dt: a resting contact does not chatter)",
                       &p->bounce_threshold));
  SG_CHECK(sg_opt_int("-repartition_every", 240, 0, 1000000000, "steps between METIS repartitions on the contact graph (0: never)", &p->repartition_every));
  char method[8];
  SG_CHECK(sg_opt_choice("-partition_method", "metis", "metis|sfc",
                         "owners of the bodies: METIS on the contact graph (on rank 0), or stretches of a Hilbert curve of equal weight (in parallel, no gather; blind to contacts)",
                         method, sizeof method));
  p->partition_sfc = !strcmp(method, "sfc");
  SG_CHECK(sg_opt_real("-repartition_imbalance", 1.2, 0.0, 1e9, "repartition when the solver time max/mean over ranks exceeds this (0: never)", &p->repartition_imbalance));
  long recheck = 0;
  SG_CHECK(sg_opt_int("-contact_recheck", 8, 0, 100, "solves added per step for the contacts the solved motion meets and the motion at the start of the step did not (a body stopped within the step by a third one)", &recheck));
  p->recheck = (int)recheck;
  long recheck_max_it = 0;
  SG_CHECK(sg_opt_int("-contact_recheck_max_it", 0, 0, 100000000, "iteration cap of each added solve, which goes on from the solved motion (0: -solver_max_it)", &recheck_max_it));
  p->recheck_max_it = (int)recheck_max_it;
  SG_CHECK(sg_opt_bool("-contact_sweep_stops", 1, "the contact search also follows each body of a pair while the solve holds the other still (a grain that lands stops the ones falling behind it in the same step)", &p->sweep_stops));
  SG_CHECK(sg_opt_bool("-contact_meet_normal", 1, "two spheres' contacts take the normal and gap of where they meet along their motion over the step, not of where they stand at its start (no hold by a neighbour the motion passes)", &p->meet_normal));
  SG_CHECK(sg_opt_bool("-assemble_dense", 0, "store rigid contacts as dense 3x6 Jacobian blocks instead of frame and lever arms (the general path; for comparisons)", &p->dense_jacobians));
  return SG_OK;
}

/* Ids never reused: the next one above every id held on any rank, whatever the scene said. */
static void agree_next_gid(MPI_Comm comm, sg_scene *s) {
  long long next = s->next_gid;
  for (int i = 0; i < s->n; ++i)
    if (s->gid[i] >= next) next = s->gid[i] + 1;
  MPI_Allreduce(MPI_IN_PLACE, &next, 1, MPI_LONG_LONG, MPI_MAX, comm);
  s->next_gid = next;
}

sg_err sg_stepper_create(MPI_Comm comm, sg_scene *s, const sg_step_params *params, sg_solver *solver,
                         sg_stepper **out) {
  sg_stepper *st = sg_calloc(1, sizeof *st, "stepper");
  SG_CHECK(sg_error_collective(comm, st ? SG_OK : SG_ERR_MEM));
  st->comm = comm;
  st->s = s;
  st->prm = *params;
  st->bp.stops = params->sweep_stops;
  st->bp.meet_normal = params->meet_normal;
  st->bp.skin = params->skin;
  st->solver = solver;
  MPI_Comm_rank(comm, &st->rank);
  MPI_Comm_size(comm, &st->size);
  *out = st;
  SG_CHECK(sg_stepper_partition_initial(st));
  agree_next_gid(comm, s);
  st->units = params->least_size != 0 ? sg_units_from_scales(params->least_mass, params->least_size, params->dt)
                                      : sg_rigid_units(comm, s, params->dt);
  return sg_error_collective(comm, sg_hooks_from_model(s, &st->hooks));
}

sg_err sg_stepper_add_hook(sg_stepper *st, const sg_hook_ops *ops, void *data) {
  return sg_hooks_add(&st->hooks, ops, data);
}

void sg_stepper_destroy(sg_stepper **pst) {
  sg_stepper *st = *pst;
  if (!st) return;
  sg_stepper_exchange_destroy(st);
  sg_hooks_destroy(&st->hooks);
  sg_broadphase_destroy(&st->bp);
  sg_images_destroy(&st->images);
  sg_contacts_destroy(&st->contacts);
  sg_contacts_destroy(&st->recheck);
  sg_contacts_destroy(&st->merged);
  free(st->recheck_vel); free(st->merged_lambda); free(st->solved_vel); free(st->roll); free(st->recheck_changed);
  free(st->stress); free(st->stress_gid);
  sg_problem_destroy(&st->prob);
  sg_whole_problem_destroy(&st->whole);
  free(st->con_key); free(st->sub_mine);
  free(st->sub_of_body); free(st->sub_owner); free(st->v); free(st->lambda);
  free(st->warm); free(st->warm_kept); free(st->written);
  free(st->ws_owner); free(st->kept); free(st->metric_v); free(st->metric_terms);
  free(st->inserted.ev); free(st->deleted.ev);
  free(st);
  *pst = NULL;
}

int sg_stepper_repartitions(const sg_stepper *st) { return st->repartitions; }

void sg_stepper_search_counts(const sg_stepper *st, long long *calls, long long *listed, long long *lists_made) {
  *calls = st->bp.calls;
  *listed = st->bp.listed;
  *lists_made = st->bp.lists_made;
}

void sg_stepper_events(const sg_stepper *st, const sg_body_events **inserted, const sg_body_events **deleted) {
  *inserted = &st->inserted;
  *deleted = &st->deleted;
}

sg_err sg_stepper_hook_state(const sg_stepper *st, int64_t **words, int *n, char *names, size_t len) {
  sg_hooks_save(&st->hooks, NULL, n);
  *words = sg_calloc((size_t)*n + 1, sizeof **words, "hook state");
  if (!*words) return SG_ERR_MEM;
  sg_hooks_save(&st->hooks, *words, n);
  sg_hooks_names(&st->hooks, names, len);
  return SG_OK;
}

sg_err sg_stepper_set_hook_state(sg_stepper *st, const int64_t *words, int n, const char *names) {
  char mine[512];
  sg_hooks_names(&st->hooks, mine, sizeof mine);
  if (strcmp(mine, names) != 0)
    return sg_error_set(SG_ERR_ARG, "the checkpoint was written with the hooks '%s', this run has '%s'", names, mine);
  return sg_hooks_load(&st->hooks, words, n);
}
const sg_problem *sg_stepper_problem(const sg_stepper *st) { return &st->prob; }
const double *sg_stepper_lambda(const sg_stepper *st) { return st->lambda; }
const sg_contacts *sg_stepper_contacts(const sg_stepper *st) { return &st->contacts; }

/* Largest penetration of the contacts at the start of the step, over all ranks. */
static double start_penetration(const sg_stepper *st) {
  double maxpen = 0;
  for (int k = 0; k < st->contacts.n; ++k) maxpen = fmax(maxpen, -st->contacts.c[k].cp.gap);
  MPI_Allreduce(MPI_IN_PLACE, &maxpen, 1, MPI_DOUBLE, MPI_MAX, st->comm);
  return maxpen;
}

static sg_err solve_and_integrate(sg_stepper *st, const sg_hook_context *ctx, sg_step_stats *stats) {
  double maxpen = start_penetration(st); /* before the recheck adds any contact */
  sg_stepper_warm_start_lambda(st);
  sg_solve_info info;
  SG_CHECK(sg_stepper_solve(st, &info, stats));
  long long n_contacts = 0;
  SG_CHECK(sg_stepper_metric(st, &n_contacts, &stats->contact_residual));
  SG_CHECK(sg_error_collective(st->comm, sg_stepper_save_warm_start(st)));
  SG_CHECK(sg_error_collective(st->comm, sg_stepper_stress_moments(st)));
  SG_CHECK(sg_hooks_run(&st->hooks, SG_HOOK_AFTER_SOLVE, ctx));
  sg_stepper_integrate(st);
  stats->iterations = info.iterations;
  stats->residual_primal = info.residual_primal;
  stats->residual_dual = info.residual_dual;
  stats->converged = info.converged;
  stats->recoveries = info.recoveries;
  stats->n_contacts = (int)n_contacts;
  stats->max_penetration = maxpen;
  st->last_global_contacts = n_contacts;
  return SG_OK;
}

/* Hooks of a stage that may insert or delete bodies; the global count of moving bodies follows
 * their tally (the same on every rank: no reduction). */
static sg_err run_flow_hooks(sg_stepper *st, sg_hook_stage stage, sg_hook_context *ctx) {
  if (!sg_hooks_act_at(&st->hooks, stage)) return SG_OK;
  ctx->n_held = st->s->n;
  const long long before = ctx->tally->inserted - ctx->tally->deleted;
  SG_CHECK(sg_hooks_run(&st->hooks, stage, ctx));
  st->n_moving_global += ctx->tally->inserted - ctx->tally->deleted - before;
  return SG_OK;
}

static void flow_stats(const sg_stepper *st, const sg_flow_tally *tally, sg_step_stats *stats) {
  stats->n_bodies = st->n_moving_global;
  stats->inserted = tally->inserted;
  stats->deleted = tally->deleted;
  stats->inflow_waiting = tally->waiting;
  stats->mass_inserted = tally->mass_inserted;
  stats->mass_deleted = tally->mass_deleted;
}

sg_err sg_stepper_step(sg_stepper *st, sg_step_stats *stats) {
  sg_scene *s = st->s;
  double wall0 = MPI_Wtime();
  memset(stats, 0, sizeof *stats);
  st->inserted.n = st->deleted.n = 0;
  sg_flow_tally tally = {0};
  /* times from the step count: no accumulated round-off in the clock */
  sg_hook_context ctx = {st->comm, s, s->n, (double)s->state.step * st->prm.dt, (double)(s->state.step + 1) * st->prm.dt,
                         &st->inserted, &st->deleted, &tally};
  SG_CHECK(run_flow_hooks(st, SG_HOOK_BEFORE_EXCHANGE, &ctx));
  SG_CHECK(sg_stepper_maybe_repartition(st));
  st->n_local = ctx.n_held = s->n;
  sg_err err = sg_stepper_ghosts_in(st);
  err = sg_error_collective(st->comm, err);
  if (!err) err = sg_hooks_run(&st->hooks, SG_HOOK_BEFORE_COLLISION, &ctx);
  if (!err) err = sg_stepper_collide(st);
  if (!err) err = sg_stepper_rolling_resistance(st);
  if (!err) err = sg_stepper_assemble(st);
  err = sg_error_collective(st->comm, err);
  if (!err) err = solve_and_integrate(st, &ctx, stats);
  sg_stepper_ghosts_out(st); /* on an error the held bodies are as they were */
  if (err) return err;
  s->state.step++;
  s->state.time = ctx.t1;
  SG_CHECK(run_flow_hooks(st, SG_HOOK_END_OF_STEP, &ctx));
  sg_stepper_stress_drop_deleted(st);
  flow_stats(st, &tally, stats);
  stats->time = s->state.time;
  stats->wall_seconds = MPI_Wtime() - wall0;
  return SG_OK;
}
