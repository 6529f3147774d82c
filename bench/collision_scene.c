/* Benchmark: the step's contact search on a saved scene, as `signorini run` makes it.
 *
 *   collision_scene scene.h5 [-restart checkpoint.h5] [-repeats 10] [run options: -dt, -contact_margin,
 *                   -contact_skin, -contact_sweep_stops, ...]
 *
 * Reads the scene (and the state of a checkpoint of it: a silo in mid-discharge, say), takes the step
 * parameters from the options as `signorini run` does, and runs the whole search of a step
 * (sg_find_contacts_periodic: broad phase, canonical order, narrow phase) -repeats times with the
 * bodies' velocities as the solve's recheck sees them (the state's own). Prints the pairs, the contacts,
 * and the CPU time of one search (median of the repeats after a first call, as in the steps of a run:
 * the scratch is reused), and of the broad phase alone. The kept list is off unless -contact_skin is
 * given (a discharge breaks it every step). One rank. */
#include <math.h>
#include <petscsys.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_util.h"
#include "signorini/signorini.h"

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return t[n / 2];
}

static sg_err load(MPI_Comm comm, const char *scene, const char *restart, sg_scene *s) {
  SG_CHECK(sg_scene_read(comm, scene, s));
  if (!restart[0]) return SG_OK;
  sg_checkpoint_info info;
  SG_CHECK(sg_checkpoint_read(comm, restart, scene, s, &info));
  sg_checkpoint_info_free(&info);
  return SG_OK;
}

static sg_err run(MPI_Comm comm, const char *scene) {
  char restart[4096] = "";
  int has_restart;
  long repeats = 10;
  SG_CHECK(sg_opt_string("-restart", "", "a checkpoint of the scene whose state is searched", restart, sizeof restart, &has_restart));
  SG_CHECK(sg_opt_int("-repeats", 10, 1, 100000, "timed searches", &repeats));
  sg_scene s = {0};
  SG_CHECK(load(comm, scene, restart, &s));
  sg_step_params prm = {0};
  PetscBool skin_given = PETSC_FALSE;
  PetscOptionsHasName(NULL, NULL, "-contact_skin", &skin_given);
  SG_CHECK(sg_step_params_from_options(comm, &s, &prm));
  SG_CHECK(sg_opt_check_unused());
  sg_broadphase bp = {.stops = prm.sweep_stops, .meet_normal = prm.meet_normal, .skin = skin_given ? prm.skin : 0};
  sg_images im = {0};
  sg_contacts c = {0};
  double *t_all = malloc(sizeof(double) * (size_t)repeats), *t_broad = malloc(sizeof(double) * (size_t)repeats);
  sg_err err = t_all && t_broad ? sg_find_contacts_periodic(&s, prm.margin, prm.dt, &bp, &im, &c) : SG_ERR_MEM;
  for (int k = 0; k < repeats && !err; ++k) {
    double t0 = bench_cpu_now();
    err = sg_broadphase_pairs(&bp, &s, prm.margin, prm.dt);
    double t1 = bench_cpu_now();
    if (!err) err = sg_find_contacts_periodic(&s, prm.margin, prm.dt, &bp, &im, &c);
    t_broad[k] = t1 - t0;
    t_all[k] = bench_cpu_now() - t1;
  }
  if (!err) {
    printf("scene %s%s%s: %d bodies, dt %g s, margin %g m, stops %d\n", scene, restart[0] ? " at " : "", restart, s.n,
           prm.dt, prm.margin, prm.sweep_stops);
    printf("  %d pairs, %d contacts; search %.2f ms (broad phase %.2f ms), CPU median of %ld\n", bp.n, c.n,
           1e3 * median(t_all, repeats), 1e3 * median(t_broad, repeats), repeats);
  }
  free(t_all);
  free(t_broad);
  sg_contacts_destroy(&c);
  sg_images_destroy(&im);
  sg_broadphase_destroy(&bp);
  sg_scene_destroy(&s);
  return err;
}

int main(int argc, char **argv) {
  if (PetscInitialize(&argc, &argv, NULL, NULL)) return 1;
  int rc = 0;
  if (argc < 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: collision_scene scene.h5 [-restart checkpoint.h5] [-repeats 10] [run options]\n");
    rc = 1;
  } else if (run(PETSC_COMM_WORLD, argv[1])) {
    fprintf(stderr, "collision_scene: %s\n", sg_error_message());
    rc = 1;
  }
  PetscFinalize();
  return rc;
}
