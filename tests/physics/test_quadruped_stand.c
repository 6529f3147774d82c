/* A quadruped stands (issue 16, shortened from 5 s to 1.5 s): the 18-velocity robot of `generate
 * quadruped` (a floating base and 12 revolute joints, one tree; box, capsule and sphere geoms on its
 * links) starts in its standing pose with its feet touching the ground and holds it under PD control
 * of every joint (kp 400 N m/rad, kd 8 N m s/rad; soft rows, paper 002 (4)), at 1/240 s. It first
 * sags by the PD error the load needs (each knee carries about m g / 4 x 0.25 sin 0.7 m = 7 N m,
 * 0.018 rad at kp 400: a few mm of height), then stands: after 0.5 s the base height drifts by less
 * than 1 mm (the bound), the feet penetrate the ground by less than 1 mm at every step, the
 * base stays within 1 cm of its starting height, and the ground carries the robot: the four feet
 * (and only they) touch it, and their normal impulses add up to M g dt within 0.1% over the last step
 * (static equilibrium, theta = 0; what is left is the settling's slow sway, 1e-4). The mean contact residual
 * (paper 002 Sec. VII) is reported. */
#include "sim_util.h"
#include "signorini/generate.h"
#include "signorini/tree.h"

typedef struct {
  const sg_tree *t;
  double z_settled, drift, pen, residual;
  long steps, unconverged;
} watch;

static void record(sg_stepper *st, const sg_scene *s, const sg_step_stats *stats, void *ctx) {
  (void)st;
  watch *w = ctx;
  const double z = w->t->q[2]; /* the base's height: its free joint's translation, world frame */
  if (s->state.time >= 0.5 - 1e-9 && isnan(w->z_settled)) w->z_settled = z;
  if (!isnan(w->z_settled)) w->drift = fmax(w->drift, fabs(z - w->z_settled));
  w->pen = fmax(w->pen, stats->max_penetration);
  w->residual += stats->contact_residual;
  w->steps++;
  w->unconverged += !stats->converged;
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  sim_ground_scene(&s, 2, 0.8);
  const sg_quadruped q = {.kp = 400, .kd = 8, .crouch = 0.7};
  int i;
  CHECK_OK(sg_quadruped_add(&s, &q, &i));
  s.next_gid = s.n;
  const sg_tree *t = sg_scene_tree_by_gid(&s, s.gid[i]);
  double M = 0;
  for (int l = 0; l < t->n_links; ++l) M += t->link[l].mass;
  const double z0 = t->q[2], dt = 1.0 / 240.0, g = 9.81;
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-8, 1000);
  sg_step_params prm = sim_params(dt, 0.01);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  watch w = {t, NAN, 0, 0, 0, 0, 0};
  CHECK(sim_run(st, &s, 360, record, &w) == 0);
  const sg_contacts *c = sg_stepper_contacts(st);
  const double *lam = sg_stepper_lambda(st);
  double carried = 0;
  int feet = 0, others = 0;
  for (int k = 0; k < c->n; ++k) {
    const int foot = c->c[k].link_b % 3 == 0 && c->c[k].link_b > 0; /* the calves: links 3, 6, 9, 12 */
    if (lam[3 * k] > 0) feet += foot, others += !foot;
    carried += (c->c[k].b == i ? -1.0 : 1.0) * lam[3 * k] * c->c[k].cp.normal[2]; /* the impulse on the robot, upward */
  }
  printf("base height %.6f m (started at %.6f), drift after 0.5 s %.3e m, largest penetration %.3e m\n", t->q[2], z0, w.drift, w.pen);
  printf("%d feet and %d other geoms pressed on the ground, normal impulses %.6e N s against M g dt %.6e (%.2e relative)\n", feet,
         others, carried, M * g * dt, fabs(carried - M * g * dt) / (M * g * dt));
  printf("mean contact residual %.2e, %ld of %ld steps stopped at the iteration limit\n", w.residual / (double)w.steps, w.unconverged,
         w.steps);
  CHECK(w.drift < 1e-3);
  CHECK(w.pen < 1e-3);
  CHECK(fabs(t->q[2] - z0) < 1e-2);
  CHECK(feet == 4 && others == 0);
  CHECK(fabs(carried - M * g * dt) < 1e-3 * M * g * dt);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return sim_finish();
}
