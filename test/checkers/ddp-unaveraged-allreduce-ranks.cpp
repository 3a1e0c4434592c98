// Which conditions tell the ranks apart, as the gradient model reads them
// (Vocabulary::mentionsRank, the rule every check shares): an average under
// such a condition runs on some ranks only; an average under a condition
// every rank evaluates alike runs wherever the sum does.
//
// RUN: %clang_tidy %s -checks='-*,ddp-unaveraged-allreduce' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unaveraged-allreduce' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

struct NetImpl : torch::nn::Module {
  NetImpl() { fc = register_module("fc", torch::nn::Linear(4, 1)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

// Averaged on the root only: the other ranks step with the sum.
void averaged_on_the_root(c10d::ProcessGroup &pg, Net &model, int rank,
                          int root_rank) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'allreduce' sums the gradients over all ranks
    if (rank == root_rank)
      p.grad().div_(pg.getSize());
  }
}

// A flag set from the rank, read through the local that holds it.
void averaged_on_the_leader(c10d::ProcessGroup &pg, Net &model) {
  const bool leader = pg.getRank() == 0;
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'allreduce' sums the gradients over all ranks
    if (leader)
      p.grad().div_(pg.getSize());
  }
}

// A broadcast's root is the same on every rank (the collective matches
// only if it is): a condition on it alone takes the same branch on every
// rank, and so does the average under it.
void negative_averaged_under_the_root_index(c10d::ProcessGroup &pg, Net &model,
                                            int root_rank) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    if (root_rank >= 0)
      p.grad().div_(pg.getSize());
  }
}

// A count of ranks is the world's, the same everywhere.
void negative_averaged_when_several_ranks(c10d::ProcessGroup &pg, Net &model,
                                          int num_ranks) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    if (num_ranks > 1)
      p.grad().div_(pg.getSize());
  }
}
