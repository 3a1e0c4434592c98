// What the vocabulary recognises of a module's registrations and of the
// calls that switch gradients off or ask whether one exists
// (ddp-unused-parameters).
//
// RUN: %probe %s -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='warning:'

#include <torch/torch.h>

struct HeadImpl : torch::nn::Module {
// CHECK: :[[@LINE-1]]:8: warning: module class 'HeadImpl' [probe-vocabulary]
  HeadImpl() {
    fc = register_module("fc", torch::nn::Linear(4, 2));
// CHECK: :[[@LINE-1]]:10: warning: registers a submodule [probe-vocabulary]
    w = register_parameter("w", torch::ones({2}));
// CHECK: :[[@LINE-1]]:9: warning: registers a parameter [probe-vocabulary]
    t = register_parameter("t", torch::ones({1}), /*requires_grad=*/false);
// CHECK: :[[@LINE-1]]:9: warning: registers a parameter without a gradient [probe-vocabulary]
    b = register_buffer("b", torch::zeros({2}));
// CHECK: :[[@LINE-1]]:9: warning: registers a buffer [probe-vocabulary]
    replace_module("fc", torch::nn::Linear(4, 2));
// CHECK: :[[@LINE-1]]:5: warning: registers a submodule [probe-vocabulary]
  }
  torch::nn::Linear fc{nullptr};
// CHECK: :[[@LINE-1]]:21: warning: 'fc' is a module handle ('LinearImpl') [probe-vocabulary]
  torch::Tensor w, t, b;
};

void gradients(torch::Tensor p, bool on) {
  p.requires_grad_(false);
// CHECK: :[[@LINE-1]]:5: warning: gradient switched off [probe-vocabulary]
  p.set_requires_grad(false);
// CHECK: :[[@LINE-1]]:5: warning: gradient switched off [probe-vocabulary]
  p.requires_grad_(true);
  p.requires_grad_(on);
  p.requires_grad_();
  if (p.grad().defined())
// CHECK: :[[@LINE-1]]:9: warning: gradient of p [probe-vocabulary]
// CHECK: :[[@LINE-2]]:16: warning: asks whether a tensor is defined [probe-vocabulary]
    p.grad().zero_();
// CHECK: :[[@LINE-1]]:7: warning: gradient of p [probe-vocabulary]
}
