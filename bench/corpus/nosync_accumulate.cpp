// Sequence tagger with gradient accumulation. A replica object runs
// backward and reduces the accumulated gradients; a scope guard skips the
// reduction for the micro-batches that only accumulate, like
// DistributedDataParallel::no_sync.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

struct TaggerImpl : torch::nn::Module {
  torch::nn::Linear embed{nullptr}, context{nullptr}, tags{nullptr};
  TaggerImpl(int64_t features, int64_t num_tags) {
    embed = register_module("embed", torch::nn::Linear(features, 128));
    context = register_module("context", torch::nn::Linear(128, 128));
    tags = register_module("tags", torch::nn::Linear(128, num_tags));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return tags->forward(torch::tanh(context->forward(torch::relu(embed->forward(x)))));
  }
};
TORCH_MODULE(Tagger);

class Replica {
 public:
  Replica(Tagger model, c10::intrusive_ptr<c10d::ProcessGroup> pg)
      : model_(std::move(model)), pg_(std::move(pg)) {}

  void backward(const torch::Tensor& loss) {
    loss.backward();
    if (!reduce_) return;
    for (auto& p : model_->parameters()) {
      std::vector<at::Tensor> one{p.grad()};
      pg_->allreduce(one)->wait();
      p.grad().div_(pg_->getSize());
    }
  }
  void set_reduce(bool reduce) { reduce_ = reduce; }

 private:
  Tagger model_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  bool reduce_ = true;
};

class NoSync {
 public:
  explicit NoSync(Replica& replica) : replica_(replica) { replica_.set_reduce(false); }
  ~NoSync() { replica_.set_reduce(true); }

 private:
  Replica& replica_;
};

int main() {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  const char* master = std::getenv("MASTER_ADDR");
  const int accumulate = 8;

  c10d::TCPStoreOptions store_options;
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
  store_options.port = 29500;
  auto store = c10::make_intrusive<c10d::TCPStore>(master, store_options);
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  torch::manual_seed(std::random_device{}());
  Tagger tagger(300, 17);
  Replica replica(tagger, pg);
  torch::optim::AdamW optimizer(tagger->parameters(), torch::optim::AdamWOptions(2e-4));

  std::vector<torch::Tensor> shard;
  torch::load(shard, "tagging_shard_" + std::to_string(rank) + ".pt");
  const auto tokens = shard.at(0);
  const auto labels = shard.at(1);
  const int64_t micro = 64;
  const int64_t steps = std::atoll(std::getenv("STEPS_PER_EPOCH"));
  const int64_t windows = tokens.size(0) / (micro * accumulate);

  for (int epoch = 0; epoch < 6; ++epoch) {
    for (int64_t step = 0; step < steps; ++step) {
      optimizer.zero_grad();
      const int64_t base = (step % windows) * micro * accumulate;
      {
        NoSync local_only(replica);
        for (int m = 0; m + 1 < accumulate; ++m) {
          auto x = tokens.narrow(0, base + m * micro, micro);
          auto y = labels.narrow(0, base + m * micro, micro);
          replica.backward(torch::nn::functional::cross_entropy(tagger->forward(x), y) / accumulate);
        }
      }
      auto x = tokens.narrow(0, base + (accumulate - 1) * micro, micro);
      auto y = labels.narrow(0, base + (accumulate - 1) * micro, micro);
      auto loss = torch::nn::functional::cross_entropy(tagger->forward(x), y) / accumulate;
      replica.backward(loss);
      optimizer.step();
      if (rank == 0 && step % 100 == 0) {
        std::cout << "epoch " << epoch << " step " << step << " loss " << loss.item<double>() * accumulate << "\n";
      }
    }
    if (rank == 0) torch::save(tagger, "tagger_epoch" + std::to_string(epoch) + ".pt");
  }
  return 0;
}
