/* Contacts of link geoms (tree.h, sg_link_geom; collision.h, sg_find_tree_contacts) on a chain of
 * three 1 m links on revolute joints about y, each carrying a capsule of radius 5 cm along its rod,
 * folded into a Z: the second link turned back up by pi - 0.3, the third down again by pi + 0.093, so
 * that the third capsule's end dips into the first's end (links 0 and 2: kept; their axes stay apart,
 * so the normal is that of the two segments' nearest points) while every capsule overlaps its
 * neighbours at the joints (0-1 and 1-2: parent and child, filtered).
 *  - the contacts are those of links 0 and 2 alone, on the tree's body on both sides, their feature
 *    naming the geoms (indices + 1 in the top bits);
 *  - assembled, such a contact is one block on the tree's subsystem (J_A - J_B), whose normal row
 *    times the joint velocities is the rate of change of the gap along the motion, taken by central
 *    differences of the narrow phase's gap at q (+) t v (h = 1e-6: O(h^2) = 1e-12 and round-off
 *    1e-16 / h = 1e-10, so 1e-7 relative holds with a wide margin, and a wrong sign, lever or link
 *    is off by O(1));
 *  - a scene with these geoms written and read back holds the same geoms;
 *  - a second tree's geom touching the chain: a contact between two trees, checked the same way. */
#include <string.h>
#include "signorini/assemble.h"
#include "signorini/generate.h"
#include "signorini/la.h"
#include "signorini/tree.h"
#include "io_scratch.h"
#include "sim_util.h"

static sg_tree *folded_chain(sg_scene *s, int *index) {
  CHECK_OK(sg_scene_create(s, 1, 1));
  sg_chain c = {.n = 3, .length = 1.0, .mass = 1.0, .radius = 0.05, .pivot = {0, 0, 3}, .limit = {-INFINITY, INFINITY},
                .geom = SG_CHAIN_GEOM_CAPSULE};
  CHECK_OK(sg_chain_add(s, &c, index));
  s->next_gid = s->n;
  sg_tree *t = sg_scene_tree_by_gid(s, s->gid[*index]);
  t->q[0] = 0;
  t->q[1] = M_PI - 0.3;
  t->q[2] = M_PI + 0.093;
  t->v[0] = 0.7, t->v[1] = -1.1, t->v[2] = 0.4;
  sg_tree_update_row(s, *index, t);
  return t;
}

/* The first contact's gap at q (+) tau v (the state put back after). */
static double gap_at(sg_scene *s, int i, sg_tree *t, double tau) {
  double q0[3], gap = NAN;
  memcpy(q0, t->q, sizeof q0);
  sg_tree_advance(t, q0, t->v, tau, t->q);
  sg_tree_update_row(s, i, t);
  sg_contacts c = {0};
  CHECK_OK(sg_find_tree_contacts(s, 0.01, 0.0, &c));
  if (c.n > 0) gap = c.c[0].cp.gap;
  sg_contacts_destroy(&c);
  memcpy(t->q, q0, sizeof q0);
  sg_tree_update_row(s, i, t);
  return gap;
}

static void check_contacts(sg_scene *s, int i, sg_tree *t) {
  sg_contacts c = {0};
  CHECK_OK(sg_find_tree_contacts(s, 0.01, 0.0, &c));
  printf("%d contacts of the folded chain:", c.n);
  int only_0_2 = c.n > 0;
  for (int k = 0; k < c.n; ++k) {
    const sg_contact *x = &c.c[k];
    printf(" (links %d-%d, gap %.4f, feature %#x)", x->link_a, x->link_b, x->cp.gap, (unsigned)x->cp.feature);
    only_0_2 &= x->a == i && x->b == i && x->link_a == 0 && x->link_b == 2 && (x->cp.feature >> 16) == (1u << 8 | 3u);
  }
  printf("\n");
  CHECK(only_0_2);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.01);
  sg_problem p = {0};
  int sub_of_body[1];
  const sg_units si = sg_units_si();
  CHECK_OK(sg_assemble_rigid(s, &c, &prm, &si, &p, sub_of_body));
  CHECK(p.n_con == c.n && p.con_pair[1] == 1 && p.pair_joff[0] >= 0);
  const double *Jn = p.J + p.pair_joff[0], rate = Jn[0] * t->v[0] + Jn[1] * t->v[1] + Jn[2] * t->v[2];
  const double h = 1e-6, fd = (gap_at(s, i, t, h) - gap_at(s, i, t, -h)) / (2 * h);
  printf("normal row . v = %.12f m/s, d gap / dt by central differences %.12f m/s (%.1e relative)\n", rate, fd,
         fabs(rate - fd) / fabs(fd));
  CHECK(fabs(fd) > 0.1 && fabs(rate - fd) < 1e-7 * fabs(fd));
  sg_problem_destroy(&p);
  sg_contacts_destroy(&c);
}

static void check_roundtrip(const sg_scene *s, const sg_tree *t) {
  scratch_make();
  CHECK_OK(sg_scene_write(MPI_COMM_WORLD, scratch("geoms.h5"), s));
  sg_scene r;
  memset(&r, 0, sizeof r);
  CHECK_OK(sg_scene_read(MPI_COMM_WORLD, scratch("geoms.h5"), &r));
  const sg_tree *u = r.n_trees == 1 ? r.trees[0] : NULL;
  CHECK(u && u->n_geoms == t->n_geoms && !memcmp(u->geom, t->geom, (size_t)t->n_geoms * sizeof *t->geom));
  printf("written and read back: %d geoms, %s\n", u ? u->n_geoms : -1,
         u && u->n_geoms == t->n_geoms && !memcmp(u->geom, t->geom, (size_t)t->n_geoms * sizeof *t->geom) ? "the same" : "DIFFER");
  sg_scene_destroy(&r);
  scratch_remove();
}

/* A second tree, a 1 m pendulum pivoted at (0.5, 0.12, 3.5) whose bob sphere (10 cm) dips into the
 * first link's capsule of the chain from the side: one contact between the two trees (the chain's
 * body first, by id), on link 0 of each; its normal rows times both trees' velocities is the rate of
 * the gap, as above. */
static void check_two_trees(sg_scene *s, int i, sg_tree *t) {
  sg_chain c = {.n = 1, .length = 1.0, .mass = 1.0, .radius = 0.1, .pivot = {0.5, 0.12, 3.5}, .limit = {-INFINITY, INFINITY},
                .geom = SG_CHAIN_GEOM_SPHERE};
  int j;
  CHECK_OK(sg_chain_add(s, &c, &j));
  s->next_gid = s->n;
  sg_tree *u = sg_scene_tree_by_gid(s, s->gid[j]);
  u->q[0] = asin(0.43); /* the bob at x = 0.07, 0.12 off the chain's plane: gap sqrt(0.07^2 + 0.12^2) - 0.15 */
  u->v[0] = 0.9;
  sg_tree_update_row(s, j, u);
  sg_contacts c2 = {0};
  CHECK_OK(sg_find_tree_contacts(s, 0.01, 0.0, &c2));
  int k2 = -1;
  for (int k = 0; k < c2.n; ++k)
    if (c2.c[k].b == j) k2 = k;
  CHECK(k2 >= 0 && c2.c[k2].a == i && c2.c[k2].link_a == 0 && c2.c[k2].link_b == 0 && (c2.c[k2].cp.feature >> 16) == (1u << 8 | 1u));
  if (k2 < 0) { sg_contacts_destroy(&c2); return; }
  sg_contacts one = {.n = 1, .cap = 1, .c = &c2.c[k2]};
  sg_step_params prm = sim_params(1.0 / 240.0, 0.01);
  sg_problem p = {0};
  int sub_of_body[2];
  const sg_units si = sg_units_si();
  CHECK_OK(sg_assemble_rigid(s, &one, &prm, &si, &p, sub_of_body));
  CHECK(p.n_con == 1 && p.con_pair[1] == 2);
  double rate = 0;
  for (int q = 0; q < 2; ++q) {
    const sg_tree *w = p.pair_sub[q] == sub_of_body[i] ? t : u;
    double buf[SG_COMPACT_BLOCK];
    const double *Jq = sg_problem_pair_block(&p, 0, q, buf);
    for (int k = 0; k < w->nv; ++k) rate += Jq[k] * w->v[k];
  }
  const double gap = c2.c[k2].cp.gap, h = 1e-6;
  double q0[2][3], gaps[2];
  memcpy(q0[0], t->q, sizeof q0[0]);
  memcpy(q0[1], u->q, sizeof(double));
  for (int side = 0; side < 2; ++side) { /* both trees moved by +-h */
    sg_tree_advance(t, q0[0], t->v, side ? -h : h, t->q);
    sg_tree_advance(u, q0[1], u->v, side ? -h : h, u->q);
    sg_contacts c3 = {0};
    CHECK_OK(sg_find_tree_contacts(s, 0.01, 0.0, &c3));
    gaps[side] = NAN;
    for (int k = 0; k < c3.n; ++k)
      if (c3.c[k].b == j) gaps[side] = c3.c[k].cp.gap;
    sg_contacts_destroy(&c3);
  }
  memcpy(t->q, q0[0], sizeof q0[0]);
  memcpy(u->q, q0[1], sizeof(double));
  const double fd = (gaps[0] - gaps[1]) / (2 * h);
  printf("two trees: gap %.6f m, normal rows . v = %.12f m/s, by central differences %.12f m/s (%.1e relative)\n", gap, rate, fd,
         fabs(rate - fd) / fabs(fd));
  CHECK(fabs(fd) > 0.1 && fabs(rate - fd) < 1e-7 * fabs(fd));
  sg_problem_destroy(&p);
  sg_contacts_destroy(&c2);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  sg_scene s;
  int i;
  sg_tree *t = folded_chain(&s, &i);
  check_contacts(&s, i, t);
  check_roundtrip(&s, t);
  check_two_trees(&s, i, t);
  sg_scene_destroy(&s);
  return sim_finish();
}
