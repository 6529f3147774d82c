/* The shared Newton backend (newton.h) on 1-3 ranks:
 *  - H = A + sum_i J_i^T G_i J_i assembled as a distributed PETSc matrix equals the same matrix built
 *    densely here, entry for entry (1e-13 relative: only the summation order differs);
 *  - sg_newton_solve returns x with ||H x - r|| / ||r|| below the KSP tolerance (1e-12 requested,
 *    checked at 1e-10) on every rank, in the problem's ordering, whatever the owners;
 *  - rtsafe finds the root of x^3 - 2 and of a piecewise-smooth monotone line-search derivative to
 *    machine precision (4 ulp). */
#include <petscksp.h>
#include <string.h>
#include "signorini/newton.h"
#include "test_util.h"

static double cube_minus_two(double x, double *df, void *ctx) {
  (void)ctx;
  *df = 3 * x * x;
  return x * x * x - 2;
}

/* derivative of 1/2 a^2 - 0.3 a + 1/3 max(0, a - 0.5)^3: continuous, kinked curvature at 0.5 */
static double kinked(double a, double *df, void *ctx) {
  (void)ctx;
  double t = a > 0.5 ? a - 0.5 : 0;
  *df = 1 + 2 * t;
  return a - 0.3 + t * t - 0.45;
}

static void check_rtsafe(void) {
  double x = 0;
  CHECK_OK(sg_rtsafe(cube_minus_two, NULL, 0, 2, 1e-16, 100, &x));
  double exact = cbrt(2.0);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!rank) printf("rtsafe: x^3 = 2 -> %.17g (error %.2e)\n", x, fabs(x - exact));
  CHECK_NEAR(x, exact, 4 * 2.2e-16 * exact);
  CHECK_OK(sg_rtsafe(kinked, NULL, 0, 4, 1e-16, 100, &x));
  /* a - 0.75 + (a - 0.5)^2 = 0 for a > 0.5: a = (-(0) ... ) solve t^2 + t - 0.25 = 0, t = (-1 + sqrt 2)/2 */
  double t = 0.5 * (-1 + sqrt(2.0)), ex2 = 0.5 + t;
  if (!rank) printf("rtsafe: kinked -> %.17g (error %.2e)\n", x, fabs(x - ex2));
  CHECK_NEAR(x, ex2, 4 * 2.2e-16 * ex2);
  CHECK(sg_rtsafe(kinked, NULL, 0, 0.1, 1e-16, 100, &x) != SG_OK); /* no sign change: refused */
}

/* random problem: 7 subsystems (one with 9 unknowns), contacts and scalar rows between random pairs */
static void build(sg_problem *p, unsigned long long *seed, int size) {
  int dofs[7] = {6, 6, 9, 6, 6, 6, 6};
  for (int j = 0; j < 7; ++j) {
    int d = dofs[j];
    double B[81], A[81], b[9];
    for (int k = 0; k < d * d; ++k) B[k] = sg_test_rand(seed, -1, 1);
    for (int r = 0; r < d; ++r)
      for (int c = 0; c < d; ++c) {
        double s = r == c ? d : 0;
        for (int k = 0; k < d; ++k) s += B[r * d + k] * B[c * d + k];
        A[r * d + c] = s;
      }
    for (int r = 0; r < d; ++r) b[r] = sg_test_rand(seed, -1, 1);
    CHECK_OK(sg_problem_add_subsystem(p, d, A, b, j, NULL));
  }
  for (int i = 0; i < 9; ++i) {
    int kind = i % 3 == 2 ? SG_CON_HARD : SG_CON_CONTACT, rows = sg_con_rows(kind);
    int a = (int)sg_test_rand(seed, 0, 7), b = (a + 1 + (int)sg_test_rand(seed, 0, 6)) % 7;
    int subs[2] = {a, b}, npair = i % 4 == 3 ? 1 : 2;
    double Ja[27], Jb[27], e[3] = {0.01, 0, 0};
    for (int k = 0; k < rows * dofs[a]; ++k) Ja[k] = sg_test_rand(seed, -1, 1);
    for (int k = 0; k < rows * dofs[b]; ++k) Jb[k] = sg_test_rand(seed, -1, 1);
    const double *Js[2] = {Ja, Jb};
    CHECK_OK(sg_problem_add_constraint(p, kind, e, 0.5, 0, 0, npair, subs, Js, NULL));
  }
  int owner[7];
  for (int j = 0; j < 7; ++j) owner[j] = (3 * j + 1) % size; /* interleaved: rows not in problem order */
  CHECK_OK(sg_problem_set_owners(p, owner));
}

static void check_backend(void) {
  int rank, size;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  unsigned long long seed = 0x9e3779b97f4a7c15ULL;
  sg_problem p = {0};
  build(&p, &seed, size);
  int n = sg_problem_n_v(&p), nrow = sg_problem_n_rows(&p);
  double *G = calloc((size_t)SG_NEWTON_GSTRIDE * p.n_con, sizeof(double));
  for (int i = 0; i < p.n_con; ++i) {
    int r = sg_con_rows(p.kind[i]);
    double B[9];
    for (int k = 0; k < r * r; ++k) B[k] = sg_test_rand(&seed, -1, 1);
    for (int a = 0; a < r; ++a)
      for (int c = 0; c < r; ++c) {
        double s = 0;
        for (int k = 0; k < r; ++k) s += B[a * r + k] * B[c * r + k];
        G[SG_NEWTON_GSTRIDE * i + a * r + c] = s;
      }
  }
  /* dense reference H = A + J^T G J through the problem's own J products, column by column */
  double *H = calloc((size_t)n * n, sizeof(double)), *ej = calloc((size_t)n, sizeof(double));
  double *Jx = calloc((size_t)nrow, sizeof(double)), *GJx = calloc((size_t)nrow, sizeof(double));
  for (int c = 0; c < n; ++c) {
    memset(ej, 0, (size_t)n * sizeof(double));
    ej[c] = 1;
    sg_problem_apply_J(&p, ej, Jx);
    for (int i = 0; i < p.n_con; ++i) {
      int r = sg_con_rows(p.kind[i]), o = p.con_row[i];
      for (int a = 0; a < r; ++a) {
        double s = 0;
        for (int k = 0; k < r; ++k) s += G[SG_NEWTON_GSTRIDE * i + a * r + k] * Jx[o + k];
        GJx[o + a] = s;
      }
    }
    memset(ej, 0, (size_t)n * sizeof(double));
    sg_problem_apply_JT_add(&p, GJx, ej);
    for (int r = 0; r < n; ++r) H[r * n + c] = ej[r];
  }
  for (int j = 0; j < p.n_sub; ++j)
    for (int r = 0; r < p.sub_dof[j]; ++r)
      for (int c = 0; c < p.sub_dof[j]; ++c)
        H[(p.sub_off[j] + r) * n + p.sub_off[j] + c] += p.A[p.sub_aoff[j] + r * p.sub_dof[j] + c];

  PetscOptionsSetValue(NULL, "-test_ksp_rtol", "1e-13");
  sg_newton_sys ns;
  CHECK_OK(sg_newton_init(&ns, PETSC_COMM_WORLD, "test_", KSPCG, PCBJACOBI, PCICC));
  CHECK_OK(sg_newton_setup(&ns, &p));
  CHECK_OK(sg_newton_assemble(&ns, &p, G));
  /* compare every owned entry */
  double worst = 0, hmax = 0;
  for (int j = 0; j < p.n_sub; ++j) {
    if (sg_newton_owner(&p, j) != rank) continue;
    for (int r = 0; r < p.sub_dof[j]; ++r)
      for (int k = 0; k < p.n_sub; ++k)
        for (int c = 0; c < p.sub_dof[k]; ++c) {
          PetscInt gr = ns.gofs[j] + r, gc = ns.gofs[k] + c;
          PetscScalar val = 0;
          MatGetValues(ns.H, 1, &gr, 1, &gc, &val);
          double ref = H[(p.sub_off[j] + r) * n + p.sub_off[k] + c];
          worst = fmax(worst, fabs(val - ref));
          hmax = fmax(hmax, fabs(ref));
        }
  }
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  if (!rank) printf("%d ranks: assembled H vs dense reference, max |diff| %.2e (max |H| %.2e)\n", size, worst, hmax);
  CHECK(worst <= 1e-13 * hmax);

  double *rhs = calloc((size_t)n, sizeof(double)), *x = calloc((size_t)n, sizeof(double));
  for (int k = 0; k < n; ++k) rhs[k] = sin(1.0 + k);
  int its = 0;
  CHECK_OK(sg_newton_solve(&ns, &p, rhs, x, &its));
  double res = 0, rn = 0;
  for (int r = 0; r < n; ++r) {
    double s = -rhs[r];
    for (int c = 0; c < n; ++c) s += H[r * n + c] * x[c];
    res += s * s;
    rn += rhs[r] * rhs[r];
  }
  res = sqrt(res / rn);
  double rmax = res;
  MPI_Allreduce(MPI_IN_PLACE, &rmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  if (!rank) printf("%d ranks: KSP %d iterations, ||H x - r|| / ||r|| = %.2e (worst rank)\n", size, its, rmax);
  CHECK(rmax <= 1e-10);
  sg_newton_destroy(&ns);
  free(rhs); free(x); free(H); free(ej); free(Jx); free(GJx); free(G);
  sg_problem_destroy(&p);
}

int main(int argc, char **argv) {
  PetscInitialize(&argc, &argv, NULL, NULL);
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  check_rtsafe();
  check_backend();
  int local = sg_test_failures, total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD);
  sg_test_failures = total;
  int rc = sg_test_exit();
  PetscPopErrorHandler();
  PetscFinalize();
  return rc;
}
