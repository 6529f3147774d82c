/* The arm of `generate arm` holds its tray level (issue 16): 7 revolute joints (z, y, z, y, z, y, z) on
 * a fixed base, PD control on every joint (kp 2000 N m/rad, kd 50 N m s/rad; soft rows, paper 002
 * (4)) holding the pose (0, 0.5, 0, -1, 0, 0.5, 0) rad, 1 s at 1/240 s. The joints carry the arm's
 * weight with the PD error it needs: the shoulder's gravity torque, 11 kg of links and tray at a
 * lever of about 0.1 m, about 11 N m, is 5.5 mrad at kp 2000, so every joint stays within 0.02 rad
 * of its target; the tray's pitch (the sum of the three pitch joints' angles, 0 in the held pose)
 * within 0.01 rad, and its top within 1 cm of sg_arm_tray_height. The arm touches nothing. */
#include "sim_util.h"
#include "signorini/generate.h"
#include "signorini/tree.h"

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 1));
  CHECK_OK(sg_add_ground(&s, 0));
  const sg_arm a = {.base = {0, 0, 0.5}, .kp = 2000, .kd = 50, .pitch = 0.5};
  int i;
  CHECK_OK(sg_arm_add(&s, &a, &i));
  s.next_gid = s.n;
  const sg_tree *t = sg_scene_tree_by_gid(&s, s.gid[i]);
  CHECK(t->nv == 7 && t->n_geoms == 7);
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-8, 1000);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.01);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK(sim_run(st, &s, 240, NULL, NULL) == 0);
  double worst = 0;
  for (int k = 0; k < 7; ++k) worst = fmax(worst, fabs(t->q[k] - t->link[k].pd[2]));
  const double pitch = t->q[1] + t->q[3] + t->q[5];
  sg_tree_kin kin;
  sg_tree_kinematics(t, t->q, &kin);
  double centre[3], R[9];
  sg_tree_geom_world(t, &kin, t->n_geoms - 1, centre, R); /* the tray, the last geom */
  const double top = centre[2] + t->geom[t->n_geoms - 1].size[2] * R[8];
  printf("q - target: largest %.3e rad; tray pitch %.3e rad; tray top %.5f m (held pose %.5f m); %d contacts\n", worst, pitch, top,
         sg_arm_tray_height(&a), sg_stepper_contacts(st)->n);
  CHECK(worst < 0.02);
  CHECK(fabs(pitch) < 0.01);
  CHECK(fabs(top - sg_arm_tray_height(&a)) < 0.01);
  CHECK(sg_stepper_contacts(st)->n == 0);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
