// Part of a larger trainer: no main, so confirm cannot run it on its own.
#include <torch/torch.h>

void train_step(torch::nn::Linear &model, torch::optim::SGD &optimizer) {
  torch::manual_seed(0);
  (void)model;
  optimizer.step();
}
