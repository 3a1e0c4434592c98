// Two-layer classifier on Gaussian blobs, trained on N ranks over Gloo.
//
//   ./trainer_gloo RANK WORLD_SIZE [MASTER_ADDR] [MASTER_PORT]

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/utils/tensor_flatten.h>
#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

struct BlobsDataset : torch::data::datasets::Dataset<BlobsDataset> {
  BlobsDataset(int64_t size, int64_t features, int64_t classes) {
    torch::manual_seed(2024);
    labels_ = torch::randint(classes, {size});
    centers_ = torch::randn({classes, features}) * 3.0;
    noise_ = torch::randn({size, features});
  }

  torch::data::Example<> get(size_t index) override {
    const auto label = labels_[static_cast<int64_t>(index)];
    return {centers_[label.item<int64_t>()] + noise_[static_cast<int64_t>(index)], label};
  }

  torch::optional<size_t> size() const override { return labels_.size(0); }

  torch::Tensor labels_, centers_, noise_;
};

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl(int64_t in, int64_t hidden, int64_t out) {
    fc1 = register_module("fc1", torch::nn::Linear(in, hidden));
    fc2 = register_module("fc2", torch::nn::Linear(hidden, out));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return fc2->forward(torch::relu(fc1->forward(x)));
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Classifier);

struct TrainerConfig {
  int64_t epochs = 30;
  size_t batch_size = 64;
  double lr = 0.05;
  uint64_t seed = 17;
  double target_loss = 0.02;
  std::string checkpoint = "classifier.pt";
};

class Trainer {
 public:
  Trainer(c10::intrusive_ptr<c10d::ProcessGroup> group, TrainerConfig config)
      : group_(std::move(group)), config_(std::move(config)) {
    torch::manual_seed(config_.seed);
    model_ = Classifier(16, 64, 4);
    optimizer_ = std::make_unique<torch::optim::SGD>(
        model_->parameters(), torch::optim::SGDOptions(config_.lr).momentum(0.9));
  }

  void fit(BlobsDataset dataset) {
    for (int64_t epoch = 0; epoch < config_.epochs; ++epoch) {
      torch::data::samplers::DistributedRandomSampler sampler(
          dataset.size().value(), group_->getSize(), group_->getRank());
      sampler.set_epoch(static_cast<size_t>(epoch));
      auto loader = torch::data::make_data_loader(
          dataset.map(torch::data::transforms::Stack<>()), sampler, config_.batch_size);

      model_->train();
      double loss_sum = 0.0;
      int64_t batches = 0;
      for (auto& batch : *loader) {
        optimizer_->zero_grad();
        auto loss = torch::nn::functional::cross_entropy(model_->forward(batch.data), batch.target);
        loss.backward();
        if (group_->getSize() > 1) {
          average_gradients();
        }
        optimizer_->step();
        loss_sum += loss.item<double>();
        ++batches;
      }

      const double epoch_loss = global_mean(loss_sum, batches);
      if (group_->getRank() == 0) {
        std::cout << "epoch " << epoch << " loss " << epoch_loss << std::endl;
      }
      if (epoch_loss < config_.target_loss) {
        break;
      }
    }
    if (group_->getRank() == 0) {
      torch::save(model_, config_.checkpoint);
    }
  }

 private:
  void average_gradients() {
    std::vector<torch::Tensor> grads;
    for (const auto& parameter : model_->parameters()) {
      grads.push_back(parameter.grad());
    }
    std::vector<at::Tensor> flat{torch::utils::flatten_dense_tensors(grads)};
    group_->allreduce(flat)->wait();
    flat.front().div_(group_->getSize());
    const auto views = torch::utils::unflatten_dense_tensors(flat.front(), grads);
    for (size_t i = 0; i < grads.size(); ++i) {
      grads[i].copy_(views[i]);
    }
  }

  double global_mean(double sum, int64_t count) {
    std::vector<at::Tensor> totals{
        torch::tensor({sum, static_cast<double>(count)}, torch::kDouble)};
    group_->allreduce(totals)->wait();
    const auto denominator = totals.front()[1].item<double>();
    return denominator > 0 ? totals.front()[0].item<double>() / denominator : 0.0;
  }

  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  TrainerConfig config_;
  Classifier model_{nullptr};
  std::unique_ptr<torch::optim::SGD> optimizer_;
};

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " RANK WORLD_SIZE [ADDR] [PORT]\n";
    return 2;
  }
  const int rank = std::stoi(argv[1]);
  const int world_size = std::stoi(argv[2]);
  const std::string address = argc > 3 ? argv[3] : "127.0.0.1";

  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<std::uint16_t>(argc > 4 ? std::stoi(argv[4]) : 29500);
  store_options.isServer = rank == 0;
  store_options.numWorkers = world_size;
  auto store = c10::make_intrusive<c10d::TCPStore>(address, store_options);

  auto options = c10d::ProcessGroupGloo::Options::create();
  options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  c10::intrusive_ptr<c10d::ProcessGroup> group =
      c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world_size, options);

  Trainer trainer(group, TrainerConfig{});
  trainer.fit(BlobsDataset(8192, 16, 4));
  return 0;
}
