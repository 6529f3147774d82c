/* A chain hanging from a fixed point and touching the ground (issue 16): three 0.5 m links on
 * spherical joints, a 1 kg bob at the end of each carrying a sphere geom of 5 cm (tree.h,
 * sg_link_geom), turned out of any plane (below) so that the second and third bobs rest on the ground
 * plane (gap 0). The step's problem from rest (dt = 1/240 s, mu = 1) has one 9-velocity tree
 * subsystem and the two contacts on links 1 and 2, each a dense block from the link's point
 * Jacobian (paper 002 (29)-(31), J_ij = J_{i,b} J_{b,j}). Their 6 rows are independent in the 9
 * velocities (checked), so the impulses are unique (a chain in one vertical plane would not do: its
 * torques about the joints leave a pair of opposite in-plane forces at the two contacts free), and
 * SubADMM, CANAL, SAP and NSN, each run from zero to a tight tolerance, must give them within 1e-6
 * relative, the measure of unit/test_solver_agreement: ||lambda_a - lambda_b|| / max of the norms.
 * SAP solves a regularized model (R <= 2.5e-8 w_i with -sap_beta 1e-3 -sap_sigma 2.5e-8), which is
 * the hard-contact problem's when no active contact slides: the test checks that both contacts
 * stick (tangential velocity below 1e-9 of the bobs' free fall dt g) and carry weight. */
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/generate.h"
#include "signorini/la.h"
#include "signorini/tree.h"
#include "sim_util.h"

#define N_SOLVERS 4
static const char *const solvers[N_SOLVERS] = {"subadmm", "canal", "sap", "nsn"};

static double norm2(int n, const double *x) {
  double s = 0;
  for (int k = 0; k < n; ++k) s += x[k] * x[k];
  return sqrt(s);
}

/* The chain and the ground: the first joint turned 30 degrees about y, the second 60 degrees about
 * x, the third about x by the angle that lays the last link flat; the pivot at the height that puts
 * the second bob on the ground (the third then too). */
static void build(sg_scene *s) {
  const double L = 0.5, r = 0.05, x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, zero[3] = {0, 0, 0};
  CHECK_OK(sg_scene_create(s, 2, 1));
  s->friction[0] = 1.0;
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, SG_FIXED, 0.0, zero, NULL, NULL, NULL));
  sg_chain c = {.n = 3, .spherical = 1, .length = L, .mass = 1.0, .radius = r, .geom = SG_CHAIN_GEOM_SPHERE};
  int i;
  CHECK_OK(sg_chain_add(s, &c, &i));
  sg_tree *t = sg_scene_tree_by_gid(s, s->gid[i]);
  quat_from_axis_angle(t->q + t->link[0].q_off, y, M_PI / 6);
  quat_from_axis_angle(t->q + t->link[1].q_off, x, M_PI / 3);
  sg_tree_kin k;
  sg_tree_kinematics(t, t->q, &k);
  /* the last link's direction R_1 R_x(g) (0, 0, -1) = R_1 (0, sin g, -cos g) is level when
   * R_1[2][1] sin g = R_1[2][2] cos g */
  quat_from_axis_angle(t->q + t->link[2].q_off, x, atan2(k.R[1][8], k.R[1][7]));
  sg_tree_kinematics(t, t->q, &k);
  t->link[0].pos[2] = r - k.x[2][2]; /* the second bob (link 2's joint) at z = r */
  sg_tree_update_row(s, i, t);
  s->next_gid = s->n;
}

/* The contacts' rows are independent: the Cholesky pivots of J J^T (6 x 6) all above 1e-5 of its
 * largest diagonal entry (a dependent row gives a pivot of round-off size, 1e-16 of it). The
 * smallest is of the order (r / L)^2 = 1e-2 of the others times a geometric factor: the second
 * bob's sphere is centred on the last link's joint, so with r = 0 two opposite forces along the last
 * link at its two ends would meet no joint torque (dependent rows); the radius r is their lever. */
static void check_rank(const sg_problem *p) {
  const int nv = sg_problem_n_v(p), nr = sg_problem_n_rows(p);
  double G[36] = {0}, Lf[36], dmax = 0, pmin = INFINITY, buf[2][SG_COMPACT_BLOCK];
  CHECK(nr == 6);
  if (nr != 6) return;
  const double *J[2] = {sg_problem_pair_block(p, 0, p->con_pair[0], buf[0]), sg_problem_pair_block(p, 1, p->con_pair[1], buf[1])};
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b)
      for (int c = 0; c < nv; ++c) G[6 * a + b] += J[a / 3][(a % 3) * nv + c] * J[b / 3][(b % 3) * nv + c];
  CHECK_OK(chol_factor(6, G, Lf));
  for (int a = 0; a < 6; ++a) dmax = fmax(dmax, G[7 * a]), pmin = fmin(pmin, Lf[7 * a] * Lf[7 * a]);
  printf("rows of the two contacts: smallest Cholesky pivot of J J^T / largest diagonal = %.3f\n", pmin / dmax);
  CHECK(pmin > 1e-5 * dmax);
}

/* Both contacts stick: J_t v ~ 0 at the solution; and push: lambda_n > 0. */
static void check_sticking(const sg_problem *p, const double *v, const double *lam, double dv) {
  double u[6];
  sg_problem_apply_J(p, v, u);
  for (int i = 0; i < p->n_con; ++i) {
    const double *w = u + 3 * i, *l = lam + 3 * i;
    printf("  contact %d: lambda (%.6e, %.3e, %.3e), tangential velocity %.2e (units of the problem)\n", i, l[0], l[1], l[2],
           hypot(w[1], w[2]));
    CHECK(l[0] > 0);
    CHECK(hypot(w[1], w[2]) < 1e-9 * dv);
  }
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  PetscOptionsSetValue(NULL, "-sap_beta", "1e-3");
  PetscOptionsSetValue(NULL, "-sap_sigma", "2.5e-8");
  PetscOptionsSetValue(NULL, "-sap_ksp_type", "preonly");
  PetscOptionsSetValue(NULL, "-sap_pc_type", "cholesky");
  sg_scene s;
  build(&s);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.01);
  sg_broadphase bp;
  sg_contacts c;
  memset(&bp, 0, sizeof bp);
  memset(&c, 0, sizeof c);
  CHECK_OK(sg_find_contacts(&s, prm.margin, prm.dt, &bp, &c));
  CHECK(c.n == 2);
  for (int k = 0; k < c.n; ++k) printf("contact %d: link %d of the tree on the ground, gap %.2e m\n", k, c.c[k].link_b, c.c[k].cp.gap);
  CHECK(c.n == 2 && c.c[0].link_b == 1 && c.c[1].link_b == 2);
  sg_problem p = {0};
  int sub_of_body[2];
  sg_units u = sg_rigid_units(PETSC_COMM_WORLD, &s, prm.dt);
  CHECK_OK(sg_assemble_rigid(&s, &c, &prm, &u, &p, sub_of_body));
  CHECK(p.n_sub == 1 && p.sub_dof[0] == 9 && p.n_con == 2);
  CHECK(p.n_con == 2 && sg_problem_pair_anchor(&p, 0) >= 0 && sg_problem_pair_anchor(&p, 1) >= 0); /* compact tree pairs (40)-(41) */
  check_rank(&p);
  const int nv = sg_problem_n_v(&p), nr = sg_problem_n_rows(&p);
  double *lam[N_SOLVERS], *v[N_SOLVERS];
  for (int a = 0; a < N_SOLVERS; ++a) {
    lam[a] = calloc((size_t)nr, sizeof(double));
    v[a] = calloc((size_t)nv, sizeof(double));
    sg_solve_info info = {0};
    sg_solver *sv = sim_solver(solvers[a], sim_solver_is_compliant(solvers[a]) ? 1e-7 : 1e-10, 1000000);
    CHECK_OK(sg_solver_solve(sv, &p, v[a], lam[a], &info));
    double res;
    CHECK_OK(sg_contact_residual(&p, lam[a], &res));
    printf("%-8s %6d iterations, converged %d, residual (paper 002 Sec. VII) %.2e\n", solvers[a], info.iterations, info.converged,
           res);
    CHECK(info.converged);
    sg_solver_destroy(&sv);
  }
  check_sticking(&p, v[0], lam[0], 9.81 * prm.dt / sg_units_velocity(&u));
  for (int a = 0; a < N_SOLVERS; ++a)
    for (int b = a + 1; b < N_SOLVERS; ++b) {
      double d[6];
      for (int k = 0; k < nr; ++k) d[k] = lam[a][k] - lam[b][k];
      const double rel = norm2(nr, d) / fmax(norm2(nr, lam[a]), norm2(nr, lam[b]));
      printf("%-8s vs %-8s ||dlambda|| / ||lambda|| = %.2e\n", solvers[a], solvers[b], rel);
      CHECK(rel < 1e-6);
    }
  for (int a = 0; a < N_SOLVERS; ++a) { free(lam[a]); free(v[a]); }
  sg_problem_destroy(&p);
  sg_contacts_destroy(&c);
  sg_broadphase_destroy(&bp);
  sg_scene_destroy(&s);
  return sim_finish();
}
