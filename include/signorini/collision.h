/* Collision detection for a whole scene: uniform-grid broad phase, then the narrow phase on each
 * candidate pair. Output is sorted by (gid_a, gid_b, feature), so it does not depend on the order
 * bodies are stored in, nor on the number of ranks. */
#ifndef SIGNORINI_COLLISION_H
#define SIGNORINI_COLLISION_H
#include "signorini/geometry.h"
#include "signorini/scene.h"

typedef struct {
  int a, b;            /* local body indices; the normal points from b toward a */
  int link_a, link_b;  /* the link of a tree body the contact is on (its geom's link; 0 for other bodies) */
  int64_t gid_a, gid_b;
  sg_contact_point cp; /* point, normal, gap, feature */
  double shift[3];     /* B is met through a periodic boundary at its position + shift (else 0):
                          its lever arm is point - shift - x_b (sg_contact_point_of) */
  double meet[3];      /* A's point - B's point: 0, but for two spheres whose contact is taken where
                          they meet within the step (sg_meet_spheres) the part of x_a - x_b across
                          the normal, so that both lever arms lie along it */
} sg_contact;

/* The contact point as seen from body `side` (0: A, 1: B) at its stored position. */
static inline void sg_contact_point_of(const sg_contact *c, int side, double x[3]) {
  for (int k = 0; k < 3; ++k) x[k] = c->cp.point[k] + (side ? -c->shift[k] : c->meet[k]);
}

typedef struct {
  int n, cap;
  sg_contact *c;
} sg_contacts;

void sg_contacts_destroy(sg_contacts *c);
/* Ordering that defines a contact's identity across steps. */
int sg_contact_key_cmp(const sg_contact *x, const sg_contact *y);

/* Speculative contacts follow the relative motion of a pair over one step of length dt: with
 * linear velocities v and angular velocities w taken constant over the step, body j moves by
 * dt (v_j - v_i) relative to body i, and rotation moves a body's surface by at most
 * dt |w| times its rotation lever (the farthest point of the body's core from its centre: 0 for
 * a sphere, the half length for a capsule, the half diagonal for a box). Bodies moving together
 * therefore meet no more contacts than at rest, and a fast body still meets its contacts before
 * it penetrates. Fixed bodies have zero velocity. With stops (sg_broadphase.stops, the stepper's
 * -contact_sweep_stops) the search also follows each body of a pair while the solve holds the
 * other still (sg_pair_displacements): a column falling together onto a floor is then one problem,
 * not one added solve per sphere (docs/SOLVERS.md, "Contacts the solved motion meets"). */

/* Candidate pairs (i, j): bodies that can come within margin of each other during the step,
 * i.e. the pairs that sg_pair_may_touch accepts, each once, in no particular order. Bodies of
 * typical size are found on a uniform grid through their swept boxes (fast ones on coarser
 * grids); bodies much larger than a cell (walls, planes) are tested against all others. Pairs of
 * two fixed bodies are skipped. dt = 0 gives the static pairs (bounding spheres within margin).
 * Time and memory go about linearly with the bodies, the cells their sweeps cross and the pairs.
 * With a skin (the Verlet list of molecular dynamics) a scene whose bodies all sweep less than
 * skin / 2 keeps the grid's pairs within margin + skin of each other, and the following calls test
 * only those, while the same bodies have each moved and swept less than skin / 2 since: the same
 * pairs at a fraction of the cost when a scene is nearly at rest. With sg_broadphase.changed, only
 * the pairs of at least one flagged body (the recheck's bodies whose motion the solve changed). */
typedef struct sg_pair_order sg_pair_order;
typedef struct {
  int n, cap;
  int *pairs;          /* [n][2], smaller local index first */
  struct sg_broadphase_work *work; /* scratch kept from call to call */
  sg_pair_order *order;            /* scratch of sg_broadphase_sort_canonical */
  int stops;                       /* also the pairs that meet while the solve stops one of them */
  int meet_normal;                 /* two spheres' contacts where they meet (sg_meet_spheres) */
  double skin;                     /* > 0: keep the pairs within margin + skin between steps (below) */
  const unsigned char *changed;    /* NULL, or only the pairs with a body k of changed[k] != 0 (the
                                    * bodies of the scene as called, not periodic images) */
  long long calls, listed, lists_made; /* searches, those answered from the kept list, lists made */
} sg_broadphase;

sg_err sg_broadphase_pairs(sg_broadphase *bp, const sg_scene *s, double margin, double dt);
/* The pairs reordered by the lower global id of the two bodies, then the higher (ties, a body
 * and the periodic images that share its gid, by local index): the order of their contacts. */
sg_err sg_broadphase_sort_canonical(sg_broadphase *bp, const sg_scene *s);
void sg_pair_order_free(sg_pair_order *o);
void sg_broadphase_destroy(sg_broadphase *bp);

/* The exact relative test of the broad phase: can bodies i and j come within margin during the
 * step? Their bounding spheres (which rotation leaves in place) along the relative straight-line
 * motion: the distance of the segment x_j - x_i + t dt (v_j - v_i), t in [0, 1], from the origin
 * below R_i + R_j + margin (tighter than |x_j - x_i| < R_i + R_j + margin + dt |v_j - v_i|, which
 * it implies); a plane, and a box grown by its own rotation sweep, test that segment against
 * their faces instead or as well; a wall of revolution with a sphere, the sphere's distance to the
 * wall less the segment's length (a silo's shell is not a candidate of every grain in it). With
 * stops, the same along each displacement of sg_pair_displacements. Symmetric in i and j, bit for
 * bit. */
int sg_pair_may_touch(const sg_scene *s, int i, int j, double margin, double dt, int stops);

/* World placement of body i (R from its quaternion). */
void sg_scene_geom(const sg_scene *s, int i, sg_geom *g);

/* Upper bound of the speed of any point of body i (|v| + |w| times its bounding radius). */
double sg_body_speed_bound(const sg_scene *s, int i);
/* Reach of body i over a step (ghosts.h): its bounding radius + dt x its speed bound + margin / 2,
 * the last an allowance for a push within the step. Two moving bodies whose centres are closer
 * than reach(i) + reach(j) + margin are on every rank that owns one of them; the contacts that the
 * solved motion meets are added only between such bodies (recheck.c), so every rank adds the same. */
double sg_body_reach(const sg_scene *s, int i, double dt, double margin);
/* How far rotation can move the surface of body i during dt: dt |w| times its rotation lever. */
double sg_body_rotation_sweep(const sg_scene *s, int i, double dt);
/* How far a turning kinematic plane's surface moves within dt where it meets body `other`: the
 * plane has no finite lever, but the part of it within reach of `other` is at most
 * |x_other - x_plane| + R_other from the point it turns about (0 for a plane that does not move). */
double sg_plane_turn_sweep(const sg_scene *s, int plane, int other, double dt);
/* Displacement of body j relative to body i over the step: dt (v_j - v_i), fixed bodies at rest.
 * The one measure of relative motion of the broad phase (sg_pair_may_touch) and of the reach. */
void sg_pair_displacement(const sg_scene *s, int i, int j, double dt, double d[3]);
/* The displacements of j relative to i that the candidate test follows; returns their number.
 * d[0] is sg_pair_displacement; with stops, also the motion of each body of the pair while the
 * other, when it is a moving (dynamic) body, stands still: dt v_j if i is moving, -dt v_i if j is.
 * The solve may stop a body within the step (it lands on a third one), and the other then runs
 * into it; bodies falling together meet nothing in their relative motion alone. */
int sg_pair_displacements(const sg_scene *s, int i, int j, double dt, int stops, double d[3][3]);
/* Narrow-phase reach of the pair: margin + the longest of its displacements (dt |v_i - v_j|, and
 * with stops dt |v_i| and dt |v_j| as sg_pair_displacements gives them) + rotation sweeps of i and
 * j. The same value whatever the order of i and j. */
double sg_pair_reach(const sg_scene *s, int i, int j, double margin, double dt, int stops);
/* Least gap of two spheres (radii summed: radii) whose centres are p apart (x_j - x_i) and move
 * by d relative to each other along straight lines: |p + t d| - radii at the t in [0, 1] closest
 * to the origin. */
double sg_spheres_least_gap(const double *p, const double *d, double radii);
/* Two spheres' contact taken where they meet along their relative motion over the step, not where
 * they stand at its start. Centres xa, xb (p = xa - xb), radii ra, rb, d_a = A's displacement
 * relative to B over the step, c the contact of the start positions (normal along p); nothing
 * changes unless the gap is open and the motion brings them closer.
 * When the straight-line motion touches, the normal becomes the one at the first touch; when it
 * misses, the one at the closest approach; the gap is p . n - ra - rb, the gap the constraint
 * gap + dt u_n >= 0 (linear in the motion) then follows along n. Linearized at the start, a pair
 * sliding past a neighbour at a speed comparable to d / dt is held by a constraint its motion
 * never meets ("ghost" contacts); along the new normal it is not, and a pair that does meet is
 * pushed apart along the normal of the impact. */
void sg_meet_spheres(const double *xa, const double *xb, double ra, double rb, const double *d_a, sg_contact *c);
/* Contacts of the trees' link geoms (src/collision/tree_contacts.c), appended to out unsorted:
 * each tree body's geoms (tree.h, sg_link_geom) against the other bodies of s, against the geoms of
 * the other trees and against those of its own links but the joined ones (sg_tree_links_joined).
 * A contact on a geom has the geom's tree body as its side, the geom's link in link_a or link_b,
 * and the geoms' indices + 1 in the feature's top 16 bits (A's in bits 24-31, B's in 16-23; 0: not a
 * geom), so its identity (gid_a, gid_b, feature) names the geoms. */
sg_err sg_find_tree_contacts(const sg_scene *s, double margin, double dt, sg_contacts *out);
/* Broad + narrow phase: the contacts of the candidate pairs with gap < sg_pair_reach (two rigid-6
 * spheres' taken where they meet when bp->meet_normal, sg_meet_spheres), and those of the trees'
 * link geoms (sg_find_tree_contacts). */
sg_err sg_find_contacts(const sg_scene *s, double margin, double dt, sg_broadphase *bp, sg_contacts *out);

/* Periodic boundaries (src/collision/periodic.c). The images of one search: bodies
 * [n_real, n_real + n) of the scene while it runs, image k a copy of body real[k] moved by
 * shift[3k..3k+3). Kept between calls for their memory. */
typedef struct {
  int n_real, n, cap, cap_shift;
  int *real;
  double *shift;
} sg_images;
void sg_images_destroy(sg_images *im);
/* sg_find_contacts with the scene's periodic boundaries: images of the bodies near the cell's
 * faces are appended for the search and removed after; each contact across a boundary is a
 * contact of the two bodies with B's shift, found once. The plain search for a scene without. */
sg_err sg_find_contacts_periodic(sg_scene *s, double margin, double dt, sg_broadphase *bp, sg_images *im,
                                 sg_contacts *out);
/* sg_broadphase_pairs (dt = 0) with the scene's periodic boundaries: a pair across a boundary is a
 * pair of the two bodies, listed once. The plain pairs for a scene without. */
sg_err sg_broadphase_pairs_periodic(sg_scene *s, double margin, sg_broadphase *bp, sg_images *im);
/* The shifts by which a body's images move (the periods' combinations, up to 26); their number. */
int sg_periodic_shifts(const sg_scene *s, double shifts[26][3]);
/* x (a moving body's position) back into the periodic cell along its periodic axes. */
void sg_periodic_wrap(const sg_scene *s, double x[3]);

#endif
