// ddp-divergent-collective: an early exit inside a branch on the rank, behind
// a test every rank would answer alike, skips the collectives after the
// branch on the ranks that take it. Every function but those marked "Bad"
// is correct and must stay silent.
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- -std=c++17 -isystem %src_root/sdk-fallback 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- -std=c++17 -isystem %src_root/sdk-fallback 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>

#include <cstring>
#include <stdexcept>

struct Settings {
  int rank;
  int size;
};

void usage();

// Bad: only rank 0 reads the options; on --help it finalises and returns,
// and the other ranks wait in the broadcast.
int parseOnRootBad(int argc, char **argv) {
  Settings s;
  MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.size);
  int quick = 0;
  if (s.rank == 0) {
    for (int i = 1; i < argc; i++) {
      if (std::strcmp(argv[i], "--quick") == 0)
        quick = 1;
      else if (std::strcmp(argv[i], "--help") == 0) {
        usage();
        MPI_Finalize();
        return 0;
      }
    }
  }
  MPI_Bcast(&quick, 1, MPI_INT, 0, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'MPI_Bcast' is skipped by ranks that leave early through 'return' on a condition that depends on the rank; {{.*}} [ddp-divergent-collective]
  // CHECK-MESSAGES: :[[@LINE-13]]:7: note: this condition depends on the rank
  // CHECK-MESSAGES: :[[@LINE-7]]:9: note: ranks where it holds leave through this 'return'
  return quick;
}

// Bad: the rank test and the uniform one in one condition.
int rootAndArgumentBad(int argc, float *buf, int n) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && argc > 3)
    return 1;
  MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: collective 'MPI_Allreduce' is skipped by ranks that leave early through 'return' on a condition that depends on the rank; {{.*}} [ddp-divergent-collective]
  // CHECK-MESSAGES: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK-MESSAGES: :[[@LINE-4]]:5: note: ranks where it holds leave through this 'return'
  // CHECK-MESSAGES: :[[@LINE-7]]:3: note: the rank comes from here
  return 0;
}

#define CHECK_MPI(call)                                                        \
  do {                                                                         \
    if ((call) != MPI_SUCCESS)                                                 \
      throw std::runtime_error("MPI call failed");                             \
  } while (0)

int makeId(int *id);
#define CHECK_ID(call)                                                         \
  if ((call) != 0)                                                             \
    return -1;

// Good: rank 0 makes the id and checks the call; a failure throws and ends
// that process, which ends the job.
void shareIdChecked(int *id) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    int err = makeId(id);
    if (err != 0)
      throw std::runtime_error("no id");
  }
  CHECK_MPI(MPI_Bcast(id, 1, MPI_INT, 0, MPI_COMM_WORLD));
}

// Good: the same with a checking macro that returns its error.
int shareIdMacro(int *id) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    CHECK_ID(makeId(id));
  }
  MPI_Bcast(id, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return 0;
}

struct Communicator {
  int rank() const;
  void barrier();
};

// Good: without a communicator the process is alone; the barrier runs
// wherever there is one.
void writeShared(Communicator *comm, float *data, int n) {
  if (!comm || comm->rank() == 0) {
    for (int i = 0; i < n; i++)
      data[i] = 0;
  }
  if (comm)
    comm->barrier();
}

// Good: a break leaves a loop inside the root's branch, not the branch.
int findOnRoot(const int *values, int n, int wanted) {
  int rank, found = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    for (int i = 0; i < n; i++)
      if (values[i] == wanted) {
        found = i;
        break;
      }
  }
  MPI_Bcast(&found, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return found;
}

void serial();
void master();
void worker();

// Good: rank 0 returns early only when it runs alone; no rank waits.
int runAlone() {
  int rank, world_size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (rank == 0) {
    if (world_size == 1) {
      serial();
      return 0;
    }
    master();
  } else {
    worker();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}

// Good: every rank leaves on the same flag, on both sides of the branch.
int stepOrQuit(bool quit, double *x, int n) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    if (quit)
      return 1;
    x[0] = 1;
  } else {
    if (quit)
      return 1;
  }
  MPI_Bcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return 0;
}

// Good: the goto leaves two loops, not the root's branch.
int findCell(const int (*grid)[8], int target) {
  int rank, pos = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j)
        if (grid[i][j] == target) {
          pos = i * 8 + j;
          goto found;
        }
  found:;
  }
  MPI_Bcast(&pos, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return pos;
}
