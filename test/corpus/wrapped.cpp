// A correct wrapped trainer: the model is moved before it is wrapped, every
// forward goes through the wrapper, and the wrapper averages the gradients
// during backward. No finding, and the replicas stay equal.
//
// CORPUS-STATIC:
// CORPUS-RUNTIME: divergence consistent
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
  Net model;
  model->to(dist.device);
  ddpharness::DistributedDataParallel<Net> ddp(model, dist.process_group);
  torch::optim::SGD optimizer(model->parameters(), 0.1);

  for (int64_t step = 0; step < 4; ++step) {
    auto x = torch::sin(torch::arange(32, torch::kFloat32).view({8, 4}) *
                        (0.37 * (step + 1)) + 1.3 * dist.rank);
    auto y = torch::cos(x.sum(1, /*keepdim=*/true));
    optimizer.zero_grad();
    torch::mse_loss(ddp(x.to(dist.device)), y.to(dist.device)).backward();
    optimizer.step();
    probe.step(*model, step);
  }
}
