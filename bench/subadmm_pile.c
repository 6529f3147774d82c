/* Benchmark: SubADMM on one step of a settled pile of spheres (the `generate pile` scene).
 *
 *   subadmm_pile [-n 10000] [-settle_time 1.5] [-iterations 100] [-repeats 5]
 *                [-save settled.h5 | -load settled.h5] [-progress_every 60] [solver/step options]
 *
 * 1. Builds a pile of N spheres and settles it with the stepper (dt, solver and contact options as
 *    for `signorini run`), or reads a settled state written earlier with -save.
 * 2. Takes one more step and times sg_solver_solve on that step's problem with a fixed iteration
 *    count (tol 0, so it never stops early), from the same warm start every repeat; the figure is
 *    ns per contact-iteration = solve time / (contacts * iterations), median over the repeats.
 * 3. Times one full step of the settled pile split into collision, assembly and solve (default
 *    solver settings, warm-started as the stepper does), and sg_stepper_step itself.
 * 4. Peak memory (getrusage), above the MPI/PETSc baseline measured right after PetscInitialize,
 *    and the size of the problem arrays, all per body.
 * Progress goes to stderr, figures to stdout. Meant for one rank. */
#include <math.h>
#include <petscsys.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "signorini/assemble.h"
#include "signorini/generate.h"
#include "bench_util.h"
#include "signorini/signorini.h"

#define MAX_REPEATS 1000

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(const double *x, int n) {
  double *c = malloc(sizeof(double) * (size_t)n);
  memcpy(c, x, sizeof(double) * (size_t)n);
  qsort(c, (size_t)n, sizeof(double), cmp_double);
  double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  free(c);
  return m;
}
static double minimum(const double *x, int n) {
  double m = x[0];
  for (int k = 1; k < n; ++k) m = fmin(m, x[k]);
  return m;
}

/* First line of /proc/cpuinfo starting with key, value part copied to out. */
static void cpuinfo(const char *key, char *out, size_t len) {
  snprintf(out, len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  size_t kl = strlen(key);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, kl) != 0) continue;
    char *c = strchr(line, ':');
    if (!c) continue;
    c++;
    while (*c == ' ' || *c == '\t') c++;
    c[strcspn(c, "\n")] = 0;
    snprintf(out, len, "%s", c);
    break;
  }
  fclose(f);
}

/* Bytes held by the problem arrays: in use (n-based) and allocated (capacity-based). */
static void problem_bytes(const sg_problem *p, double *used, double *alloc) {
  int ns = p->n_sub, nc = p->n_con;
  int nv = ns ? sg_problem_n_v(p) : 0, na = ns ? p->sub_aoff[ns] : 0;
  int nr = nc ? sg_problem_n_rows(p) : 0, npair = nc ? p->con_pair[nc] : 0;
  int n_compact = 0; /* compact pairs and their contacts' frames */
  for (int q = 0; q < npair; ++q) n_compact += sg_problem_pair_is_compact(p, q);
  *used = (double)(ns + 1) * (3 * sizeof(int) + sizeof(int64_t)) + (double)na * sizeof(double) +
          (double)nv * sizeof(double) + (double)(nc + 1) * (3 * sizeof(int) + 3 * sizeof(double)) +
          (double)nr * sizeof(double) + (double)npair * 2 * sizeof(int) + (double)p->n_j * sizeof(double) +
          (double)n_compact * 4 * sizeof(double) + (n_compact ? (double)nc * 9 * sizeof(double) : 0.0);
  *alloc = (double)p->cap_sub * (3 * sizeof(int) + sizeof(int64_t)) + (double)p->cap_a * sizeof(double) +
           (double)p->cap_v * sizeof(double) + (double)p->cap_con * (3 * sizeof(int) + 3 * sizeof(double)) +
           (double)p->cap_row * sizeof(double) + (double)p->cap_pair * 2 * sizeof(int) + (double)p->cap_j * sizeof(double) +
           (double)(p->cap_frame + p->cap_lever) * sizeof(double);
}

typedef struct {
  long n, iterations, repeats, progress_every;
  double settle_time;
  char save[4096], load[4096];
  int do_save, do_load;
} bench_options;

static sg_err read_options(bench_options *o) {
  SG_CHECK(sg_opt_int("-n", 10000, 1, 100000000, "number of spheres in the pile", &o->n));
  SG_CHECK(sg_opt_real("-settle_time", 1.5, 0.0, 1e6, "simulated time to settle the pile (s)", &o->settle_time));
  SG_CHECK(sg_opt_int("-iterations", 100, 1, 100000000, "SubADMM iterations per timed solve", &o->iterations));
  SG_CHECK(sg_opt_int("-repeats", 5, 1, MAX_REPEATS, "timed repeats (the median is reported)", &o->repeats));
  SG_CHECK(sg_opt_int("-progress_every", 60, 1, 1000000000, "steps between progress lines while settling", &o->progress_every));
  SG_CHECK(sg_opt_string("-save", "", "write the settled pile to this scene file", o->save, sizeof o->save, &o->do_save));
  SG_CHECK(sg_opt_string("-load", "", "read a settled pile from this scene file (skips settling)", o->load, sizeof o->load, &o->do_load));
  if (o->do_save && !o->save[0]) return sg_error_set(SG_ERR_ARG, "-save needs a file name");
  if (o->do_load && !o->load[0]) return sg_error_set(SG_ERR_ARG, "-load needs a file name");
  return SG_OK;
}

/* Velocity warm start of a problem: each subsystem's body velocity (as the stepper does). */
static void velocity_warm_start(const sg_scene *s, const sg_problem *p, const int *body_of_gid, double *v) {
  for (int j = 0; j < p->n_sub; ++j) {
    int i = body_of_gid[p->sub_gid[j]];
    sg_rigid_velocity_to_units(&p->units, s->state.vel + 6 * i, v + p->sub_off[j]);
  }
}

/* Multiplier warm start by contact identity from (prev, lam_prev in SI), both sorted (as the stepper
 * does), in the units of the problem. */
static void lambda_warm_start(const sg_contacts *c, const sg_contacts *prev, const double *lam_prev, const sg_units *u,
                              double *lam) {
  const double unit = sg_units_impulse(u);
  int k = 0;
  for (int i = 0; i < c->n; ++i) {
    double *l = lam + 3 * i;
    l[0] = l[1] = l[2] = 0;
    while (k < prev->n && sg_contact_key_cmp(&prev->c[k], &c->c[i]) < 0) ++k;
    if (k < prev->n && sg_contact_key_cmp(&prev->c[k], &c->c[i]) == 0)
      for (int r = 0; r < 3; ++r) l[r] = lam_prev[3 * k + r] / unit;
  }
}

static sg_err bench(MPI_Comm comm, long rss_base_kb) {
  int size;
  MPI_Comm_size(comm, &size);
  bench_options o;
  SG_CHECK(read_options(&o));
  sg_scene s = {0};
  sg_solver *solver = NULL, *timed = NULL;
  sg_stepper *st = NULL;
  sg_step_params prm = {0};

  /* ---- 1. the pile ---- */
  if (o.do_load) {
    SG_CHECK(sg_scene_read(comm, o.load, &s));
  } else {
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "%ld", o.n);
    PetscOptionsSetValue(NULL, "-n", nbuf); /* sg_generate_pile reads -n with its own default */
    SG_CHECK(sg_scene_create(&s, (int)o.n + 5, 1));
    SG_CHECK(sg_generate_pile(&s));
    SG_CHECK(sg_scene_update_mass(&s));
  }
  SG_CHECK(sg_step_params_from_options(comm, &s, &prm));
  SG_CHECK(sg_solver_create(comm, "subadmm", &solver));
  SG_CHECK(sg_solver_set_from_options(solver));
  SG_CHECK(sg_solver_create(comm, "subadmm", &timed));
  SG_CHECK(sg_solver_set_from_options(timed));
  if (sg_opt_help_requested()) {
    sg_opt_print_help(stdout, "subadmm_pile [options]");
    goto done;
  }
  SG_CHECK(sg_opt_check_unused());
  long n_moving = 0;
  double r = 0;
  for (int i = 0; i < s.n; ++i)
    if (!s.fixed[i]) {
      n_moving++;
      if (s.shape[i] == SG_SHAPE_SPHERE) r = s.size[3 * i];
    }
  int64_t max_gid = 0;
  for (int i = 0; i < s.n; ++i) max_gid = s.gid[i] > max_gid ? s.gid[i] : max_gid;
  int *body_of_gid = malloc(sizeof(int) * (size_t)(max_gid + 1));
  for (int i = 0; i < s.n; ++i) body_of_gid[s.gid[i]] = i;

  SG_CHECK(sg_stepper_create(comm, &s, &prm, solver, &st));
  double ke_peak = sg_scene_kinetic_energy(&s);
  sg_step_stats stats = {0};
  if (!o.do_load) {
    long n_settle = llround(o.settle_time / prm.dt);
    fprintf(stderr, "subadmm_pile: settling %ld spheres for %.3g s (%ld steps of %.6g s)\n", n_moving, o.settle_time,
            n_settle, prm.dt);
    double t0 = bench_now();
    long sum_it = 0;
    for (long k = 1; k <= n_settle; ++k) {
      SG_CHECK(sg_stepper_step(st, &stats));
      double ke = sg_scene_kinetic_energy(&s);
      ke_peak = fmax(ke_peak, ke);
      sum_it += stats.iterations;
      if (k % o.progress_every == 0 || k == n_settle)
        fprintf(stderr, "  step %5ld  t = %.3f s  KE %.3e J  contacts %6d  iterations %3d  max pen %.2e m  (%.1f s wall, %.2f steps/s)\n",
                k, stats.time, ke, stats.n_contacts, stats.iterations, stats.max_penetration, bench_now() - t0, k / (bench_now() - t0));
    }
    fprintf(stderr, "subadmm_pile: settled in %.1f s wall, mean %.1f iterations per step\n", bench_now() - t0,
            n_settle ? (double)sum_it / n_settle : 0.0);
    if (o.do_save) { /* with the run options `signorini generate pile` gives the scene */
      snprintf(s.run_options, sizeof s.run_options, "%s", sg_scenario_find("pile")->run_options);
      SG_CHECK(sg_scene_write(comm, o.save, &s));
      fprintf(stderr, "subadmm_pile: settled pile written to %s\n", o.save);
    }
  }
  double ke = sg_scene_kinetic_energy(&s), mass = 0, vmax = 0, zmax = 0;
  for (int i = 0; i < s.n; ++i) {
    if (s.fixed[i]) continue;
    mass += s.mass[i];
    const double *v = s.state.vel + 6 * i;
    vmax = fmax(vmax, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    zmax = fmax(zmax, s.state.pos[3 * i + 2]);
  }

  /* ---- 2. the problem of one more step, and the fixed-iteration solve ---- */
  double *vel0 = malloc(sizeof(double) * 6 * (size_t)s.n);
  memcpy(vel0, s.state.vel, sizeof(double) * 6 * (size_t)s.n); /* velocities the step's problem was built from */
  sg_scene s0 = s;                                         /* shallow copy: only vel is read through it */
  s0.state.vel = vel0;
  SG_CHECK(sg_stepper_step(st, &stats));
  const sg_step_stats meas = stats;
  long rss_sim = bench_maxrss_kb(); /* scene + stepper + its solver, before the benchmark's own copies */
  const sg_problem *p = sg_stepper_problem(st);
  int nv = sg_problem_n_v(p), nrow = p->n_con ? sg_problem_n_rows(p) : 0;
  int npair = p->n_con ? p->con_pair[p->n_con] : 0;
  if (p->n_con == 0) return sg_error_set(SG_ERR_ARG, "the pile has no contacts: nothing to benchmark");
  const int n_con = p->n_con, n_sub = p->n_sub; /* p is the stepper's: later steps overwrite it */
  double *v_ws = malloc(sizeof(double) * (size_t)nv), *l_ws = malloc(sizeof(double) * (size_t)nrow);
  double *v = malloc(sizeof(double) * (size_t)nv), *lam = malloc(sizeof(double) * (size_t)nrow);
  velocity_warm_start(&s0, p, body_of_gid, v_ws);
  for (int k = 0; k < nrow; ++k) l_ws[k] = sg_stepper_lambda(st)[k] / sg_units_impulse(&p->units); /* this step's multipliers */
  timed->max_it = (int)o.iterations;
  timed->tol = 0; /* never stops early */
  sg_solve_info info;
  double t_solve[MAX_REPEATS], c_solve[MAX_REPEATS];
  int refac = 0;
  for (long k = -1; k < o.repeats; ++k) { /* k = -1: untimed warm-up (work arrays, caches) */
    memcpy(v, v_ws, sizeof(double) * (size_t)nv);
    memcpy(lam, l_ws, sizeof(double) * (size_t)nrow);
    double t0 = bench_now(), c0 = bench_cpu_now();
    SG_CHECK(sg_solver_solve(timed, p, v, lam, &info));
    double t = bench_now() - t0, c = bench_cpu_now() - c0;
    if (info.iterations != o.iterations)
      return sg_error_set(SG_ERR_NUMERIC, "the timed solve took %d iterations, not %ld", info.iterations, o.iterations);
    if (k >= 0) {
      t_solve[k] = t;
      c_solve[k] = c;
    }
    refac = info.refactorizations;
  }
  double res_timed;
  SG_CHECK(sg_contact_residual(p, lam, &res_timed));
  double t_med = median(t_solve, (int)o.repeats), t_min = minimum(t_solve, (int)o.repeats);
  double ci = (double)p->n_con * (double)o.iterations;
  double prob_used, prob_alloc;
  problem_bytes(p, &prob_used, &prob_alloc);
  /* SubADMM work arrays (from src/solvers/subadmm.c's layout: G, L per block; two sums per
   * unknown; y, z per pair; one multiplier copy per row): an estimate, not measured. */
  double work = (2.0 * p->sub_aoff[p->n_sub] + 2.0 * nv + 6.0 * npair + nrow) * sizeof(double) + (double)p->n_sub * sizeof(int);

  /* ---- 3. one full step split into phases, on the current state, as the stepper would do it ---- */
  sg_broadphase bp = {0};
  sg_contacts cts = {0};
  sg_problem prob = {0};
  int *sub_of_body = malloc(sizeof(int) * (size_t)s.n);
  const sg_contacts *prev = sg_stepper_contacts(st);
  const double *lam_prev = sg_stepper_lambda(st);
  const sg_units units = sg_rigid_units(comm, &s, prm.dt);
  double t_col[MAX_REPEATS], t_asm[MAX_REPEATS], t_sol[MAX_REPEATS];
  int it_step = 0, conv_step = 0;
  double *v2 = NULL, *l2 = NULL;
  for (long k = -1; k < o.repeats; ++k) {
    double t0 = bench_now();
    SG_CHECK(sg_find_contacts(&s, prm.margin, prm.dt, &bp, &cts));
    double t1 = bench_now();
    SG_CHECK(sg_assemble_rigid(&s, &cts, &prm, &units, &prob, sub_of_body));
    double t2 = bench_now();
    if (k == -1) {
      v2 = malloc(sizeof(double) * (size_t)sg_problem_n_v(&prob));
      l2 = malloc(sizeof(double) * (size_t)(prob.n_con ? sg_problem_n_rows(&prob) : 1));
    }
    velocity_warm_start(&s, &prob, body_of_gid, v2);
    lambda_warm_start(&cts, prev, lam_prev, &units, l2);
    double t3 = bench_now();
    SG_CHECK(sg_solver_solve(solver, &prob, v2, l2, &info));
    double t4 = bench_now();
    if (k >= 0) {
      t_col[k] = t1 - t0;
      t_asm[k] = t2 - t1;
      t_sol[k] = t4 - t3;
    }
    it_step = info.iterations;
    conv_step = info.converged;
  }
  double c_ms = 1e3 * median(t_col, (int)o.repeats), a_ms = 1e3 * median(t_asm, (int)o.repeats);
  double s_ms = 1e3 * median(t_sol, (int)o.repeats);
  int step_contacts = cts.n;
  /* the stepper itself (adds warm-start bookkeeping, contact residual, integration); advances the state */
  double t_full[MAX_REPEATS];
  for (long k = 0; k < o.repeats; ++k) {
    SG_CHECK(sg_stepper_step(st, &stats));
    t_full[k] = stats.wall_seconds;
  }
  double f_ms = 1e3 * median(t_full, (int)o.repeats);

  /* ---- 4. memory and the result block ---- */
  long rss_peak = bench_maxrss_kb();
  char model[256], mhz[64], cache[64], flags_avx[64] = "";
  cpuinfo("model name", model, sizeof model);
  cpuinfo("cpu MHz", mhz, sizeof mhz);
  cpuinfo("cache size", cache, sizeof cache);
  {
    char flags[4096];
    cpuinfo("flags", flags, sizeof flags);
    snprintf(flags_avx, sizeof flags_avx, "%s%s%s", strstr(flags, " avx ") ? "avx " : "",
             strstr(flags, " avx2 ") ? "avx2 " : "", strstr(flags, " avx512f ") ? "avx512f" : "");
  }
  printf("subadmm_pile: N=%ld spheres, contacts=%d, iterations=%ld, repeats=%ld\n", n_moving, n_con, o.iterations, o.repeats);
  printf("ns per contact-iteration: %.1f (median), min %.1f (wall clock; CPU time: median %.1f, min %.1f)\n",
         1e9 * t_med / ci, 1e9 * t_min / ci, 1e9 * median(c_solve, (int)o.repeats) / ci,
         1e9 * minimum(c_solve, (int)o.repeats) / ci);
  printf("step: collision %.2f ms, assembly %.2f ms, solve %.2f ms  -> %.2f steps/s\n", c_ms, a_ms, s_ms,
         1e3 / (c_ms + a_ms + s_ms));
  printf("peak memory: %.1f MB total, %.0f bytes/body above baseline\n", rss_sim / 1024.0,
         1024.0 * (double)(rss_sim - rss_base_kb) / (double)n_moving);
  printf("details:\n");
  if (o.do_load)
    printf("  pile: %ld spheres of radius %g m, dt %.6g s, margin %g m, read from %s\n", n_moving, r, prm.dt, prm.margin, o.load);
  else
    printf("  pile: %ld spheres of radius %g m, dt %.6g s, margin %g m, settled in this run for %.4g s\n", n_moving, r,
           prm.dt, prm.margin, s0.state.time);
  char peak[64] = "peak not known: loaded";
  if (!o.do_load) snprintf(peak, sizeof peak, "%.2e of the peak %.3e J", ke / ke_peak, ke_peak);
  printf("  settledness: KE %.3e J (%.3e J/body, %s), max speed %.3e m/s, top at z = %.4g m, max penetration %.2e m (%.2e r)\n",
         ke, ke / (double)n_moving, peak, vmax, zmax, meas.max_penetration, meas.max_penetration / r);
  printf("  problem: %d subsystems, %d unknowns, %d contacts, %d rows, %d (contact, body) pairs (%.2f contacts/body)\n",
         n_sub, nv, n_con, nrow, npair, (double)n_con / (double)n_moving);
  printf("  timed solve: %.2f ms median, %.2f ms min over %ld repeats; %.1f ns per row-iteration, %.1f ns per pair-iteration,"
         " %.1f ns per body-iteration; %d factorizations; contact residual after %ld iterations %.3e\n",
         1e3 * t_med, 1e3 * t_min, o.repeats, 1e9 * t_med / ((double)nrow * o.iterations),
         1e9 * t_med / ((double)npair * o.iterations), 1e9 * t_med / ((double)n_sub * o.iterations), refac,
         o.iterations, res_timed);
  printf("  step phases (median of %ld, default solver settings: max_it %d, tol %g): %d contacts, solve took %d iterations (%s)\n",
         o.repeats, solver->max_it, solver->tol, step_contacts, it_step, conv_step ? "converged" : "hit the cap");
  printf("  sg_stepper_step: %.2f ms median over %ld steps -> %.2f steps/s\n", f_ms, o.repeats, 1e3 / f_ms);
  printf("  memory: ru_maxrss %ld KB after settling and the measured step (%ld KB at exit, with the benchmark's own problem copy"
         " and second solver), baseline after PetscInitialize %ld KB; (peak - baseline)/N = %.0f bytes/body, peak/N = %.0f bytes/body\n",
         rss_sim, rss_peak, rss_base_kb, 1024.0 * (double)(rss_sim - rss_base_kb) / (double)n_moving,
         1024.0 * (double)rss_sim / (double)n_moving);
  printf("  problem arrays: %.2f MB in use (%.0f bytes/body), %.2f MB allocated (%.0f bytes/body); SubADMM work arrays ~%.0f bytes/body (estimate)\n",
         prob_used / 1048576.0, prob_used / (double)n_moving, prob_alloc / 1048576.0, prob_alloc / (double)n_moving,
         work / (double)n_moving);
  double load[3] = {0, 0, 0};
  FILE *lf = fopen("/proc/loadavg", "r");
  if (lf) {
    if (fscanf(lf, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = load[1] = load[2] = 0;
    fclose(lf);
  }
  printf("  machine: %ld cores online, %s, %s MHz, cache %s, %s; MPI ranks %d; load average %.2f %.2f %.2f; compiler %s\n",
         sysconf(_SC_NPROCESSORS_ONLN), model, mhz, cache, flags_avx, size, load[0], load[1], load[2], __VERSION__);
  free(vel0); free(v_ws); free(l_ws); free(v); free(lam); free(v2); free(l2); free(sub_of_body); free(body_of_gid);
  sg_broadphase_destroy(&bp);
  sg_contacts_destroy(&cts);
  sg_problem_destroy(&prob);
done:
  sg_stepper_destroy(&st);
  sg_solver_destroy(&timed);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return SG_OK;
}

int main(int argc, char **argv) {
  if (PetscInitialize(&argc, &argv, NULL, NULL)) {
    fprintf(stderr, "subadmm_pile: cannot initialize PETSc/MPI\n");
    return 1;
  }
  long rss_base = bench_maxrss_kb();
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  sg_err err = sg_error_collective(PETSC_COMM_WORLD, bench(PETSC_COMM_WORLD, rss_base));
  if (err) fprintf(stderr, "subadmm_pile: error: %s\n", sg_error_message());
  PetscPopErrorHandler();
  PetscFinalize();
  return err ? 1 : 0;
}
