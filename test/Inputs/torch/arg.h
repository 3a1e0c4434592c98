// ddplint mock of <torch/arg.h> (LibTorch 1.13): TORCH_ARG declares a
// private member `name_` with a chaining setter and two getters.
#pragma once
#include <utility>

#define TORCH_ARG(T, name)                                       \
 public:                                                         \
  inline auto name(const T& new_##name)->decltype(*this) {       \
    this->name##_ = new_##name;                                  \
    return *this;                                                \
  }                                                              \
  inline auto name(T&& new_##name)->decltype(*this) {            \
    this->name##_ = std::move(new_##name);                       \
    return *this;                                                \
  }                                                              \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }            \
                                                                 \
 private:                                                        \
  T name##_
