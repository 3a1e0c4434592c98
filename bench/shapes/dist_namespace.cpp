// Regression on synthetic features. Collectives go through the project's
// `distributed` helpers; the run mode picks how gradients are exchanged.
//
//   RANK=0 WORLD_SIZE=2 ./regress [flat|per-tensor|averaged]

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace distributed {

enum class Op { Sum, Max };

c10::intrusive_ptr<c10d::ProcessGroup>& group() {
  static c10::intrusive_ptr<c10d::ProcessGroup> pg;
  return pg;
}

void init(int rank, int world) {
  c10d::TCPStoreOptions options;
  options.port = 29512;
  options.isServer = rank == 0;
  options.numWorkers = static_cast<size_t>(world);
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
  group() = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);
}

int rank() { return group()->getRank(); }
int world_size() { return group()->getSize(); }

void allreduce(at::Tensor& t, Op op = Op::Sum) {
  c10d::AllreduceOptions options;
  options.reduceOp = op == Op::Sum ? c10d::ReduceOp::SUM : c10d::ReduceOp::MAX;
  std::vector<at::Tensor> tensors{t};
  group()->allreduce(tensors, options)->wait();
}

c10::intrusive_ptr<c10d::Work> allreduce_async(std::vector<at::Tensor>& tensors) {
  return group()->allreduce(tensors);
}

void average_gradients(torch::nn::Module& model) {
  std::vector<at::Tensor> grads;
  for (auto& p : model.parameters()) grads.push_back(p.grad());
  group()->allreduce_coalesced(grads)->wait();
  for (auto& g : grads) g.div_(world_size());
}

void broadcast_parameters(torch::nn::Module& model) {
  torch::NoGradGuard no_grad;
  for (auto& p : model.parameters()) {
    std::vector<at::Tensor> tensors{p};
    group()->broadcast(tensors)->wait();
  }
}

}  // namespace distributed

void exchange_flat(torch::nn::Sequential& model) {
  std::vector<torch::Tensor> pieces;
  for (auto& p : model->parameters()) pieces.push_back(p.grad().reshape({-1}));
  torch::Tensor flat = torch::cat(pieces);
  distributed::allreduce(flat, distributed::Op::Sum);
  int64_t offset = 0;
  for (auto& p : model->parameters()) {
    const int64_t n = p.numel();
    p.mutable_grad().copy_(flat.slice(0, offset, offset + n).view_as(p));
    offset += n;
  }
}

void exchange_per_tensor(torch::nn::Sequential& model) {
  const double scale = 1.0 / distributed::world_size();
  for (auto& p : model->parameters()) {
    distributed::allreduce(p.mutable_grad());
    p.mutable_grad().mul_(scale);
  }
}

double epoch_loss(double loss_sum, double batches) {
  std::vector<at::Tensor> stats{torch::tensor({loss_sum, batches}, torch::kDouble)};
  distributed::allreduce_async(stats);
  return (stats[0][0] / stats[0][1]).item<double>();
}

int main(int argc, char** argv) {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  const std::string mode = argc > 1 ? argv[1] : "averaged";
  distributed::init(rank, world);

  torch::nn::Sequential model(torch::nn::Linear(32, 64), torch::nn::Tanh(),
                              torch::nn::Linear(64, 1));
  distributed::broadcast_parameters(*model);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));

  torch::manual_seed(100 + rank);
  const torch::Tensor features = torch::randn({4096, 32});
  const torch::Tensor targets = features.sum(1, true) * 0.1;
  for (int epoch = 0; epoch < 30; ++epoch) {
    double loss_sum = 0.0;
    double batches = 0.0;
    for (int64_t start = 0; start < features.size(0); start += 256) {
      optimizer.zero_grad();
      auto x = features.slice(0, start, start + 256);
      auto y = targets.slice(0, start, start + 256);
      auto loss = torch::mse_loss(model->forward(x), y);
      loss.backward();
      if (mode == "flat") {
        exchange_flat(model);
      } else if (mode == "per-tensor") {
        exchange_per_tensor(model);
      } else {
        distributed::average_gradients(*model);
      }
      optimizer.step();
      loss_sum += loss.item<double>();
      batches += 1.0;
    }
    torch::Tensor worst = torch::tensor({loss_sum / batches}, torch::kDouble);
    distributed::allreduce(worst, distributed::Op::Max);
    const double mean = epoch_loss(loss_sum, batches);
    if (distributed::rank() == 0) {
      std::cout << epoch << " mean " << mean << " worst " << worst.item<double>() << "\n";
    }
  }
  return 0;
}
