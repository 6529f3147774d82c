/* Time stepping with the theta method of paper 002 eq. (2):
 *   M_k (v_{k+1} - v_k) = f_k t_k + J^T lambda,  vhat = theta v_k + (1 - theta) v_{k+1},
 *   q_{k+1} = update(q_k, vhat, t_k),
 * compressed into A vhat = b + J^T lambda with A = M_k / (1 - theta), b = A v_k + f_k t_k. */
#ifndef SIGNORINI_STEP_H
#define SIGNORINI_STEP_H
#include <mpi.h>
#include "signorini/collision.h"
#include "signorini/hooks.h"
#include "signorini/problem.h"
#include "signorini/scene.h"
#include "signorini/solver.h"

typedef struct {
  double dt;       /* -dt */
  double theta;    /* -theta, in [0, 1) */
  double margin;   /* -contact_margin (m): contacts with gap below it enter the problem */
  double skin;     /* -contact_skin (m): the search keeps its pairs while no body moves skin / 2 */
  double erp;      /* -contact_erp: fraction of a penetration corrected per step */
  double bounce_threshold; /* -restitution_threshold (m/s): slower impacts are inelastic whatever the
                              restitution (resting contacts do not chatter) */
  long repartition_every;       /* -repartition_every: steps between repartitions (0: never) */
  double repartition_imbalance; /* -repartition_imbalance: repartition when iteration time max/mean exceeds it (0: never) */
  int partition_sfc; /* -partition_method sfc: owners from a Hilbert curve in parallel, not METIS on rank 0 */
  int recheck;     /* -contact_recheck: solves added per step for contacts of the solved motion */
  int recheck_max_it; /* -contact_recheck_max_it: iteration cap of an added solve (0: the solver's own) */
  int sweep_stops; /* -contact_sweep_stops: the search also follows each body of a pair while the other
                      stands still (sg_pair_displacements) */
  int meet_normal; /* -contact_meet_normal: two spheres' contacts taken where they meet within the step
                      (sg_meet_spheres) */
  int dense_jacobians; /* -assemble_dense: dense 3x6 blocks for rigid contacts instead of the compact form */
  /* the model's scales (sg_rigid_scales): they give the problem's units and the default margin.
   * Taken from the scene file (sg_step_params_scales) they stay the same when a restart's bodies
   * differ from the file's (inflow, outflow); 0: taken from the scene by sg_stepper_create. */
  double least_mass, least_size;
} sg_step_params;

/* Per-step figures, stored as /stats in the trajectory file. */
typedef struct {
  double time;
  int iterations;
  double residual_primal, residual_dual;
  double contact_residual;   /* paper 002 Sec. VII metric */
  int n_contacts;
  double wall_seconds;
  int converged;
  double max_penetration;    /* largest -gap over contacts at the start of the step (m) */
  int recoveries;            /* the solver's recoveries in this step (sg_solve_info) */
  int resolves;              /* solves added for contacts the solved motion met (-contact_recheck) */
  /* bodies (global): moving bodies at the end of the step, and the step's flow (hooks.h) */
  long long n_bodies;
  long long inserted, deleted, inflow_waiting;
  double mass_inserted, mass_deleted;  /* kg */
} sg_step_stats;

typedef struct sg_stepper sg_stepper;

/* The scales of the model in s into p (collective when s is distributed). */
void sg_step_params_scales(MPI_Comm comm, const sg_scene *s, sg_step_params *p);
/* Read -dt, -theta, -contact_margin, -contact_erp, -restitution_threshold (margin default 0.2 x p->least_size, the scales
 * taken from s first when p has none: from all ranks' bodies when it is distributed; collective
 * over comm then). */
sg_err sg_step_params_from_options(MPI_Comm comm, const sg_scene *s, sg_step_params *p);
sg_err sg_stepper_create(MPI_Comm comm, sg_scene *s, const sg_step_params *params, sg_solver *solver,
                         sg_stepper **out);
/* One step: collision, assembly, solve, integration. On a solver failure the scene is unchanged. */
sg_err sg_stepper_step(sg_stepper *st, sg_step_stats *stats);
void sg_stepper_destroy(sg_stepper **st);
/* Register a step hook (hooks.h; every rank registers the same hooks in the same order); the hooks
 * the model asks for (kinematic motion, ...) are registered by sg_stepper_create. */
sg_err sg_stepper_add_hook(sg_stepper *st, const sg_hook_ops *ops, void *data);

/* On P ranks sg_stepper_create turns s into this rank's part (scene.h: owned moving bodies + every
 * fixed body, in gid order) after a METIS partition computed on rank 0; each step fetches ghosts,
 * finds and assembles the contacts of owned bodies only, solves, and integrates the owned bodies;
 * bodies migrate at repartitions. A scene already distributed on entry (sg_scene_read_block) is
 * partitioned the same way. Every solver runs so: one that needs the whole problem
 * (SG_SOLVER_WHOLE, solver.h) gets it gathered on every rank and its answer taken back. */

/* The bodies inserted and deleted in the last step that this rank held (hooks.h). */
void sg_stepper_events(const sg_stepper *st, const sg_body_events **inserted, const sg_body_events **deleted);
/* The hooks' state for a checkpoint (*words: malloc'ed, n of them; names: the hooks' names joined
 * by commas), and its restoration on a restart (refused when the names differ). */
sg_err sg_stepper_hook_state(const sg_stepper *st, int64_t **words, int *n, char *names, size_t len);
sg_err sg_stepper_set_hook_state(sg_stepper *st, const int64_t *words, int n, const char *names);

/* Number of repartitions done so far. */
int sg_stepper_repartitions(const sg_stepper *st);
/* This rank's contact searches so far, those answered from the kept list (-contact_skin) and the
 * lists made. */
void sg_stepper_search_counts(const sg_stepper *st, long long *calls, long long *listed, long long *lists_made);

/* Warm-start state carried from one step to the next (and through checkpoints): the identity of
 * each contact of the last step and its multiplier, sorted by identity. */
typedef struct {
  int64_t gid_a, gid_b;
  uint32_t feature;
  double lambda[3];
} sg_warm_entry;
/* Order of warm entries by contact identity (gid_a, gid_b, feature); qsort-compatible. */
int sg_warm_entry_cmp(const void *a, const void *b);
int sg_stepper_warm_count(const sg_stepper *st);
const sg_warm_entry *sg_stepper_warm(const sg_stepper *st);
/* The entries this rank writes to a checkpoint: those it keeps (each contact kept by one rank).
 * *n = -1 when out of memory. */
const sg_warm_entry *sg_stepper_warm_written(sg_stepper *st, int *n);
/* Replace the warm start (entries must be sorted by (gid_a, gid_b, feature); checked). The entries
 * may be all of a checkpoint's: each rank keeps those touching its bodies. */
sg_err sg_stepper_set_warm(sg_stepper *st, const sg_warm_entry *entries, int n);

/* The whole problem of the last step on rank root (collective): the stepper's own on one rank,
 * else gathered into buf (*whole = buf on root, NULL elsewhere), subsystems by global id and
 * constraints by contact identity, as on one rank. */
sg_err sg_stepper_whole_problem(sg_stepper *st, int root, sg_problem *buf, const sg_problem **whole);

/* Access for tests and diagnostics: the last problem solved and its lambda (SI impulses; on P
 * ranks this rank's part, ghost subsystems included). */
const sg_problem *sg_stepper_problem(const sg_stepper *st);
const double *sg_stepper_lambda(const sg_stepper *st);
const sg_contacts *sg_stepper_contacts(const sg_stepper *st);
/* Stress moments (src/step/stress.c): with keep = 1, each step keeps, for each moving body this
 * rank owns, W = sum over its contacts of f (x) (x_c - x) (N m, row-major 3 x 3; f the contact
 * force, x_c the contact point, x the centre at the step's start). sg_stepper_stress gives the last
 * step's: their number, the bodies' gids (ascending) and 9 numbers per body. */
void sg_stepper_keep_stress(sg_stepper *st, int keep);
int sg_stepper_stress(const sg_stepper *st, const int64_t **gid, const double **W);
#endif
