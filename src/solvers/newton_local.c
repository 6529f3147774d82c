/* The Newton matrix's numbering for a rank's part of a problem (sg_newton_setup_local, newton.h):
 * owned subsystems numbered by rank order, ghosts' rows asked of their owners by global id, and the
 * scatter that hands the solution back to the owned and ghost unknowns of the local layout. Nothing
 * here is of the size of the whole problem: one all-to-all of counts, then messages to the ranks
 * that own ghosts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "solvers/newton_internal.h"

typedef struct {
  int64_t gid;
  int row;
} gid_row;

static int cmp_gid_row(const void *a, const void *b) {
  int64_t x = ((const gid_row *)a)->gid, y = ((const gid_row *)b)->gid;
  return (x > y) - (x < y);
}

static sg_err number_owned(sg_newton_sys *ns, const sg_problem *p);
static sg_err ghost_rows(sg_newton_sys *ns, const sg_problem *p);
static sg_err answer_requests(const sg_newton_sys *ns, const sg_problem *p, const int64_t *gid, int n, int *row);
static sg_err create_local_scatter(sg_newton_sys *ns, const sg_problem *p);

/* gofs, row_lo, row_hi and n_v of the local numbering (collective). */
static sg_err number_local(sg_newton_sys *ns, const sg_problem *p) {
  SG_CHECK(sg_newton_begin_setup(ns));
  sg_err err = sg_grow((void **)&ns->gofs, &ns->cap_gofs, p->n_sub + 1, sizeof(int), "Newton numbering");
  SG_CHECK(sg_error_collective(ns->comm, err));
  SG_CHECK(number_owned(ns, p));
  return ghost_rows(ns, p);
}

sg_err sg_newton_setup_local(sg_newton_sys *ns, const sg_problem *p) {
  SG_CHECK(number_local(ns, p));
  SG_CHECK(sg_error_collective(ns->comm, sg_newton_create_matrix(ns, p)));
  return create_local_scatter(ns, p);
}

void sg_newton_init_numbering(sg_newton_sys *ns, MPI_Comm comm) {
  memset(ns, 0, sizeof *ns);
  ns->comm = comm;
  MPI_Comm_rank(comm, &ns->rank);
  MPI_Comm_size(comm, &ns->size);
}

sg_err sg_newton_number_local(sg_newton_sys *ns, const sg_problem *p) {
  SG_CHECK(number_local(ns, p));
  SG_PETSC(VecCreateMPI(ns->comm, ns->row_hi - ns->row_lo, ns->n_v, &ns->x));
  return create_local_scatter(ns, p);
}

sg_err sg_newton_share_ghosts(sg_newton_sys *ns, const sg_problem *p, double *v) {
  if (ns->size == 1) return SG_OK; /* no ghosts */
  PetscScalar *a;
  const PetscScalar *loc;
  SG_PETSC(VecGetArray(ns->x, &a));
  for (int j = 0; j < p->n_sub; ++j)
    if (sg_newton_owner(p, j) == ns->rank)
      memcpy(a + ns->gofs[j] - ns->row_lo, v + p->sub_off[j], (size_t)p->sub_dof[j] * sizeof(double));
  SG_PETSC(VecRestoreArray(ns->x, &a));
  SG_PETSC(VecScatterBegin(ns->to_loc, ns->x, ns->x_loc, INSERT_VALUES, SCATTER_FORWARD));
  SG_PETSC(VecScatterEnd(ns->to_loc, ns->x, ns->x_loc, INSERT_VALUES, SCATTER_FORWARD));
  SG_PETSC(VecGetArrayRead(ns->x_loc, &loc));
  for (int j = 0; j < p->n_sub; ++j)
    if (sg_newton_owner(p, j) != ns->rank)
      memcpy(v + p->sub_off[j], loc + p->sub_off[j], (size_t)p->sub_dof[j] * sizeof(double));
  SG_PETSC(VecRestoreArrayRead(ns->x_loc, &loc));
  return SG_OK;
}

/* Rows of the owned subsystems: this rank's block starts after the unknowns of lower ranks. */
static sg_err number_owned(sg_newton_sys *ns, const sg_problem *p) {
  int own = 0, lo = 0, total = 0;
  for (int j = 0; j < p->n_sub; ++j)
    if (sg_newton_owner(p, j) == ns->rank) own += p->sub_dof[j];
  MPI_Exscan(&own, &lo, 1, MPI_INT, MPI_SUM, ns->comm);
  if (ns->rank == 0) lo = 0; /* MPI_Exscan leaves rank 0's result undefined */
  MPI_Allreduce(&own, &total, 1, MPI_INT, MPI_SUM, ns->comm);
  int row = lo;
  for (int j = 0; j < p->n_sub; ++j) {
    ns->gofs[j] = -1;
    if (sg_newton_owner(p, j) != ns->rank) continue;
    ns->gofs[j] = row;
    row += p->sub_dof[j];
  }
  ns->row_lo = lo;
  ns->row_hi = row;
  ns->n_v = total;
  ns->n_sub = p->n_sub;
  ns->n_loc = sg_problem_n_v(p);
  return SG_OK;
}

/* The owned row of each global id asked for (-1: not owned here). */
static sg_err answer_requests(const sg_newton_sys *ns, const sg_problem *p, const int64_t *gid, int n, int *row) {
  int n_own = 0;
  gid_row *own = sg_calloc((size_t)p->n_sub + 1, sizeof *own, "Newton ghost rows");
  if (!own) return SG_ERR_MEM;
  for (int j = 0; j < p->n_sub; ++j)
    if (sg_newton_owner(p, j) == ns->rank) own[n_own++] = (gid_row){p->sub_gid[j], ns->gofs[j]};
  qsort(own, (size_t)n_own, sizeof *own, cmp_gid_row);
  for (int m = 0; m < n; ++m) {
    gid_row key = {gid[m], -1}, *hit = n_own ? bsearch(&key, own, (size_t)n_own, sizeof *own, cmp_gid_row) : NULL;
    row[m] = hit ? hit->row : -1;
  }
  free(own);
  return SG_OK;
}

/* Each ghost's first row from its owner: the ghosts' global ids go to their owners (grouped by owner
 * rank), the rows come back in the same order. */
static sg_err ghost_rows(sg_newton_sys *ns, const sg_problem *p) {
  const int P = ns->size;
  int n_ghost = 0;
  for (int j = 0; j < p->n_sub; ++j) n_ghost += sg_newton_owner(p, j) != ns->rank;
  if (P == 1) /* every subsystem is this rank's */
    return n_ghost ? sg_error_set(SG_ERR_ARG, "Newton numbering: a subsystem owned by another rank on one rank") : SG_OK;
  int64_t *rgid = NULL;
  int *rrow = NULL, *cnt = sg_calloc(4 * (size_t)P + 2, sizeof *cnt, "Newton ghost rows");
  int64_t *sgid = sg_calloc((size_t)n_ghost + 1, sizeof *sgid, "Newton ghost rows");
  int *sidx = sg_calloc((size_t)n_ghost + 1, sizeof *sidx, "Newton ghost rows");
  int *srow = sg_calloc((size_t)n_ghost + 1, sizeof *srow, "Newton ghost rows");
  sg_err err = cnt && sgid && sidx && srow ? SG_OK : SG_ERR_MEM;
  for (int j = 0; j < p->n_sub; ++j) {
    int o = sg_newton_owner(p, j);
    if (o == ns->rank) continue;
    if (o < 0 || o >= P) err = sg_error_set(SG_ERR_ARG, "Newton numbering: subsystem %lld has owner %d of %d ranks", (long long)p->sub_gid[j], o, P);
    else if (!err) cnt[o]++;
  }
  err = sg_error_collective(ns->comm, err);
  if (err) goto out;
  int *scount = cnt, *rcount = cnt + P, *soff = cnt + 2 * P, *roff = cnt + 3 * P + 1;
  MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, ns->comm);
  soff[0] = roff[0] = 0;
  for (int k = 0; k < P; ++k) {
    soff[k + 1] = soff[k] + scount[k];
    roff[k + 1] = roff[k] + rcount[k];
  }
  int n_req = roff[P];
  for (int k = 0; k < P; ++k) scount[k] = 0; /* refilled while packing */
  for (int j = 0; j < p->n_sub; ++j) {
    int o = sg_newton_owner(p, j);
    if (o == ns->rank) continue;
    int m = soff[o] + scount[o]++;
    sgid[m] = p->sub_gid[j];
    sidx[m] = j;
  }
  rgid = sg_calloc((size_t)n_req + 1, sizeof *rgid, "Newton ghost rows");
  rrow = sg_calloc((size_t)n_req + 1, sizeof *rrow, "Newton ghost rows");
  err = rgid && rrow ? SG_OK : SG_ERR_MEM;
  err = sg_error_collective(ns->comm, err);
  if (err) goto out;
  MPI_Alltoallv(sgid, scount, soff, MPI_INT64_T, rgid, rcount, roff, MPI_INT64_T, ns->comm);
  err = sg_error_collective(ns->comm, answer_requests(ns, p, rgid, n_req, rrow));
  if (err) goto out;
  MPI_Alltoallv(rrow, rcount, roff, MPI_INT, srow, scount, soff, MPI_INT, ns->comm);
  for (int m = 0; m < n_ghost && !err; ++m) {
    if (srow[m] < 0)
      err = sg_error_set(SG_ERR_ARG, "Newton numbering: ghost subsystem %lld is not owned by rank %d",
                         (long long)sgid[m], sg_newton_owner(p, sidx[m]));
    ns->gofs[sidx[m]] = srow[m];
  }
  err = sg_error_collective(ns->comm, err);
out:
  free(cnt); free(sgid); free(sidx); free(srow); free(rgid); free(rrow);
  return err;
}

/* x (global) -> x_loc: every unknown of the local layout, owned and ghost, from its global row. */
static sg_err create_local_scatter(sg_newton_sys *ns, const sg_problem *p) {
  PetscInt *idx = sg_calloc((size_t)ns->n_loc + 1, sizeof *idx, "Newton local scatter");
  SG_CHECK(sg_error_collective(ns->comm, idx ? SG_OK : SG_ERR_MEM));
  for (int j = 0; j < p->n_sub; ++j)
    for (int k = 0; k < p->sub_dof[j]; ++k) idx[p->sub_off[j] + k] = ns->gofs[j] + k;
  IS from = NULL;
  PetscErrorCode perr = ISCreateGeneral(PETSC_COMM_SELF, ns->n_loc, idx, PETSC_COPY_VALUES, &from);
  free(idx);
  SG_PETSC(perr);
  SG_PETSC(VecCreateSeq(PETSC_COMM_SELF, ns->n_loc, &ns->x_loc));
  perr = VecScatterCreate(ns->x, from, ns->x_loc, NULL, &ns->to_loc);
  ISDestroy(&from);
  SG_PETSC(perr);
  return SG_OK;
}

sg_err sg_newton_mark_mine(const sg_problem *p, int rank, unsigned char **sub_mine, int *cap_sub, unsigned char **con_mine,
                           int *cap_con, const char *who) {
  SG_CHECK(sg_grow((void **)sub_mine, cap_sub, p->n_sub + 1, 1, who));
  SG_CHECK(sg_grow((void **)con_mine, cap_con, p->n_con + 1, 1, who));
  for (int j = 0; j < p->n_sub; ++j) (*sub_mine)[j] = sg_newton_owner(p, j) == rank;
  for (int i = 0; i < p->n_con; ++i) {
    int q0 = p->con_pair[i];
    (*con_mine)[i] = q0 < p->con_pair[i + 1] ? sg_newton_owner(p, p->pair_sub[q0]) == rank : rank == 0;
  }
  return SG_OK;
}

void sg_ranks_sum(MPI_Comm comm, int size, double *x, int n) {
  if (size > 1) MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, comm);
}

void sg_ranks_max(MPI_Comm comm, int size, double *x, int n) {
  if (size == 1) return;
  for (int k = 0; k < n; ++k)
    if (isnan(x[k])) x[k] = INFINITY;
  MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_MAX, comm);
}

/* One constraint's entry in a row-number message: the global ids of its first and last pairs'
 * subsystems (checked by the receiver) and its first global row. */
typedef struct {
  int64_t gid_first, gid_last, row;
} row_entry;

static inline int con_owner(const sg_problem *p, int i) { return sg_newton_owner(p, p->pair_sub[p->con_pair[i]]); }

/* The ranks other than me that own one of constraint i's subsystems, each once, into q_out;
 * returns their number. */
static int sharing_ranks(const sg_problem *p, int i, int me, int *q_out) {
  int n = 0;
  for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
    int o = sg_newton_owner(p, p->pair_sub[q]), seen = o == me;
    for (int k = 0; k < n && !seen; ++k) seen = q_out[k] == o;
    if (!seen) q_out[n++] = o;
  }
  return n;
}

/* The owned constraints' first rows go to every rank sharing them; the foreign constraints' rows
 * arrive from their owners, in the order both ranks list their shared constraints. */
static sg_err foreign_rows(MPI_Comm comm, int me, int P, const sg_problem *p, const unsigned char *con_mine, int *gidx) {
  int *cnt = sg_calloc(5 * (size_t)P + 2, sizeof *cnt, "constraint rows");
  SG_CHECK(sg_error_collective(comm, cnt ? SG_OK : SG_ERR_MEM));
  int *scount = cnt, *rcount = cnt + P, *expect = cnt + 2 * P, *soff = cnt + 3 * P, *roff = cnt + 4 * P + 1;
  int qs[64];
  sg_err err = SG_OK;
  for (int i = 0; i < p->n_con && !err; ++i) {
    if (p->con_pair[i] == p->con_pair[i + 1]) {
      if (!con_mine[i]) err = sg_error_set(SG_ERR_ARG, "constraint rows: constraint %d touches no subsystem", i);
      continue;
    }
    if (p->con_pair[i + 1] - p->con_pair[i] > 64) { err = sg_error_set(SG_ERR_ARG, "constraint rows: constraint %d touches more than 64 subsystems", i); break; }
    if (!con_mine[i]) { expect[con_owner(p, i)]++; continue; }
    int n = sharing_ranks(p, i, me, qs);
    for (int k = 0; k < n; ++k) scount[qs[k]]++;
  }
  row_entry *sbuf = NULL, *rbuf = NULL;
  int *fill = NULL;
  if ((err = sg_error_collective(comm, err))) goto out;
  MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
  for (int k = 0; k < P && !err; ++k)
    if (rcount[k] != expect[k])
      err = sg_error_set(SG_ERR_ARG, "constraint rows: rank %d shares %d constraints owned by rank %d, which sends %d", me, expect[k], k, rcount[k]);
  soff[0] = roff[0] = 0;
  for (int k = 0; k < P; ++k) {
    soff[k + 1] = soff[k] + scount[k];
    roff[k + 1] = roff[k] + rcount[k];
  }
  sbuf = sg_calloc((size_t)soff[P] + 1, sizeof *sbuf, "constraint rows");
  rbuf = sg_calloc((size_t)roff[P] + 1, sizeof *rbuf, "constraint rows");
  fill = sg_calloc((size_t)P + 1, sizeof *fill, "constraint rows");
  if (!err && !(sbuf && rbuf && fill)) err = SG_ERR_MEM;
  if ((err = sg_error_collective(comm, err))) goto out;
  for (int i = 0; i < p->n_con; ++i) {
    if (!con_mine[i] || p->con_pair[i] == p->con_pair[i + 1]) continue;
    int n = sharing_ranks(p, i, me, qs);
    row_entry e = {p->sub_gid[p->pair_sub[p->con_pair[i]]], p->sub_gid[p->pair_sub[p->con_pair[i + 1] - 1]], gidx[p->con_row[i]]};
    for (int k = 0; k < n; ++k) sbuf[soff[qs[k]] + fill[qs[k]]++] = e;
  }
  for (int k = 0; k < P; ++k) { /* in units of int64 */
    scount[k] *= 3; rcount[k] *= 3; soff[k] *= 3; roff[k] *= 3;
  }
  MPI_Alltoallv(sbuf, scount, soff, MPI_INT64_T, rbuf, rcount, roff, MPI_INT64_T, comm);
  for (int k = 0; k < P; ++k) fill[k] = roff[k] / 3;
  for (int i = 0; i < p->n_con && !err; ++i) {
    if (con_mine[i]) continue;
    const row_entry *e = rbuf + fill[con_owner(p, i)]++;
    if (e->gid_first != p->sub_gid[p->pair_sub[p->con_pair[i]]] || e->gid_last != p->sub_gid[p->pair_sub[p->con_pair[i + 1] - 1]])
      err = sg_error_set(SG_ERR_ARG, "constraint rows: rank %d and rank %d list their shared constraints in different orders", me, con_owner(p, i));
    for (int k = p->con_row[i]; k < p->con_row[i + 1]; ++k) gidx[k] = (int)e->row + (k - p->con_row[i]);
  }
  err = sg_error_collective(comm, err);
out:
  free(cnt); free(sbuf); free(rbuf); free(fill);
  return err;
}

sg_err sg_newton_number_rows(MPI_Comm comm, const sg_problem *p, const unsigned char *con_mine, int *gidx, int *n_mine_rows,
                             int *n_glob_rows) {
  int me, P, own = 0, lo = 0, total = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &P);
  for (int i = 0; i < p->n_con; ++i)
    if (con_mine[i]) own += p->con_row[i + 1] - p->con_row[i];
  MPI_Exscan(&own, &lo, 1, MPI_INT, MPI_SUM, comm);
  if (me == 0) lo = 0; /* MPI_Exscan leaves rank 0's result undefined */
  MPI_Allreduce(&own, &total, 1, MPI_INT, MPI_SUM, comm);
  int row = lo;
  for (int i = 0; i < p->n_con; ++i)
    for (int k = p->con_row[i]; k < p->con_row[i + 1]; ++k) gidx[k] = con_mine[i] ? row++ : -1;
  *n_mine_rows = own;
  *n_glob_rows = total;
  return P == 1 ? SG_OK : foreign_rows(comm, me, P, p, con_mine, gidx);
}
