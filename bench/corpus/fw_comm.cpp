// Click-through-rate model trained through the platform's communicator
// (fw::Communicator, provided by the serving framework's runtime library).

#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <vector>

namespace fw {

// In-place collectives over all workers of the job.
class Communicator {
 public:
  static Communicator& world();
  int rank() const;
  int size() const;
  void sum(torch::Tensor& tensor);
  void broadcast(torch::Tensor& tensor, int root);
  void barrier();
};

} // namespace fw

namespace ctr {

struct Options {
  int64_t epochs = 4;
  size_t batch_size = 512;
  int64_t dense_features = 48;
  double lr = 0.01;
  uint64_t seed = 5;
  int64_t log_every = 50;
  bool sync_calibration = true;
};

struct Impressions : torch::data::datasets::Dataset<Impressions> {
  explicit Impressions(int64_t rows) {
    features = torch::randn({rows, 48});
    clicks = (torch::rand({rows}) < 0.05).to(torch::kFloat);
  }
  torch::data::Example<> get(size_t i) override {
    const auto row = static_cast<int64_t>(i);
    return {features[row], clicks[row]};
  }
  torch::optional<size_t> size() const override { return features.size(0); }
  torch::Tensor features, clicks;
};

struct ScorerImpl : torch::nn::Module {
  explicit ScorerImpl(int64_t in) {
    tower = register_module(
        "tower", torch::nn::Sequential(torch::nn::Linear(in, 128), torch::nn::ReLU(),
                                       torch::nn::Linear(128, 1)));
    calibration = register_parameter("calibration", torch::zeros({1}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return tower->forward(x).squeeze(1) + calibration;
  }
  torch::nn::Sequential tower{nullptr};
  torch::Tensor calibration;
};
TORCH_MODULE(Scorer);

torch::Tensor flatten_grads(const std::vector<torch::Tensor>& params) {
  std::vector<torch::Tensor> pieces;
  for (const auto& p : params) {
    pieces.push_back(p.grad().flatten());
  }
  return torch::cat(pieces);
}

void write_back(const torch::Tensor& flat, const std::vector<torch::Tensor>& params) {
  int64_t offset = 0;
  for (const auto& p : params) {
    const auto n = p.numel();
    p.mutable_grad().copy_(flat.narrow(0, offset, n).view_as(p));
    offset += n;
  }
}

void train(fw::Communicator& comm, const Options& options) {
  torch::manual_seed(options.seed);
  Scorer model(options.dense_features);
  auto tower_params = model->tower->parameters();
  torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(options.lr));

  auto dataset = Impressions(1 << 18).map(torch::data::transforms::Stack<>());
  torch::data::samplers::DistributedRandomSampler sampler(dataset.size().value(), comm.size(),
                                                          comm.rank());
  int64_t step = 0;
  for (int64_t epoch = 0; epoch < options.epochs; ++epoch) {
    auto loader = torch::data::make_data_loader(dataset, sampler, options.batch_size);
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto logits = model->forward(batch.data);
      auto loss = torch::binary_cross_entropy(torch::sigmoid(logits), batch.target);
      loss.backward();

      auto flat = flatten_grads(tower_params);
      comm.sum(flat);
      flat.div_(comm.size());
      write_back(flat, tower_params);

      if (options.sync_calibration) {
        auto calibration_grad = model->calibration.grad().clone();
        comm.sum(calibration_grad);
        model->calibration.mutable_grad().copy_(calibration_grad / comm.size());
      } else {
        model->calibration.mutable_grad().zero_();
      }

      if (comm.rank() == 0 && step % options.log_every == 0) {
        auto mean_loss = loss.detach().clone();
        comm.sum(mean_loss);
        std::cout << "step " << step << " loss " << mean_loss.item<double>() / comm.size()
                  << std::endl;
      }
      optimizer.step();
      ++step;
    }
  }
  if (comm.rank() == 0) {
    torch::save(model, "ctr_scorer.pt");
  }
  comm.barrier();
}

} // namespace ctr

int main() {
  ctr::train(fw::Communicator::world(), ctr::Options{});
  return 0;
}
