// ddplint mock of <torch/types.h> + <torch/csrc/autograd/generated/
// variable_factories.h> (LibTorch 1.13). `torch` pulls in all of `at` (and so
// `c10`) with a using-directive, so torch::Tensor is at::Tensor and
// torch::relu is at::relu; the tensor factories (torch::zeros, torch::rand,
// torch::tensor, ...) are declared in `torch` itself, as in the real headers.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <vector>
#include <ATen/ATen.h>
#include <c10/util/Optional.h>

namespace torch {

using namespace at; // NOLINT

using c10::nullopt;
using c10::optional;

using Dtype = at::ScalarType;

constexpr auto kUInt8 = at::kByte;
constexpr auto kInt8 = at::kChar;
constexpr auto kInt16 = at::kShort;
constexpr auto kInt32 = at::kInt;
constexpr auto kInt64 = at::kLong;
constexpr auto kFloat16 = at::kHalf;
constexpr auto kFloat32 = at::kFloat;
constexpr auto kFloat64 = at::kDouble;

constexpr auto kU8 = kUInt8;
constexpr auto kI8 = kInt8;
constexpr auto kI16 = kInt16;
constexpr auto kI32 = kInt32;
constexpr auto kI64 = kInt64;
constexpr auto kF16 = kFloat16;
constexpr auto kF32 = kFloat32;
constexpr auto kF64 = kFloat64;

namespace detail {
// torch::tensor() input: a scalar, a (nested) braced list, an ArrayRef or a
// vector of one of the scalar types, or a Tensor.
struct TensorDataContainer {
  TensorDataContainer();
#define DDPLINT_MOCK_TDC(T)                              \
  TensorDataContainer(T value);                          \
  TensorDataContainer(at::ArrayRef<T> values);           \
  TensorDataContainer(const std::vector<T>& values);
  DDPLINT_MOCK_TDC(uint8_t)
  DDPLINT_MOCK_TDC(int8_t)
  DDPLINT_MOCK_TDC(int16_t)
  DDPLINT_MOCK_TDC(int)
  DDPLINT_MOCK_TDC(int64_t)
  DDPLINT_MOCK_TDC(float)
  DDPLINT_MOCK_TDC(double)
#undef DDPLINT_MOCK_TDC
  TensorDataContainer(bool value);
  TensorDataContainer(const std::vector<bool>& values);
  TensorDataContainer(std::initializer_list<TensorDataContainer> init_list);
  TensorDataContainer(const at::Tensor& tensor);

 private:
  at::Tensor tensor_;
};
} // namespace detail

inline at::Tensor tensor(detail::TensorDataContainer tensor_data_container,
                         const at::TensorOptions& options = {}) {
  return at::Tensor();
}
at::Tensor from_blob(void* data, at::IntArrayRef sizes, const at::TensorOptions& options = at::TensorOptions());

inline at::Tensor empty(at::IntArrayRef size, at::TensorOptions options = {},
                        c10::optional<at::MemoryFormat> memory_format = c10::nullopt) {
  return at::Tensor();
}
inline at::Tensor zeros(at::IntArrayRef size, at::TensorOptions options = {}) { return at::Tensor(); }
inline at::Tensor ones(at::IntArrayRef size, at::TensorOptions options = {}) { return at::Tensor(); }
inline at::Tensor full(at::IntArrayRef size, const at::Scalar& fill_value, at::TensorOptions options = {}) {
  return at::Tensor();
}
inline at::Tensor rand(at::IntArrayRef size, at::TensorOptions options = {}) { return at::Tensor(); }
inline at::Tensor randn(at::IntArrayRef size, at::TensorOptions options = {}) { return at::Tensor(); }
inline at::Tensor randint(int64_t high, at::IntArrayRef size, at::TensorOptions options = at::kLong) {
  return at::Tensor();
}
inline at::Tensor randint(int64_t low, int64_t high, at::IntArrayRef size,
                          at::TensorOptions options = at::kLong) {
  return at::Tensor();
}
inline at::Tensor randperm(int64_t n, at::TensorOptions options = at::kLong) { return at::Tensor(); }
inline at::Tensor arange(const at::Scalar& end, at::TensorOptions options = {}) { return at::Tensor(); }
inline at::Tensor arange(const at::Scalar& start, const at::Scalar& end, at::TensorOptions options = {}) {
  return at::Tensor();
}
inline at::Tensor empty_like(const at::Tensor& self, at::TensorOptions options = {},
                             c10::optional<at::MemoryFormat> memory_format = c10::nullopt) {
  return at::Tensor();
}
inline at::Tensor zeros_like(const at::Tensor& self, at::TensorOptions options = {},
                             c10::optional<at::MemoryFormat> memory_format = c10::nullopt) {
  return at::Tensor();
}
inline at::Tensor ones_like(const at::Tensor& self, at::TensorOptions options = {},
                            c10::optional<at::MemoryFormat> memory_format = c10::nullopt) {
  return at::Tensor();
}

} // namespace torch
