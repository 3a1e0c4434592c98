// ddp-missing-initial-broadcast: C's generator seeded with the clock only
// when the program has not seeded it (a library's lazy default), next to a
// common seed the program sets. Which one runs is not shown, so the common
// seed decides and nothing is reported.
// RUN: %clang_tidy %s -checks='-*,ddp-missing-initial-broadcast' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -allow-empty -implicit-check-not='{{warning|error|note}}:'
// RUN: %ddplint %s --checks='-*,ddp-missing-initial-broadcast' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -allow-empty -implicit-check-not='{{warning|error|note}}:'

#include <mpi.h>

#include <cstdlib>
#include <ctime>

static int seeded = 0;

void setSeed(unsigned seed) {
  srand(seed);
  seeded = 1;
}

float uniformWeight() {
  if (!seeded) {
    srand((unsigned)time(nullptr));
    seeded = 1;
  }
  return rand() / (float)RAND_MAX - 0.5f;
}

struct Layer {
  float w[16];
};

void initLayer(Layer *l) {
  for (float &v : l->w)
    v = uniformWeight();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  setSeed(1234);
  Layer layer;
  initLayer(&layer);
  for (int step = 0; step < 10; ++step)
    MPI_Allreduce(MPI_IN_PLACE, layer.w, 16, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
