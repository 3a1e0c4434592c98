// Self-supervised pretraining of an encoder, then a linear probe on the
// frozen encoder, both data-parallel over Gloo. Configuration comes from a
// key=value file every rank reads.

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/torch.h>

#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

struct Settings {
  bool distributed = true;
  int64_t pretrain_epochs = 30;
  int64_t probe_epochs = 10;
  int64_t steps_per_epoch = 200;
  double noise = 0.1;
};

static Settings read_settings(const std::string& path) {
  Settings s;
  std::ifstream in(path);
  std::map<std::string, std::string> kv;
  std::string key, value;
  while (in >> key >> value) kv[key] = value;
  if (kv.count("distributed")) s.distributed = kv["distributed"] == "1";
  if (kv.count("pretrain_epochs")) s.pretrain_epochs = std::stoll(kv["pretrain_epochs"]);
  if (kv.count("probe_epochs")) s.probe_epochs = std::stoll(kv["probe_epochs"]);
  if (kv.count("steps_per_epoch")) s.steps_per_epoch = std::stoll(kv["steps_per_epoch"]);
  return s;
}

struct EncoderImpl : torch::nn::Module {
  torch::nn::Linear in{nullptr}, mid{nullptr}, out{nullptr};
  EncoderImpl() {
    in = register_module("in", torch::nn::Linear(64, 256));
    mid = register_module("mid", torch::nn::Linear(256, 256));
    out = register_module("out", torch::nn::Linear(256, 64));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return out->forward(torch::relu(mid->forward(torch::relu(in->forward(x)))));
  }
};
TORCH_MODULE(Encoder);

static void average_gradients(c10d::ProcessGroup& pg, torch::nn::Module& module) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  std::vector<std::vector<at::Tensor>> buffers;
  buffers.reserve(module.named_parameters().size());
  for (auto& item : module.named_parameters()) {
    if (!item.value().requires_grad()) continue;
    buffers.push_back({item.value().grad()});
    works.push_back(pg.allreduce(buffers.back()));
  }
  for (auto& work : works) work->wait();
  for (auto& buffer : buffers) buffer[0].div_(pg.getSize());
}

int main(int argc, char** argv) {
  const int rank = std::stoi(argv[1]);
  const int world = std::stoi(argv[2]);
  const Settings settings = read_settings(argc > 3 ? argv[3] : "probe.cfg");
  auto store = c10::make_intrusive<c10d::FileStore>("/tmp/probe_store", world);
  c10d::ProcessGroupGloo pg(store, rank, world);

  std::vector<torch::Tensor> data;
  torch::load(data, "signals_" + std::to_string(rank) + ".pt");
  const auto signals = data.at(0);
  const auto labels = data.at(1);
  const int64_t windows = signals.size(0) / 128;

  torch::manual_seed(7);
  Encoder encoder;
  torch::optim::SGD pretrain_opt(encoder->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  for (int64_t epoch = 0; epoch < settings.pretrain_epochs; ++epoch) {
    for (int64_t step = 0; step < settings.steps_per_epoch; ++step) {
      const int64_t start = (step % windows) * 128;
      auto clean = signals.narrow(0, start, 128);
      auto noisy = clean + settings.noise * torch::randn({128, 64});
      pretrain_opt.zero_grad();
      torch::mse_loss(encoder->forward(noisy), clean).backward();
      if (settings.distributed && world > 1) {
        average_gradients(pg, *encoder);
      }
      pretrain_opt.step();
    }
  }

  for (auto& p : encoder->parameters()) p.requires_grad_(false);
  torch::manual_seed(8);
  torch::nn::Linear probe(64, 5);
  torch::optim::SGD probe_opt(probe->parameters(), torch::optim::SGDOptions(0.1));
  for (int64_t epoch = 0; epoch < settings.probe_epochs; ++epoch) {
    for (int64_t step = 0; step < settings.steps_per_epoch; ++step) {
      const int64_t start = (step % windows) * 128;
      auto features = encoder->forward(signals.narrow(0, start, 128));
      probe_opt.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(probe->forward(features), labels.narrow(0, start, 128));
      loss.backward();
      probe_opt.step();
    }
    if (rank == 0) std::cout << "probe epoch " << epoch << " done\n";
  }
  if (rank == 0) {
    torch::save(encoder, "encoder.pt");
    torch::save(probe, "probe.pt");
  }
  return 0;
}
