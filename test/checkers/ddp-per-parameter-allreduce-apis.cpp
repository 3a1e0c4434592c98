// ddp-per-parameter-allreduce beyond c10d 1.13: MPI, NCCL, boost::mpi, c10d
// 2.x and a framework communicator named in CollectiveFunctions. Mock headers
// only.
// RUN: %clang_tidy %s -checks='-*,ddp-per-parameter-allreduce' \
// RUN:   -config="{CheckOptions: {CollectiveFunctions: '::fw::Communicator::sum'}}" \
// RUN:   -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW,CHECK-FW -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-per-parameter-allreduce' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
// RUN: %clang_tidy %s -checks='-*,ddp-per-parameter-allreduce' -- %mock_flags -DDDPLINT_MOCK_C10D_V2 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW -implicit-check-not='{{warning|error|note}}:'
// Old c10d (std::shared_ptr<ProcessGroup::Work>, no Backend):
// RUN: %clang_tidy %s -checks='-*,ddp-per-parameter-allreduce' -- %mock_flags -DDDPLINT_MOCK_C10D_OLD 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#ifndef DDPLINT_MOCK_C10D_OLD
#include <torch/csrc/distributed/c10d/Backend.hpp>
#endif
#include <mpi.h>
#include <nccl.h>
#include <boost/mpi.hpp>

#include <functional>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

void mpi_blocking(Net &model) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    MPI_Allreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
}

void mpi_nonblocking_waited_in_loop(Net &model) {
  for (auto &item : model->named_parameters()) {
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, item.value().grad().data_ptr(),
                   item.value().grad().numel(), MPI_FLOAT, MPI_SUM,
                   MPI_COMM_WORLD, &request);
    // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: loop over the parameters here
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
}

void mpi_nonblocking_waited_after_loop(Net &model) {
  std::vector<MPI_Request> requests;
  for (auto &p : model->parameters()) {
    requests.emplace_back();
    MPI_Iallreduce(MPI_IN_PLACE, p.grad().data_ptr(), p.grad().numel(),
                   MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &requests.back());
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one allreduce per parameter: each tensor is a separate collective
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

void nccl_per_parameter(Net &model, ncclComm_t comm, cudaStream_t stream) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat,
                  ncclSum, comm, stream);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
}

void boost_per_parameter(Net &model, boost::mpi::communicator &world) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    boost::mpi::all_reduce(world, boost::mpi::inplace(grad.data_ptr<float>()),
                           static_cast<int>(grad.numel()), std::plus<float>());
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
}

#ifndef DDPLINT_MOCK_C10D_OLD
void backend_per_parameter(Net &model, c10d::Backend &backend) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p.grad()};
    backend.allreduce(tensors)->wait();
    // CHECK-NEW: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-NEW: :[[@LINE-4]]:3: note: loop over the parameters here
  }
}
#endif

void process_group_waited_local(Net &model, c10d::ProcessGroup &pg) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p.grad()};
    auto work = pg.allreduce(tensors);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
    work->wait();
  }
}

namespace fw {
struct Communicator {
  void sum(torch::Tensor &t);
};
} // namespace fw

void framework_per_parameter(Net &model, fw::Communicator &comm) {
  for (auto &p : model->parameters()) {
    comm.sum(p.mutable_grad());
    // CHECK-FW: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-FW: :[[@LINE-3]]:3: note: loop over the parameters here
  }
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// NCCL fuses the calls of a group into one launch.
void negative_nccl_group(Net &model, ncclComm_t comm, cudaStream_t stream) {
  ncclGroupStart();
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat,
                  ncclSum, comm, stream);
  }
  ncclGroupEnd();
}

void negative_mpi_flat(Net &model) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad().reshape({-1}));
  auto flat = torch::cat(grads);
  MPI_Allreduce(MPI_IN_PLACE, flat.data_ptr(), flat.numel(), MPI_FLOAT, MPI_SUM,
                MPI_COMM_WORLD);
}

void negative_mpi_broadcast_once(Net &model) {
  for (auto &p : model->parameters())
    MPI_Bcast(p.data_ptr(), p.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
}
