/* Step hooks, in the manner of LAMMPS fixes: each hook declares the stages of the step it acts at
 * (a mask) and the stepper calls every registered hook at each of its stages, in the order they
 * were added. Boundary conditions, moving walls and diagnostics are hooks; adding one touches no
 * stepper file. */
#ifndef SIGNORINI_HOOKS_H
#define SIGNORINI_HOOKS_H
#include <mpi.h>
#include "signorini/scene.h"

typedef enum {
  SG_HOOK_BEFORE_EXCHANGE = 1 << 0,  /* bodies may be inserted or deleted (inflow, outflow) */
  SG_HOOK_BEFORE_COLLISION = 1 << 1, /* kinematic bodies take their pose and velocity of the step */
  SG_HOOK_AFTER_SOLVE = 1 << 2,      /* the step's solution is known; bodies not yet moved */
  SG_HOOK_END_OF_STEP = 1 << 3       /* bodies moved, s->state.time is the step's end */
} sg_hook_stage;

/* A body that entered or left the scene (inflow, outflow): its global id, the time, its state
 * then, and its description (an inserted body's is not in the scene file). Each event is recorded
 * by one rank: the one that holds the body. */
typedef struct {
  int64_t gid;
  double time;
  double mass;
  double pos[3], quat[4], vel[6];
  int shape, material;
  double size[3], density;
} sg_body_event;
typedef struct {
  sg_body_event *ev;
  int n, cap;
} sg_body_events;
sg_err sg_body_events_push(sg_body_events *e, const sg_scene *s, int i, double time);

/* The step's flow of bodies, global (the same on every rank; masses summed reproducibly). A hook
 * that inserts or deletes moving bodies must count them here: the stepper's count of moving
 * bodies follows the tally. */
typedef struct {
  long long inserted, deleted;
  double mass_inserted, mass_deleted;
  long long waiting;   /* bodies an inflow could not place yet (its region is full) */
} sg_flow_tally;

/* What a hook sees: the rank's scene, whose bodies [0, n_held) are those it holds (its moving
 * bodies and every fixed one, in gid order; at BEFORE_COLLISION and AFTER_SOLVE ghost copies of
 * remote bodies follow them), and the step's interval. */
typedef struct {
  MPI_Comm comm;
  sg_scene *s;
  int n_held;
  double t0, t1;   /* the step runs from t0 to t1 (s->state.time is t0 until END_OF_STEP, then t1) */
  /* bodies inserted or deleted in the step: logged on the rank that holds them, tallied globally */
  sg_body_events *inserted, *deleted;
  sg_flow_tally *tally;
} sg_hook_context;

typedef struct sg_hook sg_hook;
typedef struct {
  const char *name;
  unsigned mask;  /* the sg_hook_stage bits it acts at */
  sg_err (*run)(sg_hook *h, sg_hook_stage stage, const sg_hook_context *ctx);
  void (*destroy)(sg_hook *h);
  /* State carried through checkpoints (NULL: none): n_state words, saved and restored so that a
   * restart continues bit for bit (doubles are stored by their bits). */
  int n_state;
  void (*save)(const sg_hook *h, int64_t *words);
  sg_err (*load)(sg_hook *h, const int64_t *words);
} sg_hook_ops;

struct sg_hook {
  const sg_hook_ops *ops;
  void *data;
};

typedef struct {
  sg_hook *hooks;
  int n, cap;
} sg_hook_list;

/* Add a hook (data owned by it from then on: its destroy frees it). */
sg_err sg_hooks_add(sg_hook_list *l, const sg_hook_ops *ops, void *data);
/* Run every hook that acts at stage; errors are agreed on over ctx->comm. */
sg_err sg_hooks_run(sg_hook_list *l, sg_hook_stage stage, const sg_hook_context *ctx);
void sg_hooks_destroy(sg_hook_list *l);
/* Does any hook act at stage? */
int sg_hooks_act_at(const sg_hook_list *l, sg_hook_stage stage);
/* The state of every hook, concatenated in list order (*n words; words NULL: the count only), and
 * its names joined by commas (what a checkpoint stores to check that a restart has the same hooks). */
void sg_hooks_save(const sg_hook_list *l, int64_t *words, int *n);
void sg_hooks_names(const sg_hook_list *l, char *buf, size_t len);
sg_err sg_hooks_load(sg_hook_list *l, const int64_t *words, int n);
/* The hooks the model asks for: the kinematic motion when the scene has motions (kinematic.c),
 * an outflow and an inflow hook per region of those kinds (outflow.c, inflow.c), the trees' state
 * from their owners when the scene has trees (tree_sync.c). */
sg_err sg_hooks_from_model(const sg_scene *s, sg_hook_list *l);

extern const sg_hook_ops sg_hook_kinematic_ops;
extern const sg_hook_ops sg_hook_tree_sync_ops;
sg_err sg_hook_outflow_add(sg_hook_list *l, const sg_scene *s, int region);
sg_err sg_hook_inflow_add(sg_hook_list *l, const sg_scene *s, int region);

#endif
