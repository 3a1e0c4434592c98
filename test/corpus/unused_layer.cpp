// A classifier keeps the auxiliary head of an earlier experiment: registered
// in the constructor, never called in forward(). The wrapper hooks its
// parameters like every other and waits for their gradients, which never
// come: the head's bucket is never reduced, and every rank stops in its
// first backward pass on the wrapper's error (PyTorch's reducer fails the
// next iteration the same way, or hangs when ranks differ).
//
// CORPUS-STATIC: ddp-unused-parameters
// CORPUS-RUNTIME: hang crash
#include <ddpharness/ddpharness.h>
#include <torch/torch.h>

struct ClassifierImpl : torch::nn::Module {
  ClassifierImpl()
      : body(register_module("body", torch::nn::Linear(4, 8))),
        head(register_module("head", torch::nn::Linear(8, 1))),
        aux_head(register_module("aux_head", torch::nn::Linear(8, 3))) {}
  torch::Tensor forward(torch::Tensor x) {
    return head->forward(torch::relu(body->forward(x)));
  }
  torch::nn::Linear body, head, aux_head;
};
TORCH_MODULE(Classifier);

int main() {
  auto dist = ddpharness::init_process_group_from_env();
  ddpharness::Probe probe;
  torch::manual_seed(0);
  Classifier model;
  ddpharness::DistributedDataParallel<Classifier> ddp(model,
                                                      dist.process_group);
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
