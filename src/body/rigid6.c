/* The rigid-6 body kind: a free rigid body of one shape, whose 6 unknowns are its linear then
 * angular velocity (world frame, at the centre of mass), paper 002 (29)-(31) with J_{b,j} = I. */
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/body_kind.h"
#include "signorini/integrate.h"
#include "signorini/la.h"

enum { RIGID6_DOF = 6 };

/* The migration record: the body's description, derived mass and inertia, state and gid. */
typedef struct {
  int64_t gid;
  int32_t shape, material;
  int64_t fixed;
  double size[3], density, mass, inertia[3], pos[3], quat[4], vel[6];
} rigid6_record;

static int dof(const sg_scene *s, int i);
static void subsystem(const sg_scene *s, int i, const sg_units *u, double dt, double theta, double *A, double *b);
static void point_jacobian(const sg_scene *s, int i, int link, const double point[3], const double *dirs, int rows,
                           const sg_units *u, double sign, double *J);
static void velocity_in_units(const sg_scene *s, int i, const sg_units *u, double *v);
static void velocity_to_si(const sg_scene *s, int i, const sg_units *u, const double *v, double *v_si);
static void integrate(sg_scene *s, int i, const sg_units *u, const double *vhat, double theta, double dt);
static size_t record_size(const sg_scene *s, int i);
static void pack(const sg_scene *s, int i, void *record);
static sg_err unpack(sg_scene *s, const void *record, size_t size, int *index);
static sg_body_weight partition_weight(const sg_scene *s, int i);

const sg_body_kind_ops sg_body_rigid6_ops = {
    .name = "rigid6",
    .max_dof = RIGID6_DOF,
    .dof = dof,
    .subsystem = subsystem,
    .point_jacobian = point_jacobian,
    .velocity_in_units = velocity_in_units,
    .velocity_to_si = velocity_to_si,
    .integrate = integrate,
    .record_size = record_size,
    .pack = pack,
    .unpack = unpack,
    .partition_weight = partition_weight,
};

static int dof(const sg_scene *s, int i) {
  (void)s;
  (void)i;
  return RIGID6_DOF;
}

void sg_rigid_velocity_to_units(const sg_units *u, const double *v_si, double *v) {
  const double vel = sg_units_velocity(u);
  for (int k = 0; k < 3; ++k) {
    v[k] = v_si[k] / vel;
    v[3 + k] = v_si[3 + k] * u->time;
  }
}

void sg_rigid_velocity_to_si(const sg_units *u, const double *v, double *v_si) {
  const double vel = sg_units_velocity(u);
  for (int k = 0; k < 3; ++k) {
    v_si[k] = v[k] * vel;
    v_si[3 + k] = v[3 + k] / u->time;
  }
}

static void velocity_in_units(const sg_scene *s, int i, const sg_units *u, double *v) {
  sg_rigid_velocity_to_units(u, s->state.vel + 6 * i, v);
}

static void velocity_to_si(const sg_scene *s, int i, const sg_units *u, const double *v, double *v_si) {
  (void)s;
  (void)i;
  sg_rigid_velocity_to_si(u, v, v_si);
}

/* Subsystem in units u: with v = V vt (linear), w = wt / T (angular), the rows of
 * M (v_k+1 - v_k) = f dt + J^T lambda divided by M V (linear) and M L V (angular), and lambda = M V
 * lambda_t, A and b become A_lin = m / M, A_ang = I / (M L^2), b = A v_k + (m / M) g dt / V. */
static void subsystem(const sg_scene *s, int i, const sg_units *u, double dt, double theta, double *A, double *b) {
  const double inv = 1.0 / (1.0 - theta), m = s->mass[i] / u->mass, L2 = u->length * u->length;
  double R[9], Iw[9], v[6];
  memset(A, 0, 36 * sizeof *A);
  quat_to_mat(R, s->state.quat + 4 * i);
  inertia_world(Iw, R, s->inertia + 3 * i);
  /* A = M_k / (1 - theta), b = A v_k + f_k dt with f = gravity; the gyroscopic term is not in f:
   * angular momentum is the integrated state (see sg_integrate_body). */
  for (int k = 0; k < 3; ++k) A[7 * k] = m * inv;
  for (int r = 0; r < 3; ++r)
    for (int q = 0; q < 3; ++q) A[(3 + r) * 6 + 3 + q] = Iw[3 * r + q] / (u->mass * L2) * inv;
  sg_rigid_velocity_to_units(u, s->state.vel + 6 * i, v);
  const double gravity_to_units = dt / sg_units_velocity(u);
  for (int r = 0; r < 6; ++r) {
    double acc = 0;
    for (int q = 0; q < 6; ++q) acc += A[r * 6 + q] * v[q];
    b[r] = acc + (r < 3 ? m * s->gravity[r] * gravity_to_units : 0.0);
  }
}

void sg_rigid_lever(const sg_scene *s, int i, const double point[3], const sg_units *u, double r[3]) {
  v3_sub(r, point, s->state.pos + 3 * i);
  v3_scale(r, r, 1.0 / u->length);
}

/* Row k of J_{i,b} = [t_k^T, (r x t_k)^T] (paper 002 (44)): the velocity of the material point
 * along t_k, with r = point - centre of mass in units of length. */
static void point_jacobian(const sg_scene *s, int i, int link, const double point[3], const double *dirs, int rows,
                           const sg_units *u, double sign, double *J) {
  (void)link;
  double r[3];
  sg_rigid_lever(s, i, point, u, r);
  for (int k = 0; k < rows; ++k) {
    const double *t = dirs + 3 * k;
    double rxt[3];
    v3_cross(rxt, r, t);
    for (int c = 0; c < 3; ++c) {
      J[6 * k + c] = sign * t[c];
      J[6 * k + 3 + c] = sign * rxt[c];
    }
  }
}

void sg_integrate_body(sg_scene *s, int i, const double *vhat, double theta, double dt) {
  double *x = s->state.pos + 3 * i, *q = s->state.quat + 4 * i, *v = s->state.vel + 6 * i;
  const double inv = 1.0 / (1.0 - theta);
  double v_next[6];
  /* vhat = theta v_k + (1 - theta) v_{k+1} */
  for (int k = 0; k < 6; ++k) v_next[k] = (vhat[k] - theta * v[k]) * inv;
  /* positions move with the representative velocity: q_{k+1} = update(q_k, vhat, dt) */
  v3_axpy(x, dt, vhat);
  /* Angular momentum L_{k+1} = I(q_k) w_{k+1} is what the momentum balance determines; keeping it
   * and recomputing w_{k+1} = I(q_{k+1})^{-1} L_{k+1} after the rotation conserves L exactly for
   * torque-free motion, where an explicit gyroscopic force would gain energy. */
  double R[9], Iw[9], Iinv[9], L[3], q_half[4], w_mid[3];
  quat_to_mat(R, q);
  inertia_world(Iw, R, s->inertia + 3 * i);
  m3_mul_v(L, Iw, v_next + 3);
  /* The orientation turns with the angular velocity that L gives at the half-step orientation
   * (I^{-1} taken at q_k alone makes the rotation first order and lets a free spinning body gain
   * energy); for bodies at rest or in slow contact this equals vhat to O(dt). */
  memcpy(q_half, q, sizeof q_half);
  quat_integrate(q_half, vhat + 3, 0.5 * dt);
  quat_to_mat(R, q_half);
  inertia_world_inv(Iinv, R, s->inertia + 3 * i);
  m3_mul_v(w_mid, Iinv, L);
  if (theta > 0) /* vhat mixes v_k in: keep its weight on the rotation too */
    for (int k = 0; k < 3; ++k) w_mid[k] = theta * v[3 + k] + (1 - theta) * w_mid[k];
  quat_integrate(q, w_mid, dt); /* exponential map, renormalized */
  quat_to_mat(R, q);
  inertia_world_inv(Iinv, R, s->inertia + 3 * i);
  m3_mul_v(v_next + 3, Iinv, L);
  memcpy(v, v_next, sizeof v_next);
}

static void integrate(sg_scene *s, int i, const sg_units *u, const double *vhat, double theta, double dt) {
  double v[6];
  sg_rigid_velocity_to_si(u, vhat, v);
  sg_integrate_body(s, i, v, theta, dt);
}

static size_t record_size(const sg_scene *s, int i) {
  (void)s;
  (void)i;
  return sizeof(rigid6_record);
}

static void pack(const sg_scene *s, int i, void *record) {
  rigid6_record r;
  memset(&r, 0, sizeof r);
  r.gid = s->gid[i];
  r.shape = s->shape[i];
  r.material = s->material[i];
  r.fixed = s->fixed[i];
  memcpy(r.size, s->size + 3 * i, sizeof r.size);
  r.density = s->density[i];
  r.mass = s->mass[i];
  memcpy(r.inertia, s->inertia + 3 * i, sizeof r.inertia);
  memcpy(r.pos, s->state.pos + 3 * i, sizeof r.pos);
  memcpy(r.quat, s->state.quat + 4 * i, sizeof r.quat);
  memcpy(r.vel, s->state.vel + 6 * i, sizeof r.vel);
  memcpy(record, &r, sizeof r);
}

static sg_err unpack(sg_scene *s, const void *record, size_t size, int *index) {
  rigid6_record r;
  if (size != sizeof r) return sg_error_set(SG_ERR_FORMAT, "rigid6 record of %zu bytes (expected %zu)", size, sizeof r);
  memcpy(&r, record, sizeof r);
  int k;
  SG_CHECK(sg_scene_add_body(s, r.shape, r.size, r.material, (int)r.fixed, r.density, r.pos, r.quat, r.vel, &k));
  s->gid[k] = r.gid;
  s->mass[k] = r.mass;
  memcpy(s->inertia + 3 * k, r.inertia, sizeof r.inertia);
  *index = k;
  return SG_OK;
}

/* Its 6 unknowns and one per contact. */
static sg_body_weight partition_weight(const sg_scene *s, int i) {
  (void)s;
  (void)i;
  return (sg_body_weight){RIGID6_DOF, 1};
}
