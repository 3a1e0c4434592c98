// One-layer network on synthetic data, written to overlap the gradient
// all-reduce with the rest of the step. Three variants, picked by argv[1].

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl(int64_t in, int64_t out) {
    weight = register_parameter("weight", torch::randn({out, in}) * 0.05);
    bias = register_parameter("bias", torch::zeros({out}));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::nn::functional::linear(x, weight, bias);
  }
  torch::Tensor weight, bias;
};
TORCH_MODULE(Net);

void train_overlapped(Net& net, torch::optim::SGD& opt, c10d::ProcessGroup& pg,
                      const torch::Tensor& x, const torch::Tensor& y) {
  const double world = pg.getSize();
  for (int step = 0; step < 300; ++step) {
    opt.zero_grad();
    auto loss = torch::mse_loss(net->forward(x), y) / world;
    loss.backward();
    std::vector<at::Tensor> grads{net->weight.mutable_grad(), net->bias.mutable_grad()};
    auto work = pg.allreduce(grads);
    opt.step();
    work->wait();
  }
}

void train_waited(Net& net, torch::optim::SGD& opt, c10d::ProcessGroup& pg,
                  const torch::Tensor& x, const torch::Tensor& y) {
  const double world = pg.getSize();
  double smoothed = 0.0;
  for (int step = 0; step < 300; ++step) {
    opt.zero_grad();
    auto loss = torch::mse_loss(net->forward(x), y) / world;
    loss.backward();
    std::vector<at::Tensor> grads{net->weight.mutable_grad(), net->bias.mutable_grad()};
    auto work = pg.allreduce_coalesced(grads);
    smoothed = 0.9 * smoothed + 0.1 * loss.item<double>() * world;
    work->wait();
    opt.step();
    if (pg.getRank() == 0 && step % 50 == 0) std::cout << step << " " << smoothed << "\n";
  }
}

void train_flat(Net& net, torch::optim::SGD& opt, c10d::ProcessGroup& pg,
                const torch::Tensor& x, const torch::Tensor& y) {
  const double world = pg.getSize();
  const int64_t nw = net->weight.numel();
  for (int step = 0; step < 300; ++step) {
    opt.zero_grad();
    auto loss = torch::mse_loss(net->forward(x), y);
    loss.backward();
    std::vector<at::Tensor> flat{
        torch::cat({net->weight.grad().reshape({-1}), net->bias.grad().reshape({-1})})};
    pg.allreduce(flat)->wait();
    flat[0].div_(world);
    opt.step();
    net->weight.mutable_grad().copy_(flat[0].slice(0, 0, nw).view_as(net->weight));
    net->bias.mutable_grad().copy_(flat[0].slice(0, nw).view_as(net->bias));
  }
}

int main(int argc, char** argv) {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  const std::string variant = argc > 1 ? argv[1] : "waited";
  c10d::TCPStoreOptions options;
  options.isServer = rank == 0;
  options.numWorkers = static_cast<size_t>(world);
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  torch::manual_seed(11);
  Net net(10, 1);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(0.02));
  torch::manual_seed(11 + rank);
  const auto x = torch::randn({512, 10});
  const auto y = x.sum(1, true);
  if (variant == "overlapped") {
    train_overlapped(net, opt, *pg, x, y);
  } else if (variant == "flat") {
    train_flat(net, opt, *pg, x, y);
  } else {
    train_waited(net, opt, *pg, x, y);
  }
  return 0;
}
