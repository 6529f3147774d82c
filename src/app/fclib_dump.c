/* Dump one step's problem of `signorini run` as an FCLIB global problem (see fclib_dump.h). The
 * stepper keeps the last assembled problem (sg_stepper_problem), so the run loop only has to ask
 * after the step: no hook inside the stepper. Steps are numbered from 1 like the run's messages:
 * step K takes the state from t = (K-1) dt to K dt. */
#include <stdio.h>
#include <string.h>
#include "fclib_dump.h"
#include "signorini/io.h"
#include "signorini/fclib.h"
#include "signorini/options.h"

sg_err sg_fclib_dump_options(sg_fclib_dump *d, const char *out) {
  int set = 0;
  SG_CHECK(sg_opt_int("-fclib_dump_step", 0, 0, 1000000000,
                      "write the problem of step K (1-based, as in \"in step K\" messages; 0: none) as an FCLIB global problem",
                      &d->step));
  SG_CHECK(sg_opt_string("-fclib_dump_file", "<output without .h5>-step<K>.fclib.hdf5", "file for -fclib_dump_step",
                         d->file, sizeof d->file, &set));
  if (!set) {
    size_t n = strlen(out);
    if (n >= 3 && !strcmp(out + n - 3, ".h5")) n -= 3;
    snprintf(d->file, sizeof d->file, "%.*s-step%ld.fclib.hdf5", (int)n, out, d->step);
  }
  return SG_OK;
}

sg_err sg_fclib_dump_check(MPI_Comm comm, const sg_fclib_dump *d, long long first_step, long long last_step, const char *scene,
                           const char *out, const char *checkpoint) {
  if (d->step <= 0) return SG_OK;
  if (d->step <= first_step || d->step > last_step)
    return sg_error_set(SG_ERR_ARG, "-fclib_dump_step %ld is not a step of this run (steps %lld to %lld)", d->step,
                        first_step + 1, last_step);
  if (sg_fs_same_file(d->file, scene) || sg_fs_same_file(d->file, out) || sg_fs_same_file(d->file, checkpoint))
    return sg_error_set(SG_ERR_ARG, "-fclib_dump_file %s would overwrite the scene, the output or the checkpoint", d->file);
  return sg_output_check_path(comm, d->file);
}

sg_err sg_fclib_dump_after_step(MPI_Comm comm, const sg_fclib_dump *d, long long step, const sg_problem *p,
                                const char *scene, double dt, const char *solver) {
  if (d->step <= 0 || step != d->step) return SG_OK;
  int rank;
  MPI_Comm_rank(comm, &rank);
  sg_err err = SG_OK;
  if (rank == 0) {
    char title[512], desc[1024];
    snprintf(title, sizeof title, "signorini %s step %lld", scene, step);
    snprintf(desc, sizeof desc, "step %lld (t = %.17g s to %.17g s, dt = %.17g s) of `signorini run %s`, solved there by %s; "
             "%d subsystems, %d contacts; velocities are vhat of paper 002 eq. (2); dimensionless, in units of "
             "mass %.17g kg, length %.17g m, time %.17g s (docs/SOLVERS.md, Units)", step, (double)(step - 1) * dt,
             (double)step * dt, dt, scene, solver, p->n_sub, p->n_con, p->units.mass, p->units.length, p->units.time);
    err = sg_fclib_write_problem(d->file, p, title, desc);
    if (err) sg_error_append(" (-fclib_dump_step %lld)", step);
    else printf("signorini: step %lld written to %s (FCLIB global problem, %d contacts)\n", step, d->file, p->n_con);
  }
  return sg_error_collective(comm, err);
}
