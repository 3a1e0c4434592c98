// Rank 0 all-reduces the final loss to log the global mean, inside
// `if (rank == 0)`; then every rank waits at a barrier before rank 0 saves.
// Rank 1 never joins the all-reduce: rank 0 waits in it while rank 1 waits
// in the barrier, and the job hangs until the collective timeout.
//
// CORPUS-STATIC: ddp-divergent-collective
// CORPUS-RUNTIME: hang hang
#include <ddpharness/ddpharness.h>
#include <torch/torch.h>

#include <cstdio>

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
  auto group = dist.process_group;
  ddpharness::Probe probe;
  torch::manual_seed(0);
  Net model;
  ddpharness::DistributedDataParallel<Net> ddp(model, group);
  torch::optim::SGD optimizer(model->parameters(), 0.1);

  torch::Tensor loss;
  for (int64_t step = 0; step < 4; ++step) {
    auto x = torch::sin(torch::arange(32, torch::kFloat32).view({8, 4}) *
                        (0.37 * (step + 1)) + 1.3 * dist.rank);
    auto y = torch::cos(x.sum(1, /*keepdim=*/true));
    optimizer.zero_grad();
    loss = torch::mse_loss(ddp(x), y);
    loss.backward();
    optimizer.step();
    probe.step(*model, step);
  }

  if (group->getRank() == 0) {
    std::vector<torch::Tensor> total{loss.detach().clone()};
    group->allreduce(total)->wait();
    std::printf("mean loss %f\n",
                total[0].item<double>() / group->getSize());
  }
  group->barrier()->wait();
}
