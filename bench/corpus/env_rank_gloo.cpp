// Keyword-spotting model on MFCC frames, launched by torchrun-style
// environment variables (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT).

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace env {

std::string get(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : fallback;
}

int rank() {
  const char* value = std::getenv("RANK");
  return value != nullptr ? std::atoi(value) : 0;
}

int world_size() { return std::stoi(get("WORLD_SIZE", "1")); }

} // namespace env

struct KeywordNetImpl : torch::nn::Module {
  KeywordNetImpl()
      : conv(register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 16, 3).padding(1)))),
        fc(register_module("fc", torch::nn::Linear(16 * 40 * 32, 12))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv->forward(x));
    return fc->forward(x.flatten(1));
  }
  torch::nn::Conv2d conv;
  torch::nn::Linear fc;
};
TORCH_MODULE(KeywordNet);

struct Frames : torch::data::datasets::Dataset<Frames> {
  explicit Frames(int64_t n) : mfcc(torch::randn({n, 1, 40, 32})), label(torch::randint(12, {n})) {}
  torch::data::Example<> get(size_t i) override {
    return {mfcc[static_cast<int64_t>(i)], label[static_cast<int64_t>(i)]};
  }
  torch::optional<size_t> size() const override { return mfcc.size(0); }
  torch::Tensor mfcc, label;
};

static void sync_gradients(c10d::ProcessGroup& group, KeywordNet& net) {
  std::vector<torch::Tensor> grads;
  std::vector<torch::Tensor> flat_views;
  for (const auto& p : net->parameters()) {
    grads.push_back(p.grad());
    flat_views.push_back(p.grad().reshape({-1}));
  }
  std::vector<at::Tensor> bucket{torch::cat(flat_views)};
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::SUM;
  group.allreduce(bucket, options)->wait();
  int64_t offset = 0;
  for (auto& g : grads) {
    g.copy_(bucket[0].slice(0, offset, offset + g.numel()).view_as(g));
    offset += g.numel();
  }
}

int main() {
  const int rank = env::rank();
  const int world = env::world_size();
  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<uint16_t>(std::stoi(env::get("MASTER_PORT", "29500")));
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
  auto store = c10::make_intrusive<c10d::TCPStore>(env::get("MASTER_ADDR", "127.0.0.1"), store_options);
  auto gloo_options = c10d::ProcessGroupGloo::Options::create();
  gloo_options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world, gloo_options);

  torch::manual_seed(std::stoull(env::get("SEED", "1")));
  KeywordNet net;
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.02).momentum(0.9));
  const std::string checkpoint = env::get("CHECKPOINT", "kws.pt");

  auto frames = Frames(20000).map(torch::data::transforms::Stack<>());
  for (size_t epoch = 0; epoch < 15; ++epoch) {
    torch::data::samplers::DistributedRandomSampler sampler(frames.size().value(), world, rank);
    sampler.set_epoch(epoch);
    auto loader = torch::data::make_data_loader(frames, sampler, 64);

    double loss_sum = 0.0;
    double seen = 0.0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(net->forward(batch.data), batch.target);
      loss.backward();
      sync_gradients(*group, net);
      optimizer.step();
      loss_sum += loss.item<double>() * batch.data.size(0);
      seen += batch.data.size(0);
    }

    std::vector<at::Tensor> stats{torch::tensor({loss_sum, seen}, torch::kDouble)};
    group->allreduce(stats);
    if (rank == 0) {
      std::cout << "epoch " << epoch << " loss "
                << stats[0][0].item<double>() / stats[0][1].item<double>() << std::endl;
    }

    if (rank == 0) {
      torch::save(net, checkpoint);
      group->barrier()->wait();
    }
  }
  return 0;
}
