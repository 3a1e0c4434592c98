// RUN: %clang_tidy %s -checks='-*,ddp-unused-parameters' -- %mock_flags -I%S/Inputs 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unused-parameters' -- %mock_flags -I%S/Inputs 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// test/integration runs this same file against the real LibTorch headers.

#include "wrapper.h"

#include <memory>
#include <string>
#include <vector>

using PG = c10::intrusive_ptr<c10d::ProcessGroup>;

//===----------------------------------------------------------------------===//
// Members forward() never uses
//===----------------------------------------------------------------------===//

// Seed 003, pitfall 1: layer2 is registered and never used.
struct BrokenImpl : torch::nn::Module {
  BrokenImpl()
      : layer1(register_module("layer1", torch::nn::Linear(10, 10))),
        layer2(register_module("layer2", torch::nn::Linear(10, 10))) {}
  torch::Tensor forward(torch::Tensor x) { return layer1->forward(x); }
  torch::nn::Linear layer1, layer2;
};
TORCH_MODULE(Broken);

void unused_layer(PG pg) {
  Broken model;
  dp::DistributedDataParallel<Broken> ddp(model, pg);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'model' is wrapped by 'ddp', whose gradient hooks wait for every parameter, but forward() of 'BrokenImpl' never uses submodule 'layer2': no gradient reaches it, its bucket is never reduced, and backward() hangs or fails on every rank; remove it, freeze it with requires_grad(false) before wrapping, or let the wrapper tolerate unused parameters [ddp-unused-parameters]
  // CHECK-MESSAGES: :[[@LINE-10]]:16: note: 'layer2' registered here
  // CHECK-MESSAGES: :[[@LINE-3]]:39: note: 'model' wrapped here
}

// A parameter and a submodule used only by another method (evaluation),
// assigned in the constructor's body; a buffer is never a gradient.
struct HeadsImpl : torch::nn::Module {
  HeadsImpl() {
    body = register_module("body", torch::nn::Linear(4, 4));
    probe = register_module("probe", torch::nn::Linear(4, 1));
    scale = register_parameter("scale", torch::ones({1}));
    running = register_buffer("running", torch::zeros({4}));
  }
  torch::Tensor forward(torch::Tensor x) { return body->forward(x); }
  torch::Tensor evaluate(torch::Tensor x) {
    return probe->forward(x) * scale + running;
  }
  torch::nn::Linear body{nullptr}, probe{nullptr};
  torch::Tensor scale, running;
};
TORCH_MODULE(Heads);

void unused_eval_members(PG pg) {
  Heads model;
  auto ddp = std::make_shared<dp::DistributedDataParallel<Heads>>(model, pg);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'model' is wrapped by 'ddp', whose gradient hooks wait for every parameter, but forward() of 'HeadsImpl' never uses submodule 'probe' and parameter 'scale': no gradient reaches them, their buckets are never reduced, and backward() hangs or fails on every rank; remove them, freeze them with requires_grad(false) before wrapping, or let the wrapper tolerate unused parameters [ddp-unused-parameters]
  // CHECK-MESSAGES: :[[@LINE-17]]:13: note: 'probe' registered here
  // CHECK-MESSAGES: :[[@LINE-17]]:13: note: 'scale' registered here
  // CHECK-MESSAGES: :[[@LINE-4]]:8: note: 'model' wrapped here
}

// forward() delegates to a helper: uses are followed through the class's
// own member functions. The helper never touches `aux`.
struct DelegatingImpl : torch::nn::Module {
  DelegatingImpl()
      : encoder(register_module("encoder", torch::nn::Linear(4, 4))),
        aux(register_module("aux", torch::nn::Linear(4, 4))) {}
  torch::Tensor encode(torch::Tensor x) { return torch::relu(encoder(x)); }
  torch::Tensor forward(torch::Tensor x) { return encode(x); }
  torch::nn::Linear encoder, aux;
};
TORCH_MODULE(Delegating);

void unused_behind_helper(PG pg) {
  Delegating model;
  dp::DistributedDataParallel<Delegating> ddp(model, pg);
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: 'model' is wrapped by 'ddp', whose gradient hooks wait for every parameter, but forward() of 'DelegatingImpl' never uses submodule 'aux'
  // CHECK-MESSAGES: :[[@LINE-11]]:13: note: 'aux' registered here
  // CHECK-MESSAGES: :[[@LINE-3]]:43: note: 'model' wrapped here
}

// A submodule of the project's own class: its unused member is named with
// its path.
struct BlockImpl : torch::nn::Module {
  BlockImpl()
      : proj(register_module("proj", torch::nn::Linear(4, 4))),
        gate(register_module("gate", torch::nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor x) { return proj(x); }
  torch::nn::Linear proj, gate;
};
TORCH_MODULE(Block);

struct StackImpl : torch::nn::Module {
  StackImpl() : block(register_module("block", Block())) {}
  torch::Tensor forward(torch::Tensor x) { return block->forward(x); }
  Block block;
};
TORCH_MODULE(Stack);

void unused_nested(PG pg) {
  Stack model;
  dp::DistributedDataParallel<Stack> ddp(model, pg);
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'model' is wrapped by 'ddp', whose gradient hooks wait for every parameter, but forward() of 'StackImpl' never uses submodule 'block->gate'
  // CHECK-MESSAGES: :[[@LINE-17]]:14: note: 'block->gate' registered here
  // CHECK-MESSAGES: :[[@LINE-3]]:38: note: 'model' wrapped here
}

// Freezing after the wrap is too late: the wrapper hooked the parameter.
void frozen_after_wrap(PG pg) {
  Broken model;
  dp::DistributedDataParallel<Broken> ddp(model, pg);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'model' is wrapped by 'ddp', whose gradient hooks wait for every parameter, but forward() of 'BrokenImpl' never uses submodule 'layer2'
  // CHECK-MESSAGES: :[[@LINE-92]]:16: note: 'layer2' registered here
  // CHECK-MESSAGES: :[[@LINE-3]]:39: note: 'model' wrapped here
  for (auto &p : model->layer2->parameters())
    p.requires_grad_(false);
}

//===----------------------------------------------------------------------===//
// Members forward() uses on some paths only
//===----------------------------------------------------------------------===//

struct PhasedImpl : torch::nn::Module {
  PhasedImpl()
      : base(register_module("base", torch::nn::Linear(4, 4))),
        extra(register_module("extra", torch::nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = base(x);
    if (training_phase2)
      x = extra(x);
    return x;
  }
  bool training_phase2 = false;
  torch::nn::Linear base, extra;
};
TORCH_MODULE(Phased);

void used_on_some_paths(PG pg) {
  Phased model;
  dp::DistributedDataParallel<Phased> ddp(model, pg);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'model' is wrapped by 'ddp', whose gradient hooks wait for every parameter, but forward() of 'PhasedImpl' uses submodule 'extra' only on some paths: in a step that skips it no gradient reaches it, its bucket is never reduced, and backward() hangs or fails; use it on every path, or let the wrapper tolerate unused parameters [ddp-unused-parameters]
  // CHECK-MESSAGES: :[[@LINE-16]]:15: note: 'extra' registered here
  // CHECK-MESSAGES: :[[@LINE-3]]:39: note: 'model' wrapped here
}

// Two members on the same optional path.
struct AuxiliaryImpl : torch::nn::Module {
  AuxiliaryImpl()
      : trunk(register_module("trunk", torch::nn::Linear(4, 4))),
        aux(register_module("aux", torch::nn::Linear(4, 4))) {
    bias = register_parameter("bias", torch::zeros({4}));
  }
  torch::Tensor forward(torch::Tensor x, bool with_aux) {
    x = trunk(x);
    if (with_aux)
      x = aux(x) + bias;
    return x;
  }
  torch::nn::Linear trunk, aux;
  torch::Tensor bias;
};
TORCH_MODULE(Auxiliary);

void two_used_on_some_paths(PG pg) {
  Auxiliary model;
  dp::DistributedDataParallel<Auxiliary> ddp(model, pg);
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'model' is wrapped by 'ddp', whose gradient hooks wait for every parameter, but forward() of 'AuxiliaryImpl' uses submodule 'aux' and parameter 'bias' only on some paths: in a step that skips them no gradient reaches them, their buckets are never reduced, and backward() hangs or fails; use them on every path, or let the wrapper tolerate unused parameters [ddp-unused-parameters]
  // CHECK-MESSAGES: :[[@LINE-18]]:13: note: 'aux' registered here
  // CHECK-MESSAGES: :[[@LINE-18]]:12: note: 'bias' registered here
  // CHECK-MESSAGES: :[[@LINE-4]]:42: note: 'model' wrapped here
}

// An early return skips the auxiliary head.
struct EarlyExitImpl : torch::nn::Module {
  EarlyExitImpl()
      : trunk(register_module("trunk", torch::nn::Linear(4, 4))),
        head(register_module("head", torch::nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor x, bool features_only) {
    x = trunk(x);
    if (features_only)
      return x;
    return head(x);
  }
  torch::nn::Linear trunk, head;
};
TORCH_MODULE(EarlyExit);

void skipped_by_early_return(PG pg) {
  EarlyExit model;
  dp::DistributedDataParallel<EarlyExit> ddp(model, pg);
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'model' is wrapped by 'ddp', whose gradient hooks wait for every parameter, but forward() of 'EarlyExitImpl' uses submodule 'head' only on some paths
  // CHECK-MESSAGES: :[[@LINE-15]]:14: note: 'head' registered here
  // CHECK-MESSAGES: :[[@LINE-3]]:42: note: 'model' wrapped here
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

struct NetImpl : torch::nn::Module {
  NetImpl()
      : fc1(register_module("fc1", torch::nn::Linear(4, 8))),
        fc2(register_module("fc2", torch::nn::Linear(8, 1))) {
    running = register_buffer("running", torch::zeros({1}));
  }
  torch::Tensor forward(torch::Tensor x) {
    return fc2->forward(torch::tanh(fc1->forward(x))) + running;
  }
  torch::nn::Linear fc1, fc2;
  torch::Tensor running;
};
TORCH_MODULE(Net);

void negative_every_member_used(PG pg) {
  Net model;
  dp::DistributedDataParallel<Net> ddp(model, pg);
}

// Every layer is used inside a loop: the loop counts as one use.
struct DeepImpl : torch::nn::Module {
  DeepImpl() : layer(register_module("layer", torch::nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor x) {
    for (int i = 0; i < depth; ++i)
      x = layer(x);
    return x;
  }
  int depth = 3;
  torch::nn::Linear layer;
};
TORCH_MODULE(Deep);

void negative_use_in_loop(PG pg) {
  Deep model;
  dp::DistributedDataParallel<Deep> ddp(model, pg);
}

// The use initialises a local in the loop's body: still the loop's use.
struct DeepLocalImpl : torch::nn::Module {
  DeepLocalImpl() : layer(register_module("layer", torch::nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor x) {
    for (int i = 0; i < depth; ++i) {
      auto y = layer(x);
      x = torch::relu(y);
    }
    return x;
  }
  int depth = 3;
  torch::nn::Linear layer;
};
TORCH_MODULE(DeepLocal);

void negative_use_declared_in_loop(PG pg) {
  DeepLocal model;
  dp::DistributedDataParallel<DeepLocal> ddp(model, pg);
}

void negative_frozen_before_wrap(PG pg) {
  Broken model;
  for (auto &p : model->layer2->parameters())
    p.requires_grad_(false);
  dp::DistributedDataParallel<Broken> ddp(model, pg);
}

struct FrozenImpl : torch::nn::Module {
  FrozenImpl()
      : fc(register_module("fc", torch::nn::Linear(4, 4))),
        teacher(register_module("teacher", torch::nn::Linear(4, 4))) {
    temperature = register_parameter("temperature", torch::ones({1}),
                                     /*requires_grad=*/false);
    for (auto &p : teacher->parameters())
      p.set_requires_grad(false);
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc, teacher;
  torch::Tensor temperature;
};
TORCH_MODULE(Frozen);

void negative_frozen_in_constructor(PG pg) {
  Frozen model;
  dp::DistributedDataParallel<Frozen> ddp(model, pg);
}

// A helper handed the module before the wrap freezes the layer.
void freeze(Broken &model) {
  for (auto &p : model->layer2->parameters())
    p.requires_grad_(false);
}

void negative_frozen_by_helper(PG pg) {
  Broken model;
  freeze(model);
  dp::DistributedDataParallel<Broken> ddp(model, pg);
}

// Evaluation only: never wrapped.
void negative_never_wrapped() {
  Broken model;
  model->eval();
  model->forward(torch::ones({1, 10}));
}

// forward() walks its own submodules: any of them may be used.
struct WalkingImpl : torch::nn::Module {
  WalkingImpl() {
    register_module("a", torch::nn::Linear(4, 4));
    b = register_module("b", torch::nn::Linear(4, 4));
  }
  torch::Tensor forward(torch::Tensor x) {
    for (auto &child : children())
      x = child->as<torch::nn::Linear>()->forward(x);
    return x;
  }
  torch::nn::Linear b{nullptr};
};
TORCH_MODULE(Walking);

void negative_forward_walks_children(PG pg) {
  Walking model;
  dp::DistributedDataParallel<Walking> ddp(model, pg);
}

// A wrapper with a code path for parameters that got no gradient.
namespace tolerant {
template <typename Holder> class DistributedDataParallel {
public:
  DistributedDataParallel(Holder module, PG pg) : module_(module), pg_(pg) {}
  torch::Tensor forward(torch::Tensor x) { return module_->forward(x); }
  void on_ready(torch::Tensor &p) {
    if (!p.grad().defined())
      return;
    std::vector<torch::Tensor> grads{p.grad()};
    pg_->allreduce(grads)->wait();
  }
  Holder module_;
  PG pg_;
};
} // namespace tolerant

void negative_wrapper_tolerates_missing_gradients(PG pg) {
  Broken model;
  tolerant::DistributedDataParallel<Broken> ddp(model, pg);
}

// A wrapper told to look for unused parameters.
namespace configurable {
struct DDPOptions {
  bool find_unused_parameters = false;
  int bucket_cap_mb = 25;
};
template <typename Holder> class DistributedDataParallel {
public:
  DistributedDataParallel(Holder module, PG pg, DDPOptions options = {})
      : module_(module) {}
  torch::Tensor forward(torch::Tensor x) { return module_->forward(x); }
  Holder module_;
};
} // namespace configurable

void negative_find_unused_parameters(PG pg) {
  Broken model;
  configurable::DDPOptions options;
  options.find_unused_parameters = true;
  configurable::DistributedDataParallel<Broken> ddp(model, pg, options);
}

void negative_find_unused_parameters_inline(PG pg) {
  Broken model;
  configurable::DistributedDataParallel<Broken> ddp(
      model, pg, configurable::DDPOptions{true, 25});
}

void option_left_false(PG pg) {
  Broken model;
  configurable::DDPOptions options;
  options.find_unused_parameters = false;
  configurable::DistributedDataParallel<Broken> ddp(model, pg, options);
  // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: 'model' is wrapped by 'ddp', whose gradient hooks wait for every parameter, but forward() of 'BrokenImpl' never uses submodule 'layer2'
  // CHECK-MESSAGES: :[[@LINE-358]]:16: note: 'layer2' registered here
  // CHECK-MESSAGES: :[[@LINE-3]]:49: note: 'model' wrapped here
}

//===----------------------------------------------------------------------===//
// Known false negatives
//===----------------------------------------------------------------------===//

// A Sequential filled in the constructor counts as used as a whole: one of
// its entries skipped at run time is not seen.
struct SkippingImpl : torch::nn::Module {
  SkippingImpl() : layers(register_module("layers", torch::nn::Sequential())) {
    layers->push_back(torch::nn::Linear(4, 4));
    layers->push_back(torch::nn::Linear(4, 4));
  }
  torch::Tensor forward(torch::Tensor x) { return layers->forward(x); }
  torch::nn::Sequential layers;
};
TORCH_MODULE(Skipping);

void false_negative_sequential_entries(PG pg) {
  Skipping model;
  dp::DistributedDataParallel<Skipping> ddp(model, pg);
}

// A submodule registered without a field is reachable only by name:
// not analysed.
struct UnnamedImpl : torch::nn::Module {
  UnnamedImpl() : fc(register_module("fc", torch::nn::Linear(4, 4))) {
    register_module("unused", torch::nn::Linear(4, 4));
  }
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Unnamed);

void false_negative_member_without_field(PG pg) {
  Unnamed model;
  dp::DistributedDataParallel<Unnamed> ddp(model, pg);
}
