// Data-parallel wrappers: the default WrapperTypes (DistributedDataParallel,
// its Impl, DDP, any name containing DDP; class templates included), inner
// module accessors (methods and fields), and a configured wrapper name.
//
// RUN: %probe %s -- %mock_flags 2>/dev/null | FileCheck %s -implicit-check-not='warning:'
// RUN: %probe %s -config="{CheckOptions: {WrapperTypes: 'Replicator', InnerModuleAccessors: 'inner'}}" \
// RUN:   -- %mock_flags 2>/dev/null | FileCheck %s -check-prefix=CONFIGURED -implicit-check-not='warning:'

#include <torch/torch.h>

#include <memory>

struct NetImpl : torch::nn::Module {
// CHECK: :[[@LINE-1]]:8: warning: module class 'NetImpl' [probe-vocabulary]
// CONFIGURED: :[[@LINE-2]]:8: warning: module class 'NetImpl' [probe-vocabulary]
  torch::Tensor forward(torch::Tensor x) { return x; }
};
TORCH_MODULE(Net);

namespace train {
template <typename M> class DistributedDataParallel {
// CHECK: :[[@LINE-1]]:29: warning: wrapper class 'DistributedDataParallel' [probe-vocabulary]
// CHECK: :[[@LINE-2]]:29: warning: wrapper class 'DistributedDataParallel<Net>' [probe-vocabulary]
public:
  explicit DistributedDataParallel(M m) : module_(m) {}
// CHECK: :[[@LINE-1]]:38: warning: 'm' is a module handle ('NetImpl') [probe-vocabulary]
// CONFIGURED: :[[@LINE-2]]:38: warning: 'm' is a module handle ('NetImpl') [probe-vocabulary]
  torch::Tensor forward(torch::Tensor x) { return module_->forward(x); }
// CHECK: :[[@LINE-1]]:51: warning: inner module access [probe-vocabulary]
// CHECK: :[[@LINE-2]]:60: warning: forward pass on module_ [probe-vocabulary]
// CONFIGURED: :[[@LINE-3]]:60: warning: forward pass on module_ [probe-vocabulary]
  M module() const { return module_; }
// CHECK: :[[@LINE-1]]:29: warning: inner module access [probe-vocabulary]
  M module_;
// CHECK: :[[@LINE-1]]:5: warning: 'module_' is a module handle ('NetImpl') [probe-vocabulary]
// CONFIGURED: :[[@LINE-2]]:5: warning: 'module_' is a module handle ('NetImpl') [probe-vocabulary]
};
} // namespace train

struct MyDDPWrapperImpl : torch::nn::Module {
// CHECK: :[[@LINE-1]]:8: warning: module class 'MyDDPWrapperImpl' [probe-vocabulary]
// CHECK: :[[@LINE-2]]:8: warning: wrapper class 'MyDDPWrapperImpl' [probe-vocabulary]
// CONFIGURED: :[[@LINE-3]]:8: warning: module class 'MyDDPWrapperImpl' [probe-vocabulary]
  std::shared_ptr<NetImpl> module;
// CHECK: :[[@LINE-1]]:28: warning: 'module' is a module handle ('NetImpl') [probe-vocabulary]
// CONFIGURED: :[[@LINE-2]]:28: warning: 'module' is a module handle ('NetImpl') [probe-vocabulary]
  torch::Tensor forward(torch::Tensor x) { return module->forward(x); }
// CHECK: :[[@LINE-1]]:51: warning: inner module access [probe-vocabulary]
// CHECK: :[[@LINE-2]]:59: warning: forward pass on module [probe-vocabulary]
// CONFIGURED: :[[@LINE-3]]:59: warning: forward pass on module [probe-vocabulary]
};
TORCH_MODULE(MyDDPWrapper);

struct Replicator {
// CONFIGURED: :[[@LINE-1]]:8: warning: wrapper class 'Replicator' [probe-vocabulary]
  Net inner;
// CHECK: :[[@LINE-1]]:7: warning: 'inner' is a module handle ('NetImpl') [probe-vocabulary]
// CONFIGURED: :[[@LINE-2]]:7: warning: 'inner' is a module handle ('NetImpl') [probe-vocabulary]
};

void use(Net model, torch::Tensor x) {
// CHECK: :[[@LINE-1]]:14: warning: 'model' is a module handle ('NetImpl') [probe-vocabulary]
// CONFIGURED: :[[@LINE-2]]:14: warning: 'model' is a module handle ('NetImpl') [probe-vocabulary]
  train::DistributedDataParallel<Net> ddp(model);
// CHECK: :[[@LINE-1]]:39: warning: 'ddp' is a wrapper handle ('DistributedDataParallel<Net>') [probe-vocabulary]
  auto y = ddp.forward(x);
// CHECK: :[[@LINE-1]]:16: warning: forward pass on ddp (wrapper) [probe-vocabulary]
  auto z = ddp.module()->forward(x);
// CHECK: :[[@LINE-1]]:16: warning: inner module access [probe-vocabulary]
// CHECK: :[[@LINE-2]]:26: warning: forward pass on an expression [probe-vocabulary]
// CONFIGURED: :[[@LINE-3]]:26: warning: forward pass on an expression [probe-vocabulary]

  MyDDPWrapper holder;
// CHECK: :[[@LINE-1]]:16: warning: 'holder' is a wrapper handle ('MyDDPWrapper') [probe-vocabulary]
// CONFIGURED: :[[@LINE-2]]:16: warning: 'holder' is a module handle ('MyDDPWrapperImpl') [probe-vocabulary]
  auto w = holder(x);
// CHECK: :[[@LINE-1]]:12: warning: forward pass on holder (wrapper) [probe-vocabulary]
// CONFIGURED: :[[@LINE-2]]:12: warning: forward pass on holder [probe-vocabulary]
  auto v = holder->module->forward(x);
// CHECK: :[[@LINE-1]]:20: warning: inner module access [probe-vocabulary]
// CHECK: :[[@LINE-2]]:28: warning: forward pass on an expression [probe-vocabulary]
// CONFIGURED: :[[@LINE-3]]:28: warning: forward pass on an expression [probe-vocabulary]

  Replicator r{model};
// CONFIGURED: :[[@LINE-1]]:14: warning: 'r' is a wrapper handle ('Replicator') [probe-vocabulary]
  auto u = r.inner(x);
// CHECK: :[[@LINE-1]]:12: warning: forward pass on an expression [probe-vocabulary]
// CONFIGURED: :[[@LINE-2]]:12: warning: forward pass on an expression [probe-vocabulary]
// CONFIGURED: :[[@LINE-3]]:14: warning: inner module access [probe-vocabulary]
  (void)y, (void)z, (void)w, (void)v, (void)u;
}
