// One-pass fine-tune of a digit classifier, optionally starting from a
// checkpoint. Written as a single main with local helpers.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

struct DigitNetImpl : torch::nn::Module {
  torch::nn::Conv2d c1{nullptr}, c2{nullptr};
  torch::nn::Linear fc{nullptr};
  DigitNetImpl() {
    c1 = register_module("c1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 8, 5)));
    c2 = register_module("c2", torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 16, 5)));
    fc = register_module("fc", torch::nn::Linear(16 * 4 * 4, 10));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(c1->forward(x)), {2, 2});
    x = torch::max_pool2d(torch::relu(c2->forward(x)), {2, 2});
    return torch::log_softmax(fc->forward(x.flatten(1)), 1);
  }
};
TORCH_MODULE(DigitNet);

int main(int argc, char** argv) {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  const std::string resume = argc > 1 ? argv[1] : "";
  const std::string data_root = argc > 2 ? argv[2] : "./mnist";

  c10d::TCPStoreOptions store_options;
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
  auto store = c10::make_intrusive<c10d::TCPStore>(std::getenv("MASTER_ADDR"), store_options);
  auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  auto run = [&](std::vector<at::Tensor>& tensors) { group->allreduce(tensors)->wait(); };

  DigitNet net;
  if (!resume.empty()) {
    torch::load(net, resume);
  } else {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> flat_parts;
    for (const auto& p : net->parameters()) flat_parts.push_back(p.reshape({-1}));
    std::vector<at::Tensor> payload{torch::cat(flat_parts)};
    group->broadcast(payload)->wait();
    int64_t offset = 0;
    for (auto& p : net->parameters()) {
      p.copy_(payload[0].narrow(0, offset, p.numel()).view_as(p));
      offset += p.numel();
    }
  }

  auto sync_grads = [&]() {
    std::vector<torch::Tensor> flat_parts;
    for (const auto& p : net->parameters()) flat_parts.push_back(p.grad().reshape({-1}));
    std::vector<at::Tensor> flat{torch::cat(flat_parts)};
    group->allreduce(flat)->wait();
    int64_t offset = 0;
    for (auto& p : net->parameters()) {
      auto g = p.grad();
      g.data() = flat[0].narrow(0, offset, g.numel()).view_as(g);
      g.data() = g.data() / world;
      offset += g.numel();
    }
  };

  auto train_set = torch::data::datasets::MNIST(data_root)
                       .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                       .map(torch::data::transforms::Stack<>());
  torch::data::samplers::DistributedRandomSampler sampler(train_set.size().value(), world, rank);
  auto loader = torch::data::make_data_loader(train_set, sampler, 64);
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.5));

  net->train();
  size_t step = 0;
  for (auto& batch : *loader) {
    optimizer.zero_grad();
    auto loss = torch::nll_loss(net->forward(batch.data), batch.target);
    loss.backward();
    sync_grads();
    optimizer.step();
    if (rank == 0 && ++step % 100 == 0) std::cout << "step " << step << " loss " << loss.item<float>() << "\n";
  }

  torch::NoGradGuard no_grad;
  net->eval();
  auto test_set = torch::data::datasets::MNIST(data_root, torch::data::datasets::MNIST::Mode::kTest)
                      .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                      .map(torch::data::transforms::Stack<>());
  auto test_loader = torch::data::make_data_loader(
      test_set, torch::data::samplers::DistributedSequentialSampler(test_set.size().value(), world, rank),
      1000);
  std::vector<at::Tensor> tally{torch::zeros({2}, torch::kFloat64)};
  for (auto& batch : *test_loader) {
    auto predicted = net->forward(batch.data).argmax(1);
    tally[0][0] += predicted.eq(batch.target).sum().to(torch::kFloat64);
    tally[0][1] += static_cast<double>(batch.target.size(0));
  }
  run(tally);
  if (rank == 0) {
    std::cout << "test accuracy " << (tally[0][0] / tally[0][1]).item<double>() << "\n";
    torch::save(net, "digits_finetuned.pt");
  }
  return 0;
}
