/* A sphere on a tessellated plane (a triangle mesh, 6 x 6 squares cut along alternating
 * diagonals) behaves as on a plane:
 * - at rest on a face, on an edge and on a vertex where 8 triangles meet: one contact, a normal
 *   impulse of m g dt per step (1e-6 relative, the test_sphere_rest figure), no creep;
 * - rolling across edges and vertices (launched rolling at 1 m/s along a line that crosses both),
 *   it follows the same trajectory as on the analytic plane, to 1e-9 m, without a jump (its
 *   height stays within 1e-9 m, SAP's within its resting sink). */
#include "../unit/mesh_test_util.h"
#include "sim_util.h"

static sg_stepper *setup(sg_scene *s, int mesh, const double *pos, const double *vel, sg_solver *solver) {
  CHECK_OK(sg_scene_create(s, 2, 1));
  s->friction[0] = 0.5;
  const double zero[3] = {0, 0, 0}, size[3] = {0.05, 0, 0};
  if (mesh) {
    sg_mesh *m = mesh_tessellated_square(6, 0.1);
    int index;
    CHECK_OK(sg_scene_add_mesh(s, m, &index));
    sg_mesh_release(&m);
    const double ms[3] = {index, 0, 0};
    CHECK_OK(sg_scene_add_body(s, SG_SHAPE_MESH, ms, 0, 1, 0, zero, NULL, NULL, NULL));
  } else {
    CHECK_OK(sg_scene_add_body(s, SG_SHAPE_PLANE, zero, 0, 1, 0, zero, NULL, NULL, NULL));
  }
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size, 0, 0, 1000.0, pos, NULL, vel, NULL));
  CHECK_OK(sg_scene_validate(s, "test"));
  CHECK_OK(sg_scene_update_mass(s));
  sg_step_params prm = sim_params(1.0 / 240.0, 0.01);
  sg_stepper *st;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, s, &prm, solver, &st));
  return st;
}

static void test_rest(sg_solver *solver) {
  const double at[3][3] = {{0.031, 0.017, 0.05}, {0.05, 0.0, 0.05}, {0.1, 0.1, 0.05}}; /* face, edge, vertex */
  const char *where[3] = {"face", "edge", "vertex"};
  for (int k = 0; k < 3; ++k) {
    sg_scene s;
    sg_stepper *st = setup(&s, 1, at[k], NULL, solver);
    const double m = s.mass[1], dt = 1.0 / 240.0;
    double worst = 0;
    int settle = sim_solver_is_compliant(sim_solver_name()) ? 24 : 0, contacts_ok = 1;
    for (int step = 0; step < 120; ++step) {
      sg_step_stats stats;
      CHECK_OK(sg_stepper_step(st, &stats));
      contacts_ok &= sg_stepper_contacts(st)->n == 1;
      if (step >= settle) worst = fmax(worst, fabs(sg_stepper_lambda(st)[0] - m * 9.81 * dt) / (m * 9.81 * dt));
    }
    printf("rest on a %s: impulse error %.3e, position (%.12f, %.12f, %.12f)\n", where[k], worst, s.state.pos[3], s.state.pos[4],
           s.state.pos[5]);
    CHECK(contacts_ok);
    CHECK(worst <= 1e-6);
    CHECK_NEAR(s.state.pos[3], at[k][0], 1e-9);
    CHECK_NEAR(s.state.pos[4], at[k][1], 1e-9);
    sg_stepper_destroy(&st);
    sg_scene_destroy(&s);
  }
}

static void test_roll(sg_solver *solver) {
  /* rolling without slip along (1, 1) / sqrt 2 from (-0.2, -0.2): through vertices and along edges */
  const double v = 1.0 / sqrt(2.0), w = v / 0.05, pos[3] = {-0.2, -0.2001, 0.05}, vel[6] = {v, v, 0, -w, w, 0};
  sg_scene plane, mesh;
  sg_stepper *a = setup(&plane, 0, pos, vel, solver), *b = setup(&mesh, 1, pos, vel, solver);
  double worst = 0, worst_z = 0;
  for (int step = 0; step < 96; ++step) { /* 0.4 s: 0.4 m along the diagonal, inside the mesh */
    sg_step_stats sa, sb;
    CHECK_OK(sg_stepper_step(a, &sa));
    CHECK_OK(sg_stepper_step(b, &sb));
    double d[3];
    v3_sub(d, plane.state.pos + 3, mesh.state.pos + 3);
    worst = fmax(worst, v3_norm(d));
    worst_z = fmax(worst_z, fabs(mesh.state.pos[5] - 0.05));
  }
  printf("rolling: largest distance from the plane's trajectory %.3e m, largest height change %.3e m, at (%.4f, %.4f)\n", worst,
         worst_z, mesh.state.pos[3], mesh.state.pos[4]);
  CHECK(worst <= 1e-9);
  /* SAP's compliant contact sinks by its resting penetration (test_sphere_rest: below 1e-4 r) */
  CHECK(worst_z <= (sim_solver_is_compliant(sim_solver_name()) ? 1e-4 * 0.05 : 1e-9));
  CHECK(mesh.state.pos[3] > 0.05); /* it crossed the middle vertex */
  sg_stepper_destroy(&a);
  sg_stepper_destroy(&b);
  sg_scene_destroy(&plane);
  sg_scene_destroy(&mesh);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_solver *solver = sim_solver(sim_solver_name(), 1e-12, 1000);
  test_rest(solver);
  test_roll(solver);
  sg_solver_destroy(&solver);
  return sim_finish();
}
