/* The stepper's state, shared by the replicated path (stepper.c) and the distributed one
 * (stepper_dist.c). Not a public interface. */
#ifndef SG_STEPPER_INTERNAL_H
#define SG_STEPPER_INTERNAL_H
#include "signorini/ghosts.h"
#include "signorini/step.h"

typedef sg_warm_entry warm_entry;

struct sg_stepper {
  MPI_Comm comm;
  sg_scene *s;
  sg_step_params prm;
  sg_solver *solver;
  sg_units units;       /* of the assembled problem: the solver works on dimensionless numbers */
  sg_broadphase bp;
  sg_contacts contacts;
  sg_problem prob;
  int *sub_of_body;
  double *v, *lambda;
  warm_entry *warm;     /* previous step's multipliers, sorted by contact identity */
  int n_warm, cap_warm, cap_body, cap_v, cap_row;
  /* distribution */
  int rank, size;
  int *body_owner, *sub_owner, *con_keeper, cap_owner, cap_sub_owner, cap_keeper;
  double *gather_buf;
  int cap_gather, *counts, *displs;
  double last_iterate_seconds, imbalance;
  int repartitions;
  long last_repartition_step;
  /* distributed scene (stepper_dist.c): s holds owned + fixed bodies; ghosts are appended to it
   * for the length of a step (bodies [n_local, s->n)) */
  int distributed;
  sg_ghosts gh;
  sg_scene ghosts;
  int n_local;
  long long n_moving_global, last_global_contacts;
  int *ws_owner, cap_ws_owner;       /* per body of s during a step: owner rank, -1 fixed */
  unsigned char *kept;               /* per contact: this rank is its keeper (counts, metric, checkpoint) */
  unsigned char *warm_kept;          /* per warm entry: the same, carried from the step */
  int cap_kept, cap_warm_kept;
  sg_warm_entry *written;            /* kept warm entries, for checkpoints */
  int cap_written;
  double *metric_v, *metric_terms;   /* metric: vhat per body of s (6 each), per kept constraint */
  int cap_metric_v, cap_metric_terms;
  /* contacts of the solved motion (recheck.c) */
  sg_contacts recheck, merged;
  double *recheck_vel, *merged_lambda, *solved_vel;
  int cap_recheck_vel, cap_merged_lambda, cap_solved_vel;
};



/* stepper_dist.c */
sg_err sg_stepper_dist_create(sg_stepper *st);
sg_err sg_stepper_dist_step(sg_stepper *st, sg_step_stats *stats);
sg_err sg_stepper_dist_set_warm(sg_stepper *st, const sg_warm_entry *entries, int n);
void sg_stepper_dist_destroy(sg_stepper *st);
/* stepper.c, shared */
/* Warm starts in the problem's units: vhat of subsystem sub_of_body[i] from body i's velocity, and
 * lambda of the contacts seen last step (by identity). */
void sg_stepper_warm_start_velocity(sg_stepper *st);
void sg_stepper_warm_start_lambda(sg_stepper *st);
/* lambda back to SI impulses (N s), after the metric, for the warm start and the accessors. */
void sg_stepper_lambda_to_si(sg_stepper *st);
/* Integrate body i with the solver's vhat of its subsystem (problem units). */
void sg_stepper_integrate_body(sg_stepper *st, int i);
sg_err sg_stepper_save_warm_start(sg_stepper *st);
/* vhat of every body of s with a subsystem in the last solve (ghosts' must be there), in SI. */
sg_err sg_stepper_solved_motion(sg_stepper *st, double **vhat_si);
double sg_stepper_measure_imbalance(sg_stepper *st);
/* recheck.c: search the contacts that the solved motion (vhat in SI, 6 per body of s, bodies not
 * solved here included) brings within reach and st->contacts lacks; *n_overlapping on this rank:
 * how many of them end the step overlapping by more than 0.1 margin under that motion. When a rank
 * has one, every rank adds them (sg_stepper_recheck_add), assembles and solves again. */
sg_err sg_stepper_recheck_contacts(sg_stepper *st, const double *vhat_si, int *n_overlapping);
/* The contacts of the last search added to st->contacts with lambda 0 (st->lambda, in the problem's
 * units, keeps the others' in the merged order, which stays canonical). */
sg_err sg_stepper_recheck_add(sg_stepper *st);

#endif
