/* The compact rigid pair of problem.h, J = sign [t_k^T, (r x t_k)^T] (paper 002 (44)), applied
 * without its 3 x 6 block: J v = sign R (v_lin + w x r) and J^T f = [g; r x g] with g = sign R^T f,
 * 15 multiplications each way instead of 18, and 4 numbers per pair read besides the contact's
 * frame. Shared by SubADMM's kernel and the step's metric. */
#ifndef SIGNORINI_COMPACT_H
#define SIGNORINI_COMPACT_H

/* v_lin + w x r: the world velocity of the body's point at lever r. */
static inline void sg_point_velocity(const double *lever, const double *v, double *out) {
  out[0] = v[0] + v[4] * lever[2] - v[5] * lever[1];
  out[1] = v[1] + v[5] * lever[0] - v[3] * lever[2];
  out[2] = v[2] + v[3] * lever[1] - v[4] * lever[0];
}

/* sign (v_lin + w x r) of a compact pair: J v before the frame, in world axes (exact sign). */
static inline void sg_compact_world_velocity(const double *lever, const double *v, double *out) {
  const double sign = lever[3];
  double w[3];
  sg_point_velocity(lever, v, w);
  for (int k = 0; k < 3; ++k) out[k] = sign * w[k];
}

/* R u: a world vector in the contact frame (rows of R: normal, tangents). */
static inline void sg_frame_apply(const double *R, const double *u, double *out) {
  for (int k = 0; k < 3; ++k) out[k] = R[3 * k] * u[0] + R[3 * k + 1] * u[1] + R[3 * k + 2] * u[2];
}

/* J v = R u with u the world velocity above (a sign of +-1 commutes exactly with the rotation). */
static inline void sg_compact_jv(const double *R, const double *lever, const double *v, double *out) {
  double u[3];
  sg_compact_world_velocity(lever, v, u);
  sg_frame_apply(R, u, out);
}

/* R^T f, the frame's part of J^T f: the same for both pairs of a contact but for the sign. */
static inline void sg_frame_t(const double *R, const double *f, double *Rtf) {
  for (int c = 0; c < 3; ++c) Rtf[c] = R[c] * f[0] + R[3 + c] * f[1] + R[6 + c] * f[2];
}

/* acc += [f; r x f] and acc -= [f; r x f], the J^T f of a pair of sign +1 and -1 from f = R^T lambda
 * without multiplying by the sign: a + (-b) = a - b and (-a) - (-b) = -(a - b) exactly, so the same
 * bits as sg_compact_jt_from. */
static inline void sg_point_wrench_add(const double *lever, const double *f, double *acc) {
  acc[0] += f[0];
  acc[1] += f[1];
  acc[2] += f[2];
  acc[3] += lever[1] * f[2] - lever[2] * f[1];
  acc[4] += lever[2] * f[0] - lever[0] * f[2];
  acc[5] += lever[0] * f[1] - lever[1] * f[0];
}
static inline void sg_point_wrench_sub(const double *lever, const double *f, double *acc) {
  acc[0] -= f[0];
  acc[1] -= f[1];
  acc[2] -= f[2];
  acc[3] -= lever[1] * f[2] - lever[2] * f[1];
  acc[4] -= lever[2] * f[0] - lever[0] * f[2];
  acc[5] -= lever[0] * f[1] - lever[1] * f[0];
}

/* acc += J^T f of a compact pair (the six entries of its rigid subsystem) from Rtf = R^T f. */
static inline void sg_compact_jt_from(const double *lever, const double *Rtf, double *acc) {
  const double sign = lever[3];
  const double g[3] = {sign * Rtf[0], sign * Rtf[1], sign * Rtf[2]};
  sg_point_wrench_add(lever, g, acc);
}

/* acc += J^T f of a compact pair. */
static inline void sg_compact_jt(const double *R, const double *lever, const double *f, double *acc) {
  double Rtf[3];
  sg_frame_t(R, f, Rtf);
  sg_compact_jt_from(lever, Rtf, acc);
}

#endif
