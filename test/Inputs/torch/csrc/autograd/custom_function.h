// ddplint mock of <torch/csrc/autograd/custom_function.h> (LibTorch 1.13):
// custom autograd functions, `struct MyFn : Function<MyFn>` with static
// `forward(AutogradContext*, ...)` and `backward(AutogradContext*,
// variable_list)`, run through `MyFn::apply(...)`. AutogradContext's
// saved_data (a ska::flat_hash_map) is not mocked.
#pragma once
#include <type_traits>
#include <utility>
#include <vector>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>

namespace torch {
namespace autograd {

struct TORCH_API AutogradContext {
  AutogradContext() {}
  AutogradContext(const AutogradContext& other) = delete;
  AutogradContext& operator=(const AutogradContext& other) = delete;
  void save_for_backward(variable_list to_save);
  void mark_dirty(const variable_list& inputs);
  void mark_non_differentiable(const variable_list& outputs);
  void set_materialize_grads(bool value);
  variable_list get_saved_variables() const;
};

template <class T>
struct TORCH_API Function {
  template <typename X = T, typename... Args>
  static auto apply(Args&&... args)
      -> std::enable_if_t<std::is_same<X, T>::value,
                          decltype(X::forward(static_cast<AutogradContext*>(nullptr),
                                              std::declval<Args>()...))>;
};

} // namespace autograd
} // namespace torch
