// Sequence classifier (GRU over feature frames) trained with the lab's
// Communicator, a thin object over a Gloo process group.

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

class Communicator {
 public:
  Communicator(const std::string& host, int port, int rank, int size) {
    c10d::TCPStoreOptions options;
    options.port = static_cast<uint16_t>(port);
    options.isServer = rank == 0;
    options.numWorkers = static_cast<size_t>(size);
    auto store = c10::make_intrusive<c10d::TCPStore>(host, options);
    pg_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size);
  }

  int rank() const { return pg_->getRank(); }
  int size() const { return pg_->getSize(); }

  void sum(at::Tensor& t) {
    std::vector<at::Tensor> tensors{t};
    pg_->allreduce(tensors)->wait();
  }

  void sync(std::vector<at::Tensor>& grads) {
    pg_->allreduce_coalesced(grads)->wait();
    for (auto& g : grads) g.div_(size());
  }

  void broadcast(at::Tensor& t, int root) {
    std::vector<at::Tensor> tensors{t};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    pg_->broadcast(tensors, options)->wait();
  }

  void barrier() { pg_->barrier()->wait(); }

 private:
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
};

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl(int64_t features, int64_t hidden, int64_t classes)
      : gru(register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(features, hidden)
                                                       .batch_first(true)))),
        head(register_module("head", torch::nn::Linear(hidden, classes))) {}

  torch::Tensor forward(const torch::Tensor& frames) {
    auto output = std::get<0>(gru->forward(frames));
    return head->forward(output.select(1, -1));
  }

  torch::nn::GRU gru;
  torch::nn::Linear head;
};
TORCH_MODULE(Classifier);

struct Utterances : torch::data::datasets::Dataset<Utterances> {
  Utterances(torch::Tensor frames, torch::Tensor labels)
      : frames(std::move(frames)), labels(std::move(labels)) {}
  torch::data::Example<> get(size_t i) override {
    return {frames[static_cast<int64_t>(i)], labels[static_cast<int64_t>(i)]};
  }
  torch::optional<size_t> size() const override { return frames.size(0); }
  torch::Tensor frames, labels;
};

int main() {
  Communicator comm(std::getenv("MASTER_ADDR"), std::atoi(std::getenv("MASTER_PORT")),
                    std::atoi(std::getenv("RANK")), std::atoi(std::getenv("WORLD_SIZE")));
  torch::manual_seed(17);
  Classifier model(40, 128, 12);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(3e-4));

  auto dataset = Utterances(torch::randn({2048, 50, 40}), torch::randint(12, {2048}))
                     .map(torch::data::transforms::Stack<>());

  const double give_up_loss = 25.0;
  const double target_loss = 0.2;
  for (size_t epoch = 0; epoch < 40; ++epoch) {
    torch::data::samplers::DistributedRandomSampler sampler(2048, comm.size(), comm.rank());
    sampler.set_epoch(epoch);
    auto loader = torch::data::make_data_loader(dataset, sampler, 64);
    double loss_sum = 0.0;
    int64_t batches = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(model->forward(batch.data), batch.target);
      if (!std::isfinite(loss.item<double>()) || loss.item<double>() > give_up_loss) {
        std::cerr << "rank " << comm.rank() << " diverged at epoch " << epoch << "\n";
        break;
      }
      loss.backward();
      std::vector<at::Tensor> grads;
      for (auto& p : model->parameters()) grads.push_back(p.grad());
      comm.sync(grads);
      optimizer.step();
      loss_sum += loss.item<double>();
      ++batches;
    }
    torch::Tensor stats = torch::tensor({loss_sum, static_cast<double>(batches)}, torch::kDouble);
    comm.sum(stats);
    const double mean_loss = (stats[0] / stats[1]).item<double>();
    if (comm.rank() == 0) {
      std::cout << "epoch " << epoch << " loss " << mean_loss << "\n";
      torch::save(model, "classifier.pt");
    }
    comm.barrier();
    if (mean_loss < target_loss) break;
  }
  return 0;
}
