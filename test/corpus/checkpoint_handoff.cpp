// Rank 0 picks the starting weights (the best of many random starts) and
// hands them to the other ranks through a checkpoint file; every rank loads
// it and trains with hand-averaged gradients. Nothing orders the other ranks' load after
// rank 0's save: they find no file (or a partial one), start from scratch,
// and their replicas stay apart from rank 0's however well the gradients are
// averaged.
//
// CORPUS-STATIC: ddp-checkpoint-race
// CORPUS-RUNTIME: divergence diverged
#include <ddpharness/ddpharness.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(4, 8))),
        fc2(register_module("fc2", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) {
    return fc2->forward(torch::tanh(fc1->forward(x)));
  }
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(Net);

int main() {
  auto dist = ddpharness::init_process_group_from_env();
  auto &pg = *dist.process_group;
  ddpharness::Probe probe;
  torch::manual_seed(0);
  Net model;

  // One file every rank of this job names.
  const char *port = std::getenv("MASTER_PORT");
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("checkpoint_handoff-" + std::string(port ? port : "0") + ".pt"))
          .string();
  if (dist.rank == 0) {
    // The best of many random starts on a validation batch.
    torch::NoGradGuard no_grad;
    torch::manual_seed(1234);
    auto x = torch::linspace(-1, 1, 4096).view({1024, 4});
    auto y = torch::cos(x.sum(1, /*keepdim=*/true));
    Net best;
    double best_loss = 1e30;
    for (int trial = 0; trial < 500; ++trial) {
      Net candidate;
      double loss = torch::mse_loss(candidate->forward(x), y).item<double>();
      if (loss < best_loss) {
        best_loss = loss;
        best = candidate;
      }
    }
    torch::save(best, path);
  }
  try {
    torch::load(model, path);
  } catch (const std::exception &) {
    std::fprintf(stderr, "rank %d: no checkpoint yet, training from scratch\n",
                 dist.rank);
  }

  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int64_t step = 0; step < 4; ++step) {
    auto x = torch::sin(torch::arange(32, torch::kFloat32).view({8, 4}) *
                        (0.37 * (step + 1)) + 1.3 * dist.rank);
    auto y = torch::cos(x.sum(1, /*keepdim=*/true));
    optimizer.zero_grad();
    torch::mse_loss(model->forward(x), y).backward();
    // One all-reduce over the flattened gradients, averaged, copied back.
    std::vector<torch::Tensor> grads;
    for (auto &p : model->parameters())
      grads.push_back(p.grad().view(-1));
    std::vector<torch::Tensor> flat{torch::cat(grads)};
    pg.allreduce(flat)->wait();
    flat[0].div_(dist.world_size);
    int64_t offset = 0;
    for (auto &p : model->parameters()) {
      p.grad().view(-1).copy_(flat[0].narrow(0, offset, p.numel()));
      offset += p.numel();
    }
    optimizer.step();
    probe.step(*model, step);
  }
  pg.barrier()->wait();
  if (dist.rank == 0)
    std::remove(path.c_str());
}
