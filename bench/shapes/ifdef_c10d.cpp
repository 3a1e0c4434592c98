// flags: -DUSE_C10D
// Denoising autoencoder. Builds as a single-process trainer, or as a
// data-parallel one over Gloo when configured with USE_C10D.

#include <torch/torch.h>

#ifdef USE_C10D
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

struct Env {
  int rank = 0;
  int world = 1;
#ifdef USE_C10D
  c10::intrusive_ptr<c10d::ProcessGroup> pg;
#endif
};

Env setup_env() {
  Env env;
#ifdef USE_C10D
  if (const char* r = std::getenv("RANK")) env.rank = std::atoi(r);
  if (const char* w = std::getenv("WORLD_SIZE")) env.world = std::atoi(w);
  auto store = c10::make_intrusive<c10d::FileStore>("/tmp/autoencoder.store", env.world);
  env.pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, env.rank, env.world);
#endif
  return env;
}

void sync_gradients(Env& env, torch::nn::Module& model) {
#ifdef USE_C10D
  for (auto& p : model.parameters()) {
    std::vector<at::Tensor> grad{p.grad()};
    env.pg->allreduce(grad)->wait();
    p.mutable_grad().div_(env.world);
  }
#endif
}

struct Noisy : torch::data::datasets::Dataset<Noisy> {
  explicit Noisy(torch::Tensor clean) : clean(std::move(clean)) {}
  torch::data::Example<> get(size_t i) override {
    auto x = clean[static_cast<int64_t>(i)];
    return {x + 0.1 * torch::randn_like(x), x};
  }
  torch::optional<size_t> size() const override { return clean.size(0); }
  torch::Tensor clean;
};

double reconstruction_error(Env& env, torch::nn::Sequential& model, const torch::Tensor& held_out) {
  torch::NoGradGuard no_grad;
  double totals[2] = {torch::mse_loss(model->forward(held_out), held_out).item<double>(), 1.0};
#ifdef USE_C10D
  std::vector<at::Tensor> t{torch::tensor({totals[0], totals[1]}, torch::kDouble)};
  env.pg->allreduce(t)->wait();
  totals[0] = t[0][0].item<double>();
  totals[1] = t[0][1].item<double>();
#endif
  return totals[0] / totals[1];
}

int main() {
  Env env = setup_env();
  torch::manual_seed(3);
  torch::nn::Sequential model(torch::nn::Linear(64, 16), torch::nn::ReLU(), torch::nn::Linear(16, 64));
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(1e-3));
  auto dataset = Noisy(torch::rand({5000, 64})).map(torch::data::transforms::Stack<>());
  const auto held_out = torch::rand({500, 64});

  for (size_t epoch = 0; epoch < 12; ++epoch) {
    torch::data::samplers::DistributedRandomSampler sampler(5000, env.world, env.rank);
    sampler.set_epoch(epoch);
    auto loader = torch::data::make_data_loader(dataset, sampler, 100);
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto loss = torch::mse_loss(model->forward(batch.data), batch.target);
      loss.backward();
      sync_gradients(env, *model);
      optimizer.step();
    }
    if (env.rank == 0) {
      const double error = reconstruction_error(env, model, held_out);
      std::cout << "epoch " << epoch << " held-out error " << error << "\n";
      torch::save(model, "autoencoder.pt");
    }
#ifdef USE_C10D
    env.pg->barrier()->wait();
#endif
  }
  return 0;
}
