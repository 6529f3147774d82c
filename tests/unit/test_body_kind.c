/* The body-kind interface (body_kind.h) and its rigid-6 kind, on a box turned off its principal
 * axes, in problem units unlike SI (mass 0.37 kg, length 0.05 m, dt 1/240 s):
 *  - the registry: rigid6 and tree by id and name, unknown ids and names refused, the widest kind
 *    a tree's SG_TREE_MAX_DOF wide, a scene of rigid bodies alone 6 wide (sg_scene_max_dof);
 *  - a body's kind is kept by sg_scene_copy_body and sg_scene_remove_bodies, refused when unknown
 *    by sg_scene_validate;
 *  - the subsystem of paper 002 (8) at theta = 0: A symmetric (to 1e-15 of an angular diagonal
 *    entry: R diag(I) R^T), SPD (Cholesky), diag(m) / M on the linear block and I_world / (M L^2)
 *    on the angular one (1e-14 relative), b = A v_k + m g dt / (M V) (1e-13 relative);
 *  - the point Jacobian: J v = the velocity v + w x r of the material point along the frame's rows,
 *    in units of velocity (1e-12 relative);
 *  - integration of a free body (no contact: vhat = v_k) with theta = 0 and 0.5 moves its centre
 *    by dt v and keeps v (1e-15 relative); theta = 1 is excluded by the 1 / (1 - theta) of A;
 *  - the migration record round-trips every field bit for bit, alone (pack/unpack) and through
 *    sg_bodies_exchange to this rank;
 *  - the partition weight: 6 + 1 per contact. */
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/exchange.h"
#include "signorini/signorini.h"
#include "test_util.h"

static const sg_units units = {0.37, 0.05, 1.0 / 240.0};

/* A box turned about a skew axis, moving and spinning, gid 41. */
static int add_box(sg_scene *s) {
  const double size[3] = {0.1, 0.04, 0.07}, pos[3] = {0.3, -0.2, 1.1}, vel[6] = {0.4, -1.3, 2.2, 3.0, -0.7, 1.9};
  const double axis[3] = {0.48, 0.6, 0.64};
  double q[4];
  quat_from_axis_angle(q, axis, 0.9);
  int i;
  CHECK_OK(sg_scene_add_body(s, SG_SHAPE_BOX, size, 1, 0, 780.0, pos, q, vel, &i));
  CHECK_OK(sg_body_update_mass(s, i));
  s->gid[i] = 41;
  return i;
}

static void test_registry(void) {
  CHECK(sg_body_kind_get(SG_BODY_RIGID6) == &sg_body_rigid6_ops);
  CHECK(sg_body_kind_find("rigid6") == SG_BODY_RIGID6);
  CHECK(sg_body_kind_get(SG_BODY_TREE) == &sg_body_tree_ops);
  CHECK(sg_body_kind_find("tree") == SG_BODY_TREE);
  CHECK(sg_body_kind_find("fem") == -1);
  CHECK(sg_body_kind_get(-1) == NULL && sg_body_kind_get(SG_BODY_KIND_COUNT) == NULL);
  CHECK(sg_body_max_dof() == SG_TREE_MAX_DOF);
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 1, 1));
  CHECK(sg_scene_max_dof(&s) == 6);
  sg_scene_destroy(&s);
}

static void test_scene_keeps_kind(void) {
  sg_scene s, t;
  CHECK_OK(sg_scene_create(&s, 2, 2));
  CHECK_OK(sg_scene_create(&t, 2, 2));
  const int a = add_box(&s);
  add_box(&s);
  const int c = add_box(&s);
  CHECK(s.kind[a] == SG_BODY_RIGID6);
  s.kind[c] = 7; /* an id no kind has: the plumbing carries it whatever it is */
  CHECK_OK(sg_scene_copy_body(&t, &s, c));
  CHECK(t.kind[0] == 7);
  const unsigned char drop[3] = {0, 1, 0};
  sg_scene_remove_bodies(&s, drop);
  CHECK(s.n == 2 && s.kind[0] == SG_BODY_RIGID6 && s.kind[1] == 7);
  CHECK(sg_scene_validate(&s, "test") == SG_ERR_FORMAT);
  s.kind[1] = SG_BODY_RIGID6;
  CHECK_OK(sg_scene_validate(&s, "test"));
  sg_scene_destroy(&s);
  sg_scene_destroy(&t);
}

static void test_subsystem(const sg_scene *s, int i) {
  const sg_body_kind_ops *k = sg_body_kind_of(s, i);
  CHECK(k->dof(s, i) == 6);
  double A[36], b[6], L[36], R[9], Iw[9], v[6];
  k->subsystem(s, i, &units, units.time, 0.0, A, b);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) CHECK_NEAR(A[6 * r + c], A[6 * c + r], 1e-15 * A[35]);
  CHECK_OK(chol_factor(6, A, L));
  quat_to_mat(R, s->state.quat + 4 * i);
  inertia_world(Iw, R, s->inertia + 3 * i);
  const double m = s->mass[i] / units.mass, iu = units.mass * units.length * units.length;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      CHECK_NEAR(A[6 * r + c], r == c ? m : 0.0, 1e-14 * m);
      CHECK(A[6 * r + 3 + c] == 0 && A[6 * (3 + r) + c] == 0);
      CHECK_NEAR(A[6 * (3 + r) + 3 + c], Iw[3 * r + c] / iu, 1e-14 * s->inertia[3 * i] / iu);
    }
  k->velocity_in_units(s, i, &units, v);
  const double V = sg_units_velocity(&units);
  for (int r = 0; r < 6; ++r) {
    double Av = 0;
    for (int c = 0; c < 6; ++c) Av += A[6 * r + c] * v[c];
    const double g = r < 3 ? m * s->gravity[r] * units.time / V : 0.0;
    CHECK_NEAR(b[r], Av + g, 1e-13 * (fabs(Av) + fabs(g)));
  }
  printf("subsystem: m %.6g (units), A diagonal %.6g %.6g %.6g %.6g %.6g %.6g, SPD\n", m, A[0], A[7], A[14], A[21],
         A[28], A[35]);
}

static void test_point_jacobian(const sg_scene *s, int i) {
  const sg_body_kind_ops *k = sg_body_kind_of(s, i);
  const double point[3] = {0.36, -0.17, 1.05}, normal[3] = {0.2, -0.3, 0.932737905308882};
  const double *vel = s->state.vel + 6 * i;
  double frame[9], J[18], v[6], u_point[3];
  v3_copy(frame, normal);
  v3_normalize(frame);
  sg_contact_frame(frame, frame + 3, frame + 6);
  k->velocity_in_units(s, i, &units, v);
  rigid_point_velocity(u_point, vel, s->state.pos + 3 * i, point);
  for (double sign = -1; sign <= 1; sign += 2) {
    k->point_jacobian(s, i, 0, point, frame, 3, &units, sign, J);
    for (int r = 0; r < 3; ++r) {
      double Jv = 0;
      for (int c = 0; c < 6; ++c) Jv += J[6 * r + c] * v[c];
      const double want = sign * v3_dot(frame + 3 * r, u_point) / sg_units_velocity(&units);
      CHECK_NEAR(Jv, want, 1e-12 * v3_norm(u_point) / sg_units_velocity(&units));
    }
  }
  printf("point Jacobian: J v = velocity of the point along n, t1, t2 (both signs)\n");
}

static void test_integrate_free(const sg_scene *s0, int i) {
  const double dt = 1.0 / 240.0, thetas[2] = {0.0, 0.5};
  for (int t = 0; t < 2; ++t) {
    sg_scene s;
    CHECK_OK(sg_scene_create(&s, 1, 2));
    CHECK_OK(sg_scene_copy_body(&s, s0, i));
    const sg_body_kind_ops *k = sg_body_kind_of(&s, 0);
    double vhat[6], x0[3], v0[6];
    memcpy(x0, s.state.pos, sizeof x0);
    memcpy(v0, s.state.vel, sizeof v0);
    k->velocity_in_units(&s, 0, &units, vhat); /* free: vhat = v_k = v_k+1 */
    k->integrate(&s, 0, &units, vhat, thetas[t], dt);
    for (int c = 0; c < 3; ++c) {
      CHECK_NEAR(s.state.pos[c], x0[c] + dt * v0[c], 1e-15 * fabs(x0[c]) + 1e-15);
      CHECK_NEAR(s.state.vel[c], v0[c], 1e-15 * fabs(v0[c]));
    }
    double qn = sqrt(s.state.quat[0] * s.state.quat[0] + s.state.quat[1] * s.state.quat[1] + s.state.quat[2] * s.state.quat[2] + s.state.quat[3] * s.state.quat[3]);
    CHECK_NEAR(qn, 1.0, 1e-15);
    printf("integrate, theta %.1f: centre moved by dt v (%.3e m), v kept\n", thetas[t], dt * v3_norm(v0));
    sg_scene_destroy(&s);
  }
}

/* Every field of body j of b equals body i of a, bit for bit. */
static void check_same_body(const sg_scene *a, int i, const sg_scene *b, int j) {
  CHECK(a->gid[i] == b->gid[j] && a->kind[i] == b->kind[j] && a->shape[i] == b->shape[j]);
  CHECK(a->material[i] == b->material[j] && a->fixed[i] == b->fixed[j]);
  CHECK(memcmp(&a->density[i], &b->density[j], sizeof(double)) == 0);
  CHECK(memcmp(&a->mass[i], &b->mass[j], sizeof(double)) == 0);
  CHECK(memcmp(a->size + 3 * i, b->size + 3 * j, 3 * sizeof(double)) == 0);
  CHECK(memcmp(a->inertia + 3 * i, b->inertia + 3 * j, 3 * sizeof(double)) == 0);
  CHECK(memcmp(a->state.pos + 3 * i, b->state.pos + 3 * j, 3 * sizeof(double)) == 0);
  CHECK(memcmp(a->state.quat + 4 * i, b->state.quat + 4 * j, 4 * sizeof(double)) == 0);
  CHECK(memcmp(a->state.vel + 6 * i, b->state.vel + 6 * j, 6 * sizeof(double)) == 0);
}

static void test_record(const sg_scene *s, int i) {
  const sg_body_kind_ops *k = sg_body_kind_of(s, i);
  sg_scene t;
  CHECK_OK(sg_scene_create(&t, 1, 2));
  const size_t size = k->record_size(s, i);
  unsigned char rec[512];
  CHECK(size <= sizeof rec);
  k->pack(s, i, rec);
  int j = -1;
  CHECK_OK(k->unpack(&t, rec, size, &j));
  CHECK(j == 0 && t.n == 1);
  check_same_body(s, i, &t, 0);
  CHECK(k->unpack(&t, rec, size - 1, &j) == SG_ERR_FORMAT);
  /* the whole wire: to this rank and back */
  const int off[2] = {0, 1}, dest[1] = {0};
  sg_scene one, got;
  CHECK_OK(sg_scene_create(&one, 1, 2));
  CHECK_OK(sg_scene_create(&got, 1, 2));
  CHECK_OK(sg_scene_copy_body(&one, s, i));
  CHECK_OK(sg_bodies_exchange(MPI_COMM_WORLD, &one, off, dest, &got, NULL, NULL));
  CHECK(got.n == 1);
  if (got.n == 1) check_same_body(s, i, &got, 0);
  printf("record: %zu bytes, every field back bit for bit\n", size);
  sg_scene_destroy(&t);
  sg_scene_destroy(&one);
  sg_scene_destroy(&got);
}

static void test_weight(const sg_scene *s, int i) {
  const sg_body_weight w = sg_body_kind_of(s, i)->partition_weight(s, i);
  CHECK(w.base == 6 && w.per_contact == 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  test_registry();
  test_scene_keeps_kind();
  sg_scene s;
  CHECK_OK(sg_scene_create(&s, 2, 2));
  const int i = add_box(&s);
  test_subsystem(&s, i);
  test_point_jacobian(&s, i);
  test_integrate_free(&s, i);
  test_record(&s, i);
  test_weight(&s, i);
  sg_scene_destroy(&s);
  int rc = sg_test_exit();
  MPI_Finalize();
  return rc;
}
