// ddplint mock of <torch/detail/static.h> and <torch/nn/pimpl-inl.h>
// (LibTorch 1.13): the traits ModuleHolder uses for overload resolution.
#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>
#include <torch/csrc/utils/variadic.h>

namespace torch {
namespace nn {
class Module;
} // namespace nn

namespace detail {

template <typename T>
struct has_forward {
  using yes = int8_t;
  using no = int16_t;
  template <typename U>
  static yes test(decltype(&U::forward));
  template <typename U>
  static no test(...);
  static constexpr bool value = (sizeof(test<T>(nullptr)) == sizeof(yes));
};

template <typename M>
using is_module = std::is_base_of<torch::nn::Module, typename std::decay<M>::type>;
template <typename M, typename T = void>
using enable_if_module_t = typename std::enable_if<is_module<M>::value, T>::type;

// pimpl-inl.h
struct ModuleHolderIndicator {};
template <typename T>
using is_module_holder = std::is_base_of<ModuleHolderIndicator, decay_t<T>>;
template <typename T>
using disable_if_module_holder_t = disable_if_t<is_module_holder<T>::value>;

template <bool is_module_holder_value, typename T, typename C>
struct is_module_holder_of_impl;
template <typename T, typename C>
struct is_module_holder_of_impl<false, T, C> : std::false_type {};
template <typename T, typename C>
struct is_module_holder_of_impl<true, T, C> : std::is_same<typename T::ContainedType, C> {};
template <typename T, typename C>
struct is_module_holder_of
    : is_module_holder_of_impl<is_module_holder<T>::value, decay_t<T>, decay_t<C>> {};

template <bool has_forward_value, typename C, typename... Args>
struct return_type_of_forward_impl;
template <typename C, typename... Args>
struct return_type_of_forward_impl<true, C, Args...> {
  using type = decltype(::std::declval<C>().forward(::std::declval<Args>()...));
};
template <typename C, typename... Args>
struct return_type_of_forward_impl<false, C, Args...> {
  using type = void;
};
template <typename C, typename... Args>
using return_type_of_forward =
    return_type_of_forward_impl<torch::detail::has_forward<C>::value, C, Args...>;
template <typename C, typename... Args>
using return_type_of_forward_t = typename return_type_of_forward<C, Args...>::type;

} // namespace detail
} // namespace torch
