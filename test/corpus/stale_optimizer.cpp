// Resumes from a checkpoint by loading it into a fresh module, after the
// optimizer was built from the first one. The optimizer keeps stepping the
// first module's tensors, which get no gradient; the new module's
// gradients are averaged but never applied, so the model never changes.
//
// CORPUS-STATIC: ddp-optimizer-stale-parameters
// CORPUS-RUNTIME: progress frozen
#include <ddpharness/ddpharness.h>
#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <unistd.h>

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
  ddpharness::Probe probe;
  torch::manual_seed(0);
  Net model;
  torch::optim::SGD optimizer(model->parameters(), 0.1);

  // A checkpoint of this rank's own, read back as a resumed job would.
  const std::string checkpoint =
      (std::filesystem::temp_directory_path() /
       ("stale_optimizer-" + std::to_string(::getpid()) + "-rank" +
        std::to_string(dist.rank) + ".pt"))
          .string();
  torch::save(model, checkpoint);
  model = Net();
  torch::load(model, checkpoint);
  std::remove(checkpoint.c_str());
  ddpharness::DistributedDataParallel<Net> resumed(model, dist.process_group);

  for (int64_t step = 0; step < 4; ++step) {
    auto x = torch::sin(torch::arange(32, torch::kFloat32).view({8, 4}) *
                        (0.37 * (step + 1)) + 1.3 * dist.rank);
    auto y = torch::cos(x.sum(1, /*keepdim=*/true));
    optimizer.zero_grad();
    torch::mse_loss(resumed(x), y).backward();
    optimizer.step();
    probe.step(*model, step);
  }
}
