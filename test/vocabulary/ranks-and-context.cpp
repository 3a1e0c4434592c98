// The rules every check shares for two questions: which conditions differ
// between ranks (Vocabulary::mentionsRank), and which functions show that
// they run in a distributed program (Vocabulary::isDistributedFunction).
//
// RUN: %probe %s -config="{CheckOptions: {probe-vocabulary.DistributedFunctions: true}}" \
// RUN:   -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='warning:'
//
// A framework's own start-up call, named in DistributedInitFunctions:
// RUN: %probe %s -config="{CheckOptions: {probe-vocabulary.DistributedFunctions: true, DistributedInitFunctions: 'MPI_Init*;fw_init'}}" \
// RUN:   -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK,OPTION -implicit-check-not='warning:'

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <mpi.h>

#include <cstdlib>

bool is_main();
void fw_init();

// --- Conditions ------------------------------------------------------------

void conditions(c10d::ProcessGroup &pg, int rank, int root_rank, int src_rank,
// CHECK: :[[@LINE-1]]:6: warning: 'conditions' runs in a distributed program
// CHECK: :[[@LINE-2]]:37: warning: 'pg' is a c10d process group
                int num_ranks) {
  if (rank == 0) {
// CHECK: :[[@LINE-1]]:7: warning: condition differs between ranks
  }
  // A broadcast's root, a source rank and a count of ranks are the same on
  // every rank: conditions on them alone do not tell the ranks apart.
  if (root_rank == 0) {
  }
  if (src_rank > 0 || num_ranks > 1) {
  }
  // Comparing this rank with the root does.
  if (rank == root_rank) {
// CHECK: :[[@LINE-1]]:7: warning: condition differs between ranks
  }
  const bool leader = pg.getRank() == 0;
// CHECK: :[[@LINE-1]]:26: warning: rank query
  if (leader) {
// CHECK: :[[@LINE-1]]:7: warning: condition differs between ranks
  }
  if (is_main()) {
// CHECK: :[[@LINE-1]]:7: warning: condition differs between ranks
  }
  if (std::getenv("RANK")) {
// CHECK: :[[@LINE-1]]:7: warning: condition differs between ranks
// CHECK: :[[@LINE-2]]:7: warning: rank query
  }
}

// --- Distributed functions -------------------------------------------------

void takes_a_process_group(c10d::ProcessGroup &pg) { (void)pg; }
// CHECK: :[[@LINE-1]]:6: warning: 'takes_a_process_group' runs in a distributed program
// CHECK: :[[@LINE-2]]:48: warning: 'pg' is a c10d process group

void takes_its_rank(int rank) { (void)rank; }
// CHECK: :[[@LINE-1]]:6: warning: 'takes_its_rank' runs in a distributed program

void starts_mpi() { MPI_Init(nullptr, nullptr); }
// CHECK: :[[@LINE-1]]:6: warning: 'starts_mpi' runs in a distributed program

void starts_a_framework() { fw_init(); }
// OPTION: :[[@LINE-1]]:6: warning: 'starts_a_framework' runs in a distributed program

void iterates_a_sharded_dataset(
// CHECK: :[[@LINE-1]]:6: warning: 'iterates_a_sharded_dataset' runs in a distributed program
    torch::data::samplers::DistributedRandomSampler &sampler) {
  (void)sampler;
}

struct Trainer {
  c10d::ProcessGroup *pg_ = nullptr;
// CHECK: :[[@LINE-1]]:23: warning: 'pg_' is a c10d process group
  void step() {}
// CHECK: :[[@LINE-1]]:8: warning: 'step' runs in a distributed program
};

// A count of processes alone is no clue: a local world size may be a
// configuration value.
void negative_takes_a_world_size(int world_size) { (void)world_size; }

void negative_local_only() {
  int steps = 0;
  (void)steps;
}
