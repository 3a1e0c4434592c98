// Speech-feature regressor on one GPU per rank with c10d's NCCL process
// group. The optimizer is stepped through a closure.

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Env {
  int rank;
  int world;
  int local_rank;
  std::string master;
};

Env read_env() {
  auto int_of = [](const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v ? std::atoi(v) : fallback;
  };
  const char* master = std::getenv("MASTER_ADDR");
  return {int_of("RANK", 0), int_of("WORLD_SIZE", 1), int_of("LOCAL_RANK", 0),
          master ? master : "127.0.0.1"};
}

struct Regressor : torch::nn::Module {
  torch::nn::Linear in{nullptr}, mid{nullptr}, out{nullptr};
  Regressor() {
    in = register_module("in", torch::nn::Linear(80, 512));
    mid = register_module("mid", torch::nn::Linear(512, 512));
    out = register_module("out", torch::nn::Linear(512, 20));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(in->forward(x));
    x = torch::relu(mid->forward(x)) + x;
    return out->forward(x);
  }
};

void average_gradients(c10d::ProcessGroup& group, torch::nn::Module& model) {
  std::vector<torch::Tensor> pieces;
  for (const auto& p : model.parameters()) pieces.push_back(p.grad().view({-1}));
  std::vector<at::Tensor> flat{torch::cat(pieces)};
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::AVG;
  group.allreduce(flat, options)->wait();
  int64_t offset = 0;
  for (auto& p : model.parameters()) {
    auto g = p.mutable_grad();
    g.copy_(flat[0].narrow(0, offset, g.numel()).view_as(g));
    offset += g.numel();
  }
}

} // namespace

int main() {
  const Env env = read_env();
  const torch::Device device(torch::kCUDA, static_cast<c10::DeviceIndex>(env.local_rank));

  c10d::TCPStoreOptions store_options;
  store_options.isServer = env.rank == 0;
  store_options.numWorkers = env.world;
  auto store = c10::make_intrusive<c10d::TCPStore>(env.master, store_options);
  auto nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, env.rank, env.world,
                                                          c10d::ProcessGroupNCCL::Options::create());

  auto model = std::make_shared<Regressor>();
  model->to(device);
  c10d::broadcast_coalesced(nccl, model->parameters(), 16 * 1024 * 1024, 0);

  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(2e-4));
  const auto features = torch::randn({40000, 80});
  const auto targets = torch::randn({40000, 20});
  auto frames = torch::data::datasets::TensorDataset(torch::cat({features, targets}, 1))
                    .map(torch::data::transforms::Stack<torch::data::TensorExample>());

  std::vector<c10::intrusive_ptr<c10d::Work>> metric_works;
  std::vector<std::vector<at::Tensor>> metric_tensors;
  metric_tensors.reserve(10);
  for (size_t epoch = 0; epoch < 10; ++epoch) {
    torch::data::samplers::DistributedRandomSampler sampler(40000, env.world, env.rank);
    sampler.set_epoch(epoch);
    auto loader = torch::data::make_data_loader(frames, std::move(sampler), 256);
    auto epoch_loss = torch::zeros({1}, device);
    for (auto& batch : *loader) {
      auto rows = batch.data.to(device);
      auto x = rows.narrow(1, 0, 80);
      auto y = rows.narrow(1, 80, 20);
      auto loss = optimizer.step([&]() {
        optimizer.zero_grad();
        auto l = torch::mse_loss(model->forward(x), y);
        l.backward();
        if (env.world > 1) average_gradients(*nccl, *model);
        return l;
      });
      epoch_loss += loss.detach();
    }
    metric_tensors.push_back({epoch_loss});
    c10d::AllreduceOptions mean;
    mean.reduceOp = c10d::ReduceOp::AVG;
    metric_works.push_back(nccl->allreduce(metric_tensors.back(), mean));
  }

  for (size_t epoch = 0; epoch < metric_works.size(); ++epoch) {
    metric_works[epoch]->wait();
    if (env.rank == 0) {
      std::cout << "epoch " << epoch << " loss " << metric_tensors[epoch][0].item<double>() << "\n";
    }
  }
  if (env.rank == 0) {
    torch::save(model, "regressor.pt");
  }
  return 0;
}
