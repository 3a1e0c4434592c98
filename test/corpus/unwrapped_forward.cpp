// Calls forward on the wrapped module itself (to skip the wrapper's
// "overhead" in a custom loss). Only the wrapper's forward arms its
// gradient hooks, so backward averages nothing and the replicas drift.
// One cause, one warning: ddp-unsynced-gradients leaves this step to
// ddp-unwrapped-forward.
//
// CORPUS-STATIC: ddp-unwrapped-forward
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
  torch::optim::SGD optimizer(model->parameters(), 0.1);

  for (int64_t step = 0; step < 4; ++step) {
    auto x = torch::sin(torch::arange(32, torch::kFloat32).view({8, 4}) *
                        (0.37 * (step + 1)) + 1.3 * dist.rank);
    auto y = torch::cos(x.sum(1, /*keepdim=*/true));
    optimizer.zero_grad();
    auto out = ddp.module()->forward(x);
    torch::mse_loss(out, y).backward();
    optimizer.step();
    probe.step(*model, step);
  }
}
