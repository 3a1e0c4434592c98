// ddp-divergent-collective on homegrown wrappers known by what they do, not
// by their name: a class, or a function, that registers a hook on every
// parameter's gradient which issues a collective (directly, or by counting
// the gradients that are ready and reducing a bucket once all are). Every
// backward() through such parameters then issues collectives, whichever
// forward ran. Functions marked "Bad" must be reported, the others must stay
// silent.
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

using c10d::ProcessGroup;

using Dataset = torch::data::datasets::MapDataset<
    torch::data::datasets::TensorDataset,
    torch::data::transforms::Stack<torch::data::TensorExample>>;
using Loader = torch::data::StatelessDataLoader<
    Dataset, torch::data::samplers::DistributedRandomSampler>;

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x; }
};
TORCH_MODULE(Net);

void allreduce_one(ProcessGroup &pg, const torch::Tensor &t) {
  std::vector<at::Tensor> tensors{t};
  pg.allreduce(tensors)->wait();
}

// A gradient averager whose constructor hooks every parameter's gradient.
class GradientAverager {
public:
  GradientAverager(torch::nn::Module &model, ProcessGroup &pg) : pg_(pg) {
    for (auto &p : model.parameters())
      p.register_hook([this](torch::Tensor grad) {
        allreduce_one(pg_, grad);
        return grad;
      });
  }

private:
  ProcessGroup &pg_;
};

// Bad: the averager's hooks run in backward(), which ranks with a NaN loss
// on their own batch skip; the forward went through the module itself.
void skip_nan_losses(Net net, ProcessGroup &pg, Loader &loader) {
  GradientAverager averager(*net, pg);
  for (auto &batch : loader) {
    auto loss = net->forward(batch.data).sum();
    if (std::isnan(loss.item<double>()))
      continue;
    loss.backward();
    // CHECK: :[[@LINE-1]]:5: warning: 'backward', which runs the all-reducing gradient hooks of wrapper 'averager', is skipped by ranks that leave early through 'continue' on a condition that depends on this rank's own data (a loss or metric that was not reduced across ranks); the ranks that stay wait forever in it (the job hangs); reduce the value across ranks before testing it, so that every rank takes the same branch [ddp-divergent-collective]
    // CHECK: :[[@LINE-4]]:9: note: this condition depends on this rank's own data
    // CHECK: :[[@LINE-4]]:7: note: ranks where it holds leave through this 'continue'
    // CHECK: :[[@LINE-8]]:22: note: this rank's own data comes from here
  }
}

// A reducer that counts the gradients that are ready and all-reduces the
// bucket once every parameter's has come (a class template).
template <typename ModuleT> class BucketReducer {
public:
  BucketReducer(std::shared_ptr<ModuleT> module,
                c10::intrusive_ptr<ProcessGroup> pg)
      : module_(std::move(module)), pg_(std::move(pg)) {
    for (auto &p : module_->parameters()) {
      ++expected_;
      p.register_hook([this](torch::Tensor grad) {
        bucket_.push_back(grad);
        if (++ready_ == expected_)
          flush();
        return grad;
      });
    }
  }
  void flush() {
    pg_->allreduce(bucket_)->wait();
    bucket_.clear();
    ready_ = 0;
  }

private:
  std::shared_ptr<ModuleT> module_;
  c10::intrusive_ptr<ProcessGroup> pg_;
  std::vector<at::Tensor> bucket_;
  int64_t expected_ = 0;
  int64_t ready_ = 0;
};

// Bad: only rank 0 runs the backward pass whose hooks all-reduce.
void rank_zero_backward(std::shared_ptr<NetImpl> net,
                        c10::intrusive_ptr<ProcessGroup> pg, torch::Tensor x) {
  auto reducer = std::make_shared<BucketReducer<NetImpl>>(net, pg);
  auto loss = net->forward(x).sum();
  if (pg->getRank() == 0)
    loss.backward();
  // CHECK: :[[@LINE-1]]:5: warning: 'backward', which runs the all-reducing gradient hooks of wrapper 'reducer', runs only on ranks where a condition that depends on the rank holds; ranks that skip it wait forever in their next collective (the job hangs)
  // CHECK: :[[@LINE-3]]:7: note: this condition depends on the rank
}

// A function that installs the hooks.
void install_averaging_hooks(torch::nn::Module &model, ProcessGroup &pg) {
  for (auto &p : model.parameters())
    p.register_hook([&pg](torch::Tensor grad) {
      allreduce_one(pg, grad);
      return grad;
    });
}

// Bad: ranks other than 0 return before the backward pass.
void backward_on_rank_zero(Net net, ProcessGroup &pg, torch::Tensor x) {
  install_averaging_hooks(*net, pg);
  auto loss = net->forward(x).sum();
  if (pg.getRank() != 0)
    return;
  loss.backward();
  // CHECK: :[[@LINE-1]]:3: warning: 'backward', which runs the all-reducing gradient hooks installed by 'install_averaging_hooks', is skipped by ranks that leave early through 'return' on a condition that depends on the rank
  // CHECK: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK: :[[@LINE-4]]:5: note: ranks where it holds leave through this 'return'
}

// Good: every rank skips the same steps.
void every_rank_backward(Net net, ProcessGroup &pg, torch::Tensor x,
                         int64_t steps) {
  GradientAverager averager(*net, pg);
  for (int64_t step = 0; step < steps; ++step) {
    if (step % 10 == 0)
      continue;
    auto loss = net->forward(x).sum();
    loss.backward();
  }
}

// Good: hooks that only clip the gradient issue no collective.
class GradientClipper {
public:
  explicit GradientClipper(torch::nn::Module &model) {
    for (auto &p : model.parameters())
      p.register_hook([](torch::Tensor grad) { return grad.clamp(-1, 1); });
  }
};

void clip_and_skip_nan(Net net, Loader &loader) {
  GradientClipper clipper(*net);
  for (auto &batch : loader) {
    auto loss = net->forward(batch.data).sum();
    if (std::isnan(loss.item<double>()))
      continue;
    loss.backward();
  }
}

// Good: a function that holds no averager and installs no hooks (a local
// pre-training of rank 0's model before the job's hooks exist).
void pretrain_on_rank_zero(Net net, ProcessGroup &pg, torch::Tensor x) {
  auto loss = net->forward(x).sum();
  if (pg.getRank() == 0)
    loss.backward();
}

// Bad: a trainer that keeps the averager as a field; its step never names
// it, but the hooks are on its model's parameters.
class Trainer {
public:
  Trainer(Net net, ProcessGroup &pg) : net_(net), averager_(*net, pg) {}
  void step(torch::Tensor x, int rank) {
    auto loss = net_->forward(x).sum();
    if (rank == 0)
      loss.backward();
    // CHECK: :[[@LINE-1]]:7: warning: 'backward', which runs the all-reducing gradient hooks of wrapper 'averager_', runs only on ranks where a condition that depends on the rank holds
    // CHECK: :[[@LINE-3]]:9: note: this condition depends on the rank
  }

private:
  Net net_;
  GradientAverager averager_;
};

// Known false negative: the hooks were installed by the caller, and nothing
// in this function shows them.
void train_after_setup(Net net, ProcessGroup &pg, Loader &loader) {
  for (auto &batch : loader) {
    auto loss = net->forward(batch.data).sum();
    if (std::isnan(loss.item<double>()))
      continue;
    loss.backward();
  }
}

void setup_and_train(Net net, ProcessGroup &pg, Loader &loader) {
  install_averaging_hooks(*net, pg);
  train_after_setup(net, pg, loader);
}
