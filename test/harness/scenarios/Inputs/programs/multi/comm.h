// The process group of the two-file program, from torchrun's environment.
#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/types.h>

#include <vector>

struct Comm {
  int rank = 0;
  int world = 1;
  // Gloo itself: a ProcessGroup in LibTorch 1.x, a Backend from 2.0 on;
  // both have the collectives this program calls.
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
};

Comm connect_from_env();
void average_gradients(Comm &comm, const std::vector<torch::Tensor> &params);
