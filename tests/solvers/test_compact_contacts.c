/* Compact rigid contacts (problem.h: frame and lever arms instead of dense 3x6 blocks) against the
 * general dense path, on the same step of a settling pile of spheres and of a stack of boxes:
 *  - every compact block expands to the dense block's bits (the expansion repeats the rigid body's
 *    point-Jacobian arithmetic), so solvers that read blocks (PGS here) give identical iterates;
 *  - SubADMM's compact kernel (J v = sign R (v_lin + w x r), J^T f = [g; r x g]) reorders a few
 *    products and sums, so its iterates differ from the dense kernel's by round-off only: after 60
 *    iterations of the plain update and of the over-relaxed one the largest difference in vhat and
 *    lambda stays below 1e-12 of the largest entry (a few ulps per operation, not amplified while no
 *    cone projection switches regime between the two runs; a switch would show as a difference of
 *    the order of the iterate's change per iteration, far above 1e-12);
 *  - SubADMM's sums rebuilt from the v-update (-subadmm_rebuild_sums, the default: s_rhs from
 *    b + s_rhs - A vhat instead of a second J^T product per pair) against the sums over the pairs, on
 *    the compact problem: the same algebra in another order, so again within 1e-12 after 60
 *    iterations, from rest and from a warm start (a wrong rebuild, L_old's sign flipped, differs by
 *    0.4 to 0.98 of the iterate's size, and one that forgets the warm start's L_old by 2e-3 to 0.8:
 *    checked by hand); over-relaxed too (alpha = 1.6: the rebuild's recursion for T, and a compact
 *    contact's slacks kept in world axes against the pairs' slacks in the contact frame).
 * And on a tree scene (two quadrupeds on a bed of spheres): a contact on a robot's foot is a compact
 * tree pair (the link's J_{i,b} of paper 002 (44) and the anchor's chain of motions, the body split
 * of (40)-(41)) against the dense 3 x nv block through the tree: its expansion repeats the point
 * Jacobian's products in another order, so blocks agree to 1e-14 of their largest entry (not bit for
 * bit), and SubADMM's and PGS's iterates to 1e-12 as above. */
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/generate.h"
#include "sim_util.h"

typedef struct {
  sg_problem p;
  int *sub_of_body;
} assembled;

static void assemble(const sg_scene *s, const sg_contacts *c, sg_step_params prm, int dense, assembled *out) {
  memset(out, 0, sizeof *out);
  out->sub_of_body = calloc((size_t)s->n, sizeof(int));
  prm.dense_jacobians = dense;
  sg_units u = sg_rigid_units(PETSC_COMM_WORLD, s, prm.dt);
  CHECK_OK(sg_assemble_rigid(s, c, &prm, &u, &out->p, out->sub_of_body));
}

static void release(assembled *a) {
  sg_problem_destroy(&a->p);
  free(a->sub_of_body);
}

/* Every pair's block: compact in `compact`, dense in `dense`; a rigid pair's the same bits, a tree
 * pair's the same to 1e-14 of its largest entry. */
static int blocks_identical(const sg_problem *compact, const sg_problem *dense) {
  int n_compact = 0, n_tree = 0, same = compact->n_con == dense->n_con;
  double worst = 0;
  for (int i = 0; same && i < compact->n_con; ++i)
    for (int q = compact->con_pair[i]; q < compact->con_pair[i + 1]; ++q) {
      double a[SG_COMPACT_BLOCK], b[SG_COMPACT_BLOCK];
      const int n = sg_con_rows(compact->kind[i]) * compact->sub_dof[compact->pair_sub[q]];
      const double *ja = sg_problem_pair_block(compact, i, q, a), *jb = sg_problem_pair_block(dense, i, q, b);
      n_compact += sg_problem_pair_is_compact(compact, q);
      same &= sg_problem_pair_is_dense(dense, q);
      if (sg_problem_pair_anchor(compact, q) < 0) {
        same &= !memcmp(ja, jb, (size_t)n * sizeof *ja);
        continue;
      }
      n_tree++;
      const double d = sg_test_max_diff(ja, jb, n) / sg_test_max_abs(jb, n);
      worst = fmax(worst, d);
      same &= d <= 1e-14;
    }
  printf("  %d constraints, %d compact rigid pairs, %d compact tree pairs (largest relative difference %.1e); blocks %s\n",
         compact->n_con, n_compact, n_tree, worst, same ? "identical" : "DIFFER");
  return same && n_compact + n_tree > 0;
}

/* Solve p with `solver` from (v0, lambda0), from rest where they are NULL; v and lambda out (allocated). */
static void solve_from(const char *solver, const sg_problem *p, int iterations, const double *v0, const double *lambda0,
                       double **v, double **lambda) {
  const int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  *v = calloc((size_t)nv + 1, sizeof(double));
  *lambda = calloc((size_t)nr + 1, sizeof(double));
  if (v0) memcpy(*v, v0, (size_t)nv * sizeof(double));
  if (lambda0) memcpy(*lambda, lambda0, (size_t)nr * sizeof(double));
  sg_solver *s = sim_solver(solver, 0.0, iterations);
  sg_solve_info info;
  CHECK_OK(sg_solver_solve(s, p, *v, *lambda, &info));
  sg_solver_destroy(&s);
}

static void solve(const char *solver, const sg_problem *p, int iterations, double **v, double **lambda) {
  solve_from(solver, p, iterations, NULL, NULL, v, lambda);
}

/* SubADMM on both forms: iterates agree to round-off (relative 1e-12); PGS: bit for bit. */
static void compare_solves(const assembled *compact, const assembled *dense, const char *relax) {
  const int nv = sg_problem_n_v(&compact->p), nr = sg_problem_n_rows(&compact->p);
  PetscOptionsSetValue(NULL, "-subadmm_relax", relax);
  double *vc, *lc, *vd, *ld;
  solve("subadmm", &compact->p, 60, &vc, &lc);
  solve("subadmm", &dense->p, 60, &vd, &ld);
  PetscOptionsClearValue(NULL, "-subadmm_relax");
  const double dv = sg_test_max_diff(vc, vd, nv) / sg_test_max_abs(vd, nv), dl = sg_test_max_diff(lc, ld, nr) / sg_test_max_abs(ld, nr);
  printf("  subadmm (relax %s), 60 iterations: max |dv| / max |v| = %.2e, max |dlambda| / max |lambda| = %.2e\n", relax, dv, dl);
  CHECK(sg_test_max_abs(ld, nr) > 0);
  CHECK(dv <= 1e-12);
  CHECK(dl <= 1e-12);
  free(vc); free(lc); free(vd); free(ld);
  solve("pgs", &compact->p, 20, &vc, &lc);
  solve("pgs", &dense->p, 20, &vd, &ld);
  if (compact->p.has_motion) { /* tree pairs: their blocks are round-off apart */
    CHECK(sg_test_max_diff(vc, vd, nv) <= 1e-12 * sg_test_max_abs(vd, nv));
    CHECK(sg_test_max_diff(lc, ld, nr) <= 1e-12 * sg_test_max_abs(ld, nr));
  } else {
    CHECK(!memcmp(vc, vd, (size_t)nv * sizeof(double)));
    CHECK(!memcmp(lc, ld, (size_t)nr * sizeof(double)));
  }
  free(vc); free(lc); free(vd); free(ld);
}

/* SubADMM with the sums rebuilt from the v-update and summed over the pairs, from rest and from a
 * warm start (the iterate of 20 iterations), plain and over-relaxed: round-off apart. */
static void compare_rebuilt_sums(const assembled *compact, const char *relax) {
  const int nv = sg_problem_n_v(&compact->p), nr = sg_problem_n_rows(&compact->p);
  double *v0, *l0;
  solve("subadmm", &compact->p, 20, &v0, &l0);
  PetscOptionsSetValue(NULL, "-subadmm_relax", relax);
  for (int warm = 0; warm < 2; ++warm) {
    double *vr, *lr, *vs, *ls;
    PetscOptionsSetValue(NULL, "-subadmm_rebuild_sums", "1");
    solve_from("subadmm", &compact->p, 60, warm ? v0 : NULL, warm ? l0 : NULL, &vr, &lr);
    PetscOptionsSetValue(NULL, "-subadmm_rebuild_sums", "0");
    solve_from("subadmm", &compact->p, 60, warm ? v0 : NULL, warm ? l0 : NULL, &vs, &ls);
    PetscOptionsClearValue(NULL, "-subadmm_rebuild_sums");
    const double dv = sg_test_max_diff(vr, vs, nv) / sg_test_max_abs(vs, nv), dl = sg_test_max_diff(lr, ls, nr) / sg_test_max_abs(ls, nr);
    printf("  subadmm (relax %s) from %s, sums rebuilt against summed, 60 iterations: max |dv| / max |v| = %.2e, max |dlambda| / max |lambda| = %.2e\n",
           relax, warm ? "a warm start" : "rest", dv, dl);
    CHECK(sg_test_max_abs(ls, nr) > 0);
    CHECK(dv <= 1e-12);
    CHECK(dl <= 1e-12);
    free(vr); free(lr); free(vs); free(ls);
  }
  PetscOptionsClearValue(NULL, "-subadmm_relax");
  free(v0); free(l0);
}

/* Settle the scene `steps` steps, then compare the two forms on the next step's contacts. */
static void check_scene(sg_scene *s, double margin, int steps) {
  sg_step_params prm = sim_params(1.0 / 240.0, margin);
  sg_broadphase bp;
  sg_contacts c;
  sim_settle_and_find(s, &prm, 1e-6, 100, steps, &bp, &c);
  assembled compact, dense;
  assemble(s, &c, prm, 0, &compact);
  assemble(s, &c, prm, 1, &dense);
  CHECK(blocks_identical(&compact.p, &dense.p));
  compare_solves(&compact, &dense, "1");
  compare_solves(&compact, &dense, "1.6");
  compare_rebuilt_sums(&compact, "1");
  compare_rebuilt_sums(&compact, "1.6");
  release(&compact);
  release(&dense);
  sg_contacts_destroy(&c);
  sg_broadphase_destroy(&bp);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  printf("pile of 300 spheres after 40 steps:\n");
  PetscOptionsSetValue(NULL, "-n", "300");
  PetscOptionsSetValue(NULL, "-spacing", "2.1");
  CHECK_OK(sg_scene_create(&s, 310, 1));
  CHECK_OK(sg_generate_pile(&s));
  CHECK_OK(sg_scene_update_mass(&s));
  check_scene(&s, 0.2 * s.size[3 * (s.n - 1)], 40);
  sg_scene_destroy(&s);
  printf("stack of 6 boxes after 20 steps:\n");
  PetscOptionsSetValue(NULL, "-n", "6");
  PetscOptionsClearValue(NULL, "-spacing");
  CHECK_OK(sg_scene_create(&s, 8, 1));
  CHECK_OK(sg_generate_stack(&s));
  CHECK_OK(sg_scene_update_mass(&s));
  check_scene(&s, 0.01, 20);
  sg_scene_destroy(&s);
  printf("two quadrupeds on a bed of 200 spheres after 20 steps:\n");
  PetscOptionsSetValue(NULL, "-n", "2");
  PetscOptionsSetValue(NULL, "-bed", "200");
  CHECK_OK(sg_scene_create(&s, 210, 1));
  CHECK_OK(sg_generate_quadruped(&s));
  CHECK_OK(sg_scene_update_mass(&s));
  check_scene(&s, 0.01, 20);
  sg_scene_destroy(&s);
  return sim_finish();
}
