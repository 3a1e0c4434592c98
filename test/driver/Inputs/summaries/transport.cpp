#include "transport.h"
#include <mpi.h>

void all_reduce(std::vector<float> &buffer) {
  MPI_Allreduce(MPI_IN_PLACE, buffer.data(), (int)buffer.size(), MPI_FLOAT,
                MPI_SUM, MPI_COMM_WORLD);
}

int process_index() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Named like a collective, but only logs locally.
void exchange_metadata(std::vector<int> &sizes) { sizes.push_back(0); }
