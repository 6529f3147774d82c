/* Scene storage, mass properties and validation. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/la.h"
#include "signorini/scene.h"
#include "signorini/tree.h"

const char *sg_shape_name(int shape) {
  static const char *names[SG_SHAPE_COUNT] = {"sphere", "box", "capsule", "plane", "cylinder", "cone", "disk", "mesh"};
  return (shape >= 0 && shape < SG_SHAPE_COUNT) ? names[shape] : "unknown";
}

#define GROW(field, per)                                                                      \
  do {                                                                                        \
    void *p_ = realloc(s->field, (size_t)cap * (per) * sizeof(*s->field));                    \
    if (!p_) return sg_error_set(SG_ERR_MEM, "out of memory for %d bodies (" #field ")", cap); \
    s->field = p_;                                                                            \
  } while (0)

sg_err sg_scene_reserve(sg_scene *s, int cap) {
  if (cap <= s->cap) return SG_OK;
  GROW(gid, 1); GROW(kind, 1); GROW(shape, 1); GROW(size, 3); GROW(material, 1); GROW(fixed, 1);
  GROW(density, 1); GROW(mass, 1); GROW(inertia, 3); GROW(state.pos, 3); GROW(state.quat, 4); GROW(state.vel, 6);
  s->cap = cap;
  return SG_OK;
}

sg_err sg_scene_create(sg_scene *s, int n_bodies, int n_materials) {
  memset(s, 0, sizeof *s);
  if (n_materials < 1) n_materials = 1;
  SG_CHECK(sg_scene_reserve(s, n_bodies > 0 ? n_bodies : 16));
  s->n_materials = n_materials;
  SG_ALLOC(s->friction, n_materials * n_materials);
  SG_ALLOC(s->restitution, n_materials * n_materials);
  SG_ALLOC(s->rolling, n_materials * n_materials);
  s->gravity[2] = -9.81;
  return SG_OK;
}

void sg_scene_destroy(sg_scene *s) {
  free(s->gid); free(s->kind); free(s->shape); free(s->size); free(s->material); free(s->fixed);
  free(s->density); free(s->mass); free(s->inertia); free(s->state.pos); free(s->state.quat); free(s->state.vel);
  free(s->friction);
  free(s->restitution);
  free(s->rolling);
  free(s->motions);
  free(s->regions);
  for (int k = 0; k < s->n_meshes; ++k) sg_mesh_release(&s->meshes[k]);
  free(s->meshes);
  sg_scene_release_trees(s);
  memset(s, 0, sizeof *s);
}

sg_err sg_scene_add_mesh(sg_scene *s, sg_mesh *m, int *index) {
  sg_mesh **grown = realloc(s->meshes, ((size_t)s->n_meshes + 1) * sizeof *grown);
  if (!grown) return sg_error_set(SG_ERR_MEM, "out of memory for the scene's meshes");
  s->meshes = grown;
  s->meshes[s->n_meshes] = sg_mesh_ref(m);
  if (index) *index = s->n_meshes;
  s->n_meshes++;
  return SG_OK;
}

sg_err sg_scene_share_meshes(sg_scene *dst, const sg_scene *src) {
  if (dst->meshes == src->meshes) return SG_OK;
  for (int k = 0; k < dst->n_meshes; ++k) sg_mesh_release(&dst->meshes[k]);
  free(dst->meshes);
  dst->meshes = NULL;
  dst->n_meshes = 0;
  for (int k = 0; k < src->n_meshes; ++k) SG_CHECK(sg_scene_add_mesh(dst, src->meshes[k], NULL));
  return SG_OK;
}

sg_err sg_scene_add_body(sg_scene *s, int shape, const double size[3], int material, int fixed,
                         double density, const double pos[3], const double quat[4],
                         const double vel[6], int *index) {
  if (s->n == s->cap) SG_CHECK(sg_scene_reserve(s, s->cap > 0 ? 2 * s->cap : 16));
  int i = s->n++;
  static const double qid[4] = {1, 0, 0, 0}, vz[6] = {0};
  s->gid[i] = i;
  s->kind[i] = SG_BODY_RIGID6;
  s->shape[i] = shape;
  memcpy(s->size + 3 * i, size, 3 * sizeof(double));
  s->material[i] = material;
  s->fixed[i] = (unsigned char)(fixed == SG_KINEMATIC ? SG_KINEMATIC : fixed ? SG_FIXED : SG_MOVING);
  s->density[i] = density;
  memcpy(s->state.pos + 3 * i, pos, 3 * sizeof(double));
  memcpy(s->state.quat + 4 * i, quat ? quat : qid, 4 * sizeof(double));
  memcpy(s->state.vel + 6 * i, vel ? vel : vz, 6 * sizeof(double));
  s->mass[i] = 0;
  memset(s->inertia + 3 * i, 0, 3 * sizeof(double));
  if (index) *index = i;
  return SG_OK;
}

sg_err sg_scene_copy_body(sg_scene *dst, const sg_scene *src, int i) {
  int k;
  SG_CHECK(sg_scene_add_body(dst, src->shape[i], src->size + 3 * i, src->material[i], src->fixed[i], src->density[i],
                             src->state.pos + 3 * i, src->state.quat + 4 * i, src->state.vel + 6 * i, &k));
  dst->gid[k] = src->gid[i];
  dst->kind[k] = src->kind[i];
  dst->mass[k] = src->mass[i];
  memcpy(dst->inertia + 3 * k, src->inertia + 3 * i, 3 * sizeof(double));
  return SG_OK;
}

sg_err sg_scene_copy_globals(sg_scene *dst, const sg_scene *src) {
  size_t mm = (size_t)src->n_materials * (size_t)src->n_materials;
  double *f = malloc(mm * sizeof *f), *e = malloc(mm * sizeof *e), *rolling = malloc(mm * sizeof *rolling);
  if (!f || !e || !rolling) {
    free(f);
    free(e);
    free(rolling);
    return sg_error_set(SG_ERR_MEM, "out of memory for the material tables");
  }
  memcpy(f, src->friction, mm * sizeof *f);
  memcpy(e, src->restitution, mm * sizeof *e);
  memcpy(rolling, src->rolling, mm * sizeof *rolling);
  free(dst->friction);
  free(dst->restitution);
  free(dst->rolling);
  dst->friction = f;
  dst->restitution = e;
  dst->rolling = rolling;
  dst->n_materials = src->n_materials;
  memcpy(dst->gravity, src->gravity, sizeof dst->gravity);
  memcpy(dst->period_lo, src->period_lo, sizeof dst->period_lo);
  memcpy(dst->period_hi, src->period_hi, sizeof dst->period_hi);
  dst->state.time = src->state.time;
  dst->state.step = src->state.step;
  memcpy(dst->run_options, src->run_options, sizeof dst->run_options);
  sg_motion *m = sg_calloc((size_t)src->n_motions + 1, sizeof *m, "motions");
  if (!m) return SG_ERR_MEM;
  if (src->n_motions) memcpy(m, src->motions, (size_t)src->n_motions * sizeof *m);
  free(dst->motions);
  dst->motions = m;
  dst->n_motions = src->n_motions;
  sg_region *r = sg_calloc((size_t)src->n_regions + 1, sizeof *r, "regions");
  if (!r) return SG_ERR_MEM;
  if (src->n_regions) memcpy(r, src->regions, (size_t)src->n_regions * sizeof *r);
  free(dst->regions);
  dst->regions = r;
  dst->n_regions = src->n_regions;
  dst->next_gid = src->next_gid;
  SG_CHECK(sg_scene_share_trees(dst, src));
  return sg_scene_share_meshes(dst, src);
}

int sg_scene_find_gid(const sg_scene *s, int n, int64_t gid) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (s->gid[mid] == gid) return mid;
    if (s->gid[mid] < gid) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

sg_err sg_body_update_mass(sg_scene *s, int i) {
  if (s->kind[i] != SG_BODY_RIGID6) return SG_OK; /* its kind sets it (a tree: sg_scene_attach_trees) */
  double *I = s->inertia + 3 * i;
  const double *d = s->size + 3 * i;
  if (s->fixed[i]) {
    s->mass[i] = 0;
    I[0] = I[1] = I[2] = 0;
    return SG_OK;
  }
  double rho = s->density[i], m;
  switch (s->shape[i]) {
    case SG_SHAPE_SPHERE: {
      double r = d[0];
      m = sg_sphere_mass(rho, r);
      I[0] = I[1] = I[2] = 0.4 * m * r * r;
      break;
    }
    case SG_SHAPE_BOX: {
      double a = 2 * d[0], b = 2 * d[1], c = 2 * d[2];
      m = rho * a * b * c;
      I[0] = m * (b * b + c * c) / 12.0;
      I[1] = m * (a * a + c * c) / 12.0;
      I[2] = m * (a * a + b * b) / 12.0;
      break;
    }
    case SG_SHAPE_CAPSULE: {
      /* cylinder of length 2h plus two hemispheres (a sphere), axis along local z */
      double r = d[0], h = d[1], L = 2 * h;
      double mc = rho * M_PI * r * r * L, ms = sg_sphere_mass(rho, r);
      m = mc + ms;
      double Iz = mc * r * r / 2 + 0.4 * ms * r * r;
      /* hemisphere centroid at 3r/8 from its flat face; parallel-axis to the capsule centre */
      double Ixc = mc * (3 * r * r + L * L) / 12.0;
      double Ixs = 2 * (ms / 2) * (0.4 * r * r - (3 * r / 8) * (3 * r / 8)) + ms * (h + 3 * r / 8) * (h + 3 * r / 8);
      I[0] = I[1] = Ixc + Ixs;
      I[2] = Iz;
      break;
    }
    default:
      return sg_error_set(SG_ERR_FORMAT, "body %lld: shape %s cannot move (it must be fixed)", (long long)s->gid[i],
                          sg_shape_name(s->shape[i]));
  }
  /* a size or density so small or large that the mass or a moment under- or overflows: refused
   * here, where the body can be named, rather than as a singular matrix in step 1 */
  if (!(isnormal(m) && m > 0 && isnormal(I[0]) && isnormal(I[1]) && isnormal(I[2])))
    return sg_error_set(SG_ERR_FORMAT, "body %lld: its mass %g or inertia (%g, %g, %g) is not a positive normal number (density %g)",
                        (long long)s->gid[i], m, I[0], I[1], I[2], rho);
  s->mass[i] = m;
  return SG_OK;
}

sg_err sg_scene_update_mass(sg_scene *s) {
  for (int i = 0; i < s->n; ++i) SG_CHECK(sg_body_update_mass(s, i));
  return SG_OK;
}

#define KEEP(field, per) memmove(s->field + (size_t)(per) * k, s->field + (size_t)(per) * i, (size_t)(per) * sizeof *s->field)
void sg_scene_remove_bodies(sg_scene *s, const unsigned char *drop) {
  int k = 0;
  for (int i = 0; i < s->n; ++i) {
    if (drop[i]) continue;
    if (k != i) {
      KEEP(gid, 1); KEEP(kind, 1); KEEP(shape, 1); KEEP(size, 3); KEEP(material, 1); KEEP(fixed, 1); KEEP(density, 1);
      KEEP(mass, 1); KEEP(inertia, 3); KEEP(state.pos, 3); KEEP(state.quat, 4); KEEP(state.vel, 6);
    }
    ++k;
  }
  s->n = k;
  if (s->distributed) s->n_owned = 0;
  for (int i = 0; s->distributed && i < s->n; ++i) s->n_owned += !s->fixed[i];
}
#undef KEEP

static int finite_all(const double *x, int n) {
  for (int k = 0; k < n; ++k)
    if (!isfinite(x[k])) return 0;
  return 1;
}

int sg_shape_is_revolved(int shape) {
  return shape == SG_SHAPE_CYLINDER || shape == SG_SHAPE_CONE || shape == SG_SHAPE_DISK;
}

/* The cone's radii are >= 0, not both 0, its half height > 0; the disk's hole is smaller than
 * the disk (a hole of 0 is a full disk). */
static sg_err validate_revolved_size(int sh, const double *d, long long id, const char *where) {
  if (sh == SG_SHAPE_CONE && !(d[0] >= 0 && d[1] >= 0 && d[0] + d[1] > 0 && d[2] > 0))
    return sg_error_set(SG_ERR_FORMAT, "body %lld: cone size (%g, %g, %g) needs radii >= 0, not both 0, and a half height > 0 (%s)",
                        id, d[0], d[1], d[2], where);
  if (sh == SG_SHAPE_DISK && !(d[0] >= 0 && d[1] > d[0]))
    return sg_error_set(SG_ERR_FORMAT, "body %lld: disk size (%g, %g) needs 0 <= hole radius < outer radius (%s)", id, d[0], d[1], where);
  return SG_OK;
}

/* Walls of revolution and meshes have a narrow phase against spheres only: refuse any other
 * moving shape beside them rather than let it pass through. */
static sg_err validate_revolved_company(const sg_scene *s, const char *where) {
  int wall = -1, other = -1;
  for (int i = 0; i < s->n; ++i) {
    if (sg_shape_is_revolved(s->shape[i]) || s->shape[i] == SG_SHAPE_MESH) wall = wall < 0 ? i : wall;
    else if (!s->fixed[i] && s->shape[i] != SG_SHAPE_SPHERE) other = other < 0 ? i : other;
  }
  if (wall >= 0 && other >= 0)
    return sg_error_set(SG_ERR_FORMAT, "body %lld: a moving %s cannot touch the %s of body %lld (walls of revolution and meshes meet spheres only) (%s)",
                        (long long)s->gid[other], sg_shape_name(s->shape[other]), sg_shape_name(s->shape[wall]),
                        (long long)s->gid[wall], where);
  return SG_OK;
}

/* Rolling resistance is a law of rolling spheres (src/step/rolling.c): a moving body of another
 * shape whose material has it with any material is refused. */
static sg_err validate_rolling_shapes(const sg_scene *s, const char *where) {
  for (int i = 0; i < s->n; ++i) {
    if (s->fixed[i] || s->shape[i] == SG_SHAPE_SPHERE) continue;
    for (int b = 0; b < s->n_materials; ++b)
      if (s->rolling[s->material[i] * s->n_materials + b] != 0)
        return sg_error_set(SG_ERR_FORMAT, "body %lld: a moving %s has rolling_friction[%d][%d] = %g; rolling resistance is for spheres only (%s)",
                            (long long)s->gid[i], sg_shape_name(s->shape[i]), s->material[i], b,
                            s->rolling[s->material[i] * s->n_materials + b], where);
  }
  return SG_OK;
}

/* A moving body so far from the origin that doubles there are more than a thousandth of its size
 * apart cannot be simulated (gaps and lever arms would be round-off): refused. */
static sg_err validate_far(const sg_scene *s, int i, const char *where) {
  const double *x = s->state.pos + 3 * i, size = sg_body_min_size(s, i);
  const double far = fmax(fabs(x[0]), fmax(fabs(x[1]), fabs(x[2]))), spacing = far * DBL_EPSILON;
  if (s->fixed[i] || !(size * size * size >= DBL_MIN)) return SG_OK; /* a mass that underflows: sg_body_update_mass says so */
  if (!(spacing > 1e-3 * size)) return SG_OK;
  return sg_error_set(SG_ERR_FORMAT, "body %lld: position (%g, %g, %g) is too far from the origin for its size %g (doubles there are %g apart) (%s)",
                      (long long)s->gid[i], x[0], x[1], x[2], size, spacing, where);
}

/* Periodic boundaries: a well-formed cell, and moving bodies inside it and small enough that a
 * body never meets another both directly and through the boundary (src/collision/periodic.c). */
static sg_err validate_periodic(const sg_scene *s, const char *where) {
  static const char axis[3] = {'x', 'y', 'z'};
  double L[3];
  if (!finite_all(s->period_lo, 3) || !finite_all(s->period_hi, 3))
    return sg_error_set(SG_ERR_FORMAT, "the periodic cell is not finite (%s)", where);
  for (int d = 0; d < 3; ++d)
    if (s->period_hi[d] < s->period_lo[d])
      return sg_error_set(SG_ERR_FORMAT, "the periodic cell along %c has hi %g below lo %g (%s)", axis[d], s->period_hi[d],
                          s->period_lo[d], where);
  if (!sg_scene_period(s, L)) return SG_OK;
  for (int i = 0; i < s->n; ++i) {
    if (s->fixed[i]) continue;
    for (int d = 0; d < 3; ++d) {
      const double x = s->state.pos[3 * i + d];
      if (L[d] == 0) continue;
      if (!(x >= s->period_lo[d] && x <= s->period_hi[d]))
        return sg_error_set(SG_ERR_FORMAT, "body %lld: %c = %g is outside the periodic cell [%g, %g) (%s)", (long long)s->gid[i],
                            axis[d], x, s->period_lo[d], s->period_hi[d], where);
      if (!(4 * sg_body_bounding_radius(s, i) < L[d]))
        return sg_error_set(SG_ERR_FORMAT, "body %lld: its size %g is more than a quarter of the period %g along %c (%s)",
                            (long long)s->gid[i], sg_body_bounding_radius(s, i), L[d], axis[d], where);
    }
  }
  return SG_OK;
}

sg_err sg_scene_validate(const sg_scene *s, const char *where) {
  if (!finite_all(s->gravity, 3)) return sg_error_set(SG_ERR_FORMAT, "gravity is not finite (%s)", where);
  if (s->n_materials < 1) return sg_error_set(SG_ERR_FORMAT, "no materials (%s)", where);
  for (int a = 0; a < s->n_materials; ++a)
    for (int b = 0; b < s->n_materials; ++b) {
      double f = s->friction[a * s->n_materials + b];
      if (!isfinite(f) || f < 0)
        return sg_error_set(SG_ERR_FORMAT, "friction[%d][%d] = %g is not a finite non-negative number (%s)", a, b, f, where);
      if (f != s->friction[b * s->n_materials + a])
        return sg_error_set(SG_ERR_FORMAT, "friction table is not symmetric at [%d][%d] (%s)", a, b, where);
      double e = s->restitution[a * s->n_materials + b];
      if (!(e >= 0 && e <= 1))
        return sg_error_set(SG_ERR_FORMAT, "restitution[%d][%d] = %g is not in [0, 1] (%s)", a, b, e, where);
      if (e != s->restitution[b * s->n_materials + a])
        return sg_error_set(SG_ERR_FORMAT, "restitution table is not symmetric at [%d][%d] (%s)", a, b, where);
      double r = s->rolling[a * s->n_materials + b];
      if (!isfinite(r) || r < 0)
        return sg_error_set(SG_ERR_FORMAT, "rolling_friction[%d][%d] = %g is not a finite non-negative number (%s)", a, b, r, where);
      if (r != s->rolling[b * s->n_materials + a])
        return sg_error_set(SG_ERR_FORMAT, "rolling_friction table is not symmetric at [%d][%d] (%s)", a, b, where);
    }
  for (int i = 0; i < s->n; ++i) {
    long long id = (long long)s->gid[i];
    int sh = s->shape[i];
    if (sh < 0 || sh >= SG_SHAPE_COUNT)
      return sg_error_set(SG_ERR_FORMAT, "body %lld: unknown shape code %d (%s)", id, sh, where);
    if (!sg_body_kind_get(s->kind[i]))
      return sg_error_set(SG_ERR_FORMAT, "body %lld: unknown body kind %d (%s)", id, s->kind[i], where);
    if (!finite_all(s->size + 3 * i, 3) || !finite_all(s->state.pos + 3 * i, 3) ||
        !finite_all(s->state.quat + 4 * i, 4) || !finite_all(s->state.vel + 6 * i, 6) || !isfinite(s->density[i]))
      return sg_error_set(SG_ERR_FORMAT, "body %lld: NaN or Inf in its data (%s)", id, where);
    const double *d = s->size + 3 * i;
    int nsize = sh == SG_SHAPE_SPHERE ? 1 : sh == SG_SHAPE_BOX ? 3 : sh == SG_SHAPE_CAPSULE || sh == SG_SHAPE_CYLINDER ? 2 : 0;
    for (int k = 0; k < nsize; ++k)
      if (!(d[k] > 0))
        return sg_error_set(SG_ERR_FORMAT, "body %lld: %s size[%d] = %g must be positive (%s)", id,
                            sg_shape_name(sh), k, d[k], where);
    SG_CHECK(validate_revolved_size(sh, d, id, where));
    SG_CHECK(validate_far(s, i, where));
    if (sh == SG_SHAPE_MESH && !(d[0] >= 0 && d[0] < s->n_meshes && d[0] == floor(d[0])))
      return sg_error_set(SG_ERR_FORMAT, "body %lld: mesh index %g is not one of the scene's %d meshes (%s)", id, d[0], s->n_meshes, where);
    if ((sh == SG_SHAPE_PLANE || sg_shape_is_revolved(sh) || sh == SG_SHAPE_MESH) && !s->fixed[i])
      return sg_error_set(SG_ERR_FORMAT, "body %lld: a %s must be fixed or kinematic (%s)", id, sg_shape_name(sh), where);
    if (!s->fixed[i] && !(s->density[i] > 0))
      return sg_error_set(SG_ERR_FORMAT, "body %lld: density %g must be positive (mass would be zero or negative) (%s)",
                          id, s->density[i], where);
    if (s->material[i] < 0 || s->material[i] >= s->n_materials)
      return sg_error_set(SG_ERR_FORMAT, "body %lld: material %d out of range [0, %d) (%s)", id,
                          s->material[i], s->n_materials, where);
    const double *q = s->state.quat + 4 * i;
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (fabs(qn - 1.0) > 1e-6)
      return sg_error_set(SG_ERR_FORMAT, "body %lld: orientation is not a unit quaternion (norm %g) (%s)", id, qn, where);
  }
  SG_CHECK(validate_rolling_shapes(s, where));
  SG_CHECK(validate_periodic(s, where));
  return validate_revolved_company(s, where);
}

double sg_scene_friction(const sg_scene *s, int a, int b) {
  return s->friction[s->material[a] * s->n_materials + s->material[b]];
}

double sg_scene_restitution(const sg_scene *s, int a, int b) {
  return s->restitution[s->material[a] * s->n_materials + s->material[b]];
}

double sg_scene_rolling(const sg_scene *s, int a, int b) {
  return s->rolling[s->material[a] * s->n_materials + s->material[b]];
}

int sg_scene_has_rolling(const sg_scene *s) {
  for (int k = 0; k < s->n_materials * s->n_materials; ++k)
    if (s->rolling[k] != 0) return 1;
  return 0;
}

int sg_scene_period(const sg_scene *s, double L[3]) {
  int n = 0;
  for (int d = 0; d < 3; ++d) {
    L[d] = s->period_hi[d] > s->period_lo[d] ? s->period_hi[d] - s->period_lo[d] : 0.0;
    n += L[d] > 0;
  }
  return n;
}

double sg_body_min_size(const sg_scene *s, int i) {
  const double *d = s->size + 3 * i;
  switch (s->shape[i]) {
    case SG_SHAPE_SPHERE:
    case SG_SHAPE_CAPSULE: return d[0];
    case SG_SHAPE_BOX: return fmin(d[0], fmin(d[1], d[2]));
    default: return INFINITY;
  }
}

/* A tree's row: the sphere about its first link's origin that holds its link geoms (tree.h), at
 * least its own shape's. */
static double tree_bounding_radius(const sg_scene *s, int i, double own) {
  const sg_tree *t = sg_scene_tree_by_gid(s, s->gid[i]);
  double r = 0, speed;
  if (t) sg_tree_geom_bounds(t, &r, &speed);
  return fmax(r, own);
}

static double shape_bounding_radius(const sg_scene *s, int i) {
  const double *d = s->size + 3 * i;
  switch (s->shape[i]) {
    case SG_SHAPE_SPHERE: return d[0];
    case SG_SHAPE_CAPSULE: return d[0] + d[1];
    case SG_SHAPE_BOX: return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    case SG_SHAPE_CYLINDER: return hypot(d[0], d[1]);
    case SG_SHAPE_CONE: return hypot(fmax(d[0], d[1]), d[2]);
    case SG_SHAPE_DISK: return d[1];
    case SG_SHAPE_MESH: return s->meshes[(int)d[0]]->bound_radius;
    default: return INFINITY;
  }
}

double sg_body_bounding_radius(const sg_scene *s, int i) {
  const double own = shape_bounding_radius(s, i);
  return s->kind[i] == SG_BODY_TREE ? tree_bounding_radius(s, i, own) : own;
}

double sg_scene_kinetic_energy(const sg_scene *s) {
  double e = 0;
  for (int i = 0; i < s->n; ++i) {
    if (s->fixed[i] || s->kind[i] != SG_BODY_RIGID6) continue; /* a tree's: sg_tree_energy */
    const double *v = s->state.vel + 6 * i, *w = v + 3, *I = s->inertia + 3 * i;
    double R[9], wb[3];
    quat_to_mat(R, s->state.quat + 4 * i);
    m3t_mul_v(wb, R, w);
    e += 0.5 * s->mass[i] * v3_dot(v, v) + 0.5 * (I[0] * wb[0] * wb[0] + I[1] * wb[1] * wb[1] + I[2] * wb[2] * wb[2]);
  }
  return e;
}
