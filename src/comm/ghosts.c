/* Ghost bodies of a distributed scene (see ghosts.h for the reach argument). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "signorini/collision.h"
#include "signorini/exchange.h"
#include "signorini/ghosts.h"
#include "signorini/timing.h"

void sg_ghosts_destroy(sg_ghosts *g) {
  free(g->send_off); free(g->send_body); free(g->recv_off); free(g->ghost_owner); free(g->boxes);
  free(g->sbuf); free(g->rbuf); free(g->dest_off); free(g->dest);
  memset(g, 0, sizeof *g);
}

/* These reaches (sg_body_reach) give a superset of the pairs the broad phase can form: a pair
 * that sg_pair_may_touch accepts has its bounding spheres within margin at some time of the step,
 * hence |x_i - x_j| < R_i + R_j + margin + dt |v_i - v_j|, and |v_i - v_j| <= |v_i| + |v_j|
 * <= speed bound of i + that of j; so |x_i - x_j| < reach(i) + reach(j) + margin, which the rank
 * boxes below cover. (Fixed bodies are on every rank.) */

/* Does the sphere (x, r) meet the box lo..hi? */
static int sphere_meets_box(const double *x, double r, const double *box) {
  double d2 = 0;
  for (int k = 0; k < 3; ++k) {
    double lo = box[k], hi = box[3 + k], t = x[k] < lo ? lo - x[k] : x[k] > hi ? x[k] - hi : 0;
    d2 += t * t;
  }
  return d2 < r * r;
}

static int sphere_or_image_meets_box(const double *x, double r, const double *box, double shifts[][3], int n_shifts) {
  for (int k = 0; k < n_shifts; ++k) {
    const double y[3] = {x[0] + shifts[k][0], x[1] + shifts[k][1], x[2] + shifts[k][2]};
    if (sphere_meets_box(y, r, box)) return 1;
  }
  return 0;
}

sg_err sg_ghosts_update(sg_ghosts *g, MPI_Comm comm, const sg_scene *s, double margin, double sweep_dt,
                        sg_scene *ghosts) {
  g->comm = comm;
  MPI_Comm_rank(comm, &g->rank);
  MPI_Comm_size(comm, &g->size);
  const int P = g->size, me = g->rank, n = s->n;
  /* rank-local failures (memory) are agreed on before each collective (error.h) */
  if (!g->boxes) {
    g->boxes = sg_calloc((size_t)6 * P, sizeof(double), "ghost boxes");
    g->send_off = sg_calloc((size_t)P + 1, sizeof(int), "ghost plan");
    g->recv_off = sg_calloc((size_t)P + 1, sizeof(int), "ghost plan");
  }
  SG_CHECK(sg_error_collective(comm, g->boxes && g->send_off && g->recv_off ? SG_OK : SG_ERR_MEM));
  /* this rank's box: owned bodies grown by their reach and the margin (empty: lo > hi) */
  double box[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < n; ++i) {
    if (s->fixed[i]) continue;
    double r = sg_body_reach(s, i, sweep_dt, margin) + margin;
    for (int k = 0; k < 3; ++k) {
      box[k] = fmin(box[k], s->state.pos[3 * i + k] - r);
      box[3 + k] = fmax(box[3 + k], s->state.pos[3 * i + k] + r);
    }
  }
  if (MPI_Allgather(box, 6, MPI_DOUBLE, g->boxes, 6, MPI_DOUBLE, comm) != MPI_SUCCESS)
    return sg_error_set(SG_ERR_LIB, "ghosts: cannot gather the rank boxes");
  /* destinations of each owned body; O(owned x P) box tests, each with the body's periodic
   * images too (periodic.c builds them from the ghosts) */
  double shifts[27][3] = {{0, 0, 0}}, images[26][3];
  const int n_shifts = 1 + sg_periodic_shifts(s, images);
  memcpy(shifts[1], images, (size_t)(n_shifts - 1) * sizeof images[0]);
  sg_err err = sg_grow((void **)&g->dest_off, &g->cap_doff, n + 1, sizeof(int), "ghost plan");
  SG_CHECK(sg_error_collective(comm, err));
  g->dest_off[0] = 0;
  int nd = 0;
  for (int pass = 0; pass < 2; ++pass) {
    nd = 0;
    for (int i = 0; i < n; ++i) {
      double r = sg_body_reach(s, i, sweep_dt, margin);
      for (int k = 0; k < P && !s->fixed[i]; ++k) {
        if (k == me || !sphere_or_image_meets_box(s->state.pos + 3 * i, r, g->boxes + 6 * k, shifts, n_shifts)) continue;
        if (pass) g->dest[nd] = k;
        nd++;
      }
      if (pass) g->dest_off[i + 1] = nd;
    }
    if (!pass) err = sg_grow((void **)&g->dest, &g->cap_dest, nd + 1, sizeof(int), "ghost plan");
    if (err) break;
  }
  if (!err) err = sg_grow((void **)&g->send_body, &g->cap_send, nd + 1, sizeof(int), "ghost plan");
  SG_CHECK(sg_error_collective(comm, err));
  /* the send plan by destination (the order sg_bodies_exchange packs in: by rank, then body) */
  memset(g->send_off, 0, (size_t)(P + 1) * sizeof(int));
  for (int m = 0; m < nd; ++m) g->send_off[g->dest[m] + 1]++;
  for (int k = 0; k < P; ++k) g->send_off[k + 1] += g->send_off[k];
  int *fill = g->recv_off; /* scratch until the receive side is known */
  memcpy(fill, g->send_off, (size_t)P * sizeof(int));
  for (int i = 0; i < n; ++i)
    for (int m = g->dest_off[i]; m < g->dest_off[i + 1]; ++m) g->send_body[fill[g->dest[m]]++] = i;

  ghosts->n = 0;
  SG_CHECK(sg_bodies_exchange(comm, s, g->dest_off, g->dest, ghosts, &g->ghost_owner, &g->cap_owner));
  g->n_ghosts = ghosts->n;
  memset(g->recv_off, 0, (size_t)(P + 1) * sizeof(int));
  for (int m = 0; m < ghosts->n; ++m) g->recv_off[g->ghost_owner[m] + 1]++;
  for (int k = 0; k < P; ++k) g->recv_off[k + 1] += g->recv_off[k];
  return SG_OK;
}

sg_err sg_ghosts_forward(sg_ghosts *g, const double *vals, const int *offset, int width, double *ghost_vals) {
  const int P = g->size;
  if (P == 1) return SG_OK;
  int ns = g->send_off[P], nr = g->recv_off[P];
  sg_err err = sg_grow((void **)&g->sbuf, &g->cap_sbuf, width * ns + 1, sizeof(double), "ghost values");
  if (!err) err = sg_grow((void **)&g->rbuf, &g->cap_rbuf, width * nr + 1, sizeof(double), "ghost values");
  MPI_Request *req = err ? NULL : sg_calloc((size_t)2 * P, sizeof *req, "ghost requests");
  if (!err && !req) err = SG_ERR_MEM;
  err = sg_error_collective(g->comm, err); /* no rank left waiting on a message never sent */
  if (err) { free(req); return err; }
  for (int m = 0; m < ns; ++m) {
    int i = g->send_body[m];
    memcpy(g->sbuf + (size_t)width * m, vals + (offset ? (size_t)offset[i] : (size_t)width * i), (size_t)width * sizeof(double));
  }
  int nreq = 0;
  for (int k = 0; k < P; ++k)
    if (g->recv_off[k + 1] > g->recv_off[k])
      MPI_Irecv(g->rbuf + (size_t)width * g->recv_off[k], width * (g->recv_off[k + 1] - g->recv_off[k]), MPI_DOUBLE, k, 78,
                g->comm, &req[nreq++]);
  for (int k = 0; k < P; ++k)
    if (g->send_off[k + 1] > g->send_off[k])
      MPI_Isend(g->sbuf + (size_t)width * g->send_off[k], width * (g->send_off[k + 1] - g->send_off[k]), MPI_DOUBLE, k, 78,
                g->comm, &req[nreq++]);
  int ok = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
  free(req);
  if (!ok) return sg_error_set(SG_ERR_LIB, "ghosts: value exchange failed");
  memcpy(ghost_vals, g->rbuf, (size_t)width * nr * sizeof(double));
  return SG_OK;
}
