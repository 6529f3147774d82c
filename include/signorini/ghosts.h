/* Ghost bodies: copies of remote moving bodies close enough to touch one of this rank's bodies
 * within a step, so that the narrow phase finds every contact of an owned body on its owner's
 * rank (a contact between bodies of two ranks is found by both, identically).
 * Reach of a body (sg_body_reach): R_i = bounding radius + sweep_dt x speed bound (its own motion,
 * not relative to anything) + margin / 2 (a push within the step). A rank's box is the union of the boxes of its owned bodies grown by R_i + margin; an
 * owned body whose sphere (x_i, R_i) meets another rank's box is sent there. The broad phase pairs
 * two bodies only when their bounding spheres come within the margin along the relative motion,
 * which implies |x_i - x_j| < r_i + r_j + margin + sweep_dt |v_i - v_j| <= R_i + R_j + margin, so no
 * pair is missed. */
#ifndef SIGNORINI_GHOSTS_H
#define SIGNORINI_GHOSTS_H
#include <mpi.h>
#include "signorini/scene.h"

typedef struct {
  MPI_Comm comm;
  int rank, size;
  /* this step's plan: owned bodies sent to each rank, ghosts received from each rank */
  int *send_off, *send_body;  /* [P + 1], [send_off[P]]: local indices of the owned bodies sent */
  int *recv_off;              /* [P + 1]: ghosts from rank k are [recv_off[k], recv_off[k + 1]) */
  int *ghost_owner;           /* [n ghosts] */
  int n_ghosts;
  int cap_send, cap_owner;
  double *boxes;              /* [P][6] */
  double *sbuf, *rbuf;
  int cap_sbuf, cap_rbuf;
  /* plan for sg_bodies_exchange */
  int *dest_off, *dest;
  int cap_doff, cap_dest;
} sg_ghosts;

/* Find and fetch this step's ghosts of the distributed scene s: ghosts (reset, then filled, in
 * ascending (source rank, gid)) and the plan kept in g. */
sg_err sg_ghosts_update(sg_ghosts *g, MPI_Comm comm, const sg_scene *s, double margin, double sweep_dt,
                        sg_scene *ghosts);
/* With the plan of the last update: every ghost gets `width` values from its owner (on the owner,
 * body i's values start at vals[offset[i]], or vals[width x i] when offset is NULL; here they land
 * at ghost_vals[width x ghost index]). */
sg_err sg_ghosts_forward(sg_ghosts *g, const double *vals, const int *offset, int width, double *ghost_vals);
void sg_ghosts_destroy(sg_ghosts *g);

#endif
