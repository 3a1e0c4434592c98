// Small convolutional net whose gradients are reduced from tensor hooks as
// backward produces them; the step waits for the outstanding reductions.

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdlib>
#include <iostream>
#include <vector>

struct HookSync {
  struct Reduction {
    size_t index;
    std::vector<at::Tensor> buffer;
    c10::intrusive_ptr<c10d::Work> work;
  };

  c10::intrusive_ptr<c10d::ProcessGroup> pg;
  std::vector<torch::Tensor> params;
  std::vector<Reduction> pending;
  double world_size = 1.0;

  void attach(torch::nn::Module& model) {
    params = model.parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      params[i].register_hook([this, i](torch::Tensor grad) {
        std::vector<at::Tensor> buffer{grad / world_size};
        auto work = pg->allreduce(buffer);
        pending.push_back({i, buffer, work});
      });
    }
  }

  void finish() {
    for (auto& r : pending) {
      r.work->wait();
      params[r.index].mutable_grad().copy_(r.buffer[0]);
    }
    pending.clear();
  }
};

struct ConvNetImpl : torch::nn::Module {
  ConvNetImpl()
      : conv(register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 16, 5)))),
        fc(register_module("fc", torch::nn::Linear(16 * 12 * 12, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(conv->forward(x)), 2);
    return fc->forward(x.flatten(1));
  }
  torch::nn::Conv2d conv;
  torch::nn::Linear fc;
};
TORCH_MODULE(ConvNet);

int main() {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  torch::manual_seed(42 + rank);

  c10d::TCPStoreOptions options;
  options.isServer = rank == 0;
  options.numWorkers = static_cast<size_t>(world);
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);

  HookSync sync;
  sync.pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);
  sync.world_size = world;
  ConvNet net;
  sync.attach(*net);
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));

  const auto images = torch::randn({640, 1, 28, 28});
  const auto labels = torch::randint(10, {640});
  for (int epoch = 0; epoch < 8; ++epoch) {
    double loss_sum = 0.0;
    for (int64_t start = 0; start < 640; start += 32) {
      optimizer.zero_grad();
      auto logits = net->forward(images.slice(0, start, start + 32));
      auto loss = torch::nn::functional::cross_entropy(logits, labels.slice(0, start, start + 32));
      loss.backward();
      sync.finish();
      optimizer.step();
      loss_sum += loss.item<double>();
    }
    if (rank == 0) std::cout << "epoch " << epoch << " local loss " << loss_sum / 20 << "\n";
  }
  if (rank == 0) torch::save(net, "convnet.pt");
  return 0;
}
