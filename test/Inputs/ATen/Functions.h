// ddplint mock of <ATen/Functions.h> + <ATen/TensorOperators.h> (LibTorch
// 1.13): the at:: free functions (subset) and the binary operators, which,
// as in the real header, are `static inline` functions in namespace at with
// (Tensor, Tensor), (Tensor, Scalar) and (Scalar, Tensor) overloads.
#pragma once
#include <cstdint>
#include <tuple>
#include <vector>
#include <ATen/core/Tensor.h>

namespace at {

namespace Reduction {
enum Reduction { None, Mean, Sum, END };
} // namespace Reduction

// Factories (at:: flavour; torch:: has its own, see torch/types.h).
at::Tensor empty(at::IntArrayRef size, at::TensorOptions options = {},
                 c10::optional<at::MemoryFormat> memory_format = c10::nullopt);
at::Tensor zeros(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor ones(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor full(at::IntArrayRef size, const at::Scalar& fill_value, at::TensorOptions options = {});
at::Tensor rand(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor randn(at::IntArrayRef size, at::TensorOptions options = {});
at::Tensor randint(int64_t high, at::IntArrayRef size, at::TensorOptions options = at::kLong);
at::Tensor randint(int64_t low, int64_t high, at::IntArrayRef size, at::TensorOptions options = at::kLong);
at::Tensor randperm(int64_t n, at::TensorOptions options = at::kLong);
at::Tensor arange(const at::Scalar& end, at::TensorOptions options = {});
at::Tensor arange(const at::Scalar& start, const at::Scalar& end, at::TensorOptions options = {});
at::Tensor empty_like(const at::Tensor& self, at::TensorOptions options = {},
                      c10::optional<at::MemoryFormat> memory_format = c10::nullopt);
at::Tensor zeros_like(const at::Tensor& self, at::TensorOptions options = {},
                      c10::optional<at::MemoryFormat> memory_format = c10::nullopt);
at::Tensor ones_like(const at::Tensor& self, at::TensorOptions options = {},
                     c10::optional<at::MemoryFormat> memory_format = c10::nullopt);
at::Tensor scalar_tensor(const at::Scalar& s, at::TensorOptions options = {});

// Shape / joining.
at::Tensor stack(at::TensorList tensors, int64_t dim = 0);
at::Tensor cat(const at::ITensorListRef& tensors, int64_t dim = 0);
std::vector<at::Tensor> split(const at::Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<at::Tensor> chunk(const at::Tensor& self, int64_t chunks, int64_t dim = 0);
at::Tensor flatten(const at::Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);

// Math / nn.
at::Tensor add(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha = 1);
at::Tensor sub(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha = 1);
at::Tensor mul(const at::Tensor& self, const at::Tensor& other);
at::Tensor div(const at::Tensor& self, const at::Tensor& other);
at::Tensor matmul(const at::Tensor& self, const at::Tensor& other);
at::Tensor mm(const at::Tensor& self, const at::Tensor& mat2);
at::Tensor sum(const at::Tensor& self, c10::optional<at::ScalarType> dtype = c10::nullopt);
at::Tensor mean(const at::Tensor& self, c10::optional<at::ScalarType> dtype = c10::nullopt);
at::Tensor abs(const at::Tensor& self);
at::Tensor sqrt(const at::Tensor& self);
at::Tensor exp(const at::Tensor& self);
at::Tensor log(const at::Tensor& self);
at::Tensor relu(const at::Tensor& self);
at::Tensor& relu_(at::Tensor& self);
at::Tensor sigmoid(const at::Tensor& self);
at::Tensor tanh(const at::Tensor& self);
at::Tensor dropout(const at::Tensor& input, double p, bool train);
at::Tensor linear(const at::Tensor& input, const at::Tensor& weight,
                  const c10::optional<at::Tensor>& bias = {});
at::Tensor max_pool2d(const at::Tensor& self, at::IntArrayRef kernel_size, at::IntArrayRef stride = {},
                      at::IntArrayRef padding = 0, at::IntArrayRef dilation = 1, bool ceil_mode = false);
at::Tensor log_softmax(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> dtype = c10::nullopt);
at::Tensor softmax(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> dtype = c10::nullopt);
at::Tensor nll_loss(const at::Tensor& self, const at::Tensor& target,
                    const c10::optional<at::Tensor>& weight = {}, int64_t reduction = at::Reduction::Mean,
                    int64_t ignore_index = -100);
at::Tensor mse_loss(const at::Tensor& self, const at::Tensor& target, int64_t reduction = at::Reduction::Mean);
at::Tensor cross_entropy_loss(const at::Tensor& self, const at::Tensor& target,
                              const c10::optional<at::Tensor>& weight = {},
                              int64_t reduction = at::Reduction::Mean, int64_t ignore_index = -100,
                              double label_smoothing = 0.0);
at::Tensor binary_cross_entropy(const at::Tensor& self, const at::Tensor& target,
                                const c10::optional<at::Tensor>& weight = {},
                                int64_t reduction = at::Reduction::Mean);
bool allclose(const at::Tensor& self, const at::Tensor& other, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);

// Multi-tensor ("foreach") kernels.
void _foreach_mul_(at::TensorList self, const at::Scalar& scalar);
void _foreach_mul_(at::TensorList self, at::TensorList other);
void _foreach_div_(at::TensorList self, const at::Scalar& scalar);
void _foreach_div_(at::TensorList self, at::TensorList other);
void _foreach_add_(at::TensorList self, const at::Scalar& scalar);
void _foreach_add_(at::TensorList self, at::TensorList other, const at::Scalar& alpha = 1);
void _foreach_zero_(at::TensorList self);
std::vector<at::Tensor> _foreach_mul(at::TensorList self, const at::Scalar& scalar);
std::vector<at::Tensor> _foreach_div(at::TensorList self, const at::Scalar& scalar);

// Binary operators (same overload set as ATen/TensorOperators.h).
#define DDPLINT_MOCK_AT_BINARY_OP(op)                                  \
  static inline Tensor operator op(const Tensor& x, const Tensor& y) { \
    return Tensor();                                                   \
  }                                                                    \
  static inline Tensor operator op(const Tensor& x, const Scalar& y) { \
    return Tensor();                                                   \
  }                                                                    \
  static inline Tensor operator op(const Scalar& x, const Tensor& y) { \
    return Tensor();                                                   \
  }
DDPLINT_MOCK_AT_BINARY_OP(+)
DDPLINT_MOCK_AT_BINARY_OP(*)
DDPLINT_MOCK_AT_BINARY_OP(-)
DDPLINT_MOCK_AT_BINARY_OP(/)
DDPLINT_MOCK_AT_BINARY_OP(%)
DDPLINT_MOCK_AT_BINARY_OP(&)
DDPLINT_MOCK_AT_BINARY_OP(|)
DDPLINT_MOCK_AT_BINARY_OP(^)
DDPLINT_MOCK_AT_BINARY_OP(<)
DDPLINT_MOCK_AT_BINARY_OP(<=)
DDPLINT_MOCK_AT_BINARY_OP(>)
DDPLINT_MOCK_AT_BINARY_OP(>=)
DDPLINT_MOCK_AT_BINARY_OP(==)
DDPLINT_MOCK_AT_BINARY_OP(!=)
#undef DDPLINT_MOCK_AT_BINARY_OP

// ATen/Context.h
static inline void manual_seed(uint64_t seed) {}

} // namespace at
