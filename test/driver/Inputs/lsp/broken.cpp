// A trainer that does not compile (an undeclared helper), with a forward
// on the inner module that the checks still see.
#include "wrapper.h"

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using DDP = dp::DistributedDataParallel<Net>;

void train(c10::intrusive_ptr<c10d::ProcessGroup> pg, torch::Tensor x) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  auto loss = model->forward(x).sum();
  loss.backward();
  log_progress(loss);
}
