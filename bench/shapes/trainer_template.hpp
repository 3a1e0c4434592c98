// Trainer shared by the classification experiments: any TORCH_MODULE holder
// whose forward maps a batch to logits. The experiment binaries instantiate
// it; this header is all a reviewer sees.
#pragma once

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace experiments {

struct TrainerConfig {
  int64_t epochs = 20;
  double lr = 0.05;
  double loss_ceiling = 40.0;
  double target_loss = 0.05;
  int64_t log_every = 50;
  std::string checkpoint = "classifier.pt";
};

template <class Model>
class Trainer {
 public:
  Trainer(Model model, c10::intrusive_ptr<c10d::ProcessGroup> pg, TrainerConfig config)
      : model_(std::move(model)),
        pg_(std::move(pg)),
        config_(std::move(config)),
        optimizer_(model_->parameters(), torch::optim::SGDOptions(config_.lr).momentum(0.9)),
        rank_(pg_->getRank()),
        world_size_(pg_->getSize()) {
    broadcast_parameters();
    if (rank_ == 0) {
      std::cout << "training on " << world_size_ << " ranks\n";
    }
  }

  template <class TrainLoader, class ValidLoader>
  void fit(TrainLoader& train_loader, ValidLoader& valid_loader) {
    for (int64_t epoch = 0; epoch < config_.epochs; ++epoch) {
      train_epoch(train_loader, epoch);
      const double valid_loss = validate(valid_loader);
      if (rank_ == 0) {
        std::cout << "epoch " << epoch << " valid loss " << valid_loss << "\n";
        torch::save(model_, config_.checkpoint);
      }
      if (valid_loss < config_.target_loss) {
        break;
      }
    }
  }

  template <class Loader>
  void train_epoch(Loader& loader, int64_t epoch) {
    model_->train();
    int64_t step = 0;
    for (auto& batch : loader) {
      optimizer_.zero_grad();
      torch::Tensor logits = model_->forward(batch.data);
      torch::Tensor loss = torch::nn::functional::cross_entropy(logits, batch.target);
      loss.backward();
      if (loss.item<double>() > config_.loss_ceiling) {
        std::cerr << "rank " << rank_ << ": loss " << loss.item<double>() << " at epoch " << epoch
                  << ", skipping the rest of the epoch\n";
        break;
      }
      sync_gradients();
      optimizer_.step();
      if (rank_ == 0 && ++step % config_.log_every == 0) {
        std::cout << "  step " << step << " loss " << loss.item<double>() << "\n";
      }
    }
  }

  template <class Loader>
  double validate(Loader& loader) {
    torch::NoGradGuard no_grad;
    model_->eval();
    double loss_sum = 0.0;
    double samples = 0.0;
    for (auto& batch : loader) {
      torch::Tensor logits = model_->forward(batch.data);
      torch::Tensor loss = torch::nn::functional::cross_entropy(
          logits, batch.target,
          torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
      loss_sum += loss.item<double>();
      samples += static_cast<double>(batch.target.size(0));
    }
    std::vector<at::Tensor> totals{torch::tensor({loss_sum, samples}, torch::kDouble)};
    pg_->allreduce(totals)->wait();
    return totals[0][0].item<double>() / totals[0][1].item<double>();
  }

 private:
  void broadcast_parameters() {
    torch::NoGradGuard no_grad;
    for (auto& p : model_->parameters()) {
      std::vector<at::Tensor> tensors{p};
      pg_->broadcast(tensors)->wait();
    }
  }

  void sync_gradients() {
    std::vector<torch::Tensor> pieces;
    for (auto& p : model_->parameters()) {
      pieces.push_back(p.grad().reshape({-1}));
    }
    std::vector<at::Tensor> flat{torch::cat(pieces)};
    pg_->allreduce(flat)->wait();
    int64_t offset = 0;
    for (auto& p : model_->parameters()) {
      const int64_t n = p.numel();
      p.mutable_grad().copy_(flat[0].slice(0, offset, offset + n).view_as(p));
      offset += n;
    }
  }

  Model model_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  TrainerConfig config_;
  torch::optim::SGD optimizer_;
  int rank_;
  int world_size_;
};

}  // namespace experiments
