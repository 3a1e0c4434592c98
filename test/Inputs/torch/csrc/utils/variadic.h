// ddplint mock of <torch/csrc/utils/variadic.h> (LibTorch 1.13): the
// torch::enable_if_t / disable_if_t / decay_t helpers.
#pragma once
#include <type_traits>

namespace torch {
template <bool value, typename T = void>
using enable_if_t = typename std::enable_if<value, T>::type;
template <bool value, typename T = void>
using disable_if_t = enable_if_t<!value, T>;
template <typename T>
using decay_t = typename std::decay<T>::type;
} // namespace torch
