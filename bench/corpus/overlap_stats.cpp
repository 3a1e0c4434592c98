// Detector head fine-tuning with feature standardisation over the global
// batch. Gradient reduction is started as soon as backward returns and
// finished just before the optimizer step, so that the batch metrics
// overlap with it.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <cstdio>
#include <string>
#include <vector>

using ProcessGroupPtr = c10::intrusive_ptr<c10d::ProcessGroup>;

// Mean and variance of the features over every rank's batch.
static torch::Tensor standardise(const ProcessGroupPtr& pg, const torch::Tensor& features) {
  auto local = torch::cat({features.sum(0), features.pow(2).sum(0),
                           torch::full({1}, static_cast<double>(features.size(0)))});
  std::vector<at::Tensor> stats{local};
  auto pending = pg->allreduce(stats);
  const int64_t dim = features.size(1);
  auto count = stats[0].narrow(0, 2 * dim, 1);
  auto mean = stats[0].narrow(0, 0, dim) / count;
  auto var = stats[0].narrow(0, dim, dim) / count - mean.pow(2);
  return (features - mean) / (var + 1e-5).sqrt();
}

class OverlappedReducer {
 public:
  explicit OverlappedReducer(ProcessGroupPtr pg) : pg_(std::move(pg)) {}

  void start(const std::vector<torch::Tensor>& params) {
    grads_.clear();
    for (const auto& p : params) grads_.push_back(p.grad());
    work_ = pg_->allreduce_coalesced(grads_);
  }
  void finish() {
    work_->wait();
    for (auto& g : grads_) g.div_(pg_->getSize());
  }

 private:
  ProcessGroupPtr pg_;
  std::vector<at::Tensor> grads_;
  c10::intrusive_ptr<c10d::Work> work_;
};

int main(int argc, char** argv) {
  const int rank = std::stoi(argv[1]);
  const int world = std::stoi(argv[2]);
  c10d::TCPStoreOptions store_options;
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
  auto store = c10::make_intrusive<c10d::TCPStore>(argc > 3 ? argv[3] : "127.0.0.1", store_options);
  ProcessGroupPtr pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  torch::nn::Sequential head(torch::nn::Linear(256, 256), torch::nn::ReLU(), torch::nn::Linear(256, 20));
  torch::load(head, "detector_head_init.pt");
  torch::optim::SGD optimizer(head->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  OverlappedReducer reducer(pg);

  std::vector<torch::Tensor> shard;
  torch::load(shard, "roi_features_" + std::to_string(rank) + ".pt");
  const auto features = shard.at(0);
  const auto classes = shard.at(1);
  const int64_t batch = 512;
  const int64_t windows = features.size(0) / batch;

  for (int64_t step = 0; step < 3000; ++step) {
    const int64_t start = (step % windows) * batch;
    auto x = standardise(pg, features.narrow(0, start, batch));
    auto y = classes.narrow(0, start, batch);
    optimizer.zero_grad();
    auto logits = head->forward(x);
    auto loss = torch::nn::functional::cross_entropy(logits, y);
    loss.backward();
    reducer.start(head->parameters());
    const double accuracy = logits.argmax(1).eq(y).to(torch::kFloat).mean().item<double>();
    reducer.finish();
    optimizer.step();
    if (rank == 0 && step % 50 == 0) {
      std::printf("step %lld loss %.4f acc %.3f\n", static_cast<long long>(step),
                  loss.item<double>(), accuracy);
    }
  }
  if (rank == 0) torch::save(head, "detector_head.pt");
  return 0;
}
