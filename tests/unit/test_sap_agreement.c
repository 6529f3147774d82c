/* SAP in its hard-contact limit against PGS, on the random problems of tests/random_problem.h (the
 * generator test_pgs uses: 2-6 rigid bodies with random SPD A, 1..nb contacts with random Jacobians;
 * the frictional cases keep cond(W) <= 1e3).
 *
 * SAP solves the regularized dual (22): min_{gamma in F} 1/2 gamma^T (W + R) gamma + r^T gamma, with
 * R_i = diag(Rn, Rt, Rt), Rn = beta^2/(4 pi^2) w_i, Rt = sigma w_i (29)-(30), w_i = ||W_ii||_F / 3.
 * Run here with -sap_beta 1e-3 -sap_sigma 2.5e-8 (so R <= eps_R w_i with eps_R = 2.5e-8) and a
 * direct solve (-sap_ksp_type preonly -sap_pc_type cholesky) for the ill-conditioned H.
 * Expected difference: on a fixed active set gamma_R - gamma_0 = -(W + R)^{-1} R gamma_0, so
 *   |gamma_R - gamma_0| <= ||W^{-1}|| ||R|| |gamma_0| <= eps_R cond(W) |gamma_0|
 * (||R|| <= eps_R max_i w_i <= eps_R lambda_max(W)); plus round-off: gamma = R^{-1}(...) amplifies
 * the ~1e-16 |v_c| error of the velocities by 1/R, i.e. about 1e-16 / eps_R = 4e-9 relative. The
 * asserted tolerance per problem is 10 (eps_R cond(W) + 1e-16 / eps_R) relative to max |lambda|
 * (and never below 1e-7).
 * SAP's stopping ratio e_m (26) is set to 1e-7: the gradient's round-off floor here is about
 * 1e-16 / eps_R = 4e-9 (measured 2e-9 .. 4e-9), so tighter values cannot be met.
 * Which problems: the R -> 0 limit of SAP is the convex (Anitescu) relaxation of Coulomb friction,
 * where a sliding contact separates (J_n v + e_n = mu ||J_t v||) instead of keeping J_n v + e_n = 0.
 * It coincides with our problem (solved by PGS) whenever no contact slides: every frictionless
 * problem, and frictional ones where SAP's contacts all stick or separate. Frictional problems with
 * a sliding contact are counted and, instead, checked for the relaxed model's conditions. */
#include "random_problem.h"
#include "sim_util.h"
#include "signorini/sap.h"

static void agreement(void) {
  const double eps_R = 2.5e-8;
  PetscOptionsSetValue(NULL, "-sap_beta", "1e-3");      /* Rn = 2.53e-8 w */
  PetscOptionsSetValue(NULL, "-sap_sigma", "2.5e-8");   /* Rt = 2.5e-8 w */
  PetscOptionsSetValue(NULL, "-sap_ksp_type", "preonly");
  PetscOptionsSetValue(NULL, "-sap_pc_type", "cholesky");
  unsigned long long seed = 0x9e3779b97f4a7c15ULL;
  int compared = 0, sliding = 0, with_active = 0, its_max = 0;
  double worst_rel = 0, worst_ratio = 0, worst_relaxed = 0;
  for (int trial = 0; trial < 40; ++trial) {
    sg_problem p = {0};
    random_problem_info ri;
    int keep = random_problem_make(&seed, trial, &p, &ri);
    int nb = ri.n_bodies, nc = ri.n_contacts, frictionless = ri.frictionless;
    double cond = ri.cond;
    if (!keep) { sg_problem_destroy(&p); continue; }
    int nv = sg_problem_n_v(&p), nr = sg_problem_n_rows(&p);
    double *v1 = malloc(sizeof(double) * nv), *v2 = malloc(sizeof(double) * nv), *vc = malloc(sizeof(double) * nr);
    double *l1 = malloc(sizeof(double) * nr), *l2 = malloc(sizeof(double) * nr);
    sg_solve_info i1, i2;
    sim_solve_cold("pgs", &p, v1, l1, 1e-13, 1000000, &i1);
    sim_solve_cold("sap", &p, v2, l2, 1e-7, 200, &i2);
    /* does a SAP contact slide? (tangential impulse on the cone's surface, with friction) */
    sg_problem_apply_J(&p, v2, vc);
    int slides = 0, n_active = 0;
    double relaxed = 0, vscale = 0;
    for (int r = 0; r < nr; ++r) vscale = fmax(vscale, fabs(vc[r]));
    for (int i = 0; i < nc; ++i) {
      const double *l = l2 + 3 * i, *u = vc + 3 * i;
      double lt = sqrt(l[1] * l[1] + l[2] * l[2]), ut = sqrt(u[1] * u[1] + u[2] * u[2]);
      n_active += l[0] > 0;
      if (p.mu[i] > 0 && l[0] > 0 && lt >= p.mu[i] * l[0] * (1 - 1e-6) && ut > 1e-6 * vscale) {
        slides = 1;
        /* the relaxed model: separating velocity J_n v + e_n = mu ||J_t v|| (up to R gamma) */
        relaxed = fmax(relaxed, fabs(u[0] + p.e[3 * i] - p.mu[i] * ut) / fmax(vscale, 1e-300));
      }
    }
    double lmax = 0, diff = 0;
    for (int r = 0; r < nr; ++r) { lmax = fmax(lmax, fabs(l1[r])); diff = fmax(diff, fabs(l1[r] - l2[r])); }
    double rel = lmax > 0 ? diff / lmax : diff;
    double tol = fmax(1e-7, 10 * (eps_R * cond + 1e-16 / eps_R));
    printf("  %d bodies, %d contacts (%d active), %s, cond(W) %.1f: pgs %d sweeps, sap %d Newton its (e_m %.1e)%s, "
           "|dlambda| / max|lambda| %.1e (tolerance %.1e)\n", nb, nc, n_active, frictionless ? "frictionless" : "friction",
           cond, i1.iterations, i2.iterations, i2.residual_primal, slides ? ", SLIDING" : "", rel, tol);
    CHECK(i1.converged);
    if (slides) {
      sliding++;
      worst_relaxed = fmax(worst_relaxed, relaxed);
      CHECK(relaxed < 1e-5);
    } else {
      CHECK(i2.converged);
      CHECK(rel <= tol);
      its_max = i2.iterations > its_max ? i2.iterations : its_max;
      worst_rel = fmax(worst_rel, rel);
      worst_ratio = fmax(worst_ratio, rel / tol);
      compared++;
      with_active += n_active > 0;
    }
    free(v1); free(v2); free(vc); free(l1); free(l2);
    sg_problem_destroy(&p);
  }
  printf("SAP (beta 1e-3, sigma 2.5e-8) vs PGS: %d compared (%d with active contacts), worst |dlambda| / max|lambda| %.2e "
         "(%.2f of its tolerance), at most %d Newton iterations; %d with a sliding contact (Anitescu relaxation, worst |v_n + e_n - mu |v_t|| / |v| %.1e)\n",
         compared, with_active, worst_rel, worst_ratio, its_max, sliding, worst_relaxed);
  CHECK(compared >= 20);
  CHECK(with_active >= compared - 5);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  agreement();
  return sim_finish();
}
