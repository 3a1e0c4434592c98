// Node classifier on a citation graph's precomputed neighbourhood features,
// trained with the GraphDDP module wrapper; can resume from a checkpoint.

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/utils/lambda_post_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace F = torch::nn::functional;

class GraphDDPImpl : public torch::nn::Module {
 public:
  GraphDDPImpl(torch::nn::AnyModule inner, c10::intrusive_ptr<c10d::ProcessGroup> pg)
      : module_(std::move(inner)), pg_(std::move(pg)) {
    register_module("module", module_.ptr());
    params_ = module_.ptr()->parameters();
    std::vector<at::Tensor> state{torch::cat(flat(params_, false))};
    pg_->broadcast(state)->wait();
    unflat(state[0], params_, false);
    for (size_t i = 0; i < params_.size(); ++i) {
      hooked_.push_back(torch::autograd::impl::grad_accumulator(params_[i]));
      hooked_.back()->add_post_hook(std::make_unique<torch::autograd::utils::LambdaPostHook>(
          [this, i](const torch::autograd::variable_list& out, const torch::autograd::variable_list&) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (expecting_) ready_.insert(i);
            return out;
          }));
    }
  }

  torch::Tensor forward(torch::Tensor x) {
    std::lock_guard<std::mutex> lock(mutex_);
    expecting_ = true;
    ready_.clear();
    return module_.forward(std::move(x));
  }

  void synchronize() {
    std::vector<at::Tensor> grads{torch::cat(flat(params_, true))};
    pg_->allreduce(grads)->wait();
    grads[0].div_(pg_->getSize());
    std::lock_guard<std::mutex> lock(mutex_);
    unflat(grads[0], params_, true);
    expecting_ = false;
  }

  torch::nn::AnyModule module_;

 private:
  static std::vector<torch::Tensor> flat(const std::vector<torch::Tensor>& ts, bool grad) {
    std::vector<torch::Tensor> out;
    for (const auto& t : ts) out.push_back((grad ? t.grad() : t).detach().reshape({-1}));
    return out;
  }
  void unflat(const torch::Tensor& src, std::vector<torch::Tensor>& ts, bool grad) {
    torch::NoGradGuard no_grad;
    int64_t at = 0;
    for (size_t i = 0; i < ts.size(); ++i) {
      const auto piece = src.narrow(0, at, ts[i].numel()).view_as(ts[i]);
      at += ts[i].numel();
      if (!grad) ts[i].copy_(piece);
      else if (ready_.count(i) != 0) ts[i].mutable_grad().copy_(piece);
    }
  }

  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  std::vector<torch::Tensor> params_;
  std::vector<std::shared_ptr<torch::autograd::Node>> hooked_;
  std::set<size_t> ready_;
  bool expecting_ = false;
  std::mutex mutex_;
};
TORCH_MODULE(GraphDDP);

struct NodeClassifierImpl : torch::nn::Module {
  torch::nn::Linear l1{nullptr}, l2{nullptr};
  NodeClassifierImpl(int64_t in, int64_t hidden, int64_t classes)
      : l1(register_module("l1", torch::nn::Linear(in, hidden))),
        l2(register_module("l2", torch::nn::Linear(hidden, classes))) {}
  torch::Tensor forward(torch::Tensor x) {
    return l2->forward(torch::dropout(torch::relu(l1->forward(x)), 0.5, is_training()));
  }
};
TORCH_MODULE(NodeClassifier);

struct Nodes : torch::data::datasets::Dataset<Nodes> {
  torch::Tensor features, labels;
  torch::data::Example<> get(size_t i) override {
    return {features[static_cast<int64_t>(i)], labels[static_cast<int64_t>(i)]};
  }
  torch::optional<size_t> size() const override { return labels.size(0); }
};

double accuracy(NodeClassifier& model, const Nodes& nodes, const torch::Device& device) {
  torch::NoGradGuard no_grad;
  model->eval();
  auto predicted = model->forward(nodes.features.to(device)).argmax(1);
  model->train();
  return predicted.eq(nodes.labels.to(device)).to(torch::kFloat).mean().item<double>();
}

int main(int argc, char** argv) {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  const int local_rank = std::atoi(std::getenv("LOCAL_RANK"));
  const std::string resume = argc > 1 ? argv[1] : "";
  c10d::TCPStoreOptions store_options;
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(
      c10::make_intrusive<c10d::TCPStore>(std::getenv("MASTER_ADDR"), store_options), rank, world);

  Nodes nodes;
  std::vector<torch::Tensor> saved;
  torch::load(saved, "citations.pt");
  nodes.features = saved.at(0);
  nodes.labels = saved.at(1);

  torch::manual_seed(0);
  NodeClassifier model(nodes.features.size(1), 256, 7);
  GraphDDP ddp(torch::nn::AnyModule(model), pg);
  if (rank == 0 && !resume.empty()) {
    torch::load(model, resume);
  }
  torch::Device device(torch::kCPU);
  if (torch::cuda::is_available()) {
    device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(local_rank));
    ddp->to(device);
  }

  torch::optim::Adam optimizer(ddp->parameters(), torch::optim::AdamOptions(1e-2).weight_decay(5e-4));
  auto data = Nodes(nodes).map(torch::data::transforms::Stack<>());
  for (size_t epoch = 0; epoch < 200; ++epoch) {
    torch::data::samplers::DistributedRandomSampler sampler(data.size().value(), world, rank);
    sampler.set_epoch(epoch);
    auto loader = torch::data::make_data_loader(data, sampler, 512);
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto logits = model->forward(batch.data.to(device));
      auto loss = F::cross_entropy(logits, batch.target.to(device));
      loss.backward();
      ddp->synchronize();
      optimizer.step();
    }
    if (rank == 0 && epoch % 20 == 0) {
      std::cout << "epoch " << epoch << " acc " << accuracy(model, nodes, device) << std::endl;
    }
  }
  if (rank == 0) torch::save(model, "node_classifier.pt");
  return 0;
}
