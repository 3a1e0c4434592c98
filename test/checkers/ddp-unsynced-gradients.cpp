// Both entry points, the clang-tidy plugin and the driver, on the mock headers:
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -I%S/Inputs 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-GATED -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unsynced-gradients' -- %mock_flags -I%S/Inputs 2> %t.err \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-GATED -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// A framework collective named in CollectiveFunctions, and a sync helper
// named in GradientSyncFunctions, are syncs:
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' \
// RUN:   -config="{CheckOptions: {CollectiveFunctions: '::fw::Communicator::sum', GradientSyncFunctions: '*[Rr]educe*[Gg]rad*;*[Ss]ync*[Gg]rad*;*[Aa]verage*[Gg]rad*;*[Aa]vg*[Gg]rad*;exchange_updates'}}" \
// RUN:   -- %mock_flags -I%S/Inputs -DWITH_OPTIONS 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-GATED -implicit-check-not='{{warning|error|note}}:'
//
// Code clang cannot build (a call into a missing header) may be the sync;
// the missing header leaves the analysis vacuous, so the exit code is 3:
// RUN: %expect_exit 3 %ddplint %s --checks='-*,ddp-unsynced-gradients' -- %mock_flags -I%S/Inputs -DWITH_BROKEN_CODE 2> %t.broken.err \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-GATED -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck %s -check-prefix=CHECK-ERROR -implicit-check-not='error:' < %t.broken.err
//
// A sync in an #ifdef branch counts where the branch is built, and only there:
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags -I%S/Inputs -DUSE_GRADIENT_SYNC 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
//
// test/integration runs this same file against the real LibTorch headers.

#include <torch/torch.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include "wrapper.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

namespace F = torch::nn::functional;
using torch::data::samplers::DistributedRandomSampler;

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

struct Batch {
  torch::Tensor data, target;
};

// A hand-written sync helper defined in this file: it is recognised from
// its body.
void average_parameters_grads(c10d::ProcessGroup &pg, Net &model) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p.grad()};
    pg.allreduce(tensors)->wait();
    p.grad().div_(pg.getSize());
  }
}

// Helpers whose bodies live in another file: a name that says "sync the
// gradients", or a communicator handed together with the parameters.
void allreduce_gradients(c10d::ProcessGroup &pg,
                         const std::vector<torch::Tensor> &parameters);
void communicate(c10d::ProcessGroup &pg, const std::vector<torch::Tensor> &tensors);
double all_reduce_mean(c10d::ProcessGroup &pg, double value);

//===----------------------------------------------------------------------===//
// No sync between backward() and step()
//===----------------------------------------------------------------------===//

void manual_loop_without_sync(c10d::ProcessGroup &pg, Net &model,
                              torch::optim::SGD &optimizer,
                              std::vector<Batch> &batches) {
  for (auto &batch : batches) {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: the optimizer steps with gradients no rank shares: nothing all-reduces them between backward() and the step in this distributed program, so each rank steps with its own gradients: replicas diverge; all-reduce the gradients and divide them by the world size after backward() and before the step, or run the forward pass through the data-parallel wrapper [ddp-unsynced-gradients]
    // CHECK-MESSAGES: :[[@LINE-3]]:10: note: gradients computed by backward() here
  }
}

// The only collective reduces a copy of the gradients made for a log line:
// the gradients the optimizer steps with stay each rank's own.
void only_a_logged_copy_reduced(c10d::ProcessGroup &pg, Net &model,
                                torch::optim::SGD &optimizer,
                                std::vector<Batch> &batches) {
  for (auto &batch : batches) {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    std::vector<at::Tensor> copy{model->fc->weight.grad().clone()};
    pg.allreduce(copy)->wait();
    std::printf("%f\n", copy[0].norm().item<double>());
    optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: the optimizer steps with gradients no rank shares
    // CHECK-MESSAGES: :[[@LINE-6]]:10: note: gradients computed by backward() here
    // CHECK-MESSAGES: :[[@LINE-5]]:8: note: 'allreduce' reduces a copy of the gradients that is only read down to numbers; the gradients the optimizer steps with stay each rank's own
  }
}

// Flattened, all-reduced and averaged, but never copied back: the average
// stays in the flat copy and only a log line reads it.
void flat_copy_never_written_back(c10d::ProcessGroup &pg, Net &model,
                                  torch::optim::SGD &optimizer,
                                  std::vector<Batch> &batches) {
  for (auto &batch : batches) {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    std::vector<at::Tensor> grads;
    for (auto &p : model->parameters())
      grads.push_back(p.grad().reshape({-1}));
    std::vector<at::Tensor> flat{torch::cat(grads)};
    pg.allreduce(flat)->wait();
    flat[0].div_(pg.getSize());
    if (pg.getRank() == 0)
      std::printf("%f\n", flat[0].norm().item<double>());
    optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: the optimizer steps with gradients no rank shares
    // CHECK-MESSAGES: :[[@LINE-11]]:10: note: gradients computed by backward() here
    // CHECK-MESSAGES: :[[@LINE-7]]:8: note: 'allreduce' reduces a copy of the gradients
  }
}

// Flattened, all-reduced and averaged, but copied back into the gradients
// only after the step: the step uses each rank's own gradients.
void flat_copy_written_back_after_step(c10d::ProcessGroup &pg, Net &model,
                                       torch::optim::SGD &optimizer, Batch &batch) {
  F::mse_loss(model->forward(batch.data), batch.target).backward();
  auto &fc = model->fc;
  std::vector<at::Tensor> flat{
      torch::cat({fc->weight.grad().reshape({-1}), fc->bias.grad().reshape({-1})})};
  pg.allreduce(flat)->wait();
  flat[0].div_(pg.getSize());
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the optimizer steps with gradients no rank shares
  // CHECK-MESSAGES: :[[@LINE-8]]:57: note: gradients computed by backward() here
  // CHECK-MESSAGES: :[[@LINE+1]]:3: note: the reduced copy of the gradients is written back only here, after the step; write it back before the optimizer steps
  fc->weight.mutable_grad().copy_(flat[0].slice(0, 0, 8).view_as(fc->weight));
  fc->bias.mutable_grad().copy_(flat[0].slice(0, 8, 10));
}
// The same copy written back before the step.
void flat_copy_written_back_before_step(c10d::ProcessGroup &pg, Net &model,
                                        torch::optim::SGD &optimizer, Batch &batch) {
  F::mse_loss(model->forward(batch.data), batch.target).backward();
  auto &fc = model->fc;
  std::vector<at::Tensor> flat{
      torch::cat({fc->weight.grad().reshape({-1}), fc->bias.grad().reshape({-1})})};
  pg.allreduce(flat)->wait();
  flat[0].div_(pg.getSize());
  fc->weight.mutable_grad().copy_(flat[0].slice(0, 0, 8).view_as(fc->weight));
  fc->bias.mutable_grad().copy_(flat[0].slice(0, 8, 10));
  optimizer.step();
}

// Copies whose reduced values do reach the gradients: through a range loop
// over the buffer, and through its data pointer.
void copies_written_back(c10d::ProcessGroup &pg, Net &model,
                         torch::optim::SGD &optimizer, Batch &batch) {
  F::mse_loss(model->forward(batch.data), batch.target).backward();
  auto &fc = model->fc;
  std::vector<at::Tensor> bufs{fc->weight.grad().clone(), fc->bias.grad().clone()};
  pg.allreduce(bufs)->wait();
  std::vector<torch::Tensor> params = model->parameters();
  size_t i = 0;
  for (auto &t : bufs)
    params[i++].mutable_grad() = t / pg.getSize();
  optimizer.step();
}
void copy_written_back_by_pointer(c10d::ProcessGroup &pg, Net &model,
                                  torch::optim::SGD &optimizer, Batch &batch) {
  F::mse_loss(model->forward(batch.data), batch.target).backward();
  auto copy = model->fc->weight.grad().clone();
  std::vector<at::Tensor> one{copy};
  pg.allreduce(one)->wait();
  copy.div_(pg.getSize());
  std::memcpy(model->fc->weight.grad().data_ptr(), copy.data_ptr(),
              copy.numel() * sizeof(float));
  optimizer.step();
}

// A distributed sampler feeding the loop is enough to know the program is
// distributed.
void sharded_loader_without_sync(Net &model, size_t rank, size_t world) {
  torch::optim::Adam optimizer(model->parameters());
  auto dataset = torch::data::datasets::MNIST("data").map(
      torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(
      dataset, DistributedRandomSampler(60000, world, rank),
      torch::data::DataLoaderOptions(32));
  for (auto &batch : *loader) {
    optimizer.zero_grad();
    auto loss = F::cross_entropy(model->forward(batch.data), batch.target);
    loss.backward();
    optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: the optimizer steps with gradients no rank shares
    // CHECK-MESSAGES: :[[@LINE-3]]:10: note: gradients computed by backward() here
  }
}

// A metric all-reduce between backward() and step() is not a gradient sync.
void only_the_loss_is_reduced(c10d::ProcessGroup &pg, Net &model,
                              torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  std::vector<at::Tensor> metric{loss.detach().clone()};
  pg.allreduce(metric)->wait();
  double mean = all_reduce_mean(pg, loss.item<double>());
  (void)mean;
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the optimizer steps with gradients no rank shares
  // CHECK-MESSAGES: :[[@LINE-7]]:8: note: gradients computed by backward() here
}

// An early exit that steps before the sync: the sync is not on every path.
void skips_the_sync_on_some_steps(c10d::ProcessGroup &pg, Net &model,
                                  torch::optim::SGD &optimizer,
                                  std::vector<Batch> &batches, bool warmup) {
  for (auto &batch : batches) {
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    if (warmup) {
      optimizer.step();
      // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: the optimizer steps with gradients no rank shares
      // CHECK-MESSAGES: :[[@LINE-4]]:10: note: gradients computed by backward() here
      continue;
    }
    average_parameters_grads(pg, model);
    optimizer.step();
  }
}

// The process group is in the caller: a training step called from a
// distributed program runs in one.
void train_step(Net &model, torch::optim::Optimizer &optimizer, Batch &batch) {
  optimizer.zero_grad();
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  torch::autograd::backward({loss});
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the optimizer steps with gradients no rank shares
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: gradients computed by backward() here
}

void distributed_main(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net &model,
                      std::vector<Batch> &batches) {
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  for (auto &batch : batches)
    train_step(model, optimizer, batch);
}

// backward() in one helper, the step in the caller.
void compute_gradients(Net &model, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
}

void backward_in_a_helper(c10d::ProcessGroup &pg, Net &model,
                          torch::optim::SGD &optimizer, Batch &batch) {
  compute_gradients(model, batch);
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the optimizer steps with gradients no rank shares
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: 'compute_gradients' runs backward() here
}

// An optimizer closure that runs backward() and nothing syncs.
void closure_without_sync(c10d::ProcessGroup &pg, Net &model,
                          torch::optim::SGD &optimizer, Batch &batch) {
  optimizer.step([&] {
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the optimizer steps with gradients no rank shares
    optimizer.zero_grad();
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: note: the closure runs backward() here
    return loss;
  });
}

// A hand-written SGD update is a step too.
void manual_update_without_sync(c10d::ProcessGroup &pg, Net &model,
                                Batch &batch, double lr) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  torch::NoGradGuard no_grad;
  for (auto &p : model->parameters())
    p.data().add_(p.grad(), -lr);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: this parameter update applies gradients no rank shares: nothing all-reduces them
  // CHECK-MESSAGES: :[[@LINE-5]]:8: note: gradients computed by backward() here
}

//===----------------------------------------------------------------------===//
// A wrapper that must be told to sync
//===----------------------------------------------------------------------===//

// Hooks start an asynchronous all-reduce; synchronize_gradients() waits for
// it, averages and writes the result back. Its forward alone syncs nothing.
class BucketDDP : public torch::nn::Module {
public:
  BucketDDP(Net module, c10::intrusive_ptr<c10d::ProcessGroup> pg)
      : module_(register_module("module", module)), pg_(std::move(pg)) {}
  torch::Tensor forward(torch::Tensor x) { return module_->forward(x); }
  void synchronize_gradients() {
    if (!pending_)
      return;
    pending_->wait();
    bucket_.div_(pg_->getSize());
  }
  void launch() {
    std::vector<torch::Tensor> grads;
    for (auto &p : module_->parameters())
      grads.push_back(p.grad().reshape({-1}));
    bucket_ = torch::cat(grads);
    std::vector<at::Tensor> tensors{bucket_};
    pending_ = pg_->allreduce(tensors);
  }

private:
  Net module_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  torch::Tensor bucket_;
  c10::intrusive_ptr<c10d::Work> pending_;
};

void wrapper_sync_forgotten(BucketDDP &ddp, torch::optim::SGD &optimizer,
                            Batch &batch) {
  auto loss = F::mse_loss(ddp.forward(batch.data), batch.target);
  loss.backward();
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the optimizer steps with gradients no rank shares
  // CHECK-MESSAGES: :[[@LINE-3]]:8: note: gradients computed by backward() here
}

void wrapper_synced(BucketDDP &ddp, torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(ddp.forward(batch.data), batch.target);
  loss.backward();
  ddp.synchronize_gradients();
  optimizer.step();
}

//===----------------------------------------------------------------------===//
// A sync before backward(): it reduces the previous step's gradients
//===----------------------------------------------------------------------===//

void sync_before_backward(c10d::ProcessGroup &pg, Net &model,
                          torch::optim::SGD &optimizer,
                          std::vector<Batch> &batches) {
  for (auto &batch : batches) {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    allreduce_gradients(pg, model->parameters());
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: gradient sync 'allreduce_gradients' runs before the backward() of its step, so it reduces the previous step's gradients and each rank steps with its own gradients: replicas diverge; move the sync after backward() and before the optimizer step [ddp-unsynced-gradients]
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:10: note: this step's gradients are computed here
    optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: note: the optimizer steps with them here
  }
}

// After the step, the sync reduces gradients the optimizer already used;
// the next step's gradients are never synced.
void sync_after_step(c10d::ProcessGroup &pg, Net &model,
                     torch::optim::SGD &optimizer, std::vector<Batch> &batches) {
  for (auto &batch : batches) {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    optimizer.step();
    for (auto &p : model->parameters()) {
      std::vector<at::Tensor> grads{p.grad()};
      pg.allreduce(grads)->wait();
      // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: gradient sync 'allreduce' runs before the backward() of its step
      // CHECK-MESSAGES: :[[@LINE-6]]:10: note: this step's gradients are computed here
      // CHECK-MESSAGES: :[[@LINE-6]]:15: note: the optimizer steps with them here
    }
  }
}

// The optimizer's closure runs backward(); a sync issued before
// step(closure) reduces the gradients of the step before.
void sync_before_closure(c10d::ProcessGroup &pg, Net &model,
                         torch::optim::SGD &optimizer, Batch &batch) {
  auto closure = [&]() -> torch::Tensor {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    return loss;
  };
  average_parameters_grads(pg, model);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: gradient sync 'average_parameters_grads' runs before the backward() of its step, so it reduces the previous step's gradients and each rank steps with its own gradients: replicas diverge; sync inside the closure, after its backward() [ddp-unsynced-gradients]
  // CHECK-MESSAGES: :[[@LINE-5]]:10: note: the closure runs this step's backward() here
  optimizer.step(closure);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: note: the optimizer steps with them here
}

// Gradient hooks copy each gradient into a slot of one flat bucket; the
// bucket is reduced by launch(), and write_back() copies it into the
// gradients.
class FlatBucket {
public:
  explicit FlatBucket(const std::vector<torch::Tensor> &params) : params_(params) {
    int64_t total = 0;
    for (const auto &p : params_)
      total += p.numel();
    storage_ = torch::zeros({total});
    int64_t offset = 0;
    for (auto &p : params_) {
      auto slot = storage_.narrow(0, offset, p.numel());
      offset += p.numel();
      slots_.push_back(slot);
      p.register_hook([slot](torch::Tensor grad) { slot.copy_(grad.reshape({-1})); });
    }
  }
  c10::intrusive_ptr<c10d::Work> launch(c10d::ProcessGroup &pg) {
    payload_ = {storage_};
    return pg.allreduce(payload_);
  }
  void write_back() {
    for (size_t i = 0; i < params_.size(); ++i)
      params_[i].mutable_grad().copy_(slots_[i].view_as(params_[i]));
  }

private:
  std::vector<torch::Tensor> params_, slots_;
  torch::Tensor storage_;
  std::vector<at::Tensor> payload_;
};

// The bucket is written back, but never reduced.
void bucket_never_launched(c10d::ProcessGroup &pg, Net &model, FlatBucket &bucket,
                           torch::optim::SGD &optimizer, std::vector<Batch> &batches) {
  for (auto &batch : batches) {
    optimizer.zero_grad();
    (F::mse_loss(model->forward(batch.data), batch.target) / pg.getSize()).backward();
    bucket.write_back();
    optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: the optimizer steps with gradients no rank shares
    // CHECK-MESSAGES: :[[@LINE-4]]:76: note: gradients computed by backward() here
  }
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// A replica object runs backward() and then reduces the accumulated
// gradients, unless a no_sync-like guard turned the reduction off for the
// micro-batches that only accumulate.
class AccumulatingReplica {
public:
  AccumulatingReplica(Net model, c10d::ProcessGroup &pg) : model_(model), pg_(pg) {}
  void backward(const torch::Tensor &loss) {
    loss.backward();
    if (!reduce_)
      return;
    average_parameters_grads(pg_, model_);
  }
  void set_reduce(bool reduce) { reduce_ = reduce; }

private:
  Net model_;
  c10d::ProcessGroup &pg_;
  bool reduce_ = true;
};

void accumulate_without_sync(AccumulatingReplica &replica, Net &model,
                             torch::optim::SGD &optimizer, std::vector<Batch> &batches) {
  optimizer.zero_grad();
  replica.set_reduce(false);
  for (size_t i = 0; i + 1 < batches.size(); ++i)
    replica.backward(F::mse_loss(model->forward(batches[i].data), batches[i].target));
  replica.set_reduce(true);
  replica.backward(F::mse_loss(model->forward(batches.back().data), batches.back().target));
  optimizer.step();
}

// The bucket the hooks filled is reduced before the step (what the hooks
// write into the slots, views of the bucket, lands in the bucket).
void bucket_launched(c10d::ProcessGroup &pg, Net &model, FlatBucket &bucket,
                     torch::optim::SGD &optimizer, std::vector<Batch> &batches) {
  for (auto &batch : batches) {
    optimizer.zero_grad();
    (F::mse_loss(model->forward(batch.data), batch.target) / pg.getSize()).backward();
    auto work = bucket.launch(pg);
    work->wait();
    bucket.write_back();
    optimizer.step();
  }
}

// Single-process training: nothing distributed in sight.
void single_process(Net &model, std::vector<Batch> &batches) {
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  for (auto &batch : batches) {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    optimizer.step();
  }
}

void per_parameter_allreduce(c10d::ProcessGroup &pg, Net &model,
                             torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  for (auto &item : model->named_parameters()) {
    if (!item.value().grad().defined())
      continue;
    std::vector<at::Tensor> grads{item.value().grad()};
    pg.allreduce(grads)->wait();
    item.value().grad().div_(pg.getSize());
  }
  optimizer.step();
}

void flattened_bucket(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net &model,
                      torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad().flatten());
  std::vector<at::Tensor> bucket{torch::cat(grads)};
  auto work = pg->allreduce(bucket);
  work->wait();
  bucket[0].div_(pg->getSize());
  int64_t offset = 0;
  for (auto &p : model->parameters()) {
    p.grad().copy_(bucket[0].narrow(0, offset, p.numel()).view_as(p));
    offset += p.numel();
  }
  optimizer.step();
}

void helper_defined_here(c10d::ProcessGroup &pg, Net &model,
                         torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  average_parameters_grads(pg, model);
  optimizer.step();
}

void helper_defined_elsewhere(c10d::ProcessGroup &pg, Net &model,
                              torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  allreduce_gradients(pg, model->parameters());
  optimizer.step();
}

// A lambda that syncs, called between backward() and step().
void lambda_helper(c10d::ProcessGroup &pg, Net &model,
                   torch::optim::SGD &optimizer, Batch &batch) {
  auto sync = [&] {
    for (auto &p : model->parameters()) {
      std::vector<at::Tensor> grads{p.grad()};
      pg.allreduce(grads)->wait();
      p.grad().div_(pg.getSize());
    }
  };
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  sync();
  optimizer.step();
}

// A virtual sync whose override (defined here) all-reduces.
struct SyncStrategy {
  virtual ~SyncStrategy() = default;
  virtual void apply(Net &model) = 0;
};
struct AllreduceStrategy : SyncStrategy {
  c10::intrusive_ptr<c10d::ProcessGroup> pg;
  void apply(Net &model) override { average_parameters_grads(*pg, model); }
};

void virtual_helper(c10d::ProcessGroup &pg, SyncStrategy &strategy, Net &model,
                    torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  strategy.apply(model);
  optimizer.step();
}

// A function defined elsewhere, handed the communicator and the parameters.
void opaque_helper(c10d::ProcessGroup &pg, Net &model,
                   torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  communicate(pg, model->parameters());
  optimizer.step();
}

// A sync skipped only when there is nobody to sync with.
void sync_only_with_peers(c10d::ProcessGroup &pg, Net &model,
                          torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  if (pg.getSize() > 1)
    average_parameters_grads(pg, model);
  optimizer.step();
}

// Gradient accumulation: sync and step together every few micro-batches.
void accumulation(c10d::ProcessGroup &pg, Net &model,
                  torch::optim::SGD &optimizer, std::vector<Batch> &batches) {
  int micro = 0;
  for (auto &batch : batches) {
    auto loss = F::mse_loss(model->forward(batch.data), batch.target) / 4;
    loss.backward();
    if (++micro % 4 == 0) {
      average_parameters_grads(pg, model);
      optimizer.step();
      optimizer.zero_grad();
    }
  }
}

// The closure syncs after its backward().
void closure_with_sync(c10d::ProcessGroup &pg, Net &model,
                       torch::optim::SGD &optimizer, Batch &batch) {
  optimizer.step([&] {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    average_parameters_grads(pg, model);
    return loss;
  });
}

void manual_update_after_sync(c10d::ProcessGroup &pg, Net &model, Batch &batch,
                              double lr) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  average_parameters_grads(pg, model);
  torch::NoGradGuard no_grad;
  for (auto &p : model->parameters())
    p.data().add_(p.grad(), -lr);
}

// Model averaging: each rank steps, then the parameters are averaged.
void parameter_averaging(c10d::ProcessGroup &pg, Net &model,
                         torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  optimizer.step();
  torch::NoGradGuard no_grad;
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> data{p.data()};
    pg.allreduce(data)->wait();
    p.data().div_(pg.getSize());
  }
}

// Evaluation: no backward, no step.
void evaluate(c10d::ProcessGroup &pg, Net &model, Batch &batch) {
  torch::NoGradGuard no_grad;
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  std::vector<at::Tensor> metric{loss};
  pg.allreduce(metric)->wait();
}

// Gradient hooks that all-reduce make backward() itself sync:
// ddp-unsynced-gradients-hooks.cpp (hooks count for the whole file).

// A wrapper whose forward arms its own sync (no sync method to call): an
// in-house DDP declared elsewhere.
class ReducerDDP : public torch::nn::Module {
public:
  ReducerDDP(Net module, c10::intrusive_ptr<c10d::ProcessGroup> pg);
  torch::Tensor forward(torch::Tensor x);
};

void auto_syncing_wrapper(ReducerDDP &ddp, torch::optim::SGD &optimizer,
                          Batch &batch) {
  auto loss = F::mse_loss(ddp.forward(batch.data), batch.target);
  loss.backward();
  optimizer.step();
}

// A template instantiated with a sync.
template <typename Model>
void templated_step(c10d::ProcessGroup &pg, Model &model,
                    torch::optim::Optimizer &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  average_parameters_grads(pg, model);
  optimizer.step();
}
template void templated_step<Net>(c10d::ProcessGroup &, Net &,
                                  torch::optim::Optimizer &, Batch &);

// A framework's collective, handed the gradients: configured in
// CollectiveFunctions, or recognised by its name and its class.
namespace fw {
struct Communicator {
  void sum(torch::Tensor &t);
};
} // namespace fw

void framework_collective(c10d::ProcessGroup &pg, fw::Communicator &comm,
                          Net &model, torch::optim::SGD &optimizer,
                          Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  for (auto &p : model->parameters())
    comm.sum(p.mutable_grad());
  optimizer.step();
}

// A sync in an #ifdef branch that this configuration does not build does not
// run: the step is reported. The RUN line that defines USE_GRADIENT_SYNC
// builds the sync, and the step is silent there.
void gated_sync(c10d::ProcessGroup &pg, Net &model,
                torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
#ifdef USE_GRADIENT_SYNC
  average_parameters_grads(pg, model);
#endif
  optimizer.step();
  // CHECK-GATED: :[[@LINE-1]]:13: warning: the optimizer steps with gradients no rank shares
  // CHECK-GATED: :[[@LINE-6]]:8: note: gradients computed by backward() here
}

// A forward on the inner module of a live wrapper: the wrapper's sync is
// never armed, and ddp-unwrapped-forward reports that forward, with the
// fix. This check stays quiet rather than report the same cause again.
void inner_module_forward(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                          Net model, torch::optim::SGD &optimizer,
                          Batch &batch) {
  dp::DistributedDataParallel<Net> ddp(model, pg);
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  optimizer.step();
}

#ifdef WITH_BROKEN_CODE
#include "mpi_helpers_not_installed.h"
// CHECK-ERROR: :[[@LINE-1]]:10: error: 'mpi_helpers_not_installed.h' file not found
void broken_sync(c10d::ProcessGroup &pg, Net &model,
                 torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  for (auto &p : model->parameters())
    mpi_helpers::average(p.grad());
  // CHECK-ERROR: :[[@LINE-1]]:5: error: use of undeclared identifier 'mpi_helpers'
  optimizer.step();
}
#endif

#ifdef WITH_OPTIONS
void exchange_updates(Net &model);

void configured_sync_function(c10d::ProcessGroup &pg, Net &model,
                              torch::optim::SGD &optimizer, Batch &batch) {
  auto loss = F::mse_loss(model->forward(batch.data), batch.target);
  loss.backward();
  exchange_updates(model);
  optimizer.step();
}
#endif

// A sync on some iterations only (`if (++i % 4 == 0)`) with a step on every
// one: three steps in four use this rank's own gradients.
void sync_on_some_iterations(c10d::ProcessGroup &pg, Net &model,
                             torch::optim::SGD &optimizer,
                             std::vector<Batch> &batches) {
  int i = 0;
  for (auto &batch : batches) {
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    if (++i % 4 == 0)
      average_parameters_grads(pg, model);
    optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: the optimizer steps with gradients no rank shares{{.*}} [ddp-unsynced-gradients]
    // CHECK-MESSAGES: :[[@LINE-5]]:10: note: gradients computed by backward() here
  }
}

// The same sync and step under one such condition: accumulation.
void sync_and_step_on_some_iterations(c10d::ProcessGroup &pg, Net &model,
                                      torch::optim::SGD &optimizer,
                                      std::vector<Batch> &batches) {
  int i = 0;
  for (auto &batch : batches) {
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    if (++i % 4 == 0) {
      average_parameters_grads(pg, model);
      optimizer.step();
    }
  }
}

// Known false positive (documented): two separate tests of the same counter
// are not taken as one, though the step runs exactly when the sync did.
void sync_and_step_under_two_tests(c10d::ProcessGroup &pg, Net &model,
                                   torch::optim::SGD &optimizer,
                                   std::vector<Batch> &batches) {
  int i = 0;
  for (auto &batch : batches) {
    auto loss = F::mse_loss(model->forward(batch.data), batch.target);
    loss.backward();
    ++i;
    if (i % 4 == 0)
      average_parameters_grads(pg, model);
    if (i % 4 == 0)
      optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: the optimizer steps with gradients no rank shares{{.*}} [ddp-unsynced-gradients]
    // CHECK-MESSAGES: :[[@LINE-7]]:10: note: gradients computed by backward() here
  }
}

// Known false negatives (documented in docs/checks/ddp-unsynced-gradients.md):
// - a step in a function whose callers are in other files, with nothing
//   distributed in its own body (the context is not visible).

//===----------------------------------------------------------------------===//
// Class templates nothing instantiates: analysed as written
//===----------------------------------------------------------------------===//

template <class Model, class Optimizer>
class TemplateLoop {
public:
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
  template <class DataLoader>
  void unsynced(DataLoader &loader) {
    for (auto &batch : loader) {
      auto loss = model_->forward(batch.data).sum();
      loss.backward();
      optimizer_.step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: the optimizer steps with gradients no rank shares
      // CHECK-MESSAGES: :[[@LINE-3]]:7: note: gradients computed by backward() here
    }
  }

private:
  Model model_;
  Optimizer optimizer_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
};

//===----------------------------------------------------------------------===//
// One learner: steps that only some ranks reach
//===----------------------------------------------------------------------===//

// Rank 0 learns from what the actors send and broadcasts the model; the
// actors never step. The step is reached only from rank 0's side, two
// member calls down: no replica steps elsewhere, nothing to sync.
class SingleLearner {
public:
  SingleLearner(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net model,
                torch::optim::SGD &optimizer)
      : pg_(pg), model_(model), optimizer_(optimizer), rank_(pg->getRank()) {}
  void run(std::vector<Batch> &batches) {
    if (rank_ == 0)
      learn(batches);
    else
      act();
  }

private:
  void learn(std::vector<Batch> &batches) {
    for (auto &batch : batches) {
      train(batch);
      std::vector<at::Tensor> params = model_->parameters();
      pg_->broadcast(params)->wait();
    }
  }
  void train(Batch &batch) {
    F::mse_loss(model_->forward(batch.data), batch.target).backward();
    optimizer_.step();
  }
  void act() {
    std::vector<at::Tensor> params = model_->parameters();
    pg_->broadcast(params)->wait();
  }
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  Net model_;
  torch::optim::SGD &optimizer_;
  int rank_;
};

// The same step, also reached on every rank: still reported.
class LearnerAlsoEverywhere {
public:
  LearnerAlsoEverywhere(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net model,
                        torch::optim::SGD &optimizer)
      : pg_(pg), model_(model), optimizer_(optimizer), rank_(pg->getRank()) {}
  void run(Batch &batch) {
    if (rank_ == 0)
      train(batch);
    train(batch);
  }

private:
  void train(Batch &batch) {
    F::mse_loss(model_->forward(batch.data), batch.target).backward();
    optimizer_.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: the optimizer steps with gradients no rank shares{{.*}} [ddp-unsynced-gradients]
    // CHECK-MESSAGES: :[[@LINE-3]]:60: note: gradients computed by backward() here
  }
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  Net model_;
  torch::optim::SGD &optimizer_;
  int rank_;
};
