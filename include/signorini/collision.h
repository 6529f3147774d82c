/* Collision detection for a whole scene: uniform-grid broad phase, then the narrow phase on each
 * candidate pair. Output is sorted by (gid_a, gid_b, feature), so it does not depend on the order
 * bodies are stored in, nor on the number of ranks. */
#ifndef SIGNORINI_COLLISION_H
#define SIGNORINI_COLLISION_H
#include "signorini/geometry.h"
#include "signorini/scene.h"

typedef struct {
  int a, b;            /* local body indices; the normal points from b toward a */
  int64_t gid_a, gid_b;
  sg_contact_point cp; /* point, normal, gap, feature */
} sg_contact;

typedef struct {
  int n, cap;
  sg_contact *c;
} sg_contacts;

void sg_contacts_destroy(sg_contacts *c);
/* Ordering that defines a contact's identity across steps. */
int sg_contact_key_cmp(const sg_contact *x, const sg_contact *y);

/* Candidate pairs (i, j) whose bounding spheres, grown by margin, overlap. Uses a uniform grid
 * sized on the typical body; bodies much larger than a cell (walls, planes) are tested against
 * all others through their bounding boxes. Pairs of two fixed bodies are skipped. */
typedef struct {
  int n, cap;
  int *pairs;          /* [n][2], smaller local index first */
} sg_broadphase;

/* sweep_dt > 0 grows each body's bound by the distance it can travel in that time (speculative
 * contacts: a fast body meets its contacts before it reaches them, not after penetrating). */
sg_err sg_broadphase_pairs(sg_broadphase *bp, const sg_scene *s, double margin, double sweep_dt);
void sg_broadphase_destroy(sg_broadphase *bp);

/* World placement of body i (R from its quaternion). */
void sg_scene_geom(const sg_scene *s, int i, sg_geom *g);

/* Upper bound of the speed of any point of body i (|v| + |w| times its bounding radius). */
double sg_body_speed_bound(const sg_scene *s, int i);
/* Broad + narrow phase: all contacts with gap < margin + sweep_dt (speed bound of a + of b). */
sg_err sg_find_contacts(const sg_scene *s, double margin, double sweep_dt, sg_broadphase *bp, sg_contacts *out);

#endif
