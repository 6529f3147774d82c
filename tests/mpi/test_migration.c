/* Repartitioning while bodies travel across the domain: 144 spheres sliding and rolling down a
 * 20 degree incline (mu = 0.1) for 1.5 s on this run's ranks, repartitioned every 10 steps on the
 * contact graph; the scene is distributed (each rank holds its own bodies) and bodies migrate with
 * their state and warm starts. Checks: repartitions happened; no body lost or duplicated (after
 * every step each moving body is held by exactly one rank); energy bookkeeping (kinetic + potential,
 * summed over the ranks, never exceeds its initial value: friction and inelastic contact only
 * dissipate; tolerance 1e-9 relative for round-off); and the final state of every body equals, bit
 * for bit, the same simulation on one rank (MPI_COMM_SELF). */
#include "sim_util.h"
#include "signorini/generate.h"

static double total_energy(MPI_Comm comm, const sg_scene *s) {
  double e = sg_scene_kinetic_energy(s);
  for (int i = 0; i < s->n; ++i)
    if (!s->fixed[i]) e -= s->mass[i] * v3_dot(s->gravity, s->state.pos + 3 * i);
  MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_SUM, comm);
  return e;
}

/* Every moving gid in [0, n) held by exactly one rank? (collective) */
static int held_once(const sg_scene *s, int n) {
  int *count = calloc((size_t)n, sizeof *count), ok = 1;
  for (int i = 0; i < s->n; ++i)
    if (!s->fixed[i]) count[s->gid[i]]++;
  MPI_Allreduce(MPI_IN_PLACE, count, n, MPI_INT, MPI_SUM, PETSC_COMM_WORLD);
  for (int g = 0; g < n; ++g) ok &= count[g] <= 1;
  long long moving = 0;
  for (int g = 0; g < n; ++g) moving += count[g];
  free(count);
  return ok && moving == 144;
}

static void build(sg_scene *s) {
  CHECK_OK(sg_scene_create(s, 160, 1));
  PetscOptionsSetValue(NULL, "-spheres", "144");
  PetscOptionsSetValue(NULL, "-angle", "20");
  PetscOptionsSetValue(NULL, "-mu", "0.1");
  PetscOptionsSetValue(NULL, "-size", "0.02");
  CHECK_OK(sg_generate_incline(s));
  CHECK_OK(sg_scene_update_mass(s));
}

int main(int argc, char **argv) {
  sim_init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  sg_scene s, ref;
  build(&s);
  build(&ref);
  sg_step_params prm = sim_params(1.0 / 240.0, 0.004);
  prm.repartition_every = 10;
  sg_solver *solver = NULL, *solver_ref = NULL;
  CHECK_OK(sg_solver_create(PETSC_COMM_WORLD, "subadmm", &solver));
  CHECK_OK(sg_solver_create(MPI_COMM_SELF, "subadmm", &solver_ref));
  sg_stepper *st, *st_ref;
  CHECK_OK(sg_stepper_create(PETSC_COMM_WORLD, &s, &prm, solver, &st));
  CHECK_OK(sg_stepper_create(MPI_COMM_SELF, &ref, &prm, solver_ref, &st_ref));
  const int n_all = ref.n; /* the reference holds every body, index = gid */
  double e0 = total_energy(PETSC_COMM_WORLD, &s), emax = e0, x0 = ref.state.pos[3 * 1];
  int lost = 0;
  for (int k = 0; k < 360; ++k) {
    sg_step_stats stats, stats_ref;
    CHECK_OK(sg_stepper_step(st, &stats));
    CHECK_OK(sg_stepper_step(st_ref, &stats_ref));
    emax = fmax(emax, total_energy(PETSC_COMM_WORLD, &s));
    CHECK(stats.n_contacts == stats_ref.n_contacts);
    lost += !held_once(&s, n_all);
  }
  CHECK(lost == 0);
  int identical = 1;
  for (int i = 0; i < s.n; ++i) {
    int64_t g = s.gid[i];
    identical &= g >= 0 && g < n_all && ref.gid[g] == g && !memcmp(s.state.pos + 3 * i, ref.state.pos + 3 * g, 3 * sizeof(double)) &&
                 !memcmp(s.state.quat + 4 * i, ref.state.quat + 4 * g, 4 * sizeof(double)) && !memcmp(s.state.vel + 6 * i, ref.state.vel + 6 * g, 6 * sizeof(double));
  }
  MPI_Allreduce(MPI_IN_PLACE, &identical, 1, MPI_INT, MPI_LAND, PETSC_COMM_WORLD);
  double e_end = total_energy(PETSC_COMM_WORLD, &s);
  if (rank == 0)
    printf("%d ranks: %d repartitions, first sphere travelled %.3f m, energy %.6g -> %.6g (max %.6g), bodies held once after every step: %s, bitwise equal to 1 rank: %s\n",
           size, sg_stepper_repartitions(st), ref.state.pos[3] - x0, e0, e_end, emax, lost ? "no" : "yes", identical ? "yes" : "no");
  if (size > 1) CHECK(sg_stepper_repartitions(st) >= 30);
  CHECK(ref.state.pos[3] - x0 > 0.5); /* the bodies crossed the domain */
  CHECK(emax <= e0 + 1e-9 * fabs(e0));
  CHECK(identical);
  sg_stepper_destroy(&st);
  sg_stepper_destroy(&st_ref);
  sg_solver_destroy(&solver);
  sg_solver_destroy(&solver_ref);
  sg_scene_destroy(&s);
  sg_scene_destroy(&ref);
  return sim_finish();
}
