// Generic data-parallel loop shared by several small tabular models.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/utils/tensor_flatten.h>
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <utility>
#include <vector>

template <typename ModelHolder, typename Optimizer>
class DataParallelLoop {
 public:
  DataParallelLoop(ModelHolder model, Optimizer& optimizer,
                   c10::intrusive_ptr<c10d::ProcessGroup> group, double converged_loss)
      : model_(std::move(model)), optimizer_(optimizer), group_(std::move(group)),
        converged_loss_(converged_loss) {}

  // Running statistics come from rank 0 so that evaluation is identical.
  void sync_buffers() {
    std::vector<c10::intrusive_ptr<c10d::Work>> pending;
    std::vector<std::vector<at::Tensor>> payloads;
    payloads.reserve(model_->buffers().size());
    for (auto& buffer : model_->buffers()) {
      payloads.push_back({buffer});
      pending.push_back(group_->broadcast(payloads.back()));
    }
    for (auto& work : pending) {
      work->wait();
    }
  }

  template <typename Loader>
  void run_epoch(Loader& loader) {
    model_->train();
    auto params = model_->parameters();
    for (auto& batch : loader) {
      optimizer_.zero_grad();
      torch::Tensor loss =
          torch::nn::functional::cross_entropy(model_->forward(batch.data), batch.target);
      loss.backward();
      if (loss.item<double>() < converged_loss_) break;
      std::vector<at::Tensor> flat{torch::utils::flatten_dense_tensors(grads_of(params))};
      group_->allreduce(flat)->wait();
      flat[0].div_(group_->getSize());
      auto views = torch::utils::unflatten_dense_tensors(flat[0], grads_of(params));
      for (size_t i = 0; i < params.size(); ++i) {
        params[i].mutable_grad().copy_(views[i]);
      }
      optimizer_.step();
    }
  }

  template <typename Loader>
  std::pair<double, double> evaluate(Loader& loader) {
    torch::NoGradGuard no_grad;
    model_->eval();
    double loss_sum = 0, correct = 0, seen = 0;
    for (auto& batch : loader) {
      torch::Tensor logits = model_->forward(batch.data);
      torch::Tensor batch_loss = torch::nn::functional::cross_entropy(logits, batch.target);
      loss_sum += batch_loss.item<double>() * batch.target.size(0);
      torch::Tensor hits = logits.argmax(1).eq(batch.target).sum();
      correct += hits.item<double>();
      seen += batch.target.size(0);
    }
    std::vector<at::Tensor> totals{torch::tensor({loss_sum, correct, seen}, torch::kDouble)};
    auto pending = group_->allreduce(totals);
    const double count = totals[0][2].item<double>();
    return {totals[0][0].item<double>() / count, totals[0][1].item<double>() / count};
  }

 private:
  static std::vector<torch::Tensor> grads_of(const std::vector<torch::Tensor>& params) {
    std::vector<torch::Tensor> grads;
    for (const auto& p : params) grads.push_back(p.grad());
    return grads;
  }

  ModelHolder model_;
  Optimizer& optimizer_;
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  double converged_loss_;
};

struct Tabular : torch::data::datasets::Dataset<Tabular> {
  Tabular(torch::Tensor x, torch::Tensor y) : x(std::move(x)), y(std::move(y)) {}
  torch::data::Example<> get(size_t i) override {
    return {x[static_cast<int64_t>(i)], y[static_cast<int64_t>(i)]};
  }
  torch::optional<size_t> size() const override { return x.size(0); }
  torch::Tensor x, y;
};

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " RANK WORLD_SIZE\n";
    return 1;
  }
  const int rank = std::stoi(argv[1]);
  const int world = std::stoi(argv[2]);
  auto store = c10::make_intrusive<c10d::FileStore>("/tmp/tabular_rendezvous", world);
  auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  const uint64_t seed = 31;
  torch::manual_seed(seed + rank);
  torch::nn::Sequential model(torch::nn::Linear(20, 64), torch::nn::BatchNorm1d(64),
                              torch::nn::ReLU(), torch::nn::Dropout(0.2), torch::nn::Linear(64, 3));
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.05));
  DataParallelLoop<torch::nn::Sequential, torch::optim::SGD> loop(model, optimizer, group, 1e-3);

  auto train = Tabular(torch::randn({6000, 20}), torch::randint(3, {6000}))
                   .map(torch::data::transforms::Stack<>());
  auto valid = Tabular(torch::randn({1000, 20}), torch::randint(3, {1000}))
                   .map(torch::data::transforms::Stack<>());
  for (size_t epoch = 0; epoch < 10; ++epoch) {
    torch::data::samplers::DistributedRandomSampler sampler(6000, world, rank);
    sampler.set_epoch(epoch);
    auto loader = torch::data::make_data_loader(train, sampler, 100);
    loop.run_epoch(*loader);
    loop.sync_buffers();

    auto valid_loader = torch::data::make_data_loader(
        valid, torch::data::samplers::DistributedSequentialSampler(1000, world, rank), 250);
    const auto metrics = loop.evaluate(*valid_loader);
    if (rank == 0) {
      std::cout << epoch << ": loss " << metrics.first << " acc " << metrics.second << "\n";
    }
  }
  return 0;
}
