/* MPI figures for the communication model of docs/PERFORMANCE.md: ping-pong latency and bandwidth
 * between ranks 0 and 1 for message sizes 8 B .. 4 MB, and the latency of the 2-double MAX
 * all-reduce that SubADMM does once per iteration. Run: mpiexec -n 2 build/bench/mpi_halo */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "mpi_halo: run on at least 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  const int max_bytes = 4 << 20;
  char *buf = calloc((size_t)max_bytes, 1);
  if (rank == 0) printf("%-10s %-14s %-12s\n", "bytes", "one-way (us)", "GB/s");
  for (int bytes = 8; bytes <= max_bytes; bytes *= 4) {
    int reps = bytes < 65536 ? 2000 : 100;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int r = 0; r < reps; ++r) {
      if (rank == 0) {
        MPI_Send(buf, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
      }
    }
    double one_way = (MPI_Wtime() - t0) / (2.0 * reps);
    if (rank == 0) printf("%-10d %-14.3f %-12.3f\n", bytes, 1e6 * one_way, bytes / one_way / 1e9);
  }
  double loc[2] = {rank, -rank}, glob[2];
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  const int reps = 20000;
  for (int r = 0; r < reps; ++r) MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double t = (MPI_Wtime() - t0) / reps;
  if (rank == 0) printf("allreduce (2 doubles, MAX) on %d ranks: %.3f us\n", size, 1e6 * t);
  free(buf);
  MPI_Finalize();
  return 0;
}
