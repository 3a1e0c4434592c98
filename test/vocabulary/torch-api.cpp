// What the shared vocabulary recognises in LibTorch 1.13 code: module handles,
// forward passes, parameter loops, gradients, c10d collectives and their Work,
// rank sources, samplers and loaders.
//
// RUN: %probe %s -- %mock_flags -DUSE_C10D_GLOO 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='warning:'
//
// test/integration runs this file against the real LibTorch headers with the
// same expectations.

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <cstdlib>
#include <memory>
#include <vector>

struct NetImpl : torch::nn::Module {
// CHECK: :[[@LINE-1]]:8: warning: module class 'NetImpl' [probe-vocabulary]
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
// CHECK: :[[@LINE-1]]:18: warning: registers a submodule [probe-vocabulary]
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
// CHECK: :[[@LINE-1]]:55: warning: forward pass on fc [probe-vocabulary]
  torch::nn::Linear fc;
// CHECK: :[[@LINE-1]]:21: warning: 'fc' is a module handle ('LinearImpl') [probe-vocabulary]
};
TORCH_MODULE(Net);

void modules_and_forward(torch::Tensor x) {
  Net model;
// CHECK: :[[@LINE-1]]:7: warning: 'model' is a module handle ('NetImpl') [probe-vocabulary]
  std::shared_ptr<NetImpl> shared = model.ptr();
// CHECK: :[[@LINE-1]]:28: warning: 'shared' is a module handle ('NetImpl') [probe-vocabulary]
  NetImpl &ref = *model;
// CHECK: :[[@LINE-1]]:12: warning: 'ref' is a module handle ('NetImpl') [probe-vocabulary]
  torch::nn::Module *base = model.get();
// CHECK: :[[@LINE-1]]:22: warning: 'base' is a module handle ('Module') [probe-vocabulary]
  auto a = model(x);
// CHECK: :[[@LINE-1]]:12: warning: forward pass on model [probe-vocabulary]
  auto b = model->forward(x);
// CHECK: :[[@LINE-1]]:19: warning: forward pass on model [probe-vocabulary]
  auto c = shared->forward(x);
// CHECK: :[[@LINE-1]]:20: warning: forward pass on shared [probe-vocabulary]
  auto d = ref.forward(x);
// CHECK: :[[@LINE-1]]:16: warning: forward pass on ref [probe-vocabulary]
  (void)a, (void)b, (void)c, (void)d, (void)base;
}

void parameters_and_gradients(Net &model, int world) {
// CHECK: :[[@LINE-1]]:36: warning: 'model' is a module handle ('NetImpl') [probe-vocabulary]
  for (auto &p : model->parameters())
// CHECK: :[[@LINE-1]]:3: warning: parameter loop over 'p' [probe-vocabulary]
// CHECK: :[[@LINE-2]]:25: warning: parameters of model [probe-vocabulary]
    p.grad().div_(world);
// CHECK: :[[@LINE-1]]:7: warning: gradient of p [probe-vocabulary]
// CHECK: :[[@LINE-2]]:14: warning: division in place [probe-vocabulary]
  for (auto &item : model->named_parameters())
// CHECK: :[[@LINE-1]]:3: warning: parameter loop over 'item' [probe-vocabulary]
// CHECK: :[[@LINE-2]]:28: warning: named parameters of model [probe-vocabulary]
    item.value().mutable_grad() = torch::zeros_like(item.value());
// CHECK: :[[@LINE-1]]:18: warning: gradient of item [probe-vocabulary]
}

void collectives(c10d::ProcessGroupGloo &gloo,
// CHECK: :[[@LINE-1]]:42: warning: 'gloo' is a c10d process group [probe-vocabulary]
                 const c10::intrusive_ptr<c10d::ProcessGroup> &pg,
// CHECK: :[[@LINE-1]]:64: warning: 'pg' is a c10d process group [probe-vocabulary]
                 std::vector<torch::Tensor> &tensors) {
  int rank = pg->getRank();
// CHECK: :[[@LINE-1]]:18: warning: rank query [probe-vocabulary]
  const char *env_rank = std::getenv("RANK");
// CHECK: :[[@LINE-1]]:26: warning: rank query [probe-vocabulary]
  const char *world = std::getenv("WORLD_SIZE");
// CHECK: :[[@LINE-1]]:23: warning: world size query [probe-vocabulary]
  c10::intrusive_ptr<c10d::Work> work = pg->allreduce(tensors);
// CHECK: :[[@LINE-1]]:34: warning: 'work' holds pending work [probe-vocabulary]
// CHECK: :[[@LINE-2]]:45: warning: collective allreduce (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-3]]:45: warning: reduce op sum [probe-vocabulary]
  work->wait();
// CHECK: :[[@LINE-1]]:9: warning: wait [probe-vocabulary]
  c10d::AllreduceOptions opts;
  opts.reduceOp = c10d::ReduceOp::SUM;
  gloo.allreduce(tensors, opts)->wait();
// CHECK: :[[@LINE-1]]:8: warning: collective allreduce (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:8: warning: reduce op sum [probe-vocabulary]
// CHECK: :[[@LINE-3]]:34: warning: wait [probe-vocabulary]
  pg->allreduce_coalesced(tensors);
// CHECK: :[[@LINE-1]]:7: warning: collective allreduce (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:7: warning: reduce op sum [probe-vocabulary]
  pg->broadcast(tensors)->wait();
// CHECK: :[[@LINE-1]]:7: warning: collective broadcast (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:27: warning: wait [probe-vocabulary]
  std::vector<std::vector<torch::Tensor>> gathered(1);
  pg->allgather(gathered, tensors);
// CHECK: :[[@LINE-1]]:7: warning: collective allgather (c10d, asynchronous) [probe-vocabulary]
  pg->reduce(tensors);
// CHECK: :[[@LINE-1]]:7: warning: collective reduce (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:7: warning: reduce op sum [probe-vocabulary]
  pg->barrier();
// CHECK: :[[@LINE-1]]:7: warning: collective barrier (c10d, asynchronous) [probe-vocabulary]
  (void)rank, (void)env_rank, (void)world;
}

struct Points : torch::data::datasets::Dataset<Points> {
  torch::data::Example<> get(size_t) override { return {torch::zeros({4}), torch::zeros({1})}; }
  torch::optional<size_t> size() const override { return 64; }
};

class EpochSampler : public torch::data::samplers::DistributedRandomSampler {
// CHECK: :[[@LINE-1]]:7: warning: distributed sampler 'EpochSampler' (shuffling) [probe-vocabulary]
  using DistributedRandomSampler::DistributedRandomSampler;
};

void samplers_and_loaders(size_t rank, size_t world) {
  using namespace torch::data;
  samplers::DistributedRandomSampler sampler(64, world, rank);
  auto loader = make_data_loader(Points().map(transforms::Stack<>()), sampler,
// CHECK: :[[@LINE-1]]:8: warning: 'loader' is a data loader over 'DistributedRandomSampler' (shuffling) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:71: warning: sampler copied into the loader [probe-vocabulary]
                                 DataLoaderOptions(8));
  auto sequential = make_data_loader(Points().map(transforms::Stack<>()),
// CHECK: :[[@LINE-1]]:8: warning: 'sequential' is a data loader over 'DistributedSequentialSampler' [probe-vocabulary]
                                     samplers::DistributedSequentialSampler(64, world, rank),
// CHECK: :[[@LINE-1]]:38: warning: sampler copied into the loader [probe-vocabulary]
                                     DataLoaderOptions(8));
  auto unsharded = make_data_loader<samplers::DistributedRandomSampler>(
// CHECK: :[[@LINE-1]]:8: warning: 'unsharded' is a data loader over 'DistributedRandomSampler' (shuffling) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:20: warning: loader default-constructs 'DistributedRandomSampler' [probe-vocabulary]
      Points().map(transforms::Stack<>()));
  auto plain = make_data_loader(Points().map(transforms::Stack<>()));
// CHECK: :[[@LINE-1]]:8: warning: 'plain' is a data loader over 'RandomSampler' [probe-vocabulary]
// CHECK: :[[@LINE-2]]:16: warning: loader default-constructs 'RandomSampler' [probe-vocabulary]
}

// Optimizer options and the methods that set their learning rate; the getter
// `lr()` and an `lr` method of another class set none.
struct WarmupOptions : torch::optim::SGDOptions {
// CHECK: :[[@LINE-1]]:8: warning: optimizer options class 'WarmupOptions' [probe-vocabulary]
  using SGDOptions::SGDOptions;
};

struct Schedule {
  void lr(double value);
};

void optimizer_options(torch::optim::SGD &sgd, Schedule &schedule, double lr,
                       int world) {
  torch::optim::SGDOptions options(lr / world);
// CHECK: :[[@LINE-1]]:28: warning: 'options' holds optimizer options [probe-vocabulary]
  options.lr(lr / world);
// CHECK: :[[@LINE-1]]:11: warning: learning rate set [probe-vocabulary]
  WarmupOptions warmup(lr);
// CHECK: :[[@LINE-1]]:17: warning: 'warmup' holds optimizer options [probe-vocabulary]
  warmup.momentum(0.9).lr(lr / world);
// CHECK: :[[@LINE-1]]:24: warning: learning rate set [probe-vocabulary]
  torch::optim::OptimizerOptions &group = sgd.param_groups()[0].options();
// CHECK: :[[@LINE-1]]:35: warning: 'group' holds optimizer options [probe-vocabulary]
  group.set_lr(lr / world);
// CHECK: :[[@LINE-1]]:9: warning: learning rate set [probe-vocabulary]
  double current = options.lr();
  schedule.lr(current);
}

// What a module's state is read through, and the calls that copy data into a
// tensor (what tells a broadcast of the buffers alone, or one that lands in
// the parameters); the same names on other classes are neither.
struct StatefulImpl : torch::nn::Module {
// CHECK: :[[@LINE-1]]:8: warning: module class 'StatefulImpl' [probe-vocabulary]
  std::vector<torch::Tensor> state_dict() const { return parameters(); }
// CHECK: :[[@LINE-1]]:58: warning: parameters of an expression [probe-vocabulary]
};

struct Store {
  std::vector<torch::Tensor> buffers() const;
  void copy_(const Store &other);
};

void module_state(StatefulImpl &module, torch::Tensor t, torch::Tensor src,
// CHECK: :[[@LINE-1]]:33: warning: 'module' is a module handle ('StatefulImpl') [probe-vocabulary]
                  Store &store, Store &other) {
  auto buffers = module.buffers();
// CHECK: :[[@LINE-1]]:25: warning: buffers of a module read [probe-vocabulary]
  auto named = module.named_buffers();
// CHECK: :[[@LINE-1]]:23: warning: buffers of a module read [probe-vocabulary]
  auto state = module.state_dict();
// CHECK: :[[@LINE-1]]:23: warning: parameters of a module read [probe-vocabulary]
  t.copy_(src);
// CHECK: :[[@LINE-1]]:5: warning: data copied into a tensor [probe-vocabulary]
  t.set_data(src);
// CHECK: :[[@LINE-1]]:5: warning: data copied into a tensor [probe-vocabulary]
  auto plain = store.buffers();
  store.copy_(other);
}
