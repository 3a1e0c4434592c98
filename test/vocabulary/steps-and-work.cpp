// What the vocabulary knows about optimizer steps, gradient hooks, brackets
// that coalesce collectives, and where pending work is written.
//
// RUN: %probe %s -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='warning:'

#include <torch/torch.h>
#include <mpi.h>
#include <nccl.h>

void step(torch::optim::SGD &sgd, torch::optim::Optimizer &base) {
  sgd.step();
// CHECK: :[[@LINE-1]]:7: warning: optimizer step [probe-vocabulary]
  base.step();
// CHECK: :[[@LINE-1]]:8: warning: optimizer step [probe-vocabulary]
}

void hook(torch::Tensor t) {
  t.register_hook([](torch::Tensor grad) { return grad; });
// CHECK: :[[@LINE-1]]:5: warning: gradient hook [probe-vocabulary]
}

void brackets(float *buffer, ncclComm_t comm, cudaStream_t stream) {
// CHECK: :[[@LINE-1]]:41: warning: 'comm' is a communicator [probe-vocabulary]
  ncclGroupStart();
// CHECK: :[[@LINE-1]]:3: warning: coalescing starts [probe-vocabulary]
  ncclGroupEnd();
// CHECK: :[[@LINE-1]]:3: warning: coalescing ends [probe-vocabulary]
}

void request(float *buffer) {
  MPI_Request r;
// CHECK: :[[@LINE-1]]:15: warning: 'r' holds pending work [probe-vocabulary]
  MPI_Ibcast(buffer, 4, MPI_FLOAT, 0, MPI_COMM_WORLD, &r);
// CHECK: :[[@LINE-1]]:3: warning: collective broadcast (mpi, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:55: warning: request written here [probe-vocabulary]
}
