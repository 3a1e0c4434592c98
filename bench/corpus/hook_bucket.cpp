// Tabular anomaly scorer. Gradient hooks copy each parameter's gradient into
// one contiguous bucket while backward runs; the bucket is reduced in a single
// asynchronous call that overlaps with the batch metrics.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <vector>

class GradientBucket {
 public:
  explicit GradientBucket(const std::vector<torch::Tensor>& params) : params_(params) {
    int64_t total = 0;
    for (const auto& p : params_) total += p.numel();
    storage_ = torch::zeros({total});
    int64_t offset = 0;
    for (auto& p : params_) {
      auto slot = storage_.narrow(0, offset, p.numel());
      offset += p.numel();
      slots_.push_back(slot);
      p.register_hook([slot](torch::Tensor grad) { slot.copy_(grad.reshape({-1})); });
    }
  }

  c10::intrusive_ptr<c10d::Work> launch(c10d::ProcessGroup& group) {
    tensors_ = {storage_};
    return group.allreduce(tensors_);
  }

  void write_back() {
    for (size_t i = 0; i < params_.size(); ++i) {
      params_[i].mutable_grad().copy_(slots_[i].view_as(params_[i]));
    }
  }

 private:
  std::vector<torch::Tensor> params_;
  std::vector<torch::Tensor> slots_;
  torch::Tensor storage_;
  std::vector<at::Tensor> tensors_;
};

struct Scorer : torch::nn::Module {
  torch::nn::Sequential net{nullptr};
  Scorer() {
    net = register_module("net", torch::nn::Sequential(
                                     torch::nn::Linear(30, 64), torch::nn::ReLU(),
                                     torch::nn::Linear(64, 64), torch::nn::ReLU(),
                                     torch::nn::Linear(64, 1)));
  }
  torch::Tensor forward(const torch::Tensor& x) { return net->forward(x).squeeze(1); }
};

void train(c10d::ProcessGroup& group, const torch::Tensor& x, const torch::Tensor& y) {
  torch::manual_seed(77);
  auto scorer = std::make_shared<Scorer>();
  GradientBucket bucket(scorer->parameters());
  torch::optim::Adam optimizer(scorer->parameters(), torch::optim::AdamOptions(1e-3));
  const double world = group.getSize();

  const int64_t per_rank = x.size(0) / group.getSize();
  const auto mine =
      torch::arange(per_rank * group.getSize()).view({per_rank, group.getSize()}).select(1, group.getRank());
  for (int epoch = 0; epoch < 25; ++epoch) {
    const auto order = mine.index_select(0, torch::randperm(mine.size(0)));
    for (int64_t start = 0; start + 256 <= order.size(0); start += 256) {
      const auto idx = order.narrow(0, start, 256);
      const auto xb = x.index_select(0, idx);
      const auto yb = y.index_select(0, idx);

      optimizer.zero_grad();
      const auto logits = scorer->forward(xb);
      const auto loss = torch::binary_cross_entropy(torch::sigmoid(logits), yb);
      (loss / world).backward();
      auto work = bucket.launch(group);

      const double hit_rate = (logits > 0).eq(yb > 0.5).to(torch::kFloat).mean().item<double>();
      work->wait();
      bucket.write_back();
      optimizer.step();

      if (group.getRank() == 0 && start == 0) {
        std::cout << "epoch " << epoch << " loss " << loss.item<double>() << " hit " << hit_rate << "\n";
      }
    }
  }
  if (group.getRank() == 0) torch::save(scorer, "scorer.pt");
}

int main(int argc, char** argv) {
  const int rank = std::stoi(argv[1]);
  const int world = std::stoi(argv[2]);
  const std::string host = argc > 3 ? argv[3] : "localhost";
  c10d::TCPStoreOptions store_options;
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
  auto store = c10::make_intrusive<c10d::TCPStore>(host, store_options);
  auto options = c10d::ProcessGroupGloo::Options::create();
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(host));
  c10d::ProcessGroupGloo group(store, rank, world, options);

  std::vector<torch::Tensor> table;
  torch::load(table, "transactions.pt");
  train(group, table.at(0), table.at(1));
  return 0;
}
