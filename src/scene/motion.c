/* Prescribed motions of kinematic bodies (walls, belts, drums, gates). A pose is always computed
 * from the reference pose and the time, never accumulated step by step, so that it is the same
 * bits on every rank and after a restart. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/la.h"
#include "signorini/scene.h"

static int motion_order(const sg_motion *a, const sg_motion *b) {
  if (a->body != b->body) return a->body < b->body ? -1 : 1;
  return (a->t_start > b->t_start) - (a->t_start < b->t_start);
}

static int finite3(const double *x) { return isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]); }

static sg_err check_motion(const sg_scene *s, int i, const sg_motion *m) {
  long long id = (long long)s->gid[i];
  if (s->fixed[i] == SG_MOVING)
    return sg_error_set(SG_ERR_FORMAT, "body %lld: a motion needs a fixed body (fixed = 1), not a moving one", id);
  if (m->kind < 0 || m->kind >= SG_MOTION_KINDS)
    return sg_error_set(SG_ERR_FORMAT, "body %lld: motion kind %d (0 translate, 1 rotate)", id, m->kind);
  if (!finite3(m->velocity) || (m->kind == SG_MOTION_ROTATE && !finite3(m->point)))
    return sg_error_set(SG_ERR_FORMAT, "body %lld: a motion's velocity or axis point is not finite", id);
  if (!isfinite(m->t_start) || !(m->t_end > m->t_start))
    return sg_error_set(SG_ERR_FORMAT, "body %lld: motion window [%g, %g) is empty or not finite at its start", id,
                        m->t_start, m->t_end);
  for (int k = 0; k < s->n_motions; ++k) {
    const sg_motion *o = &s->motions[k];
    if (o->body == m->body && o->t_start < m->t_end && m->t_start < o->t_end)
      return sg_error_set(SG_ERR_FORMAT, "body %lld: motion windows [%g, %g) and [%g, %g) overlap", id, o->t_start,
                          o->t_end, m->t_start, m->t_end);
  }
  return SG_OK;
}

sg_err sg_scene_add_motion(sg_scene *s, int i, int kind, const double velocity[3], const double point[3],
                           double t_start, double t_end) {
  sg_motion m = {.body = s->gid[i], .kind = kind, .t_start = t_start, .t_end = t_end, .ref_time = s->state.time};
  memcpy(m.velocity, velocity, sizeof m.velocity);
  if (point) memcpy(m.point, point, sizeof m.point);
  memcpy(m.ref_pos, s->state.pos + 3 * i, sizeof m.ref_pos);
  memcpy(m.ref_quat, s->state.quat + 4 * i, sizeof m.ref_quat);
  SG_CHECK(check_motion(s, i, &m));
  sg_motion *grown = realloc(s->motions, (size_t)(s->n_motions + 1) * sizeof *grown);
  if (!grown) return sg_error_set(SG_ERR_MEM, "out of memory for %d motions", s->n_motions + 1);
  s->motions = grown;
  int k = s->n_motions++;
  while (k > 0 && motion_order(&m, &s->motions[k - 1]) < 0) { s->motions[k] = s->motions[k - 1]; --k; }
  s->motions[k] = m;
  s->fixed[i] = SG_KINEMATIC;
  return SG_OK;
}

/* Time motion m is active within [a, b] (signed: negative when b < a). */
static double active_time(const sg_motion *m, double a, double b) {
  double lo = fmin(fmax(a, m->t_start), m->t_end), hi = fmin(fmax(b, m->t_start), m->t_end);
  return hi - lo;
}

/* Rotate the pose (pos, quat) by angle |w| d about the axis along w through point c. */
static void rotate_pose(const double *w, const double *c, double d, double *pos, double *quat) {
  double rate = v3_norm(w);
  if (rate == 0 || d == 0) return;
  double half = 0.5 * rate * d, sh = sin(half) / rate;
  double r[4] = {cos(half), w[0] * sh, w[1] * sh, w[2] * sh}, R[9], rel[3], q[4];
  quat_to_mat(R, r);
  v3_sub(rel, pos, c);
  m3_mul_v(pos, R, rel);
  v3_add(pos, pos, c);
  quat_mul(q, r, quat);
  quat_normalize(q);
  memcpy(quat, q, sizeof q);
}

/* The motions of the body with global id gid: [*first, *end) of s->motions. */
static void motions_of(const sg_scene *s, int64_t gid, int *first, int *end) {
  int k = 0;
  while (k < s->n_motions && s->motions[k].body < gid) ++k;
  *first = k;
  while (k < s->n_motions && s->motions[k].body == gid) ++k;
  *end = k;
}

void sg_motion_pose(const sg_scene *s, int i, double t, double pos[3], double quat[4]) {
  int first, end;
  motions_of(s, s->gid[i], &first, &end);
  if (first == end) { memcpy(pos, s->state.pos + 3 * i, 3 * sizeof(double)); memcpy(quat, s->state.quat + 4 * i, 4 * sizeof(double)); return; }
  memcpy(pos, s->motions[first].ref_pos, 3 * sizeof(double));
  memcpy(quat, s->motions[first].ref_quat, 4 * sizeof(double));
  for (int k = first; k < end; ++k) { /* in the order of their windows */
    const sg_motion *m = &s->motions[k];
    double d = active_time(m, m->ref_time, t);
    if (m->kind == SG_MOTION_TRANSLATE) v3_axpy(pos, d, m->velocity);
    else rotate_pose(m->velocity, m->point, d, pos, quat);
  }
}

void sg_motion_velocity(const sg_scene *s, int i, double t0, double t1, double vel[6]) {
  int first, end;
  motions_of(s, s->gid[i], &first, &end);
  memset(vel, 0, 6 * sizeof(double));
  for (int k = first; k < end; ++k) {
    const sg_motion *m = &s->motions[k];
    double f = t1 > t0 ? active_time(m, t0, t1) / (t1 - t0) : 0, rel[3], u[3];
    if (f == 0) continue;
    if (m->kind == SG_MOTION_TRANSLATE) { v3_axpy(vel, f, m->velocity); continue; }
    v3_sub(rel, s->state.pos + 3 * i, m->point); /* the centre's velocity w x (x - c) */
    v3_cross(u, m->velocity, rel);
    v3_axpy(vel, f, u);
    v3_axpy(vel + 3, f, m->velocity);
  }
}

void sg_scene_move_kinematic(sg_scene *s, double t, double dt) {
  if (s->n_motions == 0) return;
  for (int i = 0; i < s->n; ++i) {
    if (s->fixed[i] != SG_KINEMATIC) continue;
    sg_motion_pose(s, i, t, s->state.pos + 3 * i, s->state.quat + 4 * i);
    sg_motion_velocity(s, i, t, t + dt, s->state.vel + 6 * i);
  }
}
