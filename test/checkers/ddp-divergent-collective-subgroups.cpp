// ddp-divergent-collective on communicators that hold some ranks only: a
// split by a colour the rank decides. A branch on the rank of another
// communicator may pick exactly the members, so it is not reported; a branch
// on the rank within that communicator, or on what differs per process, is.
// Functions marked "Bad" must be reported, the others must stay silent.
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>

static void serveRequests() {}

// The actors' own loop: a barrier among the actors, every step.
static void actLoop(int steps, MPI_Comm actors) {
  for (int s = 0; s < steps; ++s)
    MPI_Barrier(actors);
}

// Rank 0 learns; the others act, and meet on the communicator of the actors.
void learnerAndActors(int steps) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm actors;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank == 0, world_rank, &actors);
  if (world_rank == 0)
    serveRequests();
  else
    actLoop(steps, actors);
  if (world_rank != 0)
    MPI_Barrier(actors);
}

// Model-parallel groups of four, data-parallel across them: the leaders of
// the groups (rank 0 within each) report in turn on the communicator of
// ranks with the same position in their group.
void leadersReport(float *stats, int n) {
  int world_rank = 0, inner_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm inner, outer;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank / 4, world_rank, &inner);
  MPI_Comm_rank(inner, &inner_rank);
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 4, world_rank, &outer);
  if (inner_rank == 0)
    MPI_Allreduce(MPI_IN_PLACE, stats, n, MPI_FLOAT, MPI_SUM, outer);
}

// Bad: the condition is the rank within the communicator itself.
void groupRootOnly(float *stats, int n) {
  int world_rank = 0, inner_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm inner;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank / 4, world_rank, &inner);
  MPI_Comm_rank(inner, &inner_rank);
  if (inner_rank == 0)
    MPI_Allreduce(MPI_IN_PLACE, stats, n, MPI_FLOAT, MPI_SUM, inner);
  // CHECK: :[[@LINE-1]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds
  // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}

// Bad: the colour is the same on every rank, so the split keeps them all.
void wholeCopy(float *stats, int n) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm all;
  MPI_Comm_split(MPI_COMM_WORLD, 0, world_rank, &all);
  if (world_rank == 0)
    MPI_Allreduce(MPI_IN_PLACE, stats, n, MPI_FLOAT, MPI_SUM, all);
  // CHECK: :[[@LINE-1]]:5: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on the rank holds
  // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}

// Bad: a clock differs between the members of any communicator.
void actorsOnTime(double deadline) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm actors;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank == 0, world_rank, &actors);
  if (MPI_Wtime() < deadline)
    MPI_Barrier(actors);
  // CHECK: :[[@LINE-1]]:5: warning: collective 'MPI_Barrier' runs only on ranks where a condition that depends on what reaches each process on its own (a signal, a clock) holds
  // CHECK: :[[@LINE-3]]:7: note: this condition depends on what reaches each process on its own
}

// Bad: a value computed from the rank (each actor's share of the work)
// differs between the members of the actors' communicator.
void actorsByShare(int total) {
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm actors;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank == 0, world_rank, &actors);
  int share = total / 3 + (world_rank < total % 3 ? 1 : 0);
  if (world_rank != 0 && share > 2)
    MPI_Barrier(actors);
  // CHECK: :[[@LINE-1]]:5: warning: collective 'MPI_Barrier' runs only on ranks where a condition that depends on the rank holds
  // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank
  // CHECK: note: the rank comes from here
}
