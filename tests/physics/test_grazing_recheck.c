/* A sphere deflected past another within the step: the contacts of the solved motion (recheck.c).
 * Sphere A (r = 1 cm, no gravity) moves at 10 r / dt along +x towards a frictionless fixed plane at
 * 45 degrees, 2 r away, which turns it within the step: its solved velocity is v + lambda n with
 * n . v_new = -2 r / dt (the open gap closes exactly), so it moves by d = (6.41, 3.59, 0) r. Sphere
 * B, at rest, lies beside that path at the clearance c from A at the closest approach, and 3.9 r from
 * A's start-of-step path, beyond the start's contact search; the recheck's search meets the pair.
 * - Clear by half a margin: the exact least gap adds no solve, where the first-order gap along the
 *   start's centre line (gap + d . n0 = -3.8 r) would add one, and that contact, linearized there,
 *   would knock B away. Checked: no solve added, B still exactly at rest, A's velocity the exact one
 *   to 1e-6 relative (solver tolerance 1e-10; a compliant solver (SAP) is not checked on it).
 * - Overlapping by half a margin (beyond the recheck's tolerance of 0.1): one solve added, with the
 *   contact taken where A's solved path first touches B (-contact_meet_normal, sg_meet_spheres), so B,
 *   frictionless and touched by A only, leaves along that normal: its velocity within 1e-9 rad of
 *   -n_touch, at a grazing speed below 0.1 |v| (0.06 |v|). With the start's centre line as the
 *   normal (-contact_meet_normal 0) B leaves 53 degrees off it at 0.2 |v|. */
#include "sim_util.h"

typedef struct {
  int resolves;
  double va[3], vb[3], v_new[3], n_touch[3]; /* after the step; A's solved velocity off the plane; the normal at the touch */
} grazing_result;

/* The touch of A's path x_a + t d with B (|x_a + t d - x_b| = 2r, the first root) and its normal. */
static void first_touch(const double *b, const double *d, double radii, double *n) {
  const double p[3] = {-b[0], -b[1], -b[2]}, pd = v3_dot(p, d), dd = v3_dot(d, d), c0 = v3_dot(p, p) - radii * radii;
  const double t = (-pd - sqrt(pd * pd - dd * c0)) / dd;
  for (int k = 0; k < 3; ++k) n[k] = p[k] + t * d[k];
  v3_normalize(n);
}

static grazing_result deflect_past(double clearance) {
  const double r = 0.01, margin = 0.1 * r, dt = 1.0 / 240.0, gap_plane = 2 * r, speed = 10 * r / dt;
  const double s2 = sqrt(0.5), n[3] = {-s2, s2, 0}, size[3] = {r, 0, 0}, zero[3] = {0, 0, 0};
  /* the plane's local z axis turned onto n: a quarter turn about (-1, -1, 0) / sqrt(2) */
  const double plane_quat[4] = {s2, -0.5, -0.5, 0}, plane_point[3] = {-(r + gap_plane) * n[0], -(r + gap_plane) * n[1], 0};
  grazing_result res;
  /* A's solved velocity and displacement, and B beside the displacement's 0.6 point */
  const double lambda = speed * s2 - gap_plane / dt;
  const double v_new[3] = {speed + lambda * n[0], lambda * n[1], 0};
  double d[3], b[3], across[3] = {-v_new[1], v_new[0], 0};
  v3_scale(d, v_new, dt);
  v3_normalize(across);
  for (int k = 0; k < 3; ++k) b[k] = 0.6 * d[k] + (2 * r + clearance * margin) * across[k];
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 3, 1));
  s.friction[0] = 0;
  s.gravity[2] = 0;
  const double vel_a[6] = {speed, 0, 0, 0, 0, 0};
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_PLANE, zero, 0, 1, 0, plane_point, plane_quat, NULL, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, zero, NULL, vel_a, NULL));
  CHECK_OK(sg_scene_add_body(&s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, b, NULL, NULL, NULL));
  CHECK_OK(sg_scene_update_mass(&s));
  CHECK(b[1] > 2 * r + margin + 1.5 * r); /* beyond the start's search along +x */
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-10, 2000);
  sg_step_params prm = sim_params(dt, margin);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  sg_step_stats stats;
  CHECK_OK(sg_stepper_step(st, &stats));
  res.resolves = stats.resolves;
  memcpy(res.va, s.state.vel + 6, sizeof res.va);
  memcpy(res.vb, s.state.vel + 12, sizeof res.vb);
  memcpy(res.v_new, v_new, sizeof res.v_new);
  first_touch(b, d, 2 * r, res.n_touch);
  sg_stepper_destroy(&st);
  sg_solver_destroy(&solver);
  sg_scene_destroy(&s);
  return res;
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  grazing_result clear = deflect_past(0.5);
  double err[3];
  v3_sub(err, clear.va, clear.v_new);
  printf("clear by 0.5 margin: solves added %d; B's speed %.3e m/s; A's velocity error %.3e relative\n", clear.resolves,
         v3_norm(clear.vb), v3_norm(err) / v3_norm(clear.v_new));
  CHECK(clear.resolves == 0);
  CHECK(clear.vb[0] == 0 && clear.vb[1] == 0 && clear.vb[2] == 0);
  if (!sim_solver_is_compliant(sim_solver_name())) CHECK(v3_norm(err) <= 1e-6 * v3_norm(clear.v_new));

  grazing_result hit = deflect_past(-0.5);
  double cross[3];
  v3_cross(cross, hit.vb, hit.n_touch);
  const double off_normal = atan2(v3_norm(cross), -v3_dot(hit.vb, hit.n_touch));
  printf("overlapping by 0.5 margin: solves added %d; B leaves at %.3e m/s, %.3e rad off -n_touch\n", hit.resolves,
         v3_norm(hit.vb), off_normal);
  CHECK(hit.resolves == 1);
  CHECK(v3_norm(hit.vb) > 0 && v3_norm(hit.vb) < 0.1 * v3_norm(hit.v_new));
  /* SAP's first solve moves A by 9e-4 relative off v_new (its compliance), which turns the touch */
  CHECK(off_normal <= (sim_solver_is_compliant(sim_solver_name()) ? 0.02 : 1e-9));
  return sim_finish();
}
