// A trainer with one safe fix-it (a forward on the inner module instead of
// its wrapper) and one unsafe one (a collective nobody waits for).
#include "wrapper.h"

#include <memory>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using DDP = dp::DistributedDataParallel<Net>;
using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

void train(PG pg, torch::Tensor x, torch::Tensor y, torch::optim::SGD &opt) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  auto out = model->forward(x);
  auto loss = torch::mse_loss(out, y);
  loss.backward();
  opt.step();
}

void sync(PG pg, std::vector<at::Tensor> &tensors) {
  pg->allreduce(tensors);
}
