//===- mpi-collectives.cpp - Raw MPI ranks that part, for the trace -------===//
//
// Three matching all-reduces, then what MODE makes the ranks do:
//
//   agree    a nonblocking all-reduce, its wait and a barrier on every rank
//   hang     only rank 0 all-reduces again; the others go to the barrier
//   op       rank 0 reduces with SUM, the others with MAX
//   count    rank 0 reduces 4 elements, the others 8
//   break    the last rank leaves the step loop one step early
//   crash    the last rank aborts after the first step
//
// The lines the trace must name carry "site:" comments.
//
//===----------------------------------------------------------------------===//

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <vector>

int main(int Argc, char **Argv) {
  const char *Mode = Argc > 1 ? Argv[1] : "agree";
  MPI_Init(&Argc, &Argv);
  int Rank = 0, Size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  bool Last = Rank == Size - 1;
  std::vector<float> Grad(8, 1.0f);
  int Steps = std::strcmp(Mode, "break") == 0 && Last ? 2 : 3;
  for (int Step = 0; Step < Steps; ++Step) {
    MPI_Allreduce(MPI_IN_PLACE, Grad.data(), 8, MPI_FLOAT, MPI_SUM, // site: step
                  MPI_COMM_WORLD);
    if (std::strcmp(Mode, "crash") == 0 && Last)
      std::abort();
  }
  if (std::strcmp(Mode, "hang") == 0 && Rank == 0)
    MPI_Allreduce(MPI_IN_PLACE, Grad.data(), 8, MPI_FLOAT, MPI_SUM, // site: rank 0 only
                  MPI_COMM_WORLD);
  if (std::strcmp(Mode, "op") == 0)
    MPI_Allreduce(MPI_IN_PLACE, Grad.data(), 8, MPI_FLOAT, // site: op
                  Rank == 0 ? MPI_SUM : MPI_MAX, MPI_COMM_WORLD);
  if (std::strcmp(Mode, "count") == 0)
    MPI_Allreduce(MPI_IN_PLACE, Grad.data(), Rank == 0 ? 4 : 8, // site: count
                  MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  if (std::strcmp(Mode, "agree") == 0) {
    MPI_Request Request;
    MPI_Iallreduce(MPI_IN_PLACE, Grad.data(), 8, MPI_FLOAT, MPI_SUM,
                   MPI_COMM_WORLD, &Request);
    MPI_Wait(&Request, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD); // site: barrier
  MPI_Finalize();
  return 0;
}
