/* The stepper's state and its stages, one file each (not a public interface):
 *   stepper.c     options, create/destroy, the step driver, accessors
 *   exchange.c    the first partition, repartitions (bodies and warm starts migrate), ghosts in/out
 *   collide.c     the contacts of owned bodies and their keepers
 *   assemble.c    the problem of those contacts, with its subsystems' owners
 *   solve.c       warm starts in, the solver (the gather adapter for SG_SOLVER_WHOLE), the solved
 *                 motion and the solves added for the contacts it meets (recheck.c)
 *   metric.c      the paper-002 metric and the step's statistics
 *   warm_start.c  multipliers carried from step to step by contact identity
 *   integrate.c   each owned body's state update
 * Hooks (hooks.h) run between the stages.
 * Each rank holds its owned moving bodies and every fixed body, in gid order; ghosts of nearby
 * remote bodies are appended to the scene for the length of a step (bodies [n_local, s->n)). One
 * rank is the same layout with no ghosts. */
#ifndef SG_STEPPER_INTERNAL_H
#define SG_STEPPER_INTERNAL_H
#include "signorini/ghosts.h"
#include "signorini/hooks.h"
#include "signorini/problem_gather.h"
#include "signorini/step.h"

typedef sg_warm_entry warm_entry;

struct sg_stepper {
  MPI_Comm comm;
  int rank, size;
  sg_scene *s;
  sg_step_params prm;
  sg_solver *solver;
  sg_units units;       /* of the assembled problem: the solver works on dimensionless numbers */
  sg_hook_list hooks;
  sg_body_events inserted, deleted; /* by the hooks, in the last step, of bodies held here */
  /* collision and the problem */
  sg_broadphase bp;
  sg_images images;                  /* periodic images of the last search */
  sg_contacts contacts;
  sg_problem prob;
  int *sub_of_body, cap_body;
  int *sub_owner, cap_sub_owner;
  double *v, *lambda;
  int cap_v, cap_row;
  /* the whole problem for SG_SOLVER_WHOLE solvers on several ranks (solve.c) */
  sg_whole_problem whole;
  int64_t *con_key;                  /* per contact: (gid_a, gid_b, feature) */
  unsigned char *sub_mine;           /* per subsystem: owned here */
  int cap_con_key, cap_sub_mine;
  /* warm start: previous step's multipliers, sorted by contact identity */
  warm_entry *warm;
  int n_warm, cap_warm;
  unsigned char *warm_kept;          /* per warm entry: this rank keeps it (checkpoints) */
  int cap_warm_kept;
  sg_warm_entry *written;            /* kept warm entries, for checkpoints */
  int cap_written;
  /* distribution */
  sg_ghosts gh;
  sg_scene ghosts;
  int n_local;
  long long n_moving_global, last_global_contacts;
  int *ws_owner, cap_ws_owner;       /* per body of s during a step: owner rank, -1 fixed */
  unsigned char *kept;               /* per contact: this rank is its keeper (counts, metric, checkpoint) */
  int cap_kept;
  double last_iterate_seconds, imbalance;
  int repartitions;
  long last_repartition_step;
  /* metric */
  double *metric_v, *metric_terms;   /* vhat of the subsystems and the ghosts' slots; per kept constraint */
  int cap_metric_v, cap_metric_terms;
  /* contacts of the solved motion (recheck.c) */
  sg_contacts recheck, merged;
  double *recheck_vel, *merged_lambda, *solved_vel;
  int cap_recheck_vel, cap_merged_lambda, cap_solved_vel;
  unsigned char *recheck_changed; /* bodies whose motion the solve changed (recheck.c) */
  int cap_recheck_changed;
  /* stress moments (stress.c): per owned moving body, in gid order, when kept */
  int keep_stress, n_stress, cap_stress, cap_stress_gid;
  double *stress;
  int64_t *stress_gid;
  /* rolling resistance (rolling.c): angular impulse of the step on each owned body (SI, 3 per body) */
  double *roll;
  int cap_roll, has_roll;
};

/* Body i of s (during a step) is a moving body this rank owns. */
static inline int sg_stepper_owns(const sg_stepper *st, int i) { return i < st->n_local && !st->s->fixed[i]; }

/* exchange.c */
sg_err sg_stepper_partition_initial(sg_stepper *st);
/* A repartition when its trigger fires (every rank takes the same decision). */
sg_err sg_stepper_maybe_repartition(sg_stepper *st);
/* Ghosts appended to the scene, and every body's owner rank in st->ws_owner. */
sg_err sg_stepper_ghosts_in(sg_stepper *st);
void sg_stepper_ghosts_out(sg_stepper *st);
void sg_stepper_exchange_destroy(sg_stepper *st);
/* collide.c: the contacts touching an owned body, in the canonical order. */
sg_err sg_stepper_collide(sg_stepper *st);
/* assemble.c: the problem of st->contacts, keepers marked and owners set. */
sg_err sg_stepper_assemble(sg_stepper *st);
/* solve.c: solve (adding solves for contacts of the solved motion); info sums over the solves. */
sg_err sg_stepper_solve(sg_stepper *st, sg_solve_info *info, sg_step_stats *stats);
/* vhat of every body of s (ghosts' from their owners), SI, 6 per body. Collective. */
sg_err sg_stepper_solved_motion(sg_stepper *st, double **vhat_si);
/* metric.c: the contact count and the paper-002 metric over the kept contacts. Collective. */
sg_err sg_stepper_metric(sg_stepper *st, long long *n_contacts, double *residual);
/* warm_start.c */
void sg_stepper_warm_start_velocity(sg_stepper *st);
/* The added solve of a step (solve.c) goes on from the first: a moving rigid body starts from its solved
 * motion vhat_si (SI, 6 per body; a ghost's is its owner's, so the start is the same on any P), which
 * agrees with the multipliers the solve keeps (SubADMM takes its slacks z^0 = J vhat^0 from it); other
 * bodies as sg_stepper_warm_start_velocity (a tree's 6 numbers do not hold its links' motion). */
void sg_stepper_warm_start_solved(sg_stepper *st, const double *vhat_si);
void sg_stepper_warm_start_lambda(sg_stepper *st);
/* The warm entry of contact c, NULL if none: contacts taken in their sorted order, *cursor (start
 * it at 0) advancing with them. */
const sg_warm_entry *sg_stepper_warm_next(const sg_stepper *st, const sg_contact *c, int *cursor);
/* lambda back to SI impulses (N s), then kept as next step's warm start. */
sg_err sg_stepper_save_warm_start(sg_stepper *st);
/* Keep the entries (sorted) that touch a body held here, with their keepers. */
sg_err sg_stepper_keep_local_warm(sg_stepper *st, const sg_warm_entry *e, int n);
/* rolling.c: the rolling-resistance impulse of the step on every owned body (st->roll), from the
 * contacts and their last-step normal impulses; assembly adds it to the bodies' b. */
sg_err sg_stepper_rolling_resistance(sg_stepper *st);
void sg_stepper_add_rolling(sg_stepper *st);
/* stress.c: the stress moments of the step's contacts (lambda in SI), before integration; then
 * those of the bodies the end-of-step hooks deleted dropped. */
sg_err sg_stepper_stress_moments(sg_stepper *st);
void sg_stepper_stress_drop_deleted(sg_stepper *st);
/* integrate.c: every owned body moved with its vhat (problem units). */
void sg_stepper_integrate(sg_stepper *st);
/* recheck.c: search the contacts that the solved motion (vhat in SI, 6 per body of s, bodies not
 * solved here included) brings within reach and st->contacts lacks; *n_overlapping on this rank:
 * how many of them end the step overlapping by more than 0.1 margin under that motion. When a rank
 * has one, every rank adds them (sg_stepper_recheck_add), assembles and solves again. With
 * spheres_only (every moving body a rigid sphere and no kinematic body turning: the same decision on
 * every rank), only the pairs of a body whose solved motion moves it a quarter margin from where its
 * start motion does (and of walls other than planes): the others cannot overlap (recheck.c). */
sg_err sg_stepper_recheck_contacts(sg_stepper *st, const double *vhat_si, int spheres_only, int *n_overlapping);
/* The contacts of the last search added to st->contacts with lambda 0 (st->lambda, in the problem's
 * units, keeps the others' in the merged order, which stays canonical). */
sg_err sg_stepper_recheck_add(sg_stepper *st);

#endif
