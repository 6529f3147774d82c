/* The solve stage. A solver that works on a rank's part of the problem (SG_SOLVER_LOCAL) gets it
 * with its ghost subsystems; one that needs the whole problem (SG_SOLVER_WHOLE) gets it, on several
 * ranks, through the gather adapter: every rank sends its own subsystems and kept constraints with
 * their warm starts, every rank receives the whole problem in the one-rank order (subsystems by
 * global id, constraints by contact identity) with the subsystems' owners, the solver runs on it,
 * and each rank takes back the answer of its own subsystems and constraints. Then the solved motion
 * is checked for contacts it meets that the problem lacks (recheck.c), and the step solved again from
 * the solved motion and multipliers (the new contacts' at 0). */
#include <math.h>
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/body_kind.h"
#include "signorini/la.h"
#include "signorini/timing.h"
#include "step/stepper_internal.h"

/* Solver time of the last step on this rank against the mean over ranks. */
static double measure_imbalance(sg_stepper *st) {
  double mine = sg_timers.seconds[SG_PHASE_ITERATE] - st->last_iterate_seconds, mx = 0, sum = 0;
  st->last_iterate_seconds = sg_timers.seconds[SG_PHASE_ITERATE];
  MPI_Allreduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, st->comm);
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, st->comm);
  return sum > 0 ? mx / (sum / st->size) : 1.0;
}

/* Each contact's identity and each subsystem's ownership, as the gathers want them. */
static sg_err gather_labels(sg_stepper *st) {
  const sg_problem *p = &st->prob;
  SG_CHECK(sg_grow((void **)&st->con_key, &st->cap_con_key, 3 * st->contacts.n + 1, sizeof(int64_t), "contact keys"));
  SG_CHECK(sg_grow((void **)&st->sub_mine, &st->cap_sub_mine, p->n_sub + 1, 1, "subsystem owners"));
  for (int k = 0; k < st->contacts.n; ++k) {
    st->con_key[3 * k] = st->contacts.c[k].gid_a;
    st->con_key[3 * k + 1] = st->contacts.c[k].gid_b;
    st->con_key[3 * k + 2] = st->contacts.c[k].cp.feature;
  }
  for (int j = 0; j < p->n_sub; ++j) st->sub_mine[j] = p->sub_owner[j] == st->rank;
  return SG_OK;
}

/* The whole problem's answer for this rank's subsystems (ghosts too) and constraints. */
static sg_err take_back(sg_stepper *st) {
  const sg_problem *p = &st->prob;
  const sg_whole_problem *w = &st->whole;
  for (int j = 0; j < p->n_sub; ++j) {
    int m = sg_whole_find_sub(w, p->sub_gid[j]);
    if (m < 0) return sg_error_set(SG_ERR_ARG, "gather adapter: body %lld is in no rank's problem", (long long)p->sub_gid[j]);
    memcpy(st->v + p->sub_off[j], w->v + w->prob.sub_off[m], (size_t)p->sub_dof[j] * sizeof(double));
  }
  for (int i = 0; i < p->n_con; ++i) {
    int m = sg_whole_find_con(w, st->con_key + 3 * i);
    if (m < 0) return sg_error_set(SG_ERR_ARG, "gather adapter: contact (%lld, %lld) is kept by no rank",
                                   (long long)st->con_key[3 * i], (long long)st->con_key[3 * i + 1]);
    int rows = p->con_row[i + 1] - p->con_row[i];
    memcpy(st->lambda + p->con_row[i], w->lambda + w->prob.con_row[m], (size_t)rows * sizeof(double));
  }
  return SG_OK;
}

static sg_err solve_whole(sg_stepper *st, sg_solve_info *info) {
  double tg = MPI_Wtime();
  SG_CHECK(sg_error_collective(st->comm, gather_labels(st)));
  SG_CHECK(sg_problem_gather_all(st->comm, &st->prob, st->sub_mine, st->kept, st->con_key, st->v, st->lambda, &st->whole));
  sg_timer_add(SG_PHASE_GATHER, tg);
  SG_CHECK(sg_solver_solve(st->solver, &st->whole.prob, st->whole.v, st->whole.lambda, info));
  return sg_error_collective(st->comm, take_back(st));
}

/* Solve from vhat = st->v (ghosts' too) and st->lambda. */
static sg_err solve_once(sg_stepper *st, sg_solve_info *info) {
  const sg_scene *s = st->s;
  const sg_problem *p = &st->prob;
  if (st->size > 1 && st->solver->ops->layout == SG_SOLVER_WHOLE) SG_CHECK(solve_whole(st, info));
  else SG_CHECK(sg_solver_solve(st->solver, p, st->v, st->lambda, info));
  /* the next solve starts from this one's final penalty, as it starts from its lambda */
  sg_solver_set_warm_penalty(st->solver, info->beta);
  if (st->size > 1 && st->prm.repartition_imbalance > 0) st->imbalance = measure_imbalance(st);
  sg_err err = SG_OK;
  for (int i = 0; i < st->n_local && !err; ++i)
    for (int r = 0, j = st->sub_of_body[i]; sg_stepper_owns(st, i) && r < p->sub_dof[j] && !err; ++r)
      if (!isfinite(st->v[p->sub_off[j] + r]))
        err = sg_error_set(SG_ERR_NUMERIC, "solver returned a non-finite velocity at step %lld (body %lld); state kept",
                           (long long)s->state.step, (long long)s->gid[i]);
  return sg_error_collective(st->comm, err);
}

sg_err sg_stepper_solved_motion(sg_stepper *st, double **vhat_si) {
  const sg_scene *s = st->s;
  sg_err err = sg_grow((void **)&st->solved_vel, &st->cap_solved_vel, 6 * s->n + 1, sizeof(double), "solved velocities");
  SG_CHECK(sg_error_collective(st->comm, err));
  /* laid out as the scene's velocity state (scene.h: 6 per body), which the sweeps of recheck.c read */
  for (int i = 0; i < st->n_local; ++i)
    if (sg_stepper_owns(st, i))
      sg_body_kind_of(s, i)->velocity_to_si(s, i, &st->units, st->v + st->prob.sub_off[st->sub_of_body[i]],
                                            st->solved_vel + 6 * i);
  *vhat_si = st->solved_vel;
  if (st->size > 1) err = sg_ghosts_forward(&st->gh, *vhat_si, NULL, 6, *vhat_si + 6 * st->n_local);
  return sg_error_collective(st->comm, err);
}

/* Can the recheck find a contact that would end the step overlapping by more than its tolerance, 0.1 x
 * margin (recheck.c)? A pair the step's search did not find is at least margin apart at the start:
 * the narrow phase keeps every gap below its reach (>= margin), and the broad phase rejects only
 * pairs whose bounding shapes stay margin apart along their motion, the start included. Its gap
 * after the step under vhat (the recheck's measure: to first order, or for two spheres the least
 * along the step) is then at least margin minus dt times the two bodies' speeds (along the contact
 * normal, for the first order). A sphere's contact points lie on the
 * normal through its centre (the narrow phase of a sphere is the closest point to its centre), so
 * its rotation moves none of them along the normal: its speed there is at most |v|. So when every
 * body that moves is a sphere, or a kinematic body that does not turn, and moves less than 0.45 x
 * margin in the step (a sphere under vhat), that gap stays above 0.1 x margin and the recheck can add
 * nothing: its search is skipped, with the answer it would give. A max over ranks: the same
 * decision everywhere. */
static int recheck_can_add(const sg_stepper *st, const double *vhat, int *spheres_only) {
  const sg_scene *s = st->s;
  double bound[2] = {0, 0}; /* the largest point displacement; 1 if a body rules the shortcut out */
  for (int i = 0; i < s->n && !bound[1]; ++i) {
    const double *v = s->state.vel + 6 * i;
    double speed;
    if (s->fixed[i] == SG_FIXED) continue; /* its surface velocity moves no gap (recheck.c) */
    if (s->fixed[i] == SG_KINEMATIC) {     /* held by every rank that sees it: its prescribed motion */
      bound[1] = v3_norm(v + 3) > 0;
      speed = v3_norm(v);
    } else if (!sg_stepper_owns(st, i)) {
      continue; /* its owner bounds it */
    } else if (!sg_body_is_rigid_sphere(s, i)) {
      bound[1] = 1;
      break;
    } else {
      speed = v3_norm(vhat + 6 * i); /* w x r is normal to the contact normal */
    }
    bound[0] = fmax(bound[0], st->prm.dt * speed);
  }
  if (st->size > 1) MPI_Allreduce(MPI_IN_PLACE, bound, 2, MPI_DOUBLE, MPI_MAX, st->comm); /* exact */
  *spheres_only = !(bound[1] > 0); /* the recheck's search may then keep to the bodies the solve moved */
  return bound[1] > 0 || !(bound[0] < 0.45 * st->prm.margin);
}

/* An added solve goes on from the solved motion and multipliers (warm_start.c), with one new pair of
 * bodies for most: it may be given a cap of its own. */
static sg_err solve_added(sg_stepper *st, sg_solve_info *info) {
  int main_cap = st->solver->max_it;
  if (st->prm.recheck_max_it > 0) st->solver->max_it = st->prm.recheck_max_it;
  sg_err err = solve_once(st, info);
  st->solver->max_it = main_cap;
  return err;
}

sg_err sg_stepper_solve(sg_stepper *st, sg_solve_info *info, sg_step_stats *stats) {
  sg_stepper_warm_start_velocity(st);
  SG_CHECK(solve_once(st, info));
  for (int round = 0; round < st->prm.recheck; ++round) {
    double *vhat, tc = MPI_Wtime();
    int overlapping = 0, spheres_only = 0;
    SG_CHECK(sg_stepper_solved_motion(st, &vhat));
    if (!recheck_can_add(st, vhat, &spheres_only)) {
      sg_timer_add(SG_PHASE_COLLISION, tc);
      break;
    }
    SG_CHECK(sg_error_collective(st->comm, sg_stepper_recheck_contacts(st, vhat, spheres_only, &overlapping)));
    MPI_Allreduce(MPI_IN_PLACE, &overlapping, 1, MPI_INT, MPI_SUM, st->comm);
    sg_timer_add(SG_PHASE_COLLISION, tc);
    if (!overlapping) break;
    int iterations = info->iterations, recoveries = info->recoveries;
    sg_err err = sg_stepper_recheck_add(st);
    if (!err) err = sg_stepper_assemble(st);
    SG_CHECK(sg_error_collective(st->comm, err));
    sg_stepper_warm_start_solved(st, vhat);
    SG_CHECK(solve_added(st, info));
    info->iterations += iterations;
    info->recoveries += recoveries;
    stats->resolves++;
  }
  return SG_OK;
}

sg_err sg_stepper_whole_problem(sg_stepper *st, int root, sg_problem *buf, const sg_problem **whole) {
  *whole = &st->prob;
  if (st->size == 1) return SG_OK;
  SG_CHECK(sg_error_collective(st->comm, gather_labels(st)));
  sg_err err = sg_problem_gather(st->comm, &st->prob, st->sub_mine, st->kept, st->con_key, root, buf);
  *whole = st->rank == root ? buf : NULL;
  return err;
}
