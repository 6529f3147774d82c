/* SubADMM factorizes a tree's H_j = A_j + beta sum J^T J with the tree's sparsity (problem.h,
 * dof_parent; la.h, ltl_factor: no fill-in, paper 002 (40)-(41)) instead of densely: on the step of
 * the standing quadruped of `generate quadruped` (18 velocities, 4 foot contacts, 12 PD rows) after
 * 0.25 s, 60 iterations with the sparsity and without it (-subadmm_factor dense) give the same vhat and
 * lambda within 1e-12 of their largest entries (the two factorizations round differently, a few ulps
 * per solve, not amplified while no projection switches regime). Then with one more contact whose
 * block couples two legs (J_A - J_B of two feet, as a contact between two branches of one tree), H_j
 * leaves the sparsity and SubADMM must fall back to the dense factor: the answers are then the same
 * bits (with the sparse factor the coupling would be dropped and they would differ at O(1)), while
 * in the first case they are not (the sparse factor is in use). */
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/generate.h"
#include "signorini/tree.h"
#include "sim_util.h"

/* SubADMM from rest, 60 iterations; v and lambda out (allocated). */
static void solve(const sg_problem *p, double **v, double **lambda) {
  *v = calloc((size_t)sg_problem_n_v(p) + 1, sizeof(double));
  *lambda = calloc((size_t)sg_problem_n_rows(p) + 1, sizeof(double));
  sg_solver *s = sim_solver("subadmm", 0.0, 60);
  sg_solve_info info;
  CHECK_OK(sg_solver_solve(s, p, *v, *lambda, &info));
  sg_solver_destroy(&s);
}

/* sparse: 1 when the sparse factor must be in use (its rounding differs from the dense one's, so
 * the answers are not the same bits), 0 when SubADMM must have fallen back to the dense factor (the
 * same bits). */
static void compare(sg_problem *p, const char *what, int sparse) {
  const int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  double *vs, *ls, *vd, *ld;
  CHECK(sg_problem_dof_parents(p, 0) != NULL);
  solve(p, &vs, &ls);
  PetscOptionsSetValue(NULL, "-subadmm_factor", "dense"); /* the same problem, H_j factorized densely */
  solve(p, &vd, &ld);
  PetscOptionsClearValue(NULL, "-subadmm_factor");
  const double dv = sg_test_max_diff(vs, vd, nv) / sg_test_max_abs(vd, nv), dl = sg_test_max_diff(ls, ld, nr) / sg_test_max_abs(ld, nr);
  printf("%s: %d constraints, max |dv| / max |v| = %.2e, max |dlambda| / max |lambda| = %.2e\n", what, p->n_con, dv, dl);
  CHECK(sg_test_max_abs(ld, nr) > 0);
  CHECK(dv <= 1e-12);
  CHECK(dl <= 1e-12);
  CHECK((dv > 0 || dl > 0) == sparse);
  free(vs); free(ls); free(vd); free(ld);
}

/* A contact coupling the first two feet's constraints (contacts 0 and 1): block J_0 - J_1. */
static void add_coupling(sg_problem *p) {
  const int nv = p->sub_dof[0];
  double *J = malloc(3 * (size_t)nv * sizeof(double)), e[3] = {0, 0, 0};
  double b0[SG_COMPACT_BLOCK], b1[SG_COMPACT_BLOCK];
  const double *J0 = sg_problem_pair_block(p, 0, p->con_pair[0], b0), *J1 = sg_problem_pair_block(p, 1, p->con_pair[1], b1);
  for (int k = 0; k < 3 * nv; ++k) J[k] = J0[k] - J1[k];
  const double *Js[1] = {J};
  const int subs[1] = {0};
  CHECK_OK(sg_problem_add_constraint(p, SG_CON_CONTACT, e, 0.8, 0, 0, 1, subs, Js, NULL));
  free(J);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  sim_ground_scene(&s, 2, 0.8);
  const sg_quadruped q = {.kp = 400, .kd = 8, .crouch = 0.7};
  int i;
  CHECK_OK(sg_quadruped_add(&s, &q, &i));
  s.next_gid = s.n;
  sg_step_params prm = sim_params(1.0 / 240.0, 0.01);
  sg_broadphase bp;
  sg_contacts c;
  sim_settle_and_find(&s, &prm, 1e-8, 1000, 60, &bp, &c);
  sg_problem p;
  memset(&p, 0, sizeof p);
  int sub_of_body[2], added = 0;
  sg_units u = sg_rigid_units(PETSC_COMM_WORLD, &s, prm.dt);
  CHECK_OK(sg_assemble_rigid(&s, &c, &prm, &u, &p, sub_of_body));
  CHECK_OK(sg_tree_add_joint_rows(&s, i, sub_of_body[i], prm.dt, prm.erp, &u, &p, &added));
  CHECK(p.n_sub == 1 && p.sub_dof[0] == 18 && c.n == 4 && added == 12);
  compare(&p, "standing quadruped", 1);
  add_coupling(&p);
  compare(&p, "with a contact coupling two legs", 0);
  sg_problem_destroy(&p);
  sg_contacts_destroy(&c);
  sg_broadphase_destroy(&bp);
  sg_scene_destroy(&s);
  return sim_finish();
}
