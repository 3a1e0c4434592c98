// ddp-unwaited-work beyond c10d 1.13: MPI requests, c10d 2.x backends and the
// older c10d shape (std::shared_ptr<ProcessGroup::Work>). Mock headers only.
// RUN: %clang_tidy %s -checks='-*,ddp-unwaited-work' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unwaited-work' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
// RUN: %clang_tidy %s -checks='-*,ddp-unwaited-work' -- %mock_flags -DDDPLINT_MOCK_C10D_V2 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW -implicit-check-not='{{warning|error|note}}:'
// RUN: %clang_tidy %s -checks='-*,ddp-unwaited-work' -- %mock_flags -DDDPLINT_MOCK_C10D_OLD 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#ifndef DDPLINT_MOCK_C10D_OLD
#include <torch/csrc/distributed/c10d/Backend.hpp>
#endif
#include <mpi.h>
#include <nccl.h>

#include <vector>

void mpi_step_before_wait(torch::Tensor grad, torch::optim::Optimizer &optimizer) {
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM,
                 MPI_COMM_WORLD, &request);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: 'MPI_Iallreduce' may still be running when 'grad' is read: the work kept in 'request' is not waited for on this path, so the read races with the collective; wait on 'request' first [ddp-unwaited-work]
  grad.div_(2);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: read here
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  optimizer.step();
}

void mpi_never_waited(torch::Tensor flat) {
  MPI_Request request;
  MPI_Ibcast(flat.data_ptr(), flat.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD, &request);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the work of 'MPI_Ibcast' kept in 'request' is never waited for
}

void negative_mpi_waited(torch::Tensor grad, torch::optim::Optimizer &optimizer) {
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM,
                 MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  grad.div_(2);
  optimizer.step();
}

void negative_mpi_waitall(std::vector<torch::Tensor> &grads,
                          torch::optim::Optimizer &optimizer) {
  std::vector<MPI_Request> requests(grads.size());
  for (size_t i = 0; i < grads.size(); ++i)
    MPI_Iallreduce(MPI_IN_PLACE, grads[i].data_ptr(), grads[i].numel(), MPI_FLOAT,
                   MPI_SUM, MPI_COMM_WORLD, &requests[i]);
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  optimizer.step();
}

// NCCL work is ordered on its CUDA stream; tensors used on that stream later
// are safe, so NCCL calls are left alone.
void negative_nccl(torch::Tensor grad, ncclComm_t comm, cudaStream_t stream) {
  ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat, ncclSum,
                comm, stream);
  grad.div_(2);
}

#ifndef DDPLINT_MOCK_C10D_OLD
void backend_discarded(c10d::Backend &backend, std::vector<at::Tensor> &tensors) {
  backend.allreduce(tensors);
  // CHECK-NEW: :[[@LINE-1]]:11: warning: the Work returned by 'allreduce' is discarded
  // CHECK-NEW: :[[@LINE-2]]:29: note: wait for the collective here
}
#endif

void process_group_step_first(c10d::ProcessGroup &pg, std::vector<at::Tensor> &tensors,
                              torch::optim::Optimizer &optimizer) {
  auto work = pg.allreduce(tensors);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'allreduce' may still be running when the optimizer steps
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: optimizer step here
  work->wait();
}

void process_group_discarded(c10d::ProcessGroup &pg, std::vector<at::Tensor> &tensors) {
  pg.allreduce(tensors);
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: the Work returned by 'allreduce' is discarded
  // CHECK-MESSAGES: :[[@LINE-2]]:24: note: wait for the collective here
}
