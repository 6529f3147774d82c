/* Periodic boundaries (scene.h: period_lo, period_hi). Moving bodies live in the cell [lo, hi)
 * along each periodic axis and re-enter at one side when they leave by the other
 * (sg_periodic_wrap). Contacts across a boundary come from images: for the length of a search,
 * copies of the bodies near the cell's faces, shifted by a period, are appended to the scene; the
 * broad and narrow phases see them as bodies, and each contact with an image becomes a contact
 * with the body itself, its point seen from body B shifted back (sg_contact.shift).
 *
 * Each contact is found once: of the two mirror pairs (A, image of B) and (image of A, B) only the
 * one whose body of smaller global id is real is kept, and pairs of two images are dropped, so a
 * contact's identity (gid_a, gid_b, feature) and its numbers are the same on any rank count.
 * Only bodies of at most a quarter period have images (every moving body: sg_scene_validate);
 * larger fixed bodies (planes, floors, meshes) are walls that must lie inside the cell or span
 * it, and are not seen through the boundary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/body_kind.h"
#include "signorini/collision.h"
#include "signorini/la.h"

void sg_images_destroy(sg_images *im) {
  free(im->real);
  free(im->shift);
  memset(im, 0, sizeof *im);
}

void sg_periodic_wrap(const sg_scene *s, double x[3]) {
  for (int d = 0; d < 3; ++d) {
    const double lo = s->period_lo[d], hi = s->period_hi[d], L = hi - lo;
    if (!(hi > lo)) continue;
    if (x[d] < lo) x[d] += L;
    else if (x[d] >= hi) x[d] -= L;
  }
}

int sg_periodic_shifts(const sg_scene *s, double shifts[26][3]) {
  double L[3];
  int n = 0;
  if (!sg_scene_period(s, L)) return 0;
  for (int k = 0; k < 27; ++k) {
    const int c[3] = {k % 3 - 1, k / 3 % 3 - 1, k / 9 - 1};
    int ok = c[0] || c[1] || c[2];
    for (int d = 0; d < 3; ++d) ok &= c[d] == 0 || L[d] > 0;
    if (!ok) continue;
    for (int d = 0; d < 3; ++d) shifts[n][d] = c[d] * L[d];
    n++;
  }
  return n;
}

/* Bodies of at most a quarter of the shortest period have images; a tree's link geoms are not seen
 * through the boundary (a tree is no image's body; its contacts with images are dropped as a wall's). */
static int has_images(const sg_scene *s, int i, double shortest) {
  if (s->kind[i] == SG_BODY_TREE) return 0;
  const double r = sg_body_bounding_radius(s, i);
  return isfinite(r) && 4 * r < shortest;
}

static double shortest_period(const sg_scene *s) {
  double L[3], shortest = INFINITY;
  sg_scene_period(s, L);
  for (int d = 0; d < 3; ++d)
    if (L[d] > 0) shortest = fmin(shortest, L[d]);
  return shortest;
}

/* Distance from x to the cell, over the periodic axes. */
static double distance_to_cell(const sg_scene *s, const double *x) {
  double d2 = 0;
  for (int d = 0; d < 3; ++d) {
    if (!(s->period_hi[d] > s->period_lo[d])) continue;
    const double out = fmax(fmax(s->period_lo[d] - x[d], x[d] - s->period_hi[d]), 0.0);
    d2 += out * out;
  }
  return sqrt(d2);
}

/* Images reach this far outside the cell: two bodies touch within the step only when their
 * centres are within the sum of their reaches + margin (sg_body_reach, the ghosts' reach). */
static double image_halo(const sg_scene *s, double margin, double dt, double shortest) {
  double reach = 0;
  for (int i = 0; i < s->n; ++i)
    if (has_images(s, i, shortest)) reach = fmax(reach, sg_body_reach(s, i, dt, margin));
  return 2 * reach + margin;
}

/* Pass 0 counts the images, pass 1 appends them (the scene's arrays grown once before, since a
 * body is copied from the arrays it is appended to). */
static sg_err add_images(sg_scene *s, double margin, double dt, sg_images *im) {
  double shifts[26][3];
  const int n_shifts = sg_periodic_shifts(s, shifts);
  const double shortest = shortest_period(s), halo = image_halo(s, margin, dt, shortest);
  im->n_real = s->n;
  for (int pass = 0; pass < 2; ++pass) {
    im->n = 0;
    for (int i = 0; i < im->n_real; ++i) {
      if (!has_images(s, i, shortest)) continue;
      for (int k = 0; k < n_shifts; ++k) {
        double x[3];
        v3_add(x, s->state.pos + 3 * i, shifts[k]);
        if (!(distance_to_cell(s, x) < halo)) continue;
        if (pass) {
          SG_CHECK(sg_scene_copy_body(s, s, i));
          v3_copy(s->state.pos + 3 * (s->n - 1), x);
          im->real[im->n] = i;
          v3_copy(im->shift + 3 * im->n, shifts[k]);
        }
        im->n++;
      }
    }
    if (pass) break;
    SG_CHECK(sg_scene_reserve(s, im->n_real + im->n));
    SG_CHECK(sg_grow((void **)&im->real, &im->cap, im->n + 1, sizeof *im->real, "periodic images"));
    SG_CHECK(sg_grow((void **)&im->shift, &im->cap_shift, 3 * (im->n + 1), sizeof *im->shift, "periodic images"));
  }
  return SG_OK;
}

/* The contacts with images as contacts of the bodies (see the top of the file); an error when a
 * pair meets both directly and through the boundary (a cell too small for the motion). */
static sg_err fold_images(const sg_scene *s, const sg_images *im, sg_contacts *c) {
  const double shortest = shortest_period(s);
  int m = 0;
  for (int k = 0; k < c->n; ++k) {
    sg_contact ct = c->c[k];
    const int a_image = ct.a >= im->n_real, b_image = ct.b >= im->n_real;
    if (a_image || (ct.gid_a == ct.gid_b && ct.a != ct.b)) continue; /* a body and its image; not a tree's self-contact */
    if (b_image) {
      if (!has_images(s, ct.a, shortest)) continue; /* a wall: not seen through the boundary */
      v3_copy(ct.shift, im->shift + 3 * (ct.b - im->n_real));
      ct.b = im->real[ct.b - im->n_real];
    }
    if (m > 0 && c->c[m - 1].gid_a == ct.gid_a && c->c[m - 1].gid_b == ct.gid_b &&
        memcmp(c->c[m - 1].shift, ct.shift, sizeof ct.shift) != 0)
      return sg_error_set(SG_ERR_ARG, "bodies %lld and %lld meet both directly and through the periodic boundary: the periodic cell is too small for their size and speed",
                          (long long)ct.gid_a, (long long)ct.gid_b);
    c->c[m++] = ct;
  }
  c->n = m;
  return SG_OK;
}

sg_err sg_find_contacts_periodic(sg_scene *s, double margin, double dt, sg_broadphase *bp, sg_images *im,
                                 sg_contacts *out) {
  double L[3];
  if (!sg_scene_period(s, L)) return sg_find_contacts(s, margin, dt, bp, out);
  const unsigned char *changed = bp->changed;
  bp->changed = NULL; /* its flags do not cover the images: every pair */
  sg_err err = add_images(s, margin, dt, im);
  if (!err) err = sg_find_contacts(s, margin, dt, bp, out);
  if (!err) err = fold_images(s, im, out);
  s->n = im->n_real;
  bp->changed = changed;
  return err;
}

/* The candidate pairs of the images as pairs of the bodies: a pair of two images and a body with its
 * own image are dropped, and of the mirror pairs (A, image of B) and (B, image of A) the one whose
 * real body has the smaller gid is kept, so a pair across a boundary counts once. */
static void fold_image_pairs(const sg_scene *s, const sg_images *im, sg_broadphase *bp) {
  int m = 0;
  for (int k = 0; k < bp->n; ++k) {
    int a = bp->pairs[2 * k], b = bp->pairs[2 * k + 1];
    if (a >= im->n_real && b >= im->n_real) continue;
    if (a >= im->n_real) { int t = a; a = b; b = t; }
    if (b >= im->n_real) {
      b = im->real[b - im->n_real];
      if (a == b || s->gid[a] > s->gid[b]) continue;
    }
    bp->pairs[2 * m] = a < b ? a : b; /* smaller index first, as the plain search gives */
    bp->pairs[2 * m + 1] = a < b ? b : a;
    m++;
  }
  bp->n = m;
}

sg_err sg_broadphase_pairs_periodic(sg_scene *s, double margin, sg_broadphase *bp, sg_images *im) {
  double L[3];
  if (!sg_scene_period(s, L)) return sg_broadphase_pairs(bp, s, margin, 0.0);
  sg_err err = add_images(s, margin, 0.0, im);
  if (!err) err = sg_broadphase_pairs(bp, s, margin, 0.0);
  if (!err) fold_image_pairs(s, im, bp);
  s->n = im->n_real;
  return err;
}
