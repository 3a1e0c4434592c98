// Sequence tagger trained with the team's ReplicaDDP wrapper.

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/utils/tensor_flatten.h>
#include <torch/torch.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

// Broadcasts rank 0's parameters on construction; gradient accumulator hooks
// record which parameters received a gradient after forward(), and
// finish_gradients() averages them across ranks.
template <typename Holder>
class ReplicaDDP {
 public:
  ReplicaDDP(Holder module, c10::intrusive_ptr<c10d::ProcessGroup> group)
      : module_(std::move(module)), group_(std::move(group)), params_(module_->parameters()) {
    broadcast_from_root();
    seen_.assign(params_.size(), false);
    for (size_t i = 0; i < params_.size(); ++i) {
      auto accumulator = torch::autograd::impl::grad_accumulator(params_[i]);
      accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
          [this, i](const torch::autograd::variable_list& outputs,
                    const torch::autograd::variable_list& /*inputs*/) {
            seen_[i] = seen_[i] || armed_;
            return outputs;
          }));
      accumulators_.push_back(std::move(accumulator));
    }
  }

  torch::Tensor forward(const torch::Tensor& input) {
    armed_ = true;
    std::fill(seen_.begin(), seen_.end(), false);
    return module_->forward(input);
  }

  Holder& module() { return module_; }

  void finish_gradients() {
    std::vector<torch::Tensor> grads;
    for (const auto& p : params_) grads.push_back(p.grad());
    std::vector<at::Tensor> bucket{torch::utils::flatten_dense_tensors(grads)};
    group_->allreduce(bucket)->wait();
    bucket[0].div_(group_->getSize());
    const auto averaged = torch::utils::unflatten_dense_tensors(bucket[0], grads);
    for (size_t i = 0; i < params_.size(); ++i) {
      if (seen_[i]) params_[i].mutable_grad().copy_(averaged[i]);
    }
    armed_ = false;
  }

 private:
  void broadcast_from_root() {
    torch::NoGradGuard no_grad;
    std::vector<at::Tensor> flat{torch::utils::flatten_dense_tensors(params_)};
    group_->broadcast(flat)->wait();
    const auto views = torch::utils::unflatten_dense_tensors(flat[0], params_);
    for (size_t i = 0; i < params_.size(); ++i) params_[i].copy_(views[i]);
  }

  Holder module_;
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  std::vector<torch::Tensor> params_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<bool> seen_;
  bool armed_ = false;
};

struct TaggerImpl : torch::nn::Module {
  TaggerImpl(int64_t features, int64_t tags) {
    body = register_module("body", torch::nn::Sequential(torch::nn::Linear(features, 256),
                                                         torch::nn::ReLU(), torch::nn::Dropout(0.1)));
    head = register_module("head", torch::nn::Linear(256, tags));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto logits = head->forward(body->forward(x));
    return log_temperature.defined() ? logits / log_temperature.exp() : logits;
  }
  torch::Tensor compute_loss(const torch::Tensor& x, const torch::Tensor& tags) {
    auto logits = forward(x);
    return torch::nn::functional::cross_entropy(logits, tags) + 1e-4 * logits.pow(2).mean();
  }
  torch::nn::Sequential body{nullptr};
  torch::nn::Linear head{nullptr};
  torch::Tensor log_temperature;
};
TORCH_MODULE(Tagger);

// Pre-computed embedding windows and their tags, saved as two tensors.
struct TokenWindows : torch::data::datasets::Dataset<TokenWindows> {
  explicit TokenWindows(const std::string& path) {
    std::vector<torch::Tensor> tensors;
    torch::load(tensors, path);
    features = tensors.at(0);
    tags = tensors.at(1);
  }
  torch::data::Example<> get(size_t i) override {
    return {features[static_cast<int64_t>(i)], tags[static_cast<int64_t>(i)]};
  }
  torch::optional<size_t> size() const override { return features.size(0); }
  torch::Tensor features, tags;
};

struct RunConfig {
  bool learn_temperature = false;
  bool float64 = false;
  size_t epochs = 6;
};

void run(c10::intrusive_ptr<c10d::ProcessGroup> group, const RunConfig& config) {
  const int rank = group->getRank();
  const int world = group->getSize();
  Tagger model(300, 17);
  ReplicaDDP<Tagger> ddp(model, group);

  if (config.learn_temperature) {
    model->log_temperature = model->register_parameter("log_temperature", torch::zeros({1}));
  }
  const auto dtype = config.float64 ? torch::kDouble : torch::kFloat;
  if (config.float64) {
    model->to(torch::kDouble);
  }
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(5e-4));

  auto windows = TokenWindows("windows.pt").map(torch::data::transforms::Stack<>());
  for (size_t epoch = 0; epoch < config.epochs; ++epoch) {
    torch::data::samplers::DistributedRandomSampler sampler(windows.size().value(), world, rank);
    sampler.set_epoch(epoch);
    auto loader = torch::data::make_data_loader(windows, sampler, 128);
    model->train();
    for (auto& batch : *loader) {
      auto x = batch.data.to(dtype);
      auto y = batch.target;
      optimizer.zero_grad();
      auto loss = ddp.module()->compute_loss(x, y);
      loss.backward();
      ddp.finish_gradients();
      optimizer.step();
    }

    torch::NoGradGuard no_grad;
    model->eval();
    auto probe = torch::randn({512, 300}).to(dtype);
    auto predicted = ddp.module()->forward(probe).argmax(1);
    if (rank == 0) {
      std::cout << "epoch " << epoch << " first tags " << predicted.slice(0, 0, 8) << "\n";
    }
  }
}

int main(int argc, char** argv) {
  const int rank = std::atoi(argv[1]);
  const int world = std::atoi(argv[2]);
  c10d::TCPStoreOptions options;
  options.isServer = rank == 0;
  options.numWorkers = world;
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
  auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);
  RunConfig config;
  config.learn_temperature = argc > 3 && std::string(argv[3]) == "--temperature";
  config.float64 = argc > 4 && std::string(argv[4]) == "--fp64";
  run(group, config);
  return 0;
}
