// Modules of a framework of the project's own, known by their shape: a class
// of user code with a forward method and a method that returns its
// parameters as a container, and the classes derived from one. A class with
// only one of the two is no module.
//
// RUN: %probe %s -- -std=c++17 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='warning:'

#include <memory>
#include <utility>
#include <vector>

namespace tiny {

struct Tensor {
  std::vector<float> data;
};
using TensorPtr = std::shared_ptr<Tensor>;

namespace nn {

class Module {
// CHECK: :[[@LINE-1]]:7: warning: module class 'Module' [probe-vocabulary]
public:
  virtual ~Module() = default;
  virtual Tensor forward(const Tensor &x) { return x; }
  std::vector<TensorPtr> parameters() { return params_; }

protected:
  std::vector<TensorPtr> params_;
};

class Linear : public Module {
// CHECK: :[[@LINE-1]]:7: warning: module class 'Linear' [probe-vocabulary]
public:
  Tensor forward(const Tensor &x) override { return x; }
};

} // namespace nn

// Only a forward method: a pipeline step, not a module.
class Pipeline {
public:
  Tensor forward(const Tensor &x) { return x; }
};

// Only parameters: a store, not a module.
class ParameterStore {
public:
  std::vector<TensorPtr> parameters() { return {}; }
};

} // namespace tiny

void use(tiny::nn::Linear &layer, tiny::Pipeline &pipeline,
// CHECK: :[[@LINE-1]]:28: warning: 'layer' is a module handle ('Linear') [probe-vocabulary]
         tiny::ParameterStore &store, std::shared_ptr<tiny::nn::Module> model) {
// CHECK: :[[@LINE-1]]:73: warning: 'model' is a module handle ('Module') [probe-vocabulary]
  (void)pipeline;
  (void)store;
}
