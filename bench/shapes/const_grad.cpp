// MLP on flattened 28x28 digits over Gloo, with the project's own
// broadcast and all-reduce helpers.

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdlib>
#include <iostream>
#include <vector>

void all_reduce(torch::Tensor& tensor, c10d::ProcessGroup& pg, c10d::ReduceOp op) {
  std::vector<torch::Tensor> tensors{tensor};
  c10d::AllreduceOptions options;
  options.reduceOp = op;
  pg.allreduce(tensors, options)->wait();
}

void broadcast(torch::Tensor& tensor, c10d::ProcessGroup& pg, int root) {
  std::vector<torch::Tensor> tensors{tensor};
  c10d::BroadcastOptions options;
  options.rootRank = root;
  pg.broadcast(tensors, options)->wait();
}

struct MlpImpl : torch::nn::Module {
  MlpImpl()
      : fc1(register_module("fc1", torch::nn::Linear(784, 256))),
        fc2(register_module("fc2", torch::nn::Linear(256, 10))) {}
  torch::Tensor forward(torch::Tensor x) { return fc2(torch::relu(fc1(x.view({-1, 784})))); }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Mlp);

int main() {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  c10d::TCPStoreOptions options;
  options.port = 29400;
  options.isServer = rank == 0;
  options.numWorkers = static_cast<size_t>(world);
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  Mlp model;
  {
    torch::NoGradGuard no_grad;
    for (auto& param : model->parameters()) broadcast(param, *pg, 0);
  }
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));

  torch::manual_seed(rank);
  const auto images = torch::rand({1024, 1, 28, 28});
  const auto labels = torch::randint(10, {1024});
  for (int epoch = 0; epoch < 15; ++epoch) {
    double loss_sum = 0.0;
    for (int64_t start = 0; start < images.size(0); start += 64) {
      optimizer.zero_grad();
      auto output = model->forward(images.slice(0, start, start + 64));
      auto loss = torch::nn::functional::cross_entropy(output, labels.slice(0, start, start + 64));
      loss.backward();
      for (auto& param : model->parameters()) {
        all_reduce(param.grad(), *pg, c10d::ReduceOp::SUM);
      }
      optimizer.step();
      loss_sum += loss.item<double>();
    }
    torch::Tensor epoch_loss = torch::tensor({loss_sum});
    all_reduce(epoch_loss, *pg, c10d::ReduceOp::SUM);
    epoch_loss /= world;
    if (rank == 0) std::cout << "epoch " << epoch << " loss " << epoch_loss.item<double>() << "\n";
  }
  if (rank == 0) torch::save(model, "mlp.pt");
  return 0;
}
