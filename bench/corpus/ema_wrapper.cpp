// Image-embedding encoder: data-parallel training with an exponential moving
// average of the weights, and a second float64 fine-tuning phase.

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/utils/tensor_flatten.h>
#include <torch/torch.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace F = torch::nn::functional;

template <typename Impl>
class DistributedDataParallel : public torch::nn::Module {
 public:
  DistributedDataParallel(std::shared_ptr<Impl> module, c10::intrusive_ptr<c10d::ProcessGroup> group)
      : module_(register_module("module", std::move(module))), group_(std::move(group)) {
    broadcast_parameters();
    params_ = module_->parameters();
    std::vector<torch::Tensor> flat_views;
    for (const auto& p : params_) flat_views.push_back(torch::zeros_like(p).reshape({-1}));
    bucket_ = torch::cat(flat_views);
    int64_t offset = 0;
    for (size_t i = 0; i < params_.size(); ++i) {
      offsets_.push_back(offset);
      offset += params_[i].numel();
      auto accumulator = torch::autograd::impl::grad_accumulator(params_[i]);
      keys_.push_back(accumulator->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
          [this, i](const torch::autograd::variable_list& outputs, const torch::autograd::variable_list&) {
            bucket_.narrow(0, offsets_[i], params_[i].numel()).copy_(params_[i].grad().reshape({-1}));
            return outputs;
          })));
      accumulators_.push_back(std::move(accumulator));
    }
  }

  ~DistributedDataParallel() override {
    for (size_t i = 0; i < accumulators_.size(); ++i) accumulators_[i]->del_post_hook(keys_[i]);
  }

  torch::Tensor forward(torch::Tensor x) { return module_->forward(std::move(x)); }
  std::shared_ptr<Impl> get_module() const { return module_; }

  void broadcast_parameters() {
    torch::NoGradGuard no_grad;
    auto params = module_->parameters();
    std::vector<at::Tensor> flat{torch::utils::flatten_dense_tensors(params)};
    c10d::BroadcastOptions options;
    options.rootRank = 0;
    group_->broadcast(flat, options)->wait();
    const auto views = torch::utils::unflatten_dense_tensors(flat[0], params);
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(views[i]);
  }

  void allreduce_gradients() {
    std::vector<at::Tensor> tensors{bucket_};
    group_->allreduce(tensors)->wait();
    bucket_.div_(group_->getSize());
    for (size_t i = 0; i < params_.size(); ++i) {
      params_[i].mutable_grad().copy_(
          bucket_.narrow(0, offsets_[i], params_[i].numel()).view_as(params_[i]));
    }
  }

 private:
  std::shared_ptr<Impl> module_;
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  std::vector<torch::Tensor> params_;
  torch::Tensor bucket_;
  std::vector<int64_t> offsets_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<uintptr_t> keys_;
};

struct EncoderImpl : torch::nn::Cloneable<EncoderImpl> {
  EncoderImpl() { reset(); }
  void reset() override {
    conv = register_module("conv", torch::nn::Conv2d(3, 32, 3));
    head = register_module("head", torch::nn::Linear(32 * 30 * 30, 100));
  }
  torch::Tensor forward(torch::Tensor x) { return head->forward(torch::relu(conv->forward(x)).flatten(1)); }
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear head{nullptr};
};

using Wrapped = DistributedDataParallel<EncoderImpl>;

void update_ema(EncoderImpl& ema, EncoderImpl& live, double decay) {
  torch::NoGradGuard no_grad;
  auto shadow = ema.parameters();
  auto current = live.parameters();
  for (size_t i = 0; i < shadow.size(); ++i) shadow[i].mul_(decay).add_(current[i], 1.0 - decay);
}

struct Phase {
  torch::ScalarType dtype;
  size_t first_epoch;
  size_t epochs;
  double lr;
};

template <typename Dataset>
void train_phase(Wrapped& ddp, EncoderImpl& ema, Dataset& data, size_t rank, size_t world,
                 const Phase& phase) {
  torch::optim::AdamW optimizer(ddp.parameters(), torch::optim::AdamWOptions(phase.lr));
  const auto probe = torch::randn({16, 3, 32, 32}).to(phase.dtype);
  for (size_t epoch = phase.first_epoch; epoch < phase.first_epoch + phase.epochs; ++epoch) {
    torch::data::samplers::DistributedRandomSampler sampler(data.size().value(), world, rank);
    sampler.set_epoch(epoch);
    auto loader = torch::data::make_data_loader(data, sampler, 64);
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto loss = F::cross_entropy(ddp.forward(batch.data.to(phase.dtype)), batch.target);
      loss.backward();
      ddp.allreduce_gradients();
      optimizer.step();
      update_ema(ema, *ddp.get_module(), 0.999);
    }

    torch::NoGradGuard no_grad;
    const auto live_out = ddp.get_module()->forward(probe);
    const auto ema_out = ema.forward(probe);
    if (rank == 0) {
      std::cout << "epoch " << epoch << " ema drift "
                << (live_out - ema_out).abs().mean().item<double>() << std::endl;
    }
  }
}

struct Patches : torch::data::datasets::Dataset<Patches> {
  torch::data::Example<> get(size_t i) override {
    return {torch::randn({3, 32, 32}), torch::tensor(static_cast<int64_t>(i % 100))};
  }
  torch::optional<size_t> size() const override { return 60000; }
};

int main(int argc, char** argv) {
  const int rank = std::stoi(argv[1]);
  const int world = std::stoi(argv[2]);
  const std::string pretrained_head = argc > 3 ? argv[3] : "";
  c10d::TCPStoreOptions store_options;
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
  c10::intrusive_ptr<c10d::ProcessGroup> group =
      c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  auto encoder = std::make_shared<EncoderImpl>();
  auto ddp = std::make_shared<Wrapped>(encoder, group);
  if (rank == 0 && !pretrained_head.empty()) {
    torch::load(encoder->head, pretrained_head);
  }
  ddp->broadcast_parameters();

  auto ema = std::dynamic_pointer_cast<EncoderImpl>(encoder->clone());
  auto data = Patches().map(torch::data::transforms::Stack<>());
  train_phase(*ddp, *ema, data, rank, world, Phase{torch::kFloat, 0, 20, 1e-3});

  ddp.reset();
  encoder->to(torch::kDouble);
  ema->to(torch::kDouble);
  ddp = std::make_shared<Wrapped>(encoder, group);
  train_phase(*ddp, *ema, data, rank, world, Phase{torch::kDouble, 20, 5, 1e-4});

  if (rank == 0) {
    torch::save(ema, "encoder_ema.pt");
  }
  return 0;
}
