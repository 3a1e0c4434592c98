// A hand-synced trainer that knows nothing of the harness: raw c10d over
// Gloo, set up from torchrun's environment. It averages the gradients
// correctly, but seeds each rank differently and never broadcasts the
// parameters, so the replicas start apart and stay apart.
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <cstdlib>

int main() {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  c10d::TCPStoreOptions store_options;
  store_options.port = std::atoi(std::getenv("MASTER_PORT"));
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
#if TORCH_VERSION_MAJOR >= 2
  // LibTorch 2.x asks for libuv by default; Debian's is built without it.
  store_options.useLibUV = false;
#endif
  auto store = c10::make_intrusive<c10d::TCPStore>(std::getenv("MASTER_ADDR"),
                                                   store_options);
  auto options = c10d::ProcessGroupGloo::Options::create();
  options->devices.push_back(
      c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  c10d::ProcessGroupGloo group(store, rank, world, options);

  torch::manual_seed(1234 + rank);
  torch::nn::Linear model(4, 1);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int step = 0; step < 5; ++step) {
    auto x = torch::randn({8, 4});
    optimizer.zero_grad();
    torch::mse_loss(model->forward(x), x.sum(1, true)).backward();
    for (auto &p : model->parameters()) {
      std::vector<torch::Tensor> grads{p.grad()};
      group.allreduce(grads)->wait();
      p.grad().div_(world);
    }
    optimizer.step();
  }
}
