/* Benchmark (diagnostic): is a Coulomb solution an attracting or a repelling fixed point of SubADMM?
 *
 *   subadmm_stability problem.hdf5 [-reference nsn] [-reference_it 500] [-betas 0.02,0.1,0.5,2,10]
 *                     [-chunk 2000] [-chunks 3] [-mu X[,X2,...]]
 *
 * The FCLIB global problem (for example a step written by `signorini run -fclib_dump_step K`) is
 * solved from zero by a reference solver (-reference, a Newton variant, -reference_it iterations at
 * tolerance 1e-13). SubADMM is then started from that answer (v, lambda) with beta held fixed
 * (no adaptation, tolerance 0), once per -betas value, and theta_p + theta_d (paper 002 (42)) is
 * printed after every -chunk iterations. At an exact solution the first residual is at round-off;
 * if it then grows, the solution repels the iteration at that beta, and no stopping tolerance below
 * the level where it settles can be reached from nearby. The "growth per 1000" column is the
 * geometric-mean factor of the residual per 1,000 iterations over the chunks (> 1: repelling), or
 * "stays" when every printed residual is below 1e-12 (round-off: an attracting solution).
 * -mu replaces every contact's friction coefficient (the friction sweeps of docs/SOLVERS.md). With
 * several values the reference solver follows them in order, each solve starting from the answer
 * at the previous value (continuation in mu: it reaches solutions that a solve from zero misses),
 * and SubADMM runs at the last one.
 * Serial: run it on one rank. */
#include <math.h>
#include <petscsys.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/fclib.h"
#include "signorini/options.h"
#include "signorini/signorini.h"

typedef struct {
  char reference[64], betas[512], mu[512];
  long reference_it, chunk, chunks;
} stability_options;

#define MAX_VALUES 32
#define ROUND_OFF 1e-12 /* residuals below this are taken as round-off */

/* Comma-separated positive (or, with allow_zero, non-negative) numbers of option `name`. */
static sg_err parse_list(const char *name, const char *text, int allow_zero, double *out, int *n) {
  char list[512];
  snprintf(list, sizeof list, "%s", text);
  *n = 0;
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    char *end;
    double x = strtod(tok, &end);
    if (*end || !isfinite(x) || x < 0 || (x == 0 && !allow_zero))
      return sg_error_set(SG_ERR_ARG, "%s: '%s' is not a %s number", name, tok, allow_zero ? "non-negative" : "positive");
    if (*n == MAX_VALUES) return sg_error_set(SG_ERR_ARG, "%s: more than %d values", name, MAX_VALUES);
    out[(*n)++] = x;
  }
  return SG_OK;
}

static sg_err read_options(stability_options *o) {
  SG_CHECK(sg_opt_string("-reference", "nsn", "solver that finds the reference solution", o->reference, sizeof o->reference, NULL));
  SG_CHECK(sg_opt_int("-reference_it", 500, 1, 100000000, "iteration cap of the reference solve (tolerance 1e-13)", &o->reference_it));
  SG_CHECK(sg_opt_string("-betas", "0.02,0.1,0.5,2,10", "comma-separated fixed penalties to start SubADMM with", o->betas, sizeof o->betas, NULL));
  SG_CHECK(sg_opt_int("-chunk", 2000, 1, 100000000, "SubADMM iterations between printed residuals", &o->chunk));
  SG_CHECK(sg_opt_int("-chunks", 3, 1, 100000, "number of chunks per beta", &o->chunks));
  SG_CHECK(sg_opt_string("-mu", "", "replace every friction coefficient; several values: continuation in mu (default: the file's)", o->mu, sizeof o->mu, NULL));
  return SG_OK;
}

static sg_err run(const char *path) {
  stability_options o;
  memset(&o, 0, sizeof o);
  SG_CHECK(read_options(&o));
  double betas[MAX_VALUES], mus[MAX_VALUES];
  int nb = 0, nmu = 0;
  SG_CHECK(parse_list("-betas", o.betas, 0, betas, &nb));
  if (nb == 0) return sg_error_set(SG_ERR_ARG, "-betas: no value");
  SG_CHECK(parse_list("-mu", o.mu, 1, mus, &nmu));
  /* both solvers are made (and their options read) before the check for unused options */
  sg_solver *ref = NULL, *admm = NULL;
  SG_CHECK(sg_solver_create(MPI_COMM_SELF, o.reference, &ref));
  sg_err err = sg_solver_set_from_options(ref);
  if (!err) err = sg_solver_create(MPI_COMM_SELF, "subadmm", &admm);
  if (!err) err = sg_solver_set_from_options(admm);
  if (!err && sg_opt_help_requested()) {
    sg_opt_print_help(stdout, "subadmm_stability problem.hdf5 [options]");
    sg_solver_destroy(&ref);
    sg_solver_destroy(&admm);
    return SG_OK;
  }
  if (!err) err = sg_opt_check_unused();
  if (!path && !err) err = sg_error_set(SG_ERR_ARG, "no problem file given");
  sg_fclib_problem fp = {0};
  sg_problem p = {0};
  sg_fclib_map map = {0};
  if (!err) err = sg_fclib_read(path, &fp);
  if (!err && fp.local) err = sg_error_set(SG_ERR_ARG, "%s: a local problem; this benchmark takes the global form", path);
  if (!err) err = sg_fclib_to_problem(&fp, &p, &map);
  int nv = err ? 0 : sg_problem_n_v(&p), nr = err ? 0 : sg_problem_n_rows(&p);
  double *v_ref = calloc((size_t)nv + 1, sizeof(double)), *l_ref = calloc((size_t)nr + 1, sizeof(double));
  double *v = calloc((size_t)nv + 1, sizeof(double)), *lam = calloc((size_t)nr + 1, sizeof(double));
  double *vf = calloc((size_t)fp.n + 1, sizeof(double));
  if (!err && (!v_ref || !l_ref || !v || !lam || !vf)) err = SG_ERR_MEM;
  sg_solve_info info = {0};
  double nat = 0, dyn = 0;
  if (!err) printf("%s: %d contacts\n", path, fp.nc);
  /* the reference: from zero at the first mu (or the file's), then from each answer at the next */
  for (int k = 0; k < (nmu ? nmu : 1) && !err; ++k) {
    if (nmu) /* constraint i is FCLIB contact i (sg_fclib_to_problem) */
      for (int i = 0; i < fp.nc; ++i) fp.mu[i] = p.mu[i] = mus[k];
    ref->tol = 1e-13;
    ref->max_it = (int)o.reference_it;
    double t0 = MPI_Wtime();
    err = sg_solver_solve(ref, &p, v_ref, l_ref, &info);
    if (!err) {
      sg_fclib_map_to_fclib(&map, v_ref, vf);
      err = sg_fclib_residuals(&fp, vf, l_ref, &nat, &dyn, NULL);
    }
    char mu_text[32] = "as stored";
    if (nmu) snprintf(mu_text, sizeof mu_text, "%g", mus[k]);
    if (!err)
      printf("  mu %s: reference %s %s, %d iterations (%s), nat %.3e, dyn %.3e, %.2f s\n", mu_text, o.reference,
             k ? "from the previous answer" : "from zero", info.iterations, info.converged ? "converged" : "not converged",
             nat, dyn, MPI_Wtime() - t0);
  }
  if (!err) {
    printf("SubADMM from the reference answer, beta fixed; theta_p + theta_d after each %ld iterations\n", o.chunk);
    printf("  %10s  %s  %s\n", "beta", "residuals", "growth per 1000");
  }
  PetscOptionsSetValue(NULL, "-subadmm_adapt", "0");
  for (int b = 0; b < nb && !err; ++b) {
    char val[64];
    snprintf(val, sizeof val, "%.17g", betas[b]);
    PetscOptionsSetValue(NULL, "-subadmm_beta", val);
    err = sg_solver_set_from_options(admm);
    memcpy(v, v_ref, sizeof(double) * (size_t)nv);
    memcpy(lam, l_ref, sizeof(double) * (size_t)nr);
    printf("  %10.3g ", betas[b]);
    double first = NAN, last = NAN, largest = 0;
    for (long c = 0; c < o.chunks && !err; ++c) {
      /* each chunk restarts from the previous one's (v, lambda) with z = J v, as SubADMM does
       * between time steps; beta is the same, so the chunks are one fixed-beta run but for that
       * reset of z (which is exact at a solution, where z = J v) */
      admm->tol = 0;
      admm->max_it = (int)o.chunk;
      err = sg_solver_solve(admm, &p, v, lam, &info);
      double res = info.residual_primal + info.residual_dual;
      printf(" %.2e", res);
      if (c == 0) first = res;
      last = res;
      largest = fmax(largest, res);
    }
    /* residuals that never leave round-off (the reference's own accuracy is ~1e-13) have no
     * trend: their ratios are noise, and "stays" is the finding (a repelling solution leaves) */
    if (!err && largest < ROUND_OFF) printf("  stays below %.0e", ROUND_OFF);
    else if (!err && o.chunks > 1 && first > 0)
      printf("  %.3g", pow(last / first, 1000.0 / ((double)(o.chunks - 1) * (double)o.chunk)));
    printf("\n");
    fflush(stdout);
  }
  free(v_ref); free(l_ref); free(v); free(lam); free(vf);
  sg_solver_destroy(&ref);
  sg_solver_destroy(&admm);
  sg_problem_destroy(&p);
  sg_fclib_map_free(&map);
  sg_fclib_free(&fp);
  return err;
}

int main(int argc, char **argv) {
  /* a leading word (not an option) is the problem file; the rest goes to PETSc */
  const char *path = NULL;
  if (argc > 1 && argv[1][0] != '-') {
    path = argv[1];
    argv[1] = argv[0];
    argv++;
    argc--;
  }
  if (PetscInitialize(&argc, &argv, NULL, NULL)) {
    fprintf(stderr, "subadmm_stability: cannot initialize PETSc\n");
    return 1;
  }
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  sg_err err = run(path);
  if (err) fprintf(stderr, "subadmm_stability: error: %s\n", sg_error_message());
  PetscPopErrorHandler();
  PetscFinalize();
  return err ? 1 : 0;
}
