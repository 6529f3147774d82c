/* The PGS baseline (-solver pgs) against SubADMM on random problems: 2-6 rigid bodies (6 DOF,
 * random SPD A), at most as many contacts as bodies, from tests/random_problem.h (frictionless cases
 * have a unique solution; frictional ones are kept only with cond(W) below 1e3); both solvers must
 * reach the residual below 1e-8 and lambda agrees within 1e-6 relative (to max |lambda|). The
 * analytic cases run for every solver in test_constraint_kinds.c, the physics tests for every
 * solver through tests/CMakeLists.txt. */
#include "random_problem.h"
#include "sim_util.h"

static void random_agreement(void) {
  unsigned long long seed = 0x9e3779b97f4a7c15ULL;
  int compared = 0, active_total = 0, with_active = 0;
  double worst_rel = 0, worst_res = 0;
  for (int trial = 0; trial < 40; ++trial) {
    sg_problem p = {0};
    random_problem_info ri;
    int keep = random_problem_make(&seed, trial, &p, &ri);
    int nb = ri.n_bodies, nc = ri.n_contacts, frictionless = ri.frictionless;
    int nv = sg_problem_n_v(&p), nr = sg_problem_n_rows(&p);
    double cond = ri.cond;
    if (!keep) { sg_problem_destroy(&p); continue; }
    double *v1 = malloc(sizeof(double) * nv), *v2 = malloc(sizeof(double) * nv);
    double *l1 = malloc(sizeof(double) * nr), *l2 = malloc(sizeof(double) * nr), r1, r2;
    sg_solve_info i1, i2;
    sim_solve_cold("pgs", &p, v1, l1, 1e-12, 1000000, &i1);
    sim_solve_cold("subadmm", &p, v2, l2, 1e-12, 1000000, &i2);
    CHECK_OK(sg_contact_residual(&p, l1, &r1));
    CHECK_OK(sg_contact_residual(&p, l2, &r2));
    double lmax = 0, diff = 0;
    int n_active = 0;
    for (int r = 0; r < nr; ++r) { lmax = fmax(lmax, fabs(l2[r])); diff = fmax(diff, fabs(l1[r] - l2[r])); }
    for (int i = 0; i < nc; ++i) n_active += l2[3 * i] > 0;
    active_total += n_active;
    with_active += n_active > 0;
    double rel = lmax > 0 ? diff / lmax : diff;
    printf("  %d bodies, %d contacts (%d active), %s, cond(W) %.1f: pgs %d sweeps (res %.1e), subadmm %d its (res %.1e), "
           "|dlambda| / max|lambda| %.1e\n",  nb, nc, n_active, frictionless ? "frictionless" : "friction", cond, i1.iterations, r1,
           i2.iterations, r2, rel);
    CHECK(i1.converged && i2.converged);
    CHECK(r1 < 1e-8 && r2 < 1e-8);
    CHECK(rel < 1e-6);
    worst_rel = fmax(worst_rel, rel);
    worst_res = fmax(worst_res, fmax(r1, r2));
    compared++;
    free(v1); free(v2); free(l1); free(l2);
    sg_problem_destroy(&p);
  }
  printf("random problems: %d compared (%d with active contacts, %d active contacts), worst relative lambda difference %.2e, worst residual %.2e\n", compared,
         with_active, active_total, worst_rel, worst_res);
  CHECK(compared >= 25);
  CHECK(with_active >= compared - 5); /* the comparisons are (nearly all) not of trivial zero impulses */
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  random_agreement();
  return sim_finish();
}
