/* A distributed problem gathered whole on one rank (for -fclib_dump_step on P ranks): each rank
 * sends its own subsystems and the constraints it keeps, flattened into doubles (global ids and
 * keys below 2^53 are exact); the root orders subsystems by global id and constraints by key, so
 * the result is the one-rank problem whatever P. */
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

/* Flatten: per subsystem [gid, dof, A, b]; per constraint [key0..2, kind, e(rows), mu, stiff, damp,
 * n_pairs, then per pair: subsystem gid, dof, J (rows x dof)]. */
static long long flat_size(const sg_problem *p, const unsigned char *sub_mine, const unsigned char *con_kept, int *ns, int *nc) {
  long long n = 0;
  *ns = *nc = 0;
  for (int j = 0; j < p->n_sub; ++j)
    if (sub_mine[j]) { n += 2 + p->sub_dof[j] * (p->sub_dof[j] + 1); (*ns)++; }
  for (int i = 0; i < p->n_con; ++i) {
    if (!con_kept[i]) continue;
    int rows = sg_con_rows(p->kind[i]);
    n += 3 + 1 + rows + 4;
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) n += 2 + rows * p->sub_dof[p->pair_sub[q]];
    (*nc)++;
  }
  return n;
}

sg_err sg_problem_gather(MPI_Comm comm, const sg_problem *p, const unsigned char *sub_mine, const unsigned char *con_kept,
                         const int64_t *con_key, int root, sg_problem *out) {
  int P, me;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  int ns, nc;
  long long n = flat_size(p, sub_mine, con_kept, &ns, &nc);
  double *buf = sg_calloc((size_t)n + 1, sizeof *buf, "problem gather");
  sg_err err = buf ? SG_OK : SG_ERR_MEM;
  if (!err && n > 0x7fffffff) err = sg_error_set(SG_ERR_ARG, "problem gather: %lld values from one rank is too many", n);
  long long at = 0;
  for (int j = 0; !err && j < p->n_sub; ++j) {
    if (!sub_mine[j]) continue;
    int d = p->sub_dof[j];
    buf[at++] = (double)p->sub_gid[j];
    buf[at++] = d;
    memcpy(buf + at, p->A + p->sub_aoff[j], (size_t)d * d * sizeof(double)); at += d * d;
    memcpy(buf + at, p->b + p->sub_off[j], (size_t)d * sizeof(double)); at += d;
  }
  for (int i = 0; !err && i < p->n_con; ++i) {
    if (!con_kept[i]) continue;
    int rows = sg_con_rows(p->kind[i]);
    for (int k = 0; k < 3; ++k) buf[at++] = (double)con_key[3 * i + k];
    buf[at++] = p->kind[i];
    memcpy(buf + at, p->e + p->con_row[i], (size_t)rows * sizeof(double)); at += rows;
    buf[at++] = p->mu[i]; buf[at++] = p->stiff[i]; buf[at++] = p->damp[i];
    buf[at++] = p->con_pair[i + 1] - p->con_pair[i];
    for (int q = p->con_pair[i]; q < p->con_pair[i + 1]; ++q) {
      int j = p->pair_sub[q], d = p->sub_dof[j];
      buf[at++] = (double)p->sub_gid[j];
      buf[at++] = d;
      memcpy(buf + at, p->J + p->pair_joff[q], (size_t)rows * d * sizeof(double)); at += rows * d;
    }
  }
  SG_CHECK(sg_error_collective(comm, err));
  int mine[3] = {(int)n, ns, nc}, *all = me == root ? sg_calloc((size_t)3 * P, sizeof *all, "problem gather") : NULL;
  int *cnt = me == root ? sg_calloc((size_t)P, sizeof *cnt, "problem gather") : NULL;
  int *dsp = me == root ? sg_calloc((size_t)P + 1, sizeof *dsp, "problem gather") : NULL;
  err = me != root || (all && cnt && dsp) ? SG_OK : SG_ERR_MEM;
  err = sg_error_collective(comm, err);
  double *whole = NULL;
  if (!err) {
    MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root, comm);
    long long total = 0;
    if (me == root) {
      for (int k = 0; k < P; ++k) { cnt[k] = all[3 * k]; dsp[k] = (int)total; total += cnt[k]; }
      if (total > 0x7fffffff) err = sg_error_set(SG_ERR_ARG, "problem gather: %lld values is too many for one rank", total);
      if (!err && !(whole = sg_calloc((size_t)total + 1, sizeof *whole, "problem gather"))) err = SG_ERR_MEM;
    }
    err = sg_error_collective(comm, err);
    if (!err) MPI_Gatherv(buf, (int)n, MPI_DOUBLE, whole, cnt, dsp, MPI_DOUBLE, root, comm);
  }
  free(buf);
  if (!err && me == root) { /* walk the records, sort them, build */
    long long S = 0, C = 0;
    for (int k = 0; k < P; ++k) { S += all[3 * k + 1]; C += all[3 * k + 2]; }
    sub_slot *subs = sg_calloc((size_t)S + 1, sizeof *subs, "problem gather");
    con_slot *cons = sg_calloc((size_t)C + 1, sizeof *cons, "problem gather");
    if (!subs || !cons) err = SG_ERR_MEM;
    long long s = 0, c = 0;
    for (int k = 0; k < P && !err; ++k) {
      const double *r = whole + dsp[k];
      for (int m = 0; m < all[3 * k + 1]; ++m) {
        int d = (int)r[1];
        subs[s++] = (sub_slot){(int64_t)r[0], r};
        r += 2 + d * (d + 1);
      }
      for (int m = 0; m < all[3 * k + 2]; ++m) {
        int rows = sg_con_rows((int)r[3]), np = (int)r[4 + rows + 3];
        cons[c++] = (con_slot){{r[0], r[1], r[2]}, r};
        r += 4 + rows + 4;
        for (int t = 0; t < np; ++t) r += 2 + rows * (int)r[1];
      }
    }
    if (!err) {
      qsort(subs, (size_t)S, sizeof *subs, sub_cmp);
      qsort(cons, (size_t)C, sizeof *cons, con_cmp);
      sg_problem_reset(out);
      out->units = p->units;
      out->dt = p->dt;
    }
    for (long long m = 0; m < S && !err; ++m) {
      const double *r = subs[m].rec;
      int d = (int)r[1];
      err = sg_problem_add_subsystem(out, d, r + 2, r + 2 + d * d, subs[m].gid, NULL);
    }
    for (long long m = 0; m < C && !err; ++m) {
      const double *r = cons[m].rec;
      int kind = (int)r[3], rows = sg_con_rows(kind), np = (int)r[4 + rows + 3], sub[8];
      const double *Js[8], *q = r + 4 + rows + 4;
      if (np > 8) { err = sg_error_set(SG_ERR_ARG, "problem gather: a constraint touches %d subsystems", np); break; }
      for (int t = 0; t < np && !err; ++t) {
        sub_slot key = {(int64_t)q[0], NULL}, *hit = bsearch(&key, subs, (size_t)S, sizeof *subs, sub_cmp);
        if (!hit) err = sg_error_set(SG_ERR_ARG, "problem gather: subsystem %lld is held by no rank", (long long)key.gid);
        else sub[t] = (int)(hit - subs);
        Js[t] = q + 2;
        q += 2 + rows * (int)q[1];
      }
      if (!err) err = sg_problem_add_constraint(out, kind, r + 4, r[4 + rows], r[4 + rows + 1], r[4 + rows + 2], np, sub, Js, NULL);
    }
    free(subs); free(cons);
  }
  free(whole); free(all); free(cnt); free(dsp);
  return sg_error_collective(comm, err);
}
