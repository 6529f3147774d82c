/* A distributed problem gathered whole: each rank sends its own subsystems and the constraints it
 * keeps, flattened into doubles (global ids and keys below 2^53 are exact); the receivers order
 * subsystems by global id and constraints by key, so the result is the one-rank problem whatever P. */
#include <stdlib.h>
#include <string.h>
#include "signorini/problem.h"
#include "signorini/problem_gather.h"

typedef struct { double key[3]; const double *rec; } con_slot;
typedef struct { int64_t gid; const double *rec; } sub_slot;

static int con_cmp(const void *a, const void *b) {
  const con_slot *x = a, *y = b;
  for (int k = 0; k < 3; ++k)
    if (x->key[k] != y->key[k]) return x->key[k] < y->key[k] ? -1 : 1;
  return 0;
}
static int sub_cmp(const void *a, const void *b) {
  const sub_slot *x = a, *y = b;
  return (x->gid > y->gid) - (x->gid < y->gid);
}

/* What travels: per subsystem [gid, dof, owner rank, A, b, (v)]; per constraint [key0..2, kind,
 * e(rows), mu, stiff, damp, n_pairs, (lambda(rows)), then per pair: subsystem gid, dof, J (rows x
 * dof)]. The parenthesized parts only when warm starts are carried. */
typedef struct {
  const sg_problem *p;
  const unsigned char *sub_mine, *con_kept;
  const int64_t *con_key;
  const double *v, *lambda; /* NULL: not carried */
  int rank;
} flat_input;

static int sub_record_len(int d, int carry) { return 3 + d * (d + 1) + (carry ? d : 0); }
static int con_head_len(int rows, int carry) { return 4 + rows + 4 + (carry ? rows : 0); }

static long long flat_size(const flat_input *in, int *ns, int *nc) {
  const sg_problem *p = in->p;
  const int carry = in->v != NULL;
  long long n = 0;
  *ns = *nc = 0;
  for (int j = 0; j < p->n_sub; ++j)
    if (in->sub_mine[j]) { n += sub_record_len(p->sub_dof[j], carry); (*ns)++; }
  for (int i = 0; i < p->n_con; ++i) {
    if (!in->con_kept[i]) continue;
    int rows = sg_con_rows(p->kind[i]);
    n += con_head_len(rows, carry);
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) n += 2 + rows * p->sub_dof[p->pair_sub[q]];
    (*nc)++;
  }
  return n;
}

static void flatten(const flat_input *in, double *buf) {
  const sg_problem *p = in->p;
  long long at = 0;
  for (int j = 0; j < p->n_sub; ++j) {
    if (!in->sub_mine[j]) continue;
    int d = p->sub_dof[j];
    buf[at++] = (double)p->sub_gid[j];
    buf[at++] = d;
    buf[at++] = in->rank;
    memcpy(buf + at, p->A + p->sub_aoff[j], (size_t)d * d * sizeof(double)); at += d * d;
    memcpy(buf + at, p->b + p->sub_off[j], (size_t)d * sizeof(double)); at += d;
    if (in->v) { memcpy(buf + at, in->v + p->sub_off[j], (size_t)d * sizeof(double)); at += d; }
  }
  for (int i = 0; i < p->n_con; ++i) {
    if (!in->con_kept[i]) continue;
    int rows = sg_con_rows(p->kind[i]);
    for (int k = 0; k < 3; ++k) buf[at++] = (double)in->con_key[3 * i + k];
    buf[at++] = p->kind[i];
    memcpy(buf + at, p->e + p->con_row[i], (size_t)rows * sizeof(double)); at += rows;
    buf[at++] = p->mu[i]; buf[at++] = p->stiff[i]; buf[at++] = p->damp[i];
    buf[at++] = p->con_pair[i + 1] - p->con_pair[i];
    if (in->lambda) { memcpy(buf + at, in->lambda + p->con_row[i], (size_t)rows * sizeof(double)); at += rows; }
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      int j = p->pair_sub[q], d = p->sub_dof[j];
      buf[at++] = (double)p->sub_gid[j];
      buf[at++] = d;
      double block[SG_COMPACT_BLOCK];
      memcpy(buf + at, sg_problem_pair_block(p, i, q, block), (size_t)rows * d * sizeof(double)); at += rows * d;
    }
  }
}

/* Every rank's records on root (root < 0: on every rank): *whole, and per rank [values,
 * subsystems, constraints] in *counts, with cnt/dsp of the values. */
static sg_err exchange(MPI_Comm comm, const double *buf, const int mine[3], int root, double **whole, int **counts,
                       int **dsp) {
  int P, me;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  const int receives = root < 0 || me == root;
  int *all = receives ? sg_calloc((size_t)3 * P, sizeof *all, "problem gather") : NULL;
  int *cnt = receives ? sg_calloc((size_t)P, sizeof *cnt, "problem gather") : NULL;
  int *ofs = receives ? sg_calloc((size_t)P + 1, sizeof *ofs, "problem gather") : NULL;
  sg_err err = !receives || (all && cnt && ofs) ? SG_OK : SG_ERR_MEM;
  err = sg_error_collective(comm, err);
  if (!err) {
    if (root < 0) MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, comm);
    else MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root, comm);
    long long total = 0;
    if (receives) {
      for (int k = 0; k < P; ++k) { cnt[k] = all[3 * k]; ofs[k] = (int)total; total += cnt[k]; }
      if (total > 0x7fffffff) err = sg_error_set(SG_ERR_ARG, "problem gather: %lld values is too many for one rank", total);
      if (!err && !(*whole = sg_calloc((size_t)total + 1, sizeof **whole, "problem gather"))) err = SG_ERR_MEM;
    }
    err = sg_error_collective(comm, err);
  }
  if (!err) {
    int rc = root < 0 ? MPI_Allgatherv(buf, mine[0], MPI_DOUBLE, *whole, cnt, ofs, MPI_DOUBLE, comm)
                      : MPI_Gatherv(buf, mine[0], MPI_DOUBLE, *whole, cnt, ofs, MPI_DOUBLE, root, comm);
    if (rc != MPI_SUCCESS) err = sg_error_set(SG_ERR_LIB, "problem gather: the exchange failed");
  }
  free(cnt);
  *counts = all;
  *dsp = ofs;
  return err;
}

/* Room for the warm starts and keys of a whole problem of n_sub subsystems and n_con constraints. */
static sg_err grow_whole(sg_whole_problem *w, int n_v, int n_row, int n_con) {
  SG_CHECK(sg_grow((void **)&w->v, &w->cap_v, n_v + 1, sizeof(double), "whole problem"));
  SG_CHECK(sg_grow((void **)&w->lambda, &w->cap_lambda, n_row + 1, sizeof(double), "whole problem"));
  return sg_grow((void **)&w->key, &w->cap_key, 3 * n_con + 1, sizeof(int64_t), "whole problem");
}

/* The records sorted and built into out (w: also owners, warm starts and keys). */
static sg_err build(const double *whole, const int *all, const int *dsp, int P, sg_units units, double dt,
                    sg_problem *out, sg_whole_problem *w) {
  const int carry = w != NULL;
  long long S = 0, C = 0, V = 0, R = 0;
  for (int k = 0; k < P; ++k) { S += all[3 * k + 1]; C += all[3 * k + 2]; }
  sub_slot *subs = sg_calloc((size_t)S + 1, sizeof *subs, "problem gather");
  con_slot *cons = sg_calloc((size_t)C + 1, sizeof *cons, "problem gather");
  int *owner = sg_calloc((size_t)S + 1, sizeof *owner, "problem gather");
  sg_err err = subs && cons && owner ? SG_OK : SG_ERR_MEM;
  long long s = 0, c = 0;
  for (int k = 0; k < P && !err; ++k) {
    const double *r = whole + dsp[k];
    for (int m = 0; m < all[3 * k + 1]; ++m) {
      int d = (int)r[1];
      subs[s++] = (sub_slot){(int64_t)r[0], r};
      V += d;
      r += sub_record_len(d, carry);
    }
    for (int m = 0; m < all[3 * k + 2]; ++m) {
      int rows = sg_con_rows((int)r[3]), np = (int)r[4 + rows + 3];
      cons[c++] = (con_slot){{r[0], r[1], r[2]}, r};
      R += rows;
      r += con_head_len(rows, carry);
      for (int t = 0; t < np; ++t) r += 2 + rows * (int)r[1];
    }
  }
  if (!err && carry) err = grow_whole(w, (int)V, (int)R, (int)C);
  if (!err) {
    qsort(subs, (size_t)S, sizeof *subs, sub_cmp);
    qsort(cons, (size_t)C, sizeof *cons, con_cmp);
    sg_problem_reset(out);
    out->units = units;
    out->dt = dt;
  }
  for (long long m = 0; m < S && !err; ++m) {
    const double *r = subs[m].rec;
    int d = (int)r[1], j = 0;
    owner[m] = (int)r[2];
    err = sg_problem_add_subsystem(out, d, r + 3, r + 3 + d * d, subs[m].gid, &j);
    if (!err && carry) memcpy(w->v + out->sub_off[j], r + 3 + d * (d + 1), (size_t)d * sizeof(double));
  }
  for (long long m = 0; m < C && !err; ++m) {
    const double *r = cons[m].rec;
    int kind = (int)r[3], rows = sg_con_rows(kind), np = (int)r[4 + rows + 3], sub[8], i = 0;
    const double *Js[8], *q = r + con_head_len(rows, carry);
    if (np > 8) { err = sg_error_set(SG_ERR_ARG, "problem gather: a constraint touches %d subsystems", np); break; }
    for (int t = 0; t < np && !err; ++t) {
      sub_slot key = {(int64_t)q[0], NULL}, *hit = bsearch(&key, subs, (size_t)S, sizeof *subs, sub_cmp);
      if (!hit) err = sg_error_set(SG_ERR_ARG, "problem gather: subsystem %lld is held by no rank", (long long)key.gid);
      else sub[t] = (int)(hit - subs);
      Js[t] = q + 2;
      q += 2 + rows * (int)q[1];
    }
    if (!err) err = sg_problem_add_constraint(out, kind, r + 4, r[4 + rows], r[4 + rows + 1], r[4 + rows + 2], np, sub, Js, &i);
    if (!err && carry) {
      memcpy(w->lambda + out->con_row[i], r + 4 + rows + 4, (size_t)rows * sizeof(double));
      for (int k = 0; k < 3; ++k) w->key[3 * i + k] = (int64_t)r[k];
    }
  }
  if (!err && carry) err = sg_problem_set_owners(out, owner);
  free(subs); free(cons); free(owner);
  return err;
}

static sg_err gather(MPI_Comm comm, const flat_input *in, int root, sg_problem *out, sg_whole_problem *w) {
  int P, me;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  int ns, nc;
  long long n = flat_size(in, &ns, &nc);
  double *buf = sg_calloc((size_t)n + 1, sizeof *buf, "problem gather");
  sg_err err = buf ? SG_OK : SG_ERR_MEM;
  if (!err && n > 0x7fffffff) err = sg_error_set(SG_ERR_ARG, "problem gather: %lld values from one rank is too many", n);
  if (!err) flatten(in, buf);
  SG_CHECK(sg_error_collective(comm, err));
  int mine[3] = {(int)n, ns, nc}, *all = NULL, *dsp = NULL;
  double *whole = NULL;
  err = exchange(comm, buf, mine, root, &whole, &all, &dsp);
  free(buf);
  if (!err && (root < 0 || me == root)) err = build(whole, all, dsp, P, in->p->units, in->p->dt, out, w);
  free(whole); free(all); free(dsp);
  return sg_error_collective(comm, err);
}

sg_err sg_problem_gather(MPI_Comm comm, const sg_problem *p, const unsigned char *sub_mine, const unsigned char *con_kept,
                         const int64_t *con_key, int root, sg_problem *out) {
  int me;
  MPI_Comm_rank(comm, &me);
  flat_input in = {p, sub_mine, con_kept, con_key, NULL, NULL, me};
  return gather(comm, &in, root, out, NULL);
}

sg_err sg_problem_gather_all(MPI_Comm comm, const sg_problem *p, const unsigned char *sub_mine, const unsigned char *con_kept,
                             const int64_t *con_key, const double *v, const double *lambda, sg_whole_problem *w) {
  int me;
  MPI_Comm_rank(comm, &me);
  flat_input in = {p, sub_mine, con_kept, con_key, v, lambda, me};
  return gather(comm, &in, -1, &w->prob, w);
}

int sg_whole_find_sub(const sg_whole_problem *w, int64_t gid) {
  int lo = 0, hi = w->prob.n_sub - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (w->prob.sub_gid[mid] == gid) return mid;
    if (w->prob.sub_gid[mid] < gid) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

static int key_cmp(const int64_t *x, const int64_t *y) {
  for (int k = 0; k < 3; ++k)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

int sg_whole_find_con(const sg_whole_problem *w, const int64_t key[3]) {
  int lo = 0, hi = w->prob.n_con - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2, c = key_cmp(w->key + 3 * mid, key);
    if (!c) return mid;
    if (c < 0) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

void sg_whole_problem_destroy(sg_whole_problem *w) {
  sg_problem_destroy(&w->prob);
  free(w->key); free(w->v); free(w->lambda);
  memset(w, 0, sizeof *w);
}
