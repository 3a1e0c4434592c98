// Wraps the model, then round-trips it through float64 for an "accurate"
// evaluation. Module::to replaces the parameters' data and, with another
// dtype, their gradient accumulators: the wrapper's hooks stay on the old
// ones, gradients are never averaged again and each rank trains alone.
//
// CORPUS-STATIC: ddp-device-move-after-wrap
// CORPUS-RUNTIME: divergence diverged
#include <ddpharness/ddpharness.h>
#include <torch/torch.h>

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
  ddpharness::DistributedDataParallel<Net> ddp(model, dist.process_group);

  // Evaluate in double precision before training, then go back.
  model->to(torch::kFloat64);
  model->to(torch::kFloat32);

  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int64_t step = 0; step < 4; ++step) {
    auto x = torch::sin(torch::arange(32, torch::kFloat32).view({8, 4}) *
                        (0.37 * (step + 1)) + 1.3 * dist.rank);
    auto y = torch::cos(x.sum(1, /*keepdim=*/true));
    optimizer.zero_grad();
    torch::mse_loss(ddp(x), y).backward();
    optimizer.step();
    probe.step(*model, step);
  }
}
