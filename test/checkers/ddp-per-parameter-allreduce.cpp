// Both entry points, the clang-tidy plugin and the driver, on the mock headers:
// RUN: %clang_tidy %s -checks='-*,ddp-per-parameter-allreduce' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-per-parameter-allreduce' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// A call that does not type-check is a call of its candidates; the compile
// error goes to standard error, the finding to standard output:
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-per-parameter-allreduce' -- %mock_flags -DWITH_BROKEN_CODE 2> %t.broken.err \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-BROKEN -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck %s -check-prefix=CHECK-ERROR -implicit-check-not='error:' < %t.broken.err
//
// test/integration runs this same file against the real LibTorch headers.
// MPI, NCCL, boost::mpi, c10d 2.x and configured collectives:
// ddp-per-parameter-allreduce-apis.cpp.

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
// One blocking collective per parameter
//===----------------------------------------------------------------------===//

void chained_wait(Net &model, c10d::ProcessGroup &pg) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p.grad()};
    pg.allreduce(tensors)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter: every tensor waits out a full collective round trip, so gradient synchronisation is latency-bound; flatten the gradients into one bucket (torch::cat, one allreduce, copy back), use allreduce_coalesced, or a data-parallel wrapper that buckets gradients [ddp-per-parameter-allreduce]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
  }
}

// The shape of a helper that receives model->parameters(): a loop over a
// vector of tensors, the gradient copied into a local first.
void tensor_vector(c10d::ProcessGroup &pg,
                   const std::vector<torch::Tensor> &parameters) {
  for (const auto &parameter : parameters) {
    auto grad = parameter.grad();
    if (!grad.defined())
      continue;
    std::vector<at::Tensor> tensors{grad};
    pg.allreduce(tensors)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-7]]:3: note: loop over the parameters here
    grad.div_(pg.getSize());
  }
}

void named_parameters_waited_local(Net &model,
                                   const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  for (auto &item : model->named_parameters()) {
    std::vector<at::Tensor> tensors{item.value().grad()};
    auto work = pg->allreduce(tensors);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
    work->wait();
    item.value().mutable_grad().div_(pg->getSize());
  }
}

void options_and_mutable_grad(Net &model, c10d::ProcessGroup &pg) {
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::AVG;
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p.mutable_grad()};
    pg.allreduce(tensors, options)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
  }
}

// An index loop over the dictionary's keys, a one-tensor list filled in the
// body before the collective (a graph-embedding trainer's gradient sync).
void keys_index_loop(Net &model, c10d::ProcessGroup &pg) {
  for (int i = 0; i < model->named_parameters().keys().size(); i++) {
    std::string key = model->named_parameters().keys()[i];
    std::vector<at::Tensor> transfer(1);
    transfer[0] = model->named_parameters()[key].mutable_grad();
    auto work = pg.allreduce(transfer);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: loop over the parameters here
    work->wait();
  }
}

// Parameter averaging every step: the parameter itself, one by one, in a
// function the training loop calls.
void parameter_averaging(Net &model, c10d::ProcessGroup &pg) {
  torch::NoGradGuard no_grad;
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p};
    pg.allreduce(tensors)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
    p.div_(pg.getSize());
  }
}

void train_with_averaging(Net &model, c10d::ProcessGroup &pg, int steps) {
  for (int step = 0; step < steps; ++step) {
    model->forward(torch::ones({1, 4})).sum().backward();
    parameter_averaging(model, pg);
  }
}

// Local SGD: the parameters averaged every few steps, inside the loop.
void local_sgd(Net &model, c10d::ProcessGroup &pg, int steps) {
  for (int step = 0; step < steps; ++step) {
    model->forward(torch::ones({1, 4})).sum().backward();
    if (step % 8 != 0)
      continue;
    torch::NoGradGuard no_grad;
    for (auto &p : model->parameters()) {
      std::vector<at::Tensor> tensors{p};
      pg.allreduce(tensors)->wait();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: one blocking allreduce per parameter
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: loop over the parameters here
    }
  }
}

// The parameters averaged once, by a library function nothing in the unit
// calls in a loop (a start-up sync, a final average): the rounds are paid
// once, not every step.
void negative_average_parameters_once(Net &model, c10d::ProcessGroup &pg) {
  torch::NoGradGuard no_grad;
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p};
    pg.allreduce(tensors)->wait();
    p.div_(pg.getSize());
  }
}

void negative_setup(Net &model, c10d::ProcessGroup &pg) {
  negative_average_parameters_once(model, pg);
}

// A gradient hook on each parameter that all-reduces its gradient.
void hook_per_parameter(Net &model, const c10::intrusive_ptr<c10d::ProcessGroup> &pg) {
  for (auto &p : model->parameters()) {
    p.register_hook([pg](torch::Tensor grad) {
      std::vector<at::Tensor> tensors{grad};
      pg->allreduce(tensors)->wait();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: one blocking allreduce per parameter
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: hook registered on each parameter here
      return tensors[0] / pg->getSize();
    });
  }
}

//===----------------------------------------------------------------------===//
// One collective per parameter, waited for after the loop
//===----------------------------------------------------------------------===//

void waited_after_loop(Net &model, c10d::ProcessGroup &pg) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  std::vector<std::vector<at::Tensor>> buffers;
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p.grad()};
    works.push_back(pg.allreduce(tensors));
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: one allreduce per parameter: each tensor is a separate collective with its own launch and latency, even when the results are waited for later; flatten the gradients into one bucket, use allreduce_coalesced, or a data-parallel wrapper that buckets gradients [ddp-per-parameter-allreduce]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
  }
  for (auto &work : works)
    work->wait();
}

// The buffer kept in a vector declared before the loop, reduced through
// back() (frozen parameters skipped on every rank alike).
void appended_then_back(Net &model, c10d::ProcessGroup &pg) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  std::vector<std::vector<at::Tensor>> buffers;
  buffers.reserve(model->named_parameters().size());
  for (auto &item : model->named_parameters()) {
    if (!item.value().requires_grad())
      continue;
    buffers.push_back({item.value().grad()});
    works.push_back(pg.allreduce(buffers.back()));
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: one allreduce per parameter: each tensor is a separate collective
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: loop over the parameters here
  }
  for (auto &work : works)
    work->wait();
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// One flattened bucket, one collective (the wrapper's way).
void negative_flattened_bucket(Net &model, c10d::ProcessGroup &pg) {
  std::vector<torch::Tensor> flat;
  for (auto &p : model->parameters())
    flat.push_back(p.grad().reshape({-1}));
  std::vector<at::Tensor> bucket{torch::cat(flat)};
  pg.allreduce(bucket)->wait();
  bucket[0].div_(pg.getSize());
  int64_t offset = 0;
  for (auto &p : model->parameters()) {
    auto grad = p.mutable_grad();
    grad.copy_(bucket[0].slice(0, offset, offset + grad.numel()).view_as(grad));
    offset += grad.numel();
  }
}

void negative_coalesced(Net &model, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  pg.allreduce_coalesced(grads)->wait();
}

// Broadcasting each parameter once at start-up costs one round trip per
// tensor once, not per step.
void negative_initial_broadcast(Net &model, c10d::ProcessGroup &pg) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p};
    pg.broadcast(tensors)->wait();
  }
}

// A loop over batches: one collective per step on a metric.
void negative_metric_per_batch(c10d::ProcessGroup &pg,
                               const std::vector<torch::Tensor> &losses) {
  for (const auto &loss : losses) {
    std::vector<at::Tensor> tensors{loss.detach()};
    pg.allreduce(tensors)->wait();
  }
}

// The loop only fills the bucket; the one collective reduces what was
// appended last, after the loop.
void negative_back_after_loop(Net &model, c10d::ProcessGroup &pg) {
  std::vector<std::vector<at::Tensor>> buckets(1);
  for (auto &p : model->parameters())
    buckets.back().push_back(p.grad());
  pg.allreduce_coalesced(buckets.back())->wait();
}

// The list filled in the body holds the loop's values, not a parameter: a
// metric per key, reduced once per key of a small table.
void negative_filled_list_without_parameter(Net &model, c10d::ProcessGroup &pg) {
  for (int i = 0; i < model->named_parameters().keys().size(); i++) {
    std::vector<at::Tensor> transfer(1);
    transfer[0] = torch::ones({1});
    pg.allreduce(transfer)->wait();
  }
}

// A loop whose collective does not depend on the loop variable.
void negative_loop_invariant(Net &model, c10d::ProcessGroup &pg,
                             torch::Tensor flat) {
  for (auto &p : model->parameters()) {
    p.grad().zero_();
  }
  std::vector<at::Tensor> tensors{flat};
  for (int step = 0; step < 3; ++step)
    pg.allreduce(tensors)->wait();
}

// A hook that only counts gradients; the bucket is reduced elsewhere.
void negative_hook_without_collective(Net &model, int &ready) {
  for (auto &p : model->parameters())
    p.register_hook([&ready](torch::Tensor grad) { ++ready; });
}

//===----------------------------------------------------------------------===//
// Class templates nothing instantiates: analysed as written
//===----------------------------------------------------------------------===//

template <class Model, class Optimizer>
class TemplateLoop {
public:
  template <class DataLoader>
  void summed(DataLoader &loader) {
    for (auto &batch : loader) {
      model_->forward(batch.data).sum().backward();
      for (auto &p : model_->parameters()) {
        std::vector<at::Tensor> grads{p.grad()};
        pg_->allreduce(grads)->wait();
        // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: one blocking allreduce per parameter
        // CHECK-MESSAGES: :[[@LINE-4]]:7: note: loop over the parameters here
      }
      optimizer_.step();
    }
  }
  template <class DataLoader>
  void averaged(DataLoader &loader) {
    for (auto &batch : loader) {
      model_->forward(batch.data).sum().backward();
      std::vector<at::Tensor> grads;
      for (auto &p : model_->parameters())
        grads.push_back(p.grad());
      pg_->allreduce_coalesced(grads)->wait();
      for (auto &g : grads)
        g.div_(pg_->getSize());
      optimizer_.step();
    }
  }

private:
  Model model_;
  Optimizer optimizer_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
};

//===----------------------------------------------------------------------===//
// Collectives behind helpers
//===----------------------------------------------------------------------===//

// The collective in a helper called once per parameter.
void sync_one(c10d::ProcessGroup &pg, torch::Tensor grad) {
  std::vector<at::Tensor> tensors{grad};
  pg.allreduce(tensors)->wait();
}
void helper_per_parameter(Net &model, c10d::ProcessGroup &pg) {
  for (auto &p : model->parameters())
    sync_one(pg, p.grad());
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'sync_one' issues one blocking allreduce per parameter: every tensor waits out a full collective round trip
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: loop over the parameters here
  // CHECK-MESSAGES: :[[@LINE-7]]:3: note: the collective is issued here, inside 'sync_one'
}
// A helper that hands back its Work: the rounds may overlap, but each is
// still its own collective.
c10::intrusive_ptr<c10d::Work> start_one(c10d::ProcessGroup &pg, torch::Tensor grad) {
  std::vector<at::Tensor> tensors{grad};
  return pg.allreduce(tensors);
}
void helper_returning_work(Net &model, c10d::ProcessGroup &pg) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  for (auto &p : model->parameters())
    works.push_back(start_one(pg, p.grad()));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'start_one' issues one allreduce per parameter: each tensor is a separate collective
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: loop over the parameters here
  // CHECK-MESSAGES: :[[@LINE-8]]:10: note: the collective is issued here, inside 'start_one'
  for (auto &work : works)
    work->wait();
}
// A helper called once with all the gradients, and one that broadcasts each
// parameter once at start-up.
void sync_all(c10d::ProcessGroup &pg, std::vector<at::Tensor> &grads) {
  pg.allreduce_coalesced(grads)->wait();
}
void broadcast_one(c10d::ProcessGroup &pg, torch::Tensor param) {
  std::vector<at::Tensor> tensors{param};
  pg.broadcast(tensors)->wait();
}
void helper_called_once(Net &model, c10d::ProcessGroup &pg) {
  for (auto &p : model->parameters())
    broadcast_one(pg, p);
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  sync_all(pg, grads);
}

// A communicator class of the project's own, in a class template nothing
// instantiates: the gradient is read through the item of a dependent
// named_parameters() loop.
struct Communicator {
  void all_reduce(torch::Tensor &tensor);
  int size() const;
};
template <typename Backend> struct TemplateSync {
  Communicator *comm;
  template <typename T> void sync_step(torch::nn::ModuleHolder<T> model) {
    for (auto &param : model->named_parameters()) {
      auto grad = param.value().mutable_grad();
      comm->all_reduce(grad);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: one blocking allreduce per parameter
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: loop over the parameters here
    }
  }
};

// A transport of the project's own (sockets, shared memory) defined in
// this unit: it issues nothing the vocabulary knows, and its name says it
// all-reduces.
bool send_all(int fd, const void *buf, long n);
bool recv_all(int fd, void *buf, long n);
void all_reduce(torch::Tensor &tensor) {
  float *data = tensor.data_ptr<float>();
  send_all(3, data, tensor.numel() * 4);
  recv_all(3, data, tensor.numel() * 4);
}
void homegrown_transport(Net &model) {
  for (auto &p : model->parameters()) {
    torch::Tensor g = p.mutable_grad();
    all_reduce(g);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'all_reduce' issues one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
  }
}
// One flat buffer through the same transport, and a helper whose name
// says it syncs a whole model (not one collective): silent.
void negative_homegrown_transport_bucketed(Net &model) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad().reshape({-1}));
  torch::Tensor flat_grads = torch::cat(grads);
  all_reduce(flat_grads);
}
void all_reduce_gradients(torch::Tensor &t) { t.mul_(0.5); }
void negative_scale_each(Net &model) {
  for (auto &p : model->parameters()) {
    torch::Tensor g = p.mutable_grad();
    all_reduce_gradients(g);
  }
}

#ifdef WITH_BROKEN_CODE
// `grad()` is a const reference: no candidate takes it, on any LibTorch.
void all_reduce_grad(torch::Tensor &grad, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> tensors{grad};
  pg.allreduce(tensors)->wait();
}
void does_not_type_check(Net &model, c10d::ProcessGroup &pg) {
  for (auto &p : model->parameters())
    all_reduce_grad(p.grad(), pg);
  // CHECK-ERROR: :[[@LINE-1]]:5: error: no matching function for call to 'all_reduce_grad'
  // CHECK-BROKEN: :[[@LINE-2]]:5: warning: 'all_reduce_grad' issues one blocking allreduce per parameter
  // CHECK-BROKEN: :[[@LINE-4]]:3: note: loop over the parameters here
  // CHECK-BROKEN: :[[@LINE-8]]:3: note: the collective is issued here, inside 'all_reduce_grad'
}
// A broken call whose candidate issues no collective stays silent.
void scale_grad(torch::Tensor &grad, double factor) { grad.mul_(factor); }
void broken_but_local(Net &model) {
  for (auto &p : model->parameters())
    scale_grad(p.grad(), 0.5);
  // CHECK-ERROR: :[[@LINE-1]]:5: error: no matching function for call to 'scale_grad'
}
#endif

//===----------------------------------------------------------------------===//
// Known false negatives
//===----------------------------------------------------------------------===//



