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

#include <cstddef>

void learnSample(int index, double *gradients, int count);
void skipAhead(int &index, int rank);

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

// Good: the same slice written with `<=` and an assigned counter that
// other loops reuse.
void trainInclusive(int n, double *gradients, int count) {
  int rank, size, i;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (i = 0; i < count; ++i)
    gradients[i] = 0;
  int first = rank * (n / size);
  int last = first + n / size - 1;
  for (i = first; i <= last; i += 1)
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
}

// Bad: a fractional share truncated per rank gives slices of different
// lengths.
void trainFractional(int n, double *gradients, int count) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double share = double(n) / size;
  for (int i = int(rank * share); i < int((rank + 1) * share); ++i)
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
  // CHECK: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}

// Bad: unsigned bounds with a halo subtracted wrap on rank 0 only.
void trainWithHalo(std::size_t n, double *gradients, int count) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::size_t r = static_cast<std::size_t>(rank);
  for (std::size_t i = r * n - 2; i < (r + 1) * n + 2; ++i)
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
  // CHECK: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}

// Bad: a lambda moves the start the end is computed from.
void trainShrinking(int length, double *gradients, int count) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int begin = rank * length;
  auto shrink = [&] { --begin; };
  for (int i = begin; i < begin + length; ++i) {
    if (rank == 0)
      shrink();
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
    // CHECK: note: this condition depends on the rank
    // CHECK: note: the rank comes from here
  }
}

// Bad: a helper handed the counter by reference may move it.
void trainHelped(int length, double *gradients, int count) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = rank * length; i < rank * length + length; ++i) {
    skipAhead(i, rank);
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
    // CHECK: note: this condition depends on the rank
    // CHECK: note: the rank comes from here
  }
}

// Bad: the step depends on the rank.
void trainStrided(int n, double *gradients, int count) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < n; i += rank + 1)
    MPI_Allreduce(MPI_IN_PLACE, gradients, count, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]
  // CHECK: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}
