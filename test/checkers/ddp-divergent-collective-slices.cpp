// ddp-divergent-collective on counted loops over this rank's slice: a loop
// `for (i = lo; i < hi; ++i)` runs hi - lo times, so bounds that both move
// with the rank by the same amount give every rank the same count.
// Functions marked "Bad" must be reported, the others must stay silent.
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>

void learnSample(int index, double *gradients, int count);

// Good: every rank trains on n / size samples, from its own offset, and
// sums the gradients after each one.
void trainSlice(int n, double *gradients, int count) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int start = n / (size) * rank;
  int end = n / (size) * (rank + 1);
  for (int idx = start; idx < end; idx++) {
    learnSample(idx, gradients, count);
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
  }
}

// Good: the slice written as an offset and a fixed length, stepped by a
// batch size every rank shares.
void trainBatches(int perRank, int batch, double *gradients, int count) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int first = rank * perRank;
  for (int i = first; i < first + perRank; i += batch)
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
}

// Bad: only the start moves with the rank; the end is the same for all,
// so lower ranks run more iterations.
void trainToEnd(int n, double *gradients, int count) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = rank * 10; i < n; ++i)
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
  // CHECK: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}

// Bad: the remainder goes to the first ranks, so their slices are longer.
void trainWithRemainder(int n, double *gradients, int count) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int start = rank * (n / size);
  int end = start + n / size + (rank < n % size ? 1 : 0);
  for (int i = start; i < end; ++i)
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
  // CHECK: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}

// Bad: the rank read again between the two bounds (a communicator split)
// does not cancel with the one the start was built from.
void trainAfterSplit(int n, double *gradients, int count, MPI_Comm local) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int start = rank * n;
  MPI_Comm_rank(local, &rank);
  for (int i = start; i < (rank + 1) * n; ++i)
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
  // CHECK: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}

// Bad: the counter is moved inside the body too, so the bounds do not say
// how often the loop runs.
void trainSkipping(int n, const int *skip, double *gradients, int count) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = rank * n; i < (rank + 1) * n; ++i) {
    i += skip[i];
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
    // CHECK: note: this condition depends on the rank
    // CHECK: note: the rank comes from here
  }
}
