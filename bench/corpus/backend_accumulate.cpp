// Speech-command classifier trained on a c10d Backend handed out by the
// cluster launcher library. Gradients of several micro-batches are
// accumulated locally and reduced once per optimizer step.

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/torch.h>

#include <cstdio>
#include <string>
#include <vector>

// Defined by the launcher library: connects to the job's rendezvous.
c10::intrusive_ptr<c10d::Backend> open_backend(const std::string& job, int rank, int world);

struct RunConfig {
  int accumulation = 4;
  int micro_batch = 32;
  int epochs = 12;
  int64_t steps_per_epoch = 400;
  double lr = 3e-4;
  bool clip = true;
};

struct KeywordNetImpl : torch::nn::Module {
  torch::nn::Linear frame{nullptr}, mix{nullptr}, head{nullptr};
  torch::nn::Dropout drop{nullptr};
  KeywordNetImpl() {
    frame = register_module("frame", torch::nn::Linear(40, 96));
    mix = register_module("mix", torch::nn::Linear(96, 96));
    drop = register_module("drop", torch::nn::Dropout(0.1));
    head = register_module("head", torch::nn::Linear(96, 12));
  }
  // x: [batch, frames, 40] log-mel features.
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(mix->forward(torch::relu(frame->forward(x))));
    return head->forward(drop->forward(x.mean(1)));
  }
};
TORCH_MODULE(KeywordNet);

// Log-mel features and labels of this rank's shard, written by the
// preprocessing job.
static std::pair<torch::Tensor, torch::Tensor> load_shard(int rank) {
  std::vector<torch::Tensor> tensors;
  torch::load(tensors, "kws_shard_" + std::to_string(rank) + ".pt");
  return {tensors.at(0), tensors.at(1)};
}

class AccumulatingTrainer {
 public:
  AccumulatingTrainer(KeywordNet net, c10::intrusive_ptr<c10d::Backend> backend, RunConfig cfg)
      : net_(net), backend_(backend), cfg_(cfg),
        optimizer_(net->parameters(), torch::optim::AdamOptions(cfg.lr)) {}

  void train_epoch(const torch::Tensor& features, const torch::Tensor& labels) {
    net_->train();
    const int64_t per_step = cfg_.micro_batch * cfg_.accumulation;
    const int64_t windows = features.size(0) / per_step;
    for (int64_t step = 0; step < cfg_.steps_per_epoch; ++step) {
      const int64_t start = (step % windows) * per_step;
      optimizer_.zero_grad();
      for (int micro = 0; micro < cfg_.accumulation; ++micro) {
        auto x = features.narrow(0, start + micro * cfg_.micro_batch, cfg_.micro_batch);
        auto y = labels.narrow(0, start + micro * cfg_.micro_batch, cfg_.micro_batch);
        torch::nn::functional::cross_entropy(net_->forward(x), y).backward();
      }
      std::vector<at::Tensor> grads;
      for (auto& p : net_->parameters()) grads.push_back(p.grad());
      backend_->allreduce_coalesced(grads)->wait();
      for (auto& g : grads) g.div_(cfg_.accumulation);
      if (cfg_.clip) {
        for (auto& g : grads) g.clamp_(-1.0, 1.0);
      }
      optimizer_.step();
    }
  }

  double validate(const torch::Tensor& features, const torch::Tensor& labels) {
    torch::NoGradGuard no_grad;
    net_->eval();
    const int64_t batches = features.size(0) / cfg_.micro_batch;
    if (batches == 0) return 0.0;
    double correct = 0;
    for (int64_t b = 0; b < batches; ++b) {
      auto x = features.narrow(0, b * cfg_.micro_batch, cfg_.micro_batch);
      auto y = labels.narrow(0, b * cfg_.micro_batch, cfg_.micro_batch);
      correct += net_->forward(x).argmax(1).eq(y).sum().item<double>();
    }
    std::vector<at::Tensor> totals{torch::tensor({correct, static_cast<double>(batches * cfg_.micro_batch)})};
    backend_->allreduce(totals)->wait();
    return totals[0][0].item<double>() / totals[0][1].item<double>();
  }

 private:
  KeywordNet net_;
  c10::intrusive_ptr<c10d::Backend> backend_;
  RunConfig cfg_;
  torch::optim::Adam optimizer_;
};

int main(int argc, char** argv) {
  const int rank = std::stoi(argv[1]);
  const int world = std::stoi(argv[2]);
  auto backend = open_backend("kws", rank, world);

  RunConfig cfg;
  torch::manual_seed(1701);
  KeywordNet net;
  AccumulatingTrainer trainer(net, backend, cfg);

  auto features = load_shard(rank);
  // Validation clips are split by speaker.
  std::vector<torch::Tensor> valid;
  torch::load(valid, "kws_valid_speakers_" + std::to_string(rank) + ".pt");
  for (int epoch = 0; epoch < cfg.epochs; ++epoch) {
    trainer.train_epoch(features.first, features.second);
    const double acc = trainer.validate(valid.at(0), valid.at(1));
    if (rank == 0) std::printf("epoch %d accuracy %.3f\n", epoch, acc);
  }
  if (rank == 0) torch::save(net, "keyword_net.pt");
  return 0;
}
