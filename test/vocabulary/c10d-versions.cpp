// c10d's three shapes: LibTorch 1.13 (the default mock, c10d::Work), 2.x
// (c10d::Backend and c10d::Work) and older 1.x (nested ProcessGroup::Work held
// in std::shared_ptr). The same code is recognised in each.
//
// RUN: %probe %s -- %mock_flags 2>/dev/null | FileCheck %s -implicit-check-not='warning:'
// RUN: %probe %s -- %mock_flags -DDDPLINT_MOCK_C10D_V2 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK,V2 -implicit-check-not='warning:'
// RUN: %probe %s -- %mock_flags -DDDPLINT_MOCK_C10D_OLD 2>/dev/null | FileCheck %s -implicit-check-not='warning:'

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <vector>

void sync(c10d::ProcessGroup &pg, std::vector<torch::Tensor> &grads) {
// CHECK: :[[@LINE-1]]:31: warning: 'pg' is a c10d process group [probe-vocabulary]
  auto work = pg.allreduce(grads);
// CHECK: :[[@LINE-1]]:8: warning: 'work' holds pending work [probe-vocabulary]
// CHECK: :[[@LINE-2]]:18: warning: collective allreduce (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-3]]:18: warning: reduce op sum [probe-vocabulary]
  work->wait();
// CHECK: :[[@LINE-1]]:9: warning: wait [probe-vocabulary]
  int rank = pg.getRank();
// CHECK: :[[@LINE-1]]:17: warning: rank query [probe-vocabulary]
  (void)rank;
}

#ifdef DDPLINT_MOCK_C10D_V2
void backend(c10d::Backend &backend, std::vector<torch::Tensor> &grads) {
// V2: :[[@LINE-1]]:29: warning: 'backend' is a c10d process group [probe-vocabulary]
  backend.allreduce(grads)->wait();
// V2: :[[@LINE-1]]:11: warning: collective allreduce (c10d, asynchronous) [probe-vocabulary]
// V2: :[[@LINE-2]]:11: warning: reduce op sum [probe-vocabulary]
// V2: :[[@LINE-3]]:29: warning: wait [probe-vocabulary]
  int rank = backend.getRank();
// V2: :[[@LINE-1]]:22: warning: rank query [probe-vocabulary]
  (void)rank;
}
#endif
