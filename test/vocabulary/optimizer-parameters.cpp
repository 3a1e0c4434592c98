// Optimizer parameter additions and module copies, as the vocabulary sees
// them (what ddp-optimizer-stale-parameters builds on).
//
// RUN: %probe %s -- %mock_flags 2>/dev/null | FileCheck %s -implicit-check-not='warning:'

#include <torch/torch.h>

#include <memory>

struct NetImpl : torch::nn::Module {};
// CHECK: :[[@LINE-1]]:8: warning: module class 'NetImpl' [probe-vocabulary]
TORCH_MODULE(Net);

void copies_and_groups(Net model, torch::optim::SGD &sgd,
// CHECK: :[[@LINE-1]]:28: warning: 'model' is a module handle ('NetImpl') [probe-vocabulary]
                       std::unique_ptr<torch::optim::Adam> adam,
                       torch::Tensor t) {
  auto copy = model->clone();
// CHECK: :[[@LINE-1]]:8: warning: 'copy' is a module handle ('Module') [probe-vocabulary]
// CHECK: :[[@LINE-2]]:22: warning: copy of model [probe-vocabulary]
  sgd.add_param_group(torch::optim::OptimizerParamGroup({t}));
// CHECK: :[[@LINE-1]]:7: warning: parameters added to sgd [probe-vocabulary]
  adam->add_parameters({t});
// CHECK: :[[@LINE-1]]:9: warning: parameters added to adam [probe-vocabulary]
  // A tensor's clone is no module copy.
  auto u = t.clone();
}

// Left dependent: a copy by the member's name, parameters added to an object
// named like an optimizer.
template <class Model, class Optim>
void dependent(std::shared_ptr<Model> model_, Optim &optimizer, Optim &other,
               torch::Tensor t) {
  auto copy = model_->clone();
// CHECK: :[[@LINE-1]]:15: warning: copy of model_ [probe-vocabulary]
  optimizer.add_param_group({t});
// CHECK: :[[@LINE-1]]:3: warning: parameters added to optimizer [probe-vocabulary]
  other.add_param_group({t});
}
