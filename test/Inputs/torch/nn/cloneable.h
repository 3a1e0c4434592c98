// ddplint mock of <torch/nn/cloneable.h> (LibTorch 1.13). Cloneable derives
// *virtually* from Module, as the real one.
#pragma once
#include <memory>
#include <torch/nn/module.h>
#include <torch/types.h>
#include <torch/utils.h>

namespace torch {
namespace nn {
template <typename Derived>
class Cloneable : public virtual Module {
 public:
  using Module::Module;
  virtual void reset() = 0;
  std::shared_ptr<Module> clone(const optional<Device>& device = nullopt) const override {
    return nullptr;
  }

 private:
  void clone_(Module& other, const optional<Device>& device) final {}
};
} // namespace nn
} // namespace torch
