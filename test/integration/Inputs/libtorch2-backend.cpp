// Training code written against the c10d API of LibTorch 2.x, which 1.13 does
// not have: collectives issued through the backend a process group holds for
// a device (getBackend), the namespace-level c10d::Work,
// allreduce_coalesced on the backend and on the process group, and the
// ReduceOp forms 2.x adds (AVG, RedOpType). libtorch2.test analyses it against
// Debian trixie's LibTorch 2.6 headers.

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <vector>

using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

// The front end as 2.x builds it: a ProcessGroup with a Gloo backend set for
// the CPU.
PG make_process_group(int rank, int size) {
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", c10d::TCPStoreOptions{});
  auto options = c10d::ProcessGroupGloo::Options::create();
  options->devices.push_back(
      c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  auto gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
  auto pg = c10::make_intrusive<c10d::ProcessGroup>(store, rank, size);
  pg->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO, gloo);
  pg->setDefaultBackend(c10d::ProcessGroup::BackendType::GLOO);
  return pg;
}

std::vector<at::Tensor> gradients(torch::nn::Module &model) {
  std::vector<at::Tensor> grads;
  for (auto &p : model.parameters())
    grads.push_back(p.grad());
  return grads;
}

void backend_sum_not_averaged(const PG &pg, torch::nn::Module &model,
                              torch::optim::Optimizer &optimizer, torch::Tensor loss) {
  optimizer.zero_grad();
  loss.backward();
  std::vector<at::Tensor> grads = gradients(model);
  pg->getBackend(c10::DeviceType::CPU)->allreduce(grads)->wait();
  // CHECK: :[[@LINE-1]]:41: warning: 'allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step{{.*}} [ddp-unaveraged-allreduce]{{$}}
  optimizer.step();
  // CHECK: :[[@LINE-1]]:13: note: the optimizer steps with the summed gradients here{{$}}
}

void backend_averaged(const PG &pg, torch::nn::Module &model,
                      torch::optim::Optimizer &optimizer, torch::Tensor loss) {
  optimizer.zero_grad();
  loss.backward();
  std::vector<at::Tensor> grads = gradients(model);
  pg->getBackend(c10::DeviceType::CPU)->allreduce(grads)->wait();
  for (auto &g : grads)
    g.div_(pg->getSize());
  optimizer.step();
}

void backend_coalesced_step_first(const c10::intrusive_ptr<c10d::Backend> &backend,
                                  torch::nn::Module &model,
                                  torch::optim::Optimizer &optimizer) {
  std::vector<at::Tensor> grads;
  for (auto &p : model.parameters())
    grads.push_back(p.grad());
  c10d::AllreduceCoalescedOptions options;
  options.reduceOp = c10d::ReduceOp::AVG;
  c10::intrusive_ptr<c10d::Work> work = backend->allreduce_coalesced(grads, options);
  // CHECK: :[[@LINE-1]]:50: warning: 'allreduce_coalesced' may still be running when the optimizer steps: the work kept in 'work' is not waited for on this path{{.*}} [ddp-unwaited-work]{{$}}
  optimizer.step();
  // CHECK: :[[@LINE-1]]:3: note: optimizer step here{{$}}
  work->wait();
}

void front_end_coalesced_discarded(c10d::ProcessGroup &pg, torch::nn::Module &model) {
  std::vector<at::Tensor> grads = gradients(model);
  c10d::AllreduceCoalescedOptions options;
  options.reduceOp = c10d::ReduceOp(c10d::ReduceOp::RedOpType::AVG);
  pg.allreduce_coalesced(grads, options);
  // CHECK: :[[@LINE-1]]:6: warning: the Work returned by 'allreduce_coalesced' is discarded{{.*}} [ddp-unwaited-work]{{$}}
  // CHECK: :[[@LINE-2]]:41: note: wait for the collective here{{$}}
}

void front_end_coalesced_sum(c10d::ProcessGroup &pg, torch::nn::Module &model,
                             torch::optim::Optimizer &optimizer, torch::Tensor loss) {
  optimizer.zero_grad();
  loss.backward();
  std::vector<at::Tensor> grads = gradients(model);
  c10d::AllreduceCoalescedOptions options;
  options.reduceOp = c10d::ReduceOp::RedOpType::SUM;
  pg.allreduce_coalesced(grads, options)->wait();
  // CHECK: :[[@LINE-1]]:6: warning: 'allreduce_coalesced' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step{{.*}} [ddp-unaveraged-allreduce]{{$}}
  optimizer.step();
  // CHECK: :[[@LINE-1]]:13: note: the optimizer steps with the summed gradients here{{$}}
}

void backend_per_parameter(const PG &pg, torch::nn::Module &model) {
  auto backend = pg->getBackend(c10::DeviceType::CPU);
  for (auto &p : model.parameters()) {
    std::vector<at::Tensor> one{p.grad()};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::AVG;
    backend->allreduce(one, options)->wait();
    // CHECK: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter{{.*}} [ddp-per-parameter-allreduce]{{$}}
    // CHECK: :[[@LINE-6]]:3: note: loop over the parameters here{{$}}
  }
}

void backend_rank_zero_only(const PG &pg, std::vector<at::Tensor> &stats) {
  if (pg->getRank() == 0)
    pg->getBackend(c10::DeviceType::CPU)->allreduce(stats)->wait();
  // CHECK: :[[@LINE-1]]:5: warning: collective 'allreduce' runs only on ranks where a condition that depends on the rank holds{{.*}} [ddp-divergent-collective]{{$}}
  // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank{{$}}
}
