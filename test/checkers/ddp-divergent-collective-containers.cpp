// ddp-divergent-collective on loops over containers: how many elements a
// container holds depends on how often something is added to it, not on
// what is added. A vector of one pointer per buffer, each mapped with a
// mode that depends on the rank, has as many elements on every rank.
// Functions marked "Bad" must be reported, the others must stay silent.
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>

#include <set>
#include <vector>

void *mapForTransfer(float *data, bool readOnly);

// Good: the root maps each buffer to read it, the others to write it; one
// pointer per buffer either way, so every rank posts the same broadcasts.
void broadcastMapped(std::vector<float *> &buffers, int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<void *> mapped;
  for (float *b : buffers)
    mapped.push_back(mapForTransfer(b, rank == 0));
  std::vector<MPI_Request> requests;
  for (size_t i = 0; i < mapped.size(); ++i) {
    requests.push_back(MPI_REQUEST_NULL);
    MPI_Ibcast(mapped[i], count, MPI_FLOAT, 0, MPI_COMM_WORLD, &requests.back());
  }
  MPI_Waitall((int)requests.size(), requests.data(), MPI_STATUSES_IGNORE);
}

// Good: a queue of this rank's own values, one per layer, drained in a loop.
void reduceEach(const std::vector<float *> &layers, int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<float> scales;
  for (size_t i = 0; i < layers.size(); ++i)
    scales.emplace_back(1.0f + rank);
  while (!scales.empty()) {
    float s = scales.back();
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    scales.pop_back();
  }
}

// Bad: only the root adds its buffers, so the other ranks' vector is empty
// and they never enter the loop.
void broadcastRootOnly(std::vector<float *> &buffers, int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<float *> pending;
  for (float *b : buffers)
    if (rank == 0)
      pending.push_back(b);
  for (size_t i = 0; i < pending.size(); ++i)
    MPI_Bcast(pending[i], count, MPI_FLOAT, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:5: warning: collective 'MPI_Bcast' runs only on ranks where a condition that depends on the rank holds
  // CHECK: :[[@LINE-3]]:22: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}

// Bad: the elements' values still differ; a branch on one of them does.
void branchOnElement(std::vector<float *> &buffers, int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<int> sizes;
  sizes.push_back(count * (rank + 1));
  if (sizes[0] > count)
    MPI_Bcast(buffers[0], count, MPI_FLOAT, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:5: warning: collective 'MPI_Bcast' runs only on ranks where a condition that depends on the rank holds
  // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}

// Bad: inserting as many elements as the rank makes the size differ.
void appendRankName(std::vector<float *> &buffers, int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<int> ids{1, 2};
  ids.insert(ids.end(), rank, 0);
  for (size_t i = 0; i < ids.size(); ++i)
    MPI_Bcast(buffers[0], count, MPI_FLOAT, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:5: warning: collective 'MPI_Bcast' runs only on ranks where a condition that depends on the rank holds
  // CHECK: :[[@LINE-3]]:22: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}

// Bad: a set keeps one of each value, so how many it holds depends on the
// values the rank put in.
void distinctOwners(std::vector<float *> &buffers, int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::set<int> owners;
  for (int i = 0; i < count; ++i)
    owners.emplace((i + rank) / 2);
  for (size_t k = 0; k < owners.size(); ++k)
    MPI_Bcast(buffers[0], count, MPI_FLOAT, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:5: warning: collective 'MPI_Bcast' runs only on ranks where a condition that depends on the rank holds
  // CHECK: :[[@LINE-3]]:22: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}
