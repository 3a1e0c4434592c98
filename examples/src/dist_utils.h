#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace dist {

struct Context {
  int rank = 0;
  int world_size = 1;
  c10::intrusive_ptr<c10d::ProcessGroup> process_group;

  bool is_main() const {
    return rank == 0;
  }
};

// Rendezvous through a TCPStore on MASTER_ADDR:MASTER_PORT and create a Gloo
// process group of WORLD_SIZE ranks. RANK identifies this process.
Context init_from_env();

// All-reduces the gradient of every parameter in `parameters`.
void allreduce_gradients(
    c10d::ProcessGroup& process_group,
    const std::vector<torch::Tensor>& parameters);

// Element-wise sum of `values` over all ranks (a new tensor is returned).
torch::Tensor all_reduce_sum(
    c10d::ProcessGroup& process_group,
    const torch::Tensor& values);

// Mean of a scalar metric over all ranks.
double all_reduce_mean(c10d::ProcessGroup& process_group, double value);

// Writes the module to `path` from rank 0; a no-op on the other ranks and when
// `path` is empty.
void save_checkpoint(
    const std::shared_ptr<torch::nn::Module>& module,
    const std::string& path,
    int rank);

} // namespace dist
