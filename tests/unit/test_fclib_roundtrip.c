/* The FCLIB writer (sg_fclib_write_problem, behind `signorini run -fclib_dump_step`) against our
 * reader: random problems (tests/random_problem.h) written, read back with sg_fclib_read +
 * sg_fclib_to_problem, and compared array by array with memcmp -- the same bits, not merely close,
 * since a dumped step must be the very problem the run solved. The only documented differences:
 * subsystem gids (FCLIB stores no bodies) and the order of a constraint's pairs (ascending
 * subsystem on reading), so pairs are matched by subsystem. Also: refusals (hard/soft rows, no
 * contact) leave no file, and no temporary file is left behind. */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>
#include "random_problem.h"
#include "signorini/fclib.h"
#include "sim_util.h"

static char dir[64];

static int same(const void *a, const void *b, size_t n) { return n == 0 || memcmp(a, b, n) == 0; }

/* Files in dir other than `keep` (a leftover temporary, or a file a refusal should not have made). */
static int stray_files(const char *keep) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    if (e->d_name[0] != '.' && (!keep || strcmp(e->d_name, keep))) { printf("  stray file %s\n", e->d_name); ++n; }
  if (d) closedir(d);
  return n;
}

static int compare(const sg_problem *a, const sg_problem *b) {
  int ok = a->n_sub == b->n_sub && a->n_con == b->n_con;
  if (!ok) return 0;
  int nv = sg_problem_n_v(a), nr = sg_problem_n_rows(a);
  ok = same(a->sub_dof, b->sub_dof, sizeof(int) * a->n_sub) && same(a->sub_off, b->sub_off, sizeof(int) * (a->n_sub + 1)) &&
       same(a->sub_aoff, b->sub_aoff, sizeof(int) * (a->n_sub + 1)) &&
       same(a->A, b->A, sizeof(double) * a->sub_aoff[a->n_sub]) && same(a->b, b->b, sizeof(double) * nv) &&
       same(a->kind, b->kind, sizeof(int) * a->n_con) && same(a->con_row, b->con_row, sizeof(int) * (a->n_con + 1)) &&
       same(a->e, b->e, sizeof(double) * nr) && same(a->mu, b->mu, sizeof(double) * a->n_con) &&
       same(a->con_pair, b->con_pair, sizeof(int) * (a->n_con + 1));
  for (int i = 0; ok && i < a->n_con; ++i)
    for (int q = a->con_pair[i]; ok && q < a->con_pair[i + 1]; ++q) {
      int j = a->pair_sub[q], found = -1;
      for (int t = b->con_pair[i]; t < b->con_pair[i + 1]; ++t) if (b->pair_sub[t] == j) found = t;
      double ba[SG_COMPACT_BLOCK], bb[SG_COMPACT_BLOCK];
      ok = found >= 0 && same(sg_problem_pair_block(a, i, q, ba), sg_problem_pair_block(b, i, found, bb), sizeof(double) * 3 * a->sub_dof[j]);
    }
  return ok;
}

static void random_roundtrips(void) {
  unsigned long long seed = 0x243f6a8885a308d3ULL;
  char path[128];
  snprintf(path, sizeof path, "%s/p.fclib.hdf5", dir);
  int identical = 0, trials = 40;
  for (int trial = 0; trial < trials; ++trial) {
    sg_problem p = {0}, q = {0};
    random_problem_info ri;
    random_problem_make(&seed, trial, &p, &ri); /* ill-conditioned ones too: nothing is solved */
    sg_fclib_problem fp;
    sg_fclib_map map = {0};
    CHECK_OK(sg_fclib_write_problem(path, &p, "random", "test_fclib_roundtrip"));
    CHECK_OK(sg_fclib_read(path, &fp));
    CHECK(!fp.local && fp.n == sg_problem_n_v(&p) && fp.nc == p.n_con && !strcmp(fp.title, "random"));
    CHECK_OK(sg_fclib_to_problem(&fp, &q, &map));
    int perm_identity = map.n == sg_problem_n_v(&p);
    for (int k = 0; perm_identity && k < map.n; ++k) perm_identity = map.perm[k] == k;
    int ok = compare(&p, &q) && perm_identity;
    if (!ok) printf("  trial %d (%d bodies, %d contacts): read back differs\n", trial, ri.n_bodies, ri.n_contacts);
    identical += ok;
    CHECK(stray_files("p.fclib.hdf5") == 0);
    sg_fclib_free(&fp);
    sg_fclib_map_free(&map);
    sg_problem_destroy(&p);
    sg_problem_destroy(&q);
  }
  printf("random problems: %d of %d read back bit for bit\n", identical, trials);
  CHECK(identical == trials);
  unlink(path);
}

static void refusals(void) {
  char path[128];
  snprintf(path, sizeof path, "%s/refused.hdf5", dir);
  double A[36] = {0}, b[6] = {0}, J[6] = {1, 0, 0, 0, 0, 0}, e = -1;
  for (int k = 0; k < 6; ++k) A[7 * k] = 1;
  int sub = 0;
  const double *Js[1] = {J};
  sg_problem p = {0};
  CHECK_OK(sg_problem_add_subsystem(&p, 6, A, b, 0, NULL));
  sg_err err = sg_fclib_write_problem(path, &p, "", "");
  printf("no contact: %s\n", sg_error_message());
  CHECK(err == SG_ERR_ARG);
  sg_error_clear();
  CHECK_OK(sg_problem_add_constraint(&p, SG_CON_HARD, &e, 0, 0, 0, 1, &sub, Js, NULL));
  err = sg_fclib_write_problem(path, &p, "", "");
  printf("hard row: %s\n", sg_error_message());
  CHECK(err == SG_ERR_ARG && strstr(sg_error_message(), "contacts only"));
  sg_error_clear();
  CHECK(stray_files(NULL) == 0);
  sg_problem_destroy(&p);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  snprintf(dir, sizeof dir, "/tmp/sg_fclib_rt_XXXXXX");
  if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
  random_roundtrips();
  refusals();
  rmdir(dir);
  return sim_finish();
}
