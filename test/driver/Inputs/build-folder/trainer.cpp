// A project's trainer whose build defines WITH_SYNC: only its compile
// database (in build/, as CMake writes it) says so.
#include <mpi.h>

void step(float *grad, int n) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#ifdef WITH_SYNC
  if (rank == 0)
    MPI_Allreduce(MPI_IN_PLACE, grad, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
#endif
}
