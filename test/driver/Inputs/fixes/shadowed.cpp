// The wrapper's name means something else where the forward runs, so the
// fix-it's `ddp->forward(x)` would not compile: ddplint --fix must restore
// the file.
#include "wrapper.h"

#include <memory>

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
  {
    int ddp = 0;
    auto loss = torch::mse_loss(model->forward(x), y) * ddp;
    loss.backward();
  }
  opt.step();
}
