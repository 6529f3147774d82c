/* The factorization of a tree's SubADMM block H = A + beta sum J^T J (paper 002 (40)-(41)) with the
 * tree's sparsity (la.h, ltl_factor and ltl_solve) against the dense Cholesky (chol_factor,
 * chol_solve): H of the 18-velocity quadruped of `generate quadruped` (its mass matrix by the CRBA,
 * its unknowns' parents from the tree kind) plus beta J^T J of a contact on each foot (rows along
 * the path of that leg only). Prints ns per factorization + solve and per solve alone.
 * Run: build/bench/tree_factor [repeats, default 200000] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "signorini/body_kind.h"
#include "signorini/generate.h"
#include "signorini/la.h"
#include "signorini/tree.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* H = A + J^T J of a unit normal row at each foot (the calves' bob points), SI units. */
static int quadruped_block(int *parent, double *H) {
  sg_scene s;
  int i;
  const sg_quadruped q = {.kp = 400, .kd = 8, .crouch = 0.7};
  if (sg_scene_create(&s, 1, 1) || sg_quadruped_add(&s, &q, &i)) return -1;
  const sg_body_kind_ops *kind = sg_body_kind_of(&s, i);
  const sg_units si = sg_units_si();
  const int n = kind->dof(&s, i);
  double b[SG_TREE_MAX_DOF], J[3 * SG_TREE_MAX_DOF];
  kind->subsystem(&s, i, &si, 1.0 / 240.0, 0.0, H, b);
  kind->dof_parents(&s, i, parent);
  const sg_tree *t = sg_scene_tree_by_gid(&s, s.gid[i]);
  sg_tree_kin k;
  sg_tree_kinematics(t, t->q, &k);
  static const double frame[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
  for (int leg = 0; leg < 4; ++leg) {
    const int calf = 3 + 3 * leg;
    double foot[3], down[3] = {0, 0, -0.25};
    m3_mul_v(foot, k.R[calf], down);
    v3_add(foot, foot, k.x[calf]);
    kind->point_jacobian(&s, i, calf, foot, frame, 3, &si, 1.0, J);
    for (int a = 0; a < n; ++a)
      for (int c = 0; c < n; ++c)
        for (int r = 0; r < 3; ++r) H[a * n + c] += 100.0 * J[r * n + a] * J[r * n + c];
  }
  sg_scene_destroy(&s);
  return n;
}

int main(int argc, char **argv) {
  const long R = argc > 1 ? atol(argv[1]) : 200000;
  int parent[SG_TREE_MAX_DOF];
  double H[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF], L[SG_TREE_MAX_DOF * SG_TREE_MAX_DOF], b[SG_TREE_MAX_DOF], x[SG_TREE_MAX_DOF];
  const int n = quadruped_block(parent, H);
  if (n < 1) {
    fprintf(stderr, "tree_factor: cannot build the quadruped\n");
    return 1;
  }
  const size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  for (int k = 0; k < n; ++k) b[k] = 1.0 + k;
  double sink = 0, t[5];
  t[0] = now();
  for (long r = 0; r < R; ++r) { chol_factor(n, H, L); chol_solve(n, L, b, x); sink += x[r % n]; }
  t[1] = now();
  for (long r = 0; r < R; ++r) { chol_solve(n, L, b, x); sink += x[r % n]; }
  t[2] = now();
  for (long r = 0; r < R; ++r) { memcpy(L, H, bytes); ltl_factor(n, parent, L); memcpy(x, b, (size_t)n * sizeof *x); ltl_solve(n, parent, L, x); sink += x[r % n]; }
  t[3] = now();
  for (long r = 0; r < R; ++r) { memcpy(x, b, (size_t)n * sizeof *x); ltl_solve(n, parent, L, x); sink += x[r % n]; }
  t[4] = now();
  printf("quadruped block, %d unknowns, %ld repeats (checksum %.6g)\n", n, R, sink);
  printf("  dense Cholesky: factor + solve %7.0f ns, solve %7.0f ns\n", 1e9 * (t[1] - t[0]) / R, 1e9 * (t[2] - t[1]) / R);
  printf("  tree LTL:       factor + solve %7.0f ns, solve %7.0f ns\n", 1e9 * (t[3] - t[2]) / R, 1e9 * (t[4] - t[3]) / R);
  return 0;
}
