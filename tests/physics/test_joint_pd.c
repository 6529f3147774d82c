/* PD joint control (a soft row, paper 002 (4)): a pendulum (1 m, 1 kg) at rest hanging down is driven
 * by kp = 200 N m/rad, kd = 20 N m s/rad toward the horizontal, target pi/2, at 1/240 s and theta = 0.
 * At rest the PD torque kp (target - q) balances gravity's m g L sin q, so the steady angle q_s solves
 * kp (pi/2 - q_s) = m g L sin q_s and the steady error is m g L sin(q_s) / kp (about 0.049 rad). The
 * step's impulse dt (kp (target - q_k) - kd qdot) is exact at rest, so after 5 s (the damping ratio
 * kd / (2 sqrt(kp m L^2)) = 0.71 settles it within about half a second) the angle matches q_s to the
 * solver's tolerance, checked to 1e-6 rad; the error is also within 1e-6 of the prediction. */
#include "sim_util.h"
#include "signorini/generate.h"
#include "signorini/tree.h"

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  const double kp = 200, kd = 20, target = M_PI / 2, mgL = 9.81;
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 1, 1));
  sg_chain c = {.n = 1, .length = 1.0, .mass = 1.0, .radius = 0.02, .theta0 = 0, .pivot = {0, 0, 2},
                .limit = {-INFINITY, INFINITY}, .pd = {kp, kd, target}};
  int i = -1;
  CHECK_OK(sg_chain_add(&s, &c, &i));
  const sg_tree *t = sg_scene_tree_by_gid(&s, s.gid[i]);
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 200);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.01);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK(sim_run(st, &s, 1200, NULL, NULL) == 0);
  double qs = target; /* Newton on kp (target - q) - mgL sin q = 0 */
  for (int k = 0; k < 50; ++k) qs -= (kp * (target - qs) - mgL * sin(qs)) / (-kp - mgL * cos(qs));
  const double q = t->q[0], predicted = mgL * sin(qs) / kp;
  printf("PD toward %.6f rad: angle after 5 s %.9f rad (steady state %.9f), error %.6f rad (m g L sin q / kp = %.6f), rate %.2g rad/s\n",
         target, q, qs, target - q, predicted, t->v[0]);
  CHECK(fabs(q - qs) < 1e-6);
  CHECK(fabs((target - q) - predicted) < 1e-6);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
