// Wide regression MLP with the optimizer state sharded across ranks: each
// rank keeps the Adam moments of one slice of the flattened parameters,
// reduce-scatters the gradients and all-gathers the updated slices.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

class ShardedAdam {
 public:
  ShardedAdam(std::vector<torch::Tensor> params, c10::intrusive_ptr<c10d::ProcessGroup> pg, double lr)
      : params_(std::move(params)), pg_(std::move(pg)) {
    int64_t total = 0;
    for (const auto& p : params_) total += p.numel();
    const int64_t world = pg_->getSize();
    shard_size_ = (total + world - 1) / world;
    padded_ = shard_size_ * world;
    auto flat = padded(flatten(params_));
    master_ = flat.narrow(0, pg_->getRank() * shard_size_, shard_size_).clone();
    master_.requires_grad_(true);
    optimizer_ = std::make_unique<torch::optim::Adam>(std::vector<torch::Tensor>{master_},
                                                      torch::optim::AdamOptions(lr));
    // Every replica starts from the slices the ranks initialised.
    gather_into_params();
  }

  void step() {
    std::vector<torch::Tensor> grads;
    for (const auto& p : params_) grads.push_back(p.grad());
    auto flat_grad = padded(flatten(grads));
    auto shard_grad = torch::zeros({shard_size_});
    pg_->_reduce_scatter_base(shard_grad, flat_grad)->wait();
    shard_grad.div_(pg_->getSize());
    master_.mutable_grad() = shard_grad;
    optimizer_->step();
    gather_into_params();
  }

 private:
  static torch::Tensor flatten(const std::vector<torch::Tensor>& tensors) {
    std::vector<torch::Tensor> parts;
    for (const auto& t : tensors) parts.push_back(t.detach().reshape({-1}));
    return torch::cat(parts);
  }
  torch::Tensor padded(const torch::Tensor& flat) const {
    return torch::cat({flat, torch::zeros({padded_ - flat.numel()})});
  }
  void gather_into_params() {
    auto gathered = torch::zeros({padded_});
    auto slice = master_.detach();
    pg_->_allgather_base(gathered, slice);
    torch::NoGradGuard no_grad;
    int64_t offset = 0;
    for (auto& p : params_) {
      p.copy_(gathered.narrow(0, offset, p.numel()).view_as(p));
      offset += p.numel();
    }
  }

  std::vector<torch::Tensor> params_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  int64_t shard_size_ = 0;
  int64_t padded_ = 0;
  torch::Tensor master_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
};

int main(int argc, char** argv) {
  const int rank = std::stoi(argv[1]);
  const int world = std::stoi(argv[2]);
  c10d::TCPStoreOptions store_options;
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
  auto store = c10::make_intrusive<c10d::TCPStore>(argc > 3 ? argv[3] : "127.0.0.1", store_options);
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  torch::nn::Sequential mlp(torch::nn::Linear(512, 2048), torch::nn::ReLU(),
                            torch::nn::Linear(2048, 2048), torch::nn::ReLU(),
                            torch::nn::Linear(2048, 512));
  ShardedAdam optimizer(mlp->parameters(), pg, 1e-4);

  std::vector<torch::Tensor> shard;
  torch::load(shard, "fields_" + std::to_string(rank) + ".pt");
  const auto inputs = shard.at(0);
  const auto targets = shard.at(1);
  const int64_t batch = 128;
  const int64_t windows = inputs.size(0) / batch;
  int64_t skipped = 0;

  for (int64_t step = 0; step < 2000; ++step) {
    const int64_t start = (step % windows) * batch;
    mlp->zero_grad();
    auto loss = torch::mse_loss(mlp->forward(inputs.narrow(0, start, batch)),
                                targets.narrow(0, start, batch));
    if (!std::isfinite(loss.item<double>())) {
      ++skipped;
      continue;
    }
    loss.backward();
    optimizer.step();
    if (rank == 0 && step % 100 == 0) {
      std::printf("step %lld loss %.5f skipped %lld\n", static_cast<long long>(step),
                  loss.item<double>(), static_cast<long long>(skipped));
    }
  }
  if (rank == 0) torch::save(mlp, "field_mlp.pt");
  return 0;
}
