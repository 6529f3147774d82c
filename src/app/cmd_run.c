/* mpirun -np P signorini run scene.h5 -o out.h5 [options]; with -checkpoint_every N a checkpoint
 * every N steps, and -restart FILE to go on from one (bit for bit as the run it was taken from);
 * -fclib_dump_step K writes step K's problem as an FCLIB global problem (fclib_dump.c). */
#include <math.h>
#include <petscsys.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "fclib_dump.h"
#include "progress.h"
#include "signorini/fault.h"
#include "signorini/io.h"
#include "signorini/options.h"
#include "signorini/scene_options.h"
#include "signorini/solver.h"
#include "signorini/step.h"
#include "signorini/timing.h"

typedef struct {
  char out[4096], solver[64], checkpoint[4096], restart[4096];
  double t_final, progress_interval;
  long output_every, checkpoint_every;
  int restarting, output_stress;
  sg_fclib_dump dump; /* -fclib_dump_step, -fclib_dump_file */
} run_options;

static sg_err read_restart_option(run_options *o) {
  return sg_opt_string("-restart", "", "continue from this checkpoint of the same scene (-t_final stays the absolute end time)",
                       o->restart, sizeof o->restart, &o->restarting);
}

/* "<out without .h5>.ckpt.h5" */
static void default_checkpoint_name(const char *out, char *buf, size_t len) {
  size_t n = strlen(out);
  if (n >= 3 && !strcmp(out + n - 3, ".h5")) n -= 3;
  snprintf(buf, len, "%.*s.ckpt.h5", (int)n, out);
}

/* A restart keeps the checkpoint's -dt and -theta: unless given (and then checked), they default
 * to the checkpoint's values, put into the options database so that everything derived from them
 * (the default -output_every) follows. */
static sg_err default_from_checkpoint(const char *name, double value) {
  PetscBool given = PETSC_FALSE;
  PetscOptionsHasName(NULL, NULL, name, &given);
  if (given) return SG_OK;
  char buf[64];
  snprintf(buf, sizeof buf, "%.17g", value); /* round-trips to the same double */
  if (PetscOptionsSetValue(NULL, name, buf)) return sg_error_set(SG_ERR_LIB, "cannot set option %s", name);
  return SG_OK;
}

/* The run options the scene carries (scene_options.h), below the command line and options files;
 * -scene_options false leaves them out. taken: those the run takes. */
static sg_err apply_scene_options(const sg_scene *s, char *taken, size_t len) {
  int use = 1;
  SG_CHECK(sg_opt_bool("-scene_options", 1, "start from the run options the scene carries (signorini info lists them); false: the built-in defaults", &use));
  if (!use || !s->run_options[0]) return SG_OK;
  sg_err err = sg_scene_options_apply(s->run_options, taken, len);
  if (err) sg_error_append(" (/world/run_options)");
  return err;
}

/* An option the scene gave that the run refused: say where it came from. */
static sg_err name_scene_source(sg_err err, const char *taken, const char *scene_path) {
  if (!err || !taken[0]) return err;
  char copy[SG_SCENE_OPTIONS_LEN], key[SG_SCENE_OPTIONS_LEN + 16], *save = NULL;
  snprintf(copy, sizeof copy, "%s", taken);
  for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
    snprintf(key, sizeof key, "option %s:", w);
    if (w[0] == '-' && strstr(sg_error_message(), key)) {
      sg_error_append(" (from the run options of %s, /world/run_options; -scene_options false runs without them)", scene_path);
      break;
    }
  }
  return err;
}

static sg_err check_same_as_checkpoint(const char *name, double given, double stored, const char *ckpt) {
  if (given == stored) return SG_OK;
  return sg_error_set(SG_ERR_ARG, "%s %.17g differs from the checkpoint %s (%s %.17g); a restart keeps the checkpoint's value (leave %s out)",
                      name, given, ckpt, name + 1, stored, name);
}

static sg_err read_run_options(MPI_Comm comm, const sg_scene *s, run_options *o, sg_step_params *prm) {
  char names[256];
  sg_solver_list(names, sizeof names);
  SG_CHECK(sg_opt_string("-o", "out.h5", "trajectory output (HDF5; an .xmf for ParaView is written beside it)", o->out, sizeof o->out, NULL));
  char whole[128], help[256];
  sg_solver_list_whole(whole, sizeof whole);
  snprintf(help, sizeof help, "contact solver (each solves its rank's part, except %s: the whole problem gathered on every rank)", whole);
  SG_CHECK(sg_opt_choice("-solver", "subadmm", names, help, o->solver, sizeof o->solver));
  SG_CHECK(sg_opt_real("-t_final", 1.0, 0.0, 1e9, "simulated time (s)", &o->t_final));
  SG_CHECK(sg_step_params_from_options(comm, s, prm));
  long every_default = (long)fmax(1.0, round(1.0 / (60.0 * prm->dt))); /* about 60 frames per second */
  SG_CHECK(sg_opt_int("-output_every", every_default, 1, 1000000000, "write a frame every N steps", &o->output_every));
  SG_CHECK(sg_opt_bool("-output_stress", 0, "write each moving body's stress moment, sum of f (x) (x_c - x) over its contacts, to /frames/stress (docs/GRANULAR.md, \"Stresses\")",
                       &o->output_stress));
  SG_CHECK(sg_opt_real("-progress_interval", 30.0, 0.0, 1e9, "seconds between progress lines in batch logs (0: none)", &o->progress_interval));
  SG_CHECK(sg_opt_int("-checkpoint_every", 0, 0, 1000000000, "write a checkpoint every N steps (0: none), replacing the previous one", &o->checkpoint_every));
  int set = 0;
  SG_CHECK(sg_opt_string("-checkpoint", "<output without .h5>.ckpt.h5", "checkpoint file (see -checkpoint_every)", o->checkpoint, sizeof o->checkpoint, &set));
  if (!set) default_checkpoint_name(o->out, o->checkpoint, sizeof o->checkpoint);
  SG_CHECK(sg_fclib_dump_options(&o->dump, o->out));
  return SG_OK;
}

/* No output may overwrite an input: the trajectory neither the scene nor the checkpoint a restart
 * reads, the checkpoint none of the run's files. Compared as files (sg_fs_same_file), not names. */
static sg_err check_output_paths(MPI_Comm comm, const run_options *o, const char *scene_path) {
  if (sg_fs_same_file(o->out, scene_path))
    return sg_error_set(SG_ERR_ARG, "-o %s would overwrite the scene file %s", o->out, scene_path);
  if (o->restarting && sg_fs_same_file(o->out, o->restart))
    return sg_error_set(SG_ERR_ARG, "-o %s would overwrite the checkpoint %s the run restarts from", o->out, o->restart);
  if (o->checkpoint_every <= 0) return SG_OK;
  char partial[4200];
  snprintf(partial, sizeof partial, "%s.partial", o->out);
  if (sg_fs_same_file(o->checkpoint, o->out) || sg_fs_same_file(o->checkpoint, partial))
    return sg_error_set(SG_ERR_ARG, "-checkpoint %s would overwrite the trajectory output", o->checkpoint);
  if (sg_fs_same_file(o->checkpoint, scene_path))
    return sg_error_set(SG_ERR_ARG, "-checkpoint %s would overwrite the scene file", o->checkpoint);
  return sg_output_check_path(comm, o->checkpoint);
}

/* A checkpoint of the run now: the scene, the warm start, the hooks' state, and the fingerprint of
 * the scene file the run started from. */
static sg_err write_checkpoint(MPI_Comm comm, sg_stepper *st, const sg_solver *solver, const sg_scene *s,
                               const sg_step_params *prm, const char *path, uint64_t scene_hash) {
  sg_checkpoint_extras x = {.scene_hash = scene_hash, .solver_penalty = solver->warm_penalty};
  char names[SG_CHECKPOINT_NAMES_LEN];
  int64_t *words = NULL;
  x.warm = sg_stepper_warm_written(st, &x.n_warm);
  sg_err err = x.n_warm < 0 ? SG_ERR_MEM : sg_stepper_hook_state(st, &words, &x.n_hook_state, names, sizeof names);
  x.hook_state = words;
  x.hook_names = names;
  err = sg_error_collective(comm, err); /* before the collective write */
  if (!err) err = sg_error_collective(comm, sg_checkpoint_write(comm, path, s, prm, &x));
  free(words);
  return err;
}

sg_err sg_cmd_run(MPI_Comm comm, const char *scene_path) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  sg_timing_reset();
  sg_scene s = {0};
  sg_solver *solver = NULL;
  sg_stepper *st = NULL;
  sg_traj_writer *w = NULL;
  run_options o;
  sg_step_params prm = {0};
  sg_err err = SG_OK;

  if (sg_opt_help_requested()) { /* list every option with its default, then stop */
    SG_CHECK(sg_scene_create(&s, 1, 1));
    char none[1];
    err = apply_scene_options(&s, none, sizeof none); /* lists -scene_options: this scene carries none */
    if (!err) err = read_run_options(comm, &s, &o, &prm);
    if (!err) err = read_restart_option(&o);
    if (!err) err = sg_solver_create(comm, o.solver, &solver);
    if (!err) err = sg_solver_set_from_options(solver);
    if (!err && rank == 0) sg_opt_print_help(stdout, "signorini run scene.h5 [options]");
    sg_solver_destroy(&solver);
    sg_scene_destroy(&s);
    return err;
  }
  if (!scene_path) return sg_error_set(SG_ERR_ARG, "run: missing scene file (signorini run scene.h5 -o out.h5)");
  sg_checkpoint_info ck = {0};
  /* Each rank reads a block of the file (hyperslabs): no rank ever holds the whole scene. */
  err = sg_scene_read_block(comm, scene_path, &s);
  /* the fingerprint of the scene file, before a restart changes the bodies: every checkpoint of
   * this run (and of its restarts, which read the same file) carries it */
  uint64_t scene_hash = err ? 0 : sg_scene_hash(comm, &s);
  if (!err) err = sg_error_collective(comm, read_restart_option(&o));
  /* the scales of the file's bodies: a restart's bodies may differ (inflow, outflow), its units not */
  if (!err) sg_step_params_scales(comm, &s, &prm);
  /* A restart: the scene's state, step and time become the checkpoint's, before anything else. */
  if (!err && o.restarting)
    err = sg_checkpoint_read(comm, o.restart, scene_path, &s, &ck);
  if (!err && o.restarting) err = default_from_checkpoint("-dt", ck.dt);
  if (!err && o.restarting) err = default_from_checkpoint("-theta", ck.theta);
  char scene_taken[SG_SCENE_OPTIONS_LEN] = "";
  if (!err) err = sg_error_collective(comm, apply_scene_options(&s, scene_taken, sizeof scene_taken));
  if (!err) err = name_scene_source(read_run_options(comm, &s, &o, &prm), scene_taken, scene_path);
  if (!err && o.restarting) err = check_same_as_checkpoint("-dt", prm.dt, ck.dt, o.restart);
  if (!err && o.restarting) err = check_same_as_checkpoint("-theta", prm.theta, ck.theta, o.restart);
  long long start_step = s.state.step, n_total = 0;
  if (!err) {
    const double steps = o.t_final / prm.dt;
    if (!(steps <= 9007199254740992.0)) /* 2^53: llround's result is exact and a step count fits a long */
      err = sg_error_set(SG_ERR_ARG, "-t_final %g / -dt %g = %.3g steps is more than a run can count (at most 2^53)", o.t_final,
                         prm.dt, steps);
    n_total = err ? 0 : llround(steps);
    if (!err && n_total < start_step)
      err = sg_error_set(SG_ERR_ARG, "-t_final %g is before the time of the checkpoint %s (t = %.6g s, step %lld)",
                         o.t_final, o.restart, s.state.time, start_step);
  }
  if (!err) err = sg_solver_create(comm, o.solver, &solver);
  if (!err) err = name_scene_source(sg_solver_set_from_options(solver), scene_taken, scene_path);
  if (!err) err = sg_opt_check_unused();
  if (!err) err = sg_fault_setup();
  if (!err && solver->view && rank == 0) sg_solver_view(solver, stdout);
  err = sg_error_collective(comm, err);
  if (!err) err = sg_error_collective(comm, check_output_paths(comm, &o, scene_path));
  if (!err) err = sg_error_collective(comm, sg_fclib_dump_check(comm, &o.dump, start_step, n_total, scene_path, o.out, o.checkpoint));
  if (!err) err = sg_error_collective(comm, sg_stepper_create(comm, &s, &prm, solver, &st));
  if (!err && o.restarting) err = sg_error_collective(comm, sg_stepper_set_warm(st, ck.warm, ck.n_warm));
  if (!err && o.restarting) sg_solver_set_warm_penalty(solver, ck.solver_penalty);
  if (!err && o.restarting)
    err = sg_error_collective(comm, sg_stepper_set_hook_state(st, ck.hook_state, ck.n_hook_state, ck.hook_names));
  sg_checkpoint_info_free(&ck);
  if (!err) err = sg_error_collective(comm, sg_traj_open(comm, o.out, &s, &w));
  if (!err && o.output_stress) {
    sg_stepper_keep_stress(st, 1);
    err = sg_traj_add_stress(w, &s);
  }
  if (!err) {
    char buf[128];
    sg_traj_set_attr(w, "solver", o.solver);
    if (scene_taken[0]) sg_traj_set_attr(w, "scene_options", scene_taken);
    snprintf(buf, sizeof buf, "%.17g", prm.dt);
    sg_traj_set_attr(w, "dt", buf);
    snprintf(buf, sizeof buf, "%.17g", prm.theta);
    sg_traj_set_attr(w, "theta", buf);
    if (o.restarting) {
      sg_traj_set_attr(w, "restart", o.restart);
      snprintf(buf, sizeof buf, "%lld", start_step);
      sg_traj_set_attr(w, "restart_step", buf);
    }
    /* the first frame is the initial (or restored) state */
    sg_fault_set_step(start_step);
    err = sg_error_collective(comm, sg_traj_write_frame(w, &s));
  }
  if (err) goto done;

  long n_steps = (long)(n_total - start_step);
  long long last_ckpt = -1;
  sg_progress prog;
  sg_progress_init(&prog, rank, o.progress_interval);
  if (rank == 0 && scene_taken[0] && o.progress_interval > 0) printf("signorini: options from the scene: %s\n", scene_taken);
  double wall0 = MPI_Wtime(), sum_it = 0, sum_res = 0, max_pen = 0;
  long done_steps = 0, unconverged = 0;
  sg_step_stats flow = {0}; /* bodies and mass in and out over the run */
  int step_failed = 0;
  for (long k = 1; k <= n_steps; ++k) {
    sg_step_stats stats;
    long long g = start_step + k; /* frames and checkpoints keep the cadence of the whole run */
    sg_fault_set_step(g);
    /* every rank leaves a failed step through this one check, the others as well as the failing one */
    err = sg_error_collective(comm, sg_stepper_step(st, &stats));
    if (err) {
      /* the scene still holds the last good state: keep it as the final frame of the .partial */
      sg_error_append(" (in step %lld; the last good state, t = %.6g s, is the final frame of %s)", g, s.state.time,
                      sg_traj_partial_name(w));
      sg_traj_set_stress(w, 0, NULL, NULL); /* the failed step's forces are not the state's */
      sg_traj_write_frame(w, &s);
      step_failed = 1;
      break;
    }
    double tio = MPI_Wtime();
    err = sg_traj_write_stats(w, &stats);
    if (!err) {
      const sg_body_events *inserted, *deleted;
      sg_stepper_events(st, &inserted, &deleted);
      err = sg_traj_write_events(w, inserted, deleted);
    }
    if (!err && (g % o.output_every == 0 || k == n_steps)) {
      const int64_t *stress_gid;
      const double *stress;
      int n_stress = sg_stepper_stress(st, &stress_gid, &stress);
      sg_traj_set_stress(w, n_stress, stress_gid, stress);
      err = sg_traj_write_frame(w, &s);
    }
    err = sg_error_collective(comm, err);
    if (!err && o.checkpoint_every > 0 && g % o.checkpoint_every == 0) {
      err = write_checkpoint(comm, st, solver, &s, &prm, o.checkpoint, scene_hash);
      if (!err) last_ckpt = g;
    }
    if (!err && g == o.dump.step) {
      sg_problem whole_buf = {0};
      const sg_problem *whole = NULL;
      err = sg_stepper_whole_problem(st, 0, &whole_buf, &whole);
      if (!err) err = sg_fclib_dump_after_step(comm, &o.dump, g, whole, scene_path, prm.dt, o.solver);
      sg_problem_destroy(&whole_buf);
      err = sg_error_collective(comm, err);
    }
    sg_timer_add(SG_PHASE_IO, tio);
    if (err) {
      sg_error_append(" (writing the output of step %lld)", g);
      break;
    }
    done_steps = k;
    sum_it += stats.iterations;
    sum_res += stats.contact_residual;
    max_pen = fmax(max_pen, stats.max_penetration);
    unconverged += !stats.converged;
    flow.inserted += stats.inserted;
    flow.deleted += stats.deleted;
    flow.mass_inserted += stats.mass_inserted;
    flow.mass_deleted += stats.mass_deleted;
    sg_progress_update(&prog, k, n_steps, s.state.time, stats.iterations);
  }
  sg_progress_finish(&prog);
  double wall = MPI_Wtime() - wall0;
  if (!err) { /* per-rank phase times: printed below the summary and kept in the file */
    double *table = NULL;
    char columns[512] = "";
    for (int ph = 0; ph < SG_PHASE_COUNT; ++ph) {
      strncat(columns, sg_phase_name(ph), sizeof columns - strlen(columns) - 1);
      strncat(columns, ",", sizeof columns - strlen(columns) - 1);
    }
    strncat(columns, "halo_bytes,halo_messages,iterations", sizeof columns - strlen(columns) - 1);
    err = sg_error_collective(comm, sg_timing_gather(comm, wall, NULL, &table));
    if (!err) err = sg_traj_write_timing(w, table, size, SG_TIMING_FIELDS, columns);
    free(table);
  }
  sg_err cerr = sg_traj_close(w, !err ? SG_TRAJ_COMPLETE : step_failed ? SG_TRAJ_KEEP_PARTIAL : SG_TRAJ_DISCARD);
  w = NULL;
  if (!err) err = sg_error_collective(comm, cerr);
  long long n_bodies = 0; /* each moving body held once; the fixed ones everywhere */
  for (int i = 0; i < s.n; ++i) n_bodies += !s.distributed || !s.fixed[i] || rank == 0;
  if (s.distributed) MPI_Allreduce(MPI_IN_PLACE, &n_bodies, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (!err && rank == 0) {
    char xmf[4096];
    snprintf(xmf, sizeof xmf, "%s", o.out);
    char *dot = strrchr(xmf, '.');
    if (dot && !strcmp(dot, ".h5")) strcpy(dot, ".xmf");
    else strncat(xmf, ".xmf", sizeof xmf - strlen(xmf) - 1);
    printf("signorini: %ld steps of %.6g s (t = %.4g s), %lld bodies, solver %s\n", done_steps, prm.dt, s.state.time, n_bodies, o.solver);
    if (scene_taken[0]) printf("  options from the scene     %s (-scene_options false: without them)\n", scene_taken);
    printf("  mean iterations per step   %.2f (%ld steps hit -solver_max_it)\n", done_steps ? sum_it / done_steps : 0.0, unconverged);
    printf("  mean contact residual      %.3e (paper 002 Sec. VII)\n", done_steps ? sum_res / done_steps : 0.0);
    printf("  max penetration            %.3e m\n", max_pen);
    printf("  wall time                  %.2f s (%.1f steps/s)\n", wall, done_steps / fmax(wall, 1e-9));
    if (flow.inserted || flow.deleted)
      printf("  bodies in / out            %lld (%.6g kg) / %lld (%.6g kg)\n", flow.inserted, flow.mass_inserted, flow.deleted,
             flow.mass_deleted);
    if (size > 1) printf("  repartitions               %d (%s)\n", sg_stepper_repartitions(st), prm.partition_sfc ? "Hilbert curve" : "METIS");
    long long searches, listed, lists;
    sg_stepper_search_counts(st, &searches, &listed, &lists);
    if (prm.skin > 0)
      printf("  contact searches           %lld, %lld from the kept pairs (%lld lists made)%s\n", searches, listed, lists,
             size > 1 ? " on rank 0" : "");
    if (o.restarting) printf("  restarted from             %s (step %lld, t = %.6g s)\n", o.restart, start_step, ck.time);
    if (last_ckpt >= 0) printf("  last checkpoint            %s (step %lld)\n", o.checkpoint, last_ckpt);
    printf("  output                     %s, %s (open the .xmf in ParaView)\n", o.out, xmf);
  }
  if (!err) sg_timing_gather(comm, wall, rank == 0 ? stdout : NULL, NULL);
done:
  if (w) sg_traj_close(w, SG_TRAJ_DISCARD);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return err;
}
