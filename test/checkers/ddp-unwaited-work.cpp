// Both entry points, the clang-tidy plugin and the driver, on the mock headers:
// RUN: %clang_tidy %s -checks='-*,ddp-unwaited-work' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unwaited-work' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// A discarded Work gets a note offering to wait right there: an unsafe fix-it
// (it may serialise work meant to overlap), applied by -fix-notes only. The
// fixes run on a copy with the CHECK comments blanked, so that only fixed code
// can match:
// RUN: sed -E 's#//[[:space:]]*CHECK-[A-Z0-9-]*:.*#//#' %s > %t.orig.cpp
// RUN: cp %t.orig.cpp %t.cpp
// RUN: %clang_tidy %t.cpp -fix-notes -checks='-*,ddp-unwaited-work' -- %mock_flags > /dev/null 2> %t.fix.err
// RUN: FileCheck %s -check-prefix=CHECK-FIXES --match-full-lines < %t.cpp
// RUN: cp %t.orig.cpp %t.cpp
// RUN: %clang_tidy %t.cpp -fix -checks='-*,ddp-unwaited-work' -- %mock_flags > /dev/null 2> %t.fix.err
// RUN: cmp %t.orig.cpp %t.cpp
//
// test/integration runs this same file against the real LibTorch headers.
// MPI requests and c10d 2.x / older c10d shapes: ddp-unwaited-work-apis.cpp.

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <memory>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

//===----------------------------------------------------------------------===//
// Work not waited for before the step or a read
//===----------------------------------------------------------------------===//

// A flag-guarded sync whose Work is never waited for before the step.
void step_before_wait(Net &model, c10d::ProcessGroup &pg,
                      torch::optim::Optimizer &optimizer,
                      const torch::Tensor &temperature, bool learn) {
  for (int step = 0; step < 10; ++step) {
    optimizer.zero_grad();
    model->forward(torch::ones({2, 4})).sum().backward();
    c10::intrusive_ptr<c10d::Work> temperature_sync;
    if (learn) {
      std::vector<at::Tensor> grads{temperature.mutable_grad()};
      temperature_sync = pg.allreduce(grads);
      // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'allreduce' may still be running when the optimizer steps: the work kept in 'temperature_sync' is not waited for on this path, so the step races with the collective; wait on 'temperature_sync' before the step [ddp-unwaited-work]
      // CHECK-MESSAGES: :[[@LINE+2]]:5: note: optimizer step here
    }
    optimizer.step();
  }
}

// Waited on one branch only.
void waited_on_one_path(c10d::ProcessGroup &pg, torch::optim::Optimizer &optimizer,
                        torch::Tensor flat, bool fast) {
  std::vector<at::Tensor> tensors{flat};
  auto work = pg.allreduce(tensors);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'allreduce' may still be running when the optimizer steps
  if (!fast)
    work->wait();
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: optimizer step here
}

// The reduced tensor read before the wait.
torch::Tensor read_before_wait(c10d::ProcessGroup &pg, torch::Tensor loss) {
  std::vector<at::Tensor> tensors{loss.detach().clone()};
  auto work = pg.allreduce(tensors);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'allreduce' may still be running when 'tensors' is read: the work kept in 'work' is not waited for on this path, so the read races with the collective; wait on 'work' first [ddp-unwaited-work]
  auto mean = tensors[0] / pg.getSize();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: note: read here
  work->wait();
  return mean;
}

// The tensor a list was built from aliases the list's element.
void alias_written_before_wait(c10d::ProcessGroup &pg, torch::Tensor flat) {
  std::vector<at::Tensor> tensors{flat};
  auto work = pg.allreduce(tensors);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'allreduce' may still be running when 'flat' is read
  flat.mul_(0.5);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: read here
  work->wait();
}

// Kept, never waited for, never handed on.
void never_waited(c10d::ProcessGroup &pg, torch::Tensor flat) {
  std::vector<at::Tensor> tensors{flat};
  auto work = pg.broadcast(tensors);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: the work of 'broadcast' kept in 'work' is never waited for: nothing orders the collective before later reads of its tensors or the optimizer step; wait on 'work' before the tensors are used [ddp-unwaited-work]
}

// Works collected in a vector, stepped before the waiting loop.
void container_step_first(Net &model, c10d::ProcessGroup &pg,
                          torch::optim::Optimizer &optimizer) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  std::vector<std::vector<at::Tensor>> buckets(1);
  for (auto &p : model->parameters())
    buckets[0].push_back(p.grad());
  works.push_back(pg.allreduce(buckets[0]));
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'allreduce' may still be running when the optimizer steps
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: optimizer step here
  for (auto &work : works)
    work->wait();
}

//===----------------------------------------------------------------------===//
// Work dropped on the floor
//===----------------------------------------------------------------------===//

void discarded(Net &model, c10d::ProcessGroup &pg) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p.grad()};
    pg.allreduce(tensors);
    // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: the Work returned by 'allreduce' is discarded: nothing waits for the collective, so later reads of its tensors and the optimizer step race with it; call wait() on the result, or keep it and wait before the tensors are used [ddp-unwaited-work]
    // CHECK-MESSAGES: :[[@LINE-2]]:26: note: wait for the collective here
    // CHECK-FIXES: pg.allreduce(tensors)->wait();
  }
}

void discarded_through_pointer(const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
                               std::vector<at::Tensor> &tensors) {
  (void)pg->allreduce(tensors);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the Work returned by 'allreduce' is discarded
  // CHECK-MESSAGES: :[[@LINE-2]]:31: note: wait for the collective here
  // CHECK-FIXES: (void)pg->allreduce(tensors)->wait();
  pg->barrier();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: the Work returned by 'barrier' is discarded
  // CHECK-MESSAGES: :[[@LINE-2]]:16: note: wait for the collective here
  // CHECK-FIXES: pg->barrier()->wait();
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// The gradients are reached through the module's fields, not through a
// local: the step still reads them while they are being reduced.
void positive_gradients_of_fields(Net &model, c10d::ProcessGroup &pg,
                                  torch::optim::SGD &optimizer) {
  std::vector<at::Tensor> grads{model->fc->weight.mutable_grad(),
                                model->fc->bias.mutable_grad()};
  auto work = pg.allreduce(grads);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'allreduce' may still be running when the optimizer steps: the work kept in 'work' is not waited for on this path
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: optimizer step here
  work->wait();
}
// The gradients come back from a helper of this unit.
std::vector<at::Tensor> gradients_of(Net &model) {
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  return grads;
}
void positive_gradients_from_helper(Net &model, c10d::ProcessGroup &pg,
                                    torch::optim::SGD &optimizer) {
  std::vector<at::Tensor> grads = gradients_of(model);
  auto work = pg.allreduce(grads);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'allreduce' may still be running when the optimizer steps: the work kept in 'work' is not waited for on this path
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: optimizer step here
  work->wait();
}

void negative_gradients_of_fields_waited(Net &model, c10d::ProcessGroup &pg,
                                         torch::optim::SGD &optimizer) {
  std::vector<at::Tensor> grads{model->fc->weight.mutable_grad(),
                                model->fc->bias.mutable_grad()};
  auto work = pg.allreduce(grads);
  work->wait();
  optimizer.step();
}

void negative_chained_wait(c10d::ProcessGroup &pg, std::vector<at::Tensor> &tensors,
                           torch::optim::Optimizer &optimizer) {
  pg.allreduce(tensors)->wait();
  pg.barrier()->wait();
  optimizer.step();
}

void negative_waited_before_step(c10d::ProcessGroup &pg, torch::Tensor flat,
                                 torch::Tensor other,
                                 torch::optim::Optimizer &optimizer) {
  std::vector<at::Tensor> tensors{flat};
  auto work = pg.allreduce(tensors);
  other.mul_(0); // overlaps with the collective: another tensor
  work->wait();
  flat.div_(pg.getSize());
  tensors[0].div_(pg.getSize());
  optimizer.step();
}

// Launched per parameter, all waited in a later loop before the step.
void negative_waited_in_loop(Net &model, c10d::ProcessGroup &pg,
                             torch::optim::Optimizer &optimizer) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  works.reserve(8);
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p.grad()};
    works.push_back(pg.allreduce(tensors));
  }
  for (auto &work : works)
    work->wait();
  optimizer.step();
}

void negative_waited_by_index(c10d::ProcessGroup &pg, std::vector<at::Tensor> &a,
                              std::vector<at::Tensor> &b,
                              torch::optim::Optimizer &optimizer) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  works.push_back(pg.allreduce(a));
  works.push_back(pg.allreduce(b));
  for (size_t i = 0; i < works.size(); ++i)
    works[i]->wait();
  optimizer.step();
}

// The caller owns the work.
c10::intrusive_ptr<c10d::Work> negative_returned(c10d::ProcessGroup &pg,
                                                 std::vector<at::Tensor> &tensors) {
  auto work = pg.allreduce(tensors);
  return work;
}
c10::intrusive_ptr<c10d::Work> negative_returned_directly(
    c10d::ProcessGroup &pg, std::vector<at::Tensor> &tensors) {
  return pg.allreduce(tensors);
}

// Kept in a member and waited for in another method (the wrapper's way).
struct Reducer {
  void launch(std::vector<at::Tensor> &tensors) { pending_ = pg_->allreduce(tensors); }
  void finish() {
    if (pending_)
      pending_->wait();
  }
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  c10::intrusive_ptr<c10d::Work> pending_;
};

// Handed to a function that waits.
void finish_all(std::vector<c10::intrusive_ptr<c10d::Work>> &works);
void negative_handed_on(c10d::ProcessGroup &pg, std::vector<at::Tensor> &tensors,
                        torch::optim::Optimizer &optimizer) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  works.push_back(pg.allreduce(tensors));
  finish_all(works);
  optimizer.step();
}

//===----------------------------------------------------------------------===//
// Known false negatives
//===----------------------------------------------------------------------===//

// A work kept in a member and never waited for anywhere: members are assumed
// to be waited for by another method.
struct false_negative_member {
  void launch(std::vector<at::Tensor> &tensors) { pending_ = pg_->allreduce(tensors); }
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  c10::intrusive_ptr<c10d::Work> pending_;
};

// The gradient read through the model, not through the tensor reduced.
void false_negative_read_through_model(Net &model, c10d::ProcessGroup &pg,
                                       std::vector<at::Tensor> &grads) {
  auto work = pg.allreduce(grads);
  auto norm = model->parameters()[0].grad().norm();
  work->wait();
}

// A metric's all-reduce may stay in flight across optimizer steps: it does
// not touch the model's gradients or parameters.
void negative_metric_across_steps(c10d::ProcessGroup &pg,
                                  torch::optim::Optimizer &optimizer,
                                  torch::Tensor loss_sum) {
  std::vector<std::vector<at::Tensor>> metrics;
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  for (int epoch = 0; epoch < 3; ++epoch) {
    optimizer.step();
    metrics.push_back({loss_sum.detach().clone()});
    works.push_back(pg.allreduce(metrics.back()));
  }
  for (auto &work : works)
    work->wait();
}
