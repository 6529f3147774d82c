/* SubADMM's De Saxce operator (-subadmm_cone desaxce) solves Coulomb's law, not the convex problem
 * with the De Saxce terms frozen: on the frictional random problems of tests/random_problem.h
 * (cond(W) <= 1e3), run to tolerance 1e-10 from zero,
 *  - with the terms updated every iteration (-subadmm_desaxce_every 1) and
 *  - updated only when the frozen problem is solved (-subadmm_desaxce_every 1000000: an outer
 *    fixed-point loop on s = mu ||u_t||; a solve may end only once s is current),
 * each answer must match the strict operator's (17) within 1e-6 relative in lambda (the measure of
 * test_solver_agreement) and reach a paper-002 contact residual below 1e-8. Without the rule that s
 * be current, the second run stops at the first frozen problem (s = 0 from the zero start: the
 * convex relaxation, where sliding contacts lift off) and fails on the sliding trials. */
#include "random_problem.h"
#include "sim_util.h"

#define TRIALS 60

static double rel_diff(int nr, const double *a, const double *b, double floor_scale) {
  double d = 0, na = 0, nb = 0;
  for (int r = 0; r < nr; ++r) {
    d += (a[r] - b[r]) * (a[r] - b[r]);
    na += a[r] * a[r];
    nb += b[r] * b[r];
  }
  double scale = fmax(fmax(sqrt(na), sqrt(nb)), floor_scale);
  return scale > 0 ? sqrt(d) / scale : sqrt(d);
}

/* Solve p from zero with SubADMM and the given cone operator and update cadence. */
static void solve(const sg_problem *p, const char *cone, const char *every, double *lam, sg_solve_info *info) {
  PetscOptionsSetValue(NULL, "-subadmm_cone", cone);
  PetscOptionsSetValue(NULL, "-subadmm_desaxce_every", every);
  double *v = calloc((size_t)sg_problem_n_v(p), sizeof(double));
  memset(lam, 0, sizeof(double) * sg_problem_n_rows(p));
  sg_solver *s = sim_solver("subadmm", 1e-10, 1000000); /* "no cap": a stall fails instead of hanging */
  CHECK_OK(sg_solver_solve(s, p, v, lam, info));
  sg_solver_destroy(&s);
  free(v);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  unsigned long long seed = 0x5be0cd19137e2179ULL;
  const char *every[2] = {"1", "1000000"};
  double worst[2] = {0, 0}, worst_res[2] = {0, 0};
  int compared = 0;
  for (int trial = 1; trial < 2 * TRIALS; trial += 2) { /* odd trials have friction */
    sg_problem p = {0};
    random_problem_info ri;
    if (!random_problem_make(&seed, trial, &p, &ri)) { sg_problem_destroy(&p); continue; }
    int nr = sg_problem_n_rows(&p), nv = sg_problem_n_v(&p);
    double *ref = calloc((size_t)nr, sizeof(double)), *lam = calloc((size_t)nr, sizeof(double));
    sg_solve_info info = {0};
    solve(&p, "strict", "1", ref, &info);
    CHECK(info.converged);
    double bnorm = 0;
    for (int k = 0; k < nv; ++k) bnorm += p.b[k] * p.b[k];
    for (int c = 0; c < 2; ++c) {
      solve(&p, "desaxce", every[c], lam, &info);
      double res = NAN, rel = rel_diff(nr, lam, ref, 1e-4 * sqrt(bnorm));
      CHECK_OK(sg_contact_residual(&p, lam, &res));
      if (!(rel < 1e-6) || !(res < 1e-8) || !info.converged)
        printf("  trial %d (%d bodies, %d contacts), every %s: %s after %d iterations, lambda differs by %.2e, "
               "contact residual %.2e\n", trial, ri.n_bodies, ri.n_contacts, every[c],
               info.converged ? "converged" : "not converged", info.iterations, rel, res);
      CHECK(info.converged);
      worst[c] = fmax(worst[c], rel);
      worst_res[c] = fmax(worst_res[c], res);
    }
    compared++;
    free(ref);
    free(lam);
    sg_problem_destroy(&p);
  }
  printf("%d frictional random problems\n", compared);
  for (int c = 0; c < 2; ++c) {
    printf("  desaxce every %-7s worst ||dlambda|| / ||lambda|| against strict %.2e, worst contact residual %.2e\n",
           every[c], worst[c], worst_res[c]);
    CHECK(worst[c] < 1e-6);
    CHECK(worst_res[c] < 1e-8);
  }
  CHECK(compared >= 10);
  return sim_finish();
}
