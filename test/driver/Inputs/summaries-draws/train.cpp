#include "weights.h"

#include <mpi.h>

void train(int steps) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Mlp m;
  init_weights(&m, 7u + rank);
  for (int s = 0; s < steps; ++s)
    MPI_Allreduce(MPI_IN_PLACE, m.w, kWeights, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}
