/* The ghosts' reach against what the recheck relies on (recheck.c, seen_by_both_owners): after
 * sg_ghosts_update, two moving bodies whose centres lie within reach(i) + reach(j) + margin
 * (sg_body_reach, at the start of the step) are each held by the other's owner, so a contact of
 * the solved motion between them is found on both ranks or on neither. A random cloud of spheres
 * of radius 1 mm, at rest and slow (some spinning; no large or fast body to widen a rank's box),
 * owned by slabs in x on this run's ranks, so that a rank's box is tight across its slab's faces.
 * Every such pair with two owners is checked on both, and there must be such pairs. The test can
 * fail: with the push allowance left out of the ghosts' reach (the code before it), 5 pairs go
 * missing on 3 ranks. */
#include "sim_util.h"
#include "signorini/ghosts.h"

enum { N_SPHERES = 6000 };
static const double dt = 1.0 / 240.0, margin = 4e-4, side = 0.04;

static int owner_of(double x, int size) {
  int r = (int)(x / side * size);
  return r < size ? r : size - 1;
}

/* The whole cloud (every rank builds the same), or only this rank's share of it. */
static void cloud(sg_scene *s, int rank, int size, int share) {
  unsigned long long seed = 77;
  CHECK_OK(sg_scene_create(s, N_SPHERES, 1));
  for (int g = 0; g < N_SPHERES; ++g) {
    double size3[3] = {0.001, 0, 0};
    double x[3] = {sg_test_rand(&seed, 0, side), sg_test_rand(&seed, 0, side), sg_test_rand(&seed, 0, side)};
    double speed = g % 3 == 2 ? 0.03 : 0.0, v[6] = {0};
    for (int k = 0; k < 3; ++k) v[k] = speed * sg_test_rand(&seed, -1, 1);
    if (g % 5 == 0) v[3] = sg_test_rand(&seed, -10, 10);
    if (share && owner_of(x[0], size) != rank) continue;
    int i;
    CHECK_OK(sg_scene_add_body(s, SG_SHAPE_SPHERE, size3, 0, 0, 2500, x, NULL, v, &i));
    s->gid[i] = g;
  }
  s->next_gid = N_SPHERES;
  CHECK_OK(sg_scene_update_mass(s));
}

static int within_reach(const sg_scene *s, int i, int j) {
  double d[3];
  v3_sub(d, s->state.pos + 3 * j, s->state.pos + 3 * i);
  return v3_norm(d) < (1 - 1e-9) * (sg_body_reach(s, i, dt, margin) + sg_body_reach(s, j, dt, margin) + margin);
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  sg_scene all, mine, ghosts;
  cloud(&all, rank, size, 0);
  cloud(&mine, rank, size, 1);
  CHECK_OK(sg_scene_create(&ghosts, 0, 1));
  sg_ghosts g = {0};
  CHECK_OK(sg_ghosts_update(&g, PETSC_COMM_WORLD, &mine, margin, dt, &ghosts));
  char *held = calloc(N_SPHERES, 1);
  for (int m = 0; m < ghosts.n; ++m) held[ghosts.gid[m]] = 1;
  long long counts[2] = {0, 0}; /* pairs across two owners within reach; of them, missing here */
  for (int i = 0; i < N_SPHERES; ++i)
    for (int j = 0; j < N_SPHERES; ++j) {
      if (owner_of(all.state.pos[3 * i], size) != rank || owner_of(all.state.pos[3 * j], size) == rank) continue;
      if (!within_reach(&all, i, j)) continue;
      counts[0]++;
      counts[1] += !held[j];
    }
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD);
  if (rank == 0)
    printf("%d ranks: %lld owned-remote pairs within reach(i) + reach(j) + margin, %lld without the remote body as a ghost\n",
           size, counts[0], counts[1]);
  CHECK(counts[1] == 0);
  if (size > 1) CHECK(counts[0] > 0);
  free(held);
  sg_ghosts_destroy(&g);
  sg_scene_destroy(&ghosts);
  sg_scene_destroy(&mine);
  sg_scene_destroy(&all);
  return sim_finish();
}
