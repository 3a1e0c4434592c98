// RUN: %clang_tidy %s -checks='-*,ddp-optimizer-stale-parameters' -- %mock_flags -I%S/Inputs 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-optimizer-stale-parameters' -- %mock_flags -I%S/Inputs 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// test/integration runs this same file against the real LibTorch headers.

#include "wrapper.h"

#include <memory>
#include <string>

struct NetImpl : torch::nn::Cloneable<NetImpl> {
  NetImpl() { reset(); }
  void reset() override { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

using DDP = dp::DistributedDataParallel<Net>;
using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

void train_epoch(Net &model, torch::optim::Optimizer &optimizer);
void evaluate(Net &model);

//===----------------------------------------------------------------------===//
// The holder reassigned
//===----------------------------------------------------------------------===//

// Resuming into a fresh module: the optimizer still holds the parameters of
// the module it was built from.
void resume_into_new_module(const std::string &path, bool resume,
                            torch::Tensor x, torch::Tensor y) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: optimizer 'optimizer' holds the parameters of 'model', but training runs a new module assigned to 'model': the optimizer updates the old parameters and the trained model never changes; build the optimizer after the replacement, or load into 'model' in place instead of replacing it [ddp-optimizer-stale-parameters]
  if (resume) {
    model = Net();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: 'model' is replaced here
    torch::load(model, path);
  }
  for (int step = 0; step < 10; ++step) {
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(x), y);
    // CHECK-MESSAGES: :[[@LINE-1]]:33: note: the new module in 'model' is trained here
    loss.backward();
    optimizer.step();
  }
}

// A shared_ptr holder given a new module; the forward runs through it.
void new_shared_module(torch::Tensor x) {
  auto model = std::make_shared<NetImpl>();
  auto optimizer = std::make_shared<torch::optim::Adam>(model->parameters());
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: optimizer 'optimizer' holds the parameters of 'model', but training runs a new module assigned to 'model'
  model = std::make_shared<NetImpl>();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'model' is replaced here
  for (int step = 0; step < 10; ++step) {
    optimizer->zero_grad();
    model->forward(x).sum().backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the new module in 'model' is trained here
    optimizer->step();
  }
}

// The module re-created every epoch, the optimizer built once.
void recreated_every_epoch(torch::Tensor x, int epochs) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: optimizer 'optimizer' holds the parameters of 'model', but training runs a new module assigned to 'model'
  for (int epoch = 0; epoch < epochs; ++epoch) {
    model = Net();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: 'model' is replaced here
    torch::Tensor loss = model(x).mean();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: note: the new module in 'model' is trained here
    loss.backward();
    optimizer.step();
  }
}

// Training in a helper of the project, handed the new module and the
// optimizer.
void resume_then_helper(const std::string &path, int epochs) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: optimizer 'optimizer' holds the parameters of 'model', but training runs a new module assigned to 'model'
  model = Net();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'model' is replaced here
  torch::load(model, path);
  for (int epoch = 0; epoch < epochs; ++epoch)
    train_epoch(model, optimizer);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: the new module in 'model' is trained here
}

// A wrapper built after the replacement trains the new module.
void wrapped_after_replacement(PG pg, torch::Tensor x) {
  Net model;
  auto optimizer = std::make_unique<torch::optim::SGD>(
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: optimizer 'optimizer' holds the parameters of 'model', but training runs a new module assigned to 'model'
      model->parameters(), torch::optim::SGDOptions(0.1));
  model = Net();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'model' is replaced here
  DDP ddp(model, pg);
  auto loss = ddp.forward(x).sum();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: note: the new module in 'model' is trained here
  loss.backward();
  optimizer->step();
}

// The forward and backward passes in the step's closure.
void closure_after_replacement(torch::Tensor x) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: optimizer 'optimizer' holds the parameters of 'model', but training runs a new module assigned to 'model'
  model = Net();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: 'model' is replaced here
  optimizer.step([&] {
    auto loss = model->forward(x).sum();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: note: the new module in 'model' is trained here
    loss.backward();
    return loss;
  });
}

//===----------------------------------------------------------------------===//
// Training runs a copy
//===----------------------------------------------------------------------===//

// Seed 004 in C++: the optimizer points at the original, training runs a
// replica.
void train_a_replica(torch::Tensor x, torch::Tensor y) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: optimizer 'optimizer' holds the parameters of 'model', but training runs a copy of 'model': the optimizer updates the old parameters and the trained model never changes; build the optimizer after the copy, from the copy's parameters [ddp-optimizer-stale-parameters]
  auto replica = std::dynamic_pointer_cast<NetImpl>(model->clone());
  // CHECK-MESSAGES: :[[@LINE-1]]:53: note: 'model' is copied here
  for (int step = 0; step < 10; ++step) {
    optimizer.zero_grad();
    auto out = replica->forward(x);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: note: the copy of 'model' is trained here
    torch::mse_loss(out, y).backward();
    optimizer.step();
  }
}

// A wrapper built around a copy.
void wrap_a_copy(PG pg, torch::Tensor x) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: optimizer 'optimizer' holds the parameters of 'model', but training runs a copy of 'model'
  auto ddp = std::make_shared<DDP>(
      Net(std::dynamic_pointer_cast<NetImpl>(model->clone())), pg);
  // CHECK-MESSAGES: :[[@LINE-1]]:46: note: 'model' is copied here
  for (int step = 0; step < 10; ++step) {
    auto loss = ddp->forward(x).sum();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: note: the copy of 'model' is trained here
    loss.backward();
    optimizer.step();
  }
}

//===----------------------------------------------------------------------===//
// Fields, and class templates nothing instantiates
//===----------------------------------------------------------------------===//

class Trainer {
public:
  void fit(const std::string &checkpoint, torch::Tensor x) {
    optimizer_ = std::make_unique<torch::optim::SGD>(
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: optimizer 'optimizer_' holds the parameters of 'model_', but training runs a new module assigned to 'model_'
        model_->parameters(), torch::optim::SGDOptions(0.1));
    if (!checkpoint.empty()) {
      model_ = Net();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: note: 'model_' is replaced here
      torch::load(model_, checkpoint);
    }
    auto loss = model_->forward(x).sum();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: note: the new module in 'model_' is trained here
    loss.backward();
    optimizer_->step();
  }

private:
  Net model_;
  std::unique_ptr<torch::optim::SGD> optimizer_;
};

template <class Model> class GenericTrainer {
public:
  void fit(const std::string &checkpoint, torch::Tensor x, int epochs) {
    auto optimizer = std::make_shared<torch::optim::SGD>(
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: optimizer 'optimizer' holds the parameters of 'model_', but training runs a new module assigned to 'model_'
        model_->parameters(), torch::optim::SGDOptions(0.1));
    if (!checkpoint.empty()) {
      model_ = std::make_shared<Model>();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: note: 'model_' is replaced here
      torch::load(model_, checkpoint);
    }
    for (int epoch = 0; epoch < epochs; ++epoch) {
      auto loss = model_->forward(x).sum();
      // CHECK-MESSAGES: :[[@LINE-1]]:19: note: the new module in 'model_' is trained here
      loss.backward();
      optimizer->step();
    }
  }

  void fit_replica(torch::Tensor x) {
    auto optimizer = std::make_shared<torch::optim::SGD>(
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: optimizer 'optimizer' holds the parameters of 'model_', but training runs a copy of 'model_'
        model_->parameters(), torch::optim::SGDOptions(0.1));
    auto replica = std::dynamic_pointer_cast<Model>(model_->clone());
    // CHECK-MESSAGES: :[[@LINE-1]]:53: note: 'model_' is copied here
    auto loss = replica->forward(x).sum();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: note: the copy of 'model_' is trained here
    loss.backward();
    optimizer->step();
  }

  // Correct: the optimizer is built after the module is loaded.
  void negative_fit_after_load(const std::string &checkpoint, torch::Tensor x) {
    if (!checkpoint.empty()) {
      model_ = std::make_shared<Model>();
      torch::load(model_, checkpoint);
    }
    auto optimizer = std::make_shared<torch::optim::SGD>(
        model_->parameters(), torch::optim::SGDOptions(0.1));
    model_->forward(x).sum().backward();
    optimizer->step();
  }

private:
  std::shared_ptr<Model> model_;
};

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// torch::load into the same holder copies into the module's own tensors.
void negative_load_in_place(const std::string &path, torch::Tensor x) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  torch::load(model, path);
  model->forward(x).sum().backward();
  optimizer.step();
}

// Module::to moves the data of the same parameter tensors.
void negative_move(torch::Device device, torch::Tensor x) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  model->to(device);
  model->forward(x).sum().backward();
  optimizer.step();
}

// The optimizer is rebuilt after the replacement.
void negative_rebuilt(const std::string &path, bool resume, torch::Tensor x) {
  Net model;
  auto optimizer = std::make_unique<torch::optim::SGD>(
      model->parameters(), torch::optim::SGDOptions(0.1));
  if (resume) {
    model = Net();
    torch::load(model, path);
    optimizer = std::make_unique<torch::optim::SGD>(
        model->parameters(), torch::optim::SGDOptions(0.1));
  }
  model->forward(x).sum().backward();
  optimizer->step();
}

// The new module's parameters are given to the optimizer as a group.
void negative_param_group(torch::Tensor x) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  model = Net();
  optimizer.add_param_group(torch::optim::OptimizerParamGroup(model->parameters()));
  model->forward(x).sum().backward();
  optimizer.step();
}

// The replacement is on a path that never reaches a step: evaluation only.
void negative_eval_only(const std::string &path, bool eval_only,
                        torch::Tensor x) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  if (eval_only) {
    model = Net();
    torch::load(model, path);
    evaluate(model);
    return;
  }
  model->forward(x).sum().backward();
  optimizer.step();
}

// The optimizer is built inside the loop, after each re-creation.
void negative_built_per_epoch(torch::Tensor x, int epochs) {
  Net model;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    model = Net();
    torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
    model->forward(x).sum().backward();
    optimizer.step();
  }
}

// A copy for evaluation (an average of the weights, a validation model)
// feeds no backward pass.
void negative_eval_copy(torch::Tensor x) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  auto averaged = std::dynamic_pointer_cast<NetImpl>(model->clone());
  model->forward(x).sum().backward();
  optimizer.step();
  torch::NoGradGuard no_grad;
  auto score = averaged->forward(x);
}

// The copy is trained with an optimizer built from the copy.
void negative_copy_with_own_optimizer(torch::Tensor x) {
  Net model;
  auto replica = std::dynamic_pointer_cast<NetImpl>(model->clone());
  torch::optim::SGD optimizer(replica->parameters(), torch::optim::SGDOptions(0.1));
  replica->forward(x).sum().backward();
  optimizer.step();
}

// A copy of the holder shares the module: the same parameters.
void negative_holder_copy(torch::Tensor x) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  Net alias = model;
  alias->forward(x).sum().backward();
  optimizer.step();
}

// A replacement, but the optimizer never steps afterwards.
void negative_no_step_after(torch::Tensor x) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  model->forward(x).sum().backward();
  optimizer.step();
  model = Net();
  evaluate(model);
}

//===----------------------------------------------------------------------===//
// Known false negatives
//===----------------------------------------------------------------------===//

// The optimizer is built in the constructor and the module replaced in
// another member function: each function is analysed on its own.
class false_negative_SplitTrainer {
public:
  false_negative_SplitTrainer()
      : optimizer_(model_->parameters(), torch::optim::SGDOptions(0.1)) {}
  void resume(const std::string &path) {
    model_ = Net();
    torch::load(model_, path);
  }
  void step(torch::Tensor x) {
    model_->forward(x).sum().backward();
    optimizer_.step();
  }

private:
  Net model_;
  torch::optim::SGD optimizer_;
};

// The module is replaced inside a helper that takes the holder by
// reference.
void reload(Net &model, const std::string &path);
void false_negative_replaced_in_helper(const std::string &path,
                                       torch::Tensor x) {
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  reload(model, path);
  model->forward(x).sum().backward();
  optimizer.step();
}
