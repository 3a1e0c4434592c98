// Tensor scalings, tensors of numbers and the names that look like
// averaging, as the vocabulary sees them (what ddp-unaveraged-allreduce
// builds its averages from).
//
// RUN: %probe %s -- %mock_flags 2>/dev/null | FileCheck %s -implicit-check-not='warning:'

#include <torch/torch.h>

#include <vector>

void scalings(torch::Tensor g, std::vector<torch::Tensor> grads,
              torch::Tensor ws) {
  g.div_(ws);
// CHECK: :[[@LINE-1]]:5: warning: division in place [probe-vocabulary]
  auto q = g.div(ws);
// CHECK: :[[@LINE-1]]:14: warning: division [probe-vocabulary]
  auto m = g.mul(ws);
// CHECK: :[[@LINE-1]]:14: warning: product [probe-vocabulary]
  auto h = at::div(g, ws);
// CHECK: :[[@LINE-1]]:12: warning: division [probe-vocabulary]
  at::_foreach_div_(grads, 4.0);
// CHECK: :[[@LINE-1]]:3: warning: division in place [probe-vocabulary]
  at::_foreach_mul_(grads, 0.25);
// CHECK: :[[@LINE-1]]:3: warning: product in place [probe-vocabulary]
  auto t = torch::tensor(4.0);
// CHECK: :[[@LINE-1]]:12: warning: tensor of numbers [probe-vocabulary]
  auto f = torch::full({1}, 4.0);
// CHECK: :[[@LINE-1]]:12: warning: tensor of numbers [probe-vocabulary]
  auto s = at::scalar_tensor(4.0);
// CHECK: :[[@LINE-1]]:12: warning: tensor of numbers [probe-vocabulary]
  // Neither a scaling nor a tensor of numbers.
  g.add_(ws);
  auto z = torch::zeros({1});
  auto n = g.sum();
}

// Left unresolved in a template: the names alone.
template <class Comm, class Grad>
void hidden(Comm &comm, Grad &g) {
  g.div_(comm.getSize());
// CHECK: :[[@LINE-1]]:3: warning: name looks like averaging [probe-vocabulary]
// CHECK: :[[@LINE-2]]:10: warning: name looks like averaging [probe-vocabulary]
  comm.average_gradients(g);
// CHECK: :[[@LINE-1]]:3: warning: name looks like averaging [probe-vocabulary]
  MPI_Comm_size(comm, g);
// CHECK: :[[@LINE-1]]:3: warning: name looks like averaging [probe-vocabulary]
  comm.world_size();
// CHECK: :[[@LINE-1]]:3: warning: name looks like averaging [probe-vocabulary]
  comm.barrier();
  g.add_(comm.rank());
}
