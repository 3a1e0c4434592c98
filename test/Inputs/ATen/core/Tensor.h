// ddplint mock of <ATen/core/TensorBase.h> + <ATen/core/TensorBody.h>
// (LibTorch 1.13). As in the real headers, metadata accessors (sizes,
// numel, data_ptr, requires_grad, set_data, device, ...) are members of
// at::TensorBase, while grad(), mutable_grad(), backward(), the arithmetic
// methods and the ref-qualified assignment operators are members of
// at::Tensor (which derives from TensorBase).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include <c10/core/Device.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Optional.h>
#include <c10/util/intrusive_ptr.h>

namespace torch {
namespace autograd {
struct Node;
} // namespace autograd
} // namespace torch

namespace c10 {
struct C10_API TensorImpl : public c10::intrusive_ptr_target {};
} // namespace c10

namespace c10 {
// <ATen/core/IListRef.h>: a list view accepting a braced list, a vector or
// an ArrayRef (what at::cat takes in 1.13).
template <typename T>
class IListRef {
 public:
  IListRef() = default;
  IListRef(const T& one);
  IListRef(c10::ArrayRef<T> list);
  template <typename A>
  IListRef(const std::vector<T, A>& v);
  IListRef(const std::initializer_list<T>& list);
  ~IListRef() {}
  size_t size() const;
  bool empty() const;
  std::vector<T> vec() const;

 private:
  c10::ArrayRef<T> list_;
};
} // namespace c10

namespace at {

class Tensor;
class TensorBase;
struct TORCH_API Generator {
  Generator() = default;
};
using TensorList = c10::ArrayRef<Tensor>;
using ITensorListRef = c10::IListRef<Tensor>;
using IntArrayRef = c10::ArrayRef<int64_t>;
using OptionalIntArrayRef = c10::optional<c10::ArrayRef<int64_t>>;

class TORCH_API TensorBase {
 public:
  TensorBase() = default;
  TensorBase(const TensorBase&) = default;
  TensorBase(TensorBase&&) = default;
  TensorBase& operator=(const TensorBase& x) & { return *this; }
  TensorBase& operator=(TensorBase&& x) & { return *this; }
  TensorBase& operator=(const TensorBase&) && = delete;
  TensorBase& operator=(TensorBase&&) && = delete;

  int64_t dim() const;
  int64_t ndimension() const { return dim(); }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
  int64_t numel() const;
  size_t nbytes() const;
  int64_t element_size() const;
  bool defined() const;
  void reset();
  size_t use_count() const noexcept;
  bool is_same(const TensorBase& other) const noexcept;
  bool is_contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  TensorBase contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;

  ScalarType scalar_type() const;
  caffe2::TypeMeta dtype() const noexcept;
  Device device() const;
  int64_t get_device() const;
  Layout layout() const noexcept;
  bool is_cuda() const;
  bool is_cpu() const;
  bool is_sparse() const;
  bool is_floating_point() const;
  bool is_complex() const;
  TensorOptions options() const;

  void* data_ptr() const;
  template <typename T>
  T* data_ptr() const;

  const TensorBase& fill_(const c10::Scalar& scalar) const;
  const TensorBase& zero_() const;
  TensorBase to(at::TensorOptions options = {}, bool non_blocking = false, bool copy = false,
                c10::optional<at::MemoryFormat> memory_format = c10::nullopt) const;

  // Autograd (Variable) API.
  bool requires_grad() const;
  const TensorBase& set_requires_grad(bool requires_grad) const;
  const TensorBase& requires_grad_(bool _requires_grad = true) const;
  bool is_leaf() const;
  int64_t output_nr() const;
  int64_t _version() const;
  void set_data(const TensorBase& new_data) const;
  TensorBase data() const;
  void retain_grad() const;
  bool retains_grad() const;
  const std::shared_ptr<torch::autograd::Node>& grad_fn() const;
  const std::string& name() const;

  template <typename T>
  using hook_return_void_t =
      std::enable_if_t<std::is_void<std::invoke_result_t<T&, TensorBase>>::value, unsigned>;
  template <typename T>
  using hook_return_var_t =
      std::enable_if_t<std::is_same<std::invoke_result_t<T&, TensorBase>, TensorBase>::value, unsigned>;
  template <typename T>
  hook_return_void_t<T> register_hook(T&& hook) const;
  template <typename T>
  hook_return_var_t<T> register_hook(T&& hook) const;
  void remove_hook(unsigned pos) const;

 protected:
  unsigned _register_hook(std::function<TensorBase(const TensorBase&)> hook) const;
  c10::intrusive_ptr<TensorImpl> impl_;
};

class TORCH_API Tensor : public TensorBase {
 public:
  Tensor() = default;
  Tensor(const Tensor& tensor) = default;
  Tensor(Tensor&& tensor) = default;
  explicit Tensor(const TensorBase& base) : TensorBase(base) {}
  /*implicit*/ Tensor(TensorBase&& base) : TensorBase(std::move(base)) {}

  // Ref-qualified assignment, as the real Tensor: assigning to an lvalue
  // rebinds the handle, assigning to an rvalue (x[0] = ..., t.data() = ...)
  // copies into the storage (fill_/copy_).
  Tensor& operator=(const TensorBase& x) & { return *this; }
  Tensor& operator=(TensorBase&& x) & { return *this; }
  Tensor& operator=(const Tensor& x) & { return *this; }
  Tensor& operator=(Tensor&& x) & { return *this; }
  Tensor& operator=(Scalar v) && { return fill_(v); }
  Tensor& operator=(const Tensor& rhs) && { return copy_(rhs); }
  Tensor& operator=(Tensor&& rhs) && { return copy_(rhs); }

  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  Tensor toType(ScalarType t) const;

  template <typename T>
  C10_DEPRECATED_MESSAGE("Tensor.data<T>() is deprecated. Please use Tensor.data_ptr<T>() instead.")
  T* data() const {
    return data_ptr<T>();
  }
  template <typename T>
  T item() const;
  at::Scalar item() const;

  Tensor operator~() const;
  Tensor operator-() const;
  Tensor& operator+=(const Tensor& other) { return add_(other); }
  Tensor& operator+=(Scalar other) { return add_(other); }
  Tensor& operator-=(const Tensor& other) { return sub_(other); }
  Tensor& operator-=(Scalar other) { return sub_(other); }
  Tensor& operator*=(const Tensor& other) { return mul_(other); }
  Tensor& operator*=(Scalar other) { return mul_(other); }
  Tensor& operator/=(const Tensor& other) { return div_(other); }
  Tensor& operator/=(Scalar other) { return div_(other); }
  Tensor operator[](Scalar index) const;
  Tensor operator[](Tensor index) const;
  Tensor operator[](int64_t index) const;

  Tensor cpu() const;
  Tensor cuda() const;

  void backward(const Tensor& gradient = {}, c10::optional<bool> retain_graph = c10::nullopt,
                bool create_graph = false, c10::optional<TensorList> inputs = c10::nullopt) const;
  const Tensor& set_requires_grad(bool requires_grad) const {
    TensorBase::set_requires_grad(requires_grad);
    return *this;
  }
  Tensor& mutable_grad() const;
  const Tensor& grad() const;
  const Tensor& _fw_grad(uint64_t level) const;

  // Generated methods (subset).
  at::Tensor abs() const;
  at::Tensor neg() const;
  at::Tensor add(const at::Tensor& other, const at::Scalar& alpha = 1) const;
  at::Tensor& add_(const at::Tensor& other, const at::Scalar& alpha = 1) const;
  at::Tensor add(const at::Scalar& other, const at::Scalar& alpha = 1) const;
  at::Tensor& add_(const at::Scalar& other, const at::Scalar& alpha = 1) const;
  at::Tensor sub(const at::Tensor& other, const at::Scalar& alpha = 1) const;
  at::Tensor& sub_(const at::Tensor& other, const at::Scalar& alpha = 1) const;
  at::Tensor sub(const at::Scalar& other, const at::Scalar& alpha = 1) const;
  at::Tensor& sub_(const at::Scalar& other, const at::Scalar& alpha = 1) const;
  at::Tensor mul(const at::Tensor& other) const;
  at::Tensor& mul_(const at::Tensor& other) const;
  at::Tensor mul(const at::Scalar& other) const;
  at::Tensor& mul_(const at::Scalar& other) const;
  at::Tensor div(const at::Tensor& other) const;
  at::Tensor& div_(const at::Tensor& other) const;
  at::Tensor div(const at::Scalar& other) const;
  at::Tensor& div_(const at::Scalar& other) const;
  at::Tensor& addcmul_(const at::Tensor& tensor1, const at::Tensor& tensor2, const at::Scalar& value = 1) const;
  at::Tensor& addcdiv_(const at::Tensor& tensor1, const at::Tensor& tensor2, const at::Scalar& value = 1) const;
  at::Tensor pow(const at::Tensor& exponent) const;
  at::Tensor pow(const at::Scalar& exponent) const;
  at::Tensor sqrt() const;
  at::Tensor exp() const;
  at::Tensor log() const;
  at::Tensor relu() const;
  at::Tensor sigmoid() const;
  at::Tensor tanh() const;
  at::Tensor log_softmax(int64_t dim, c10::optional<at::ScalarType> dtype = c10::nullopt) const;
  at::Tensor softmax(int64_t dim, c10::optional<at::ScalarType> dtype = c10::nullopt) const;
  at::Tensor& copy_(const at::Tensor& src, bool non_blocking = false) const;
  at::Tensor& fill_(const at::Scalar& value) const;
  at::Tensor& fill_(const at::Tensor& value) const;
  at::Tensor& zero_() const;
  at::Tensor& clamp_(const c10::optional<at::Scalar>& min, const c10::optional<at::Scalar>& max = c10::nullopt) const;
  at::Tensor clamp(const c10::optional<at::Scalar>& min, const c10::optional<at::Scalar>& max = c10::nullopt) const;
  at::Tensor& uniform_(double from = 0, double to = 1, c10::optional<at::Generator> generator = c10::nullopt) const;
  at::Tensor& normal_(double mean = 0, double std = 1, c10::optional<at::Generator> generator = c10::nullopt) const;
  at::Tensor detach() const;
  at::Tensor& detach_() const;
  at::Tensor clone(c10::optional<at::MemoryFormat> memory_format = c10::nullopt) const;
  at::Tensor sum(c10::optional<at::ScalarType> dtype = c10::nullopt) const;
  at::Tensor sum(at::OptionalIntArrayRef dim, bool keepdim = false, c10::optional<at::ScalarType> dtype = c10::nullopt) const;
  at::Tensor mean(c10::optional<at::ScalarType> dtype = c10::nullopt) const;
  at::Tensor mean(at::OptionalIntArrayRef dim, bool keepdim = false, c10::optional<at::ScalarType> dtype = c10::nullopt) const;
  at::Tensor norm(const at::Scalar& p = 2) const;
  at::Tensor max() const;
  at::Tensor min() const;
  ::std::tuple<at::Tensor, at::Tensor> max(int64_t dim, bool keepdim = false) const;
  ::std::tuple<at::Tensor, at::Tensor> min(int64_t dim, bool keepdim = false) const;
  at::Tensor argmax(c10::optional<int64_t> dim = c10::nullopt, bool keepdim = false) const;
  at::Tensor eq(const at::Scalar& other) const;
  at::Tensor eq(const at::Tensor& other) const;
  at::Tensor ne(const at::Scalar& other) const;
  at::Tensor ne(const at::Tensor& other) const;
  at::Tensor lt(const at::Scalar& other) const;
  at::Tensor lt(const at::Tensor& other) const;
  at::Tensor gt(const at::Scalar& other) const;
  at::Tensor gt(const at::Tensor& other) const;
  at::Tensor le(const at::Scalar& other) const;
  at::Tensor le(const at::Tensor& other) const;
  at::Tensor ge(const at::Scalar& other) const;
  at::Tensor ge(const at::Tensor& other) const;
  at::Tensor remainder(const at::Scalar& other) const;
  at::Tensor remainder(const at::Tensor& other) const;
  bool allclose(const at::Tensor& other, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false) const;
  bool equal(const at::Tensor& other) const;
  at::Tensor view(at::IntArrayRef size) const;
  at::Tensor view(at::ScalarType dtype) const;
  at::Tensor view_as(const at::Tensor& other) const;
  at::Tensor reshape(at::IntArrayRef shape) const;
  at::Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  at::Tensor squeeze() const;
  at::Tensor squeeze(int64_t dim) const;
  at::Tensor unsqueeze(int64_t dim) const;
  at::Tensor t() const;
  at::Tensor transpose(int64_t dim0, int64_t dim1) const;
  at::Tensor expand(at::IntArrayRef size, bool implicit = false) const;
  at::Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  at::Tensor index_select(int64_t dim, const at::Tensor& index) const;
  at::Tensor select(int64_t dim, int64_t index) const;
  at::Tensor slice(int64_t dim = 0, c10::optional<int64_t> start = c10::nullopt,
                   c10::optional<int64_t> end = c10::nullopt, int64_t step = 1) const;
  at::Tensor to(at::TensorOptions options = {}, bool non_blocking = false, bool copy = false,
                c10::optional<at::MemoryFormat> memory_format = c10::nullopt) const;
  at::Tensor to(c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                c10::optional<at::Device> device, c10::optional<bool> pin_memory, bool non_blocking,
                bool copy, c10::optional<at::MemoryFormat> memory_format) const;
  at::Tensor to(at::Device device, at::ScalarType dtype, bool non_blocking = false, bool copy = false,
                c10::optional<at::MemoryFormat> memory_format = c10::nullopt) const;
  at::Tensor to(at::ScalarType dtype, bool non_blocking = false, bool copy = false,
                c10::optional<at::MemoryFormat> memory_format = c10::nullopt) const;
  at::Tensor to(const at::Tensor& other, bool non_blocking = false, bool copy = false,
                c10::optional<at::MemoryFormat> memory_format = c10::nullopt) const;

  template <typename T>
  using hook_return_void_t =
      std::enable_if_t<std::is_void<std::invoke_result_t<T&, Tensor>>::value, unsigned>;
  template <typename T>
  using hook_return_var_t =
      std::enable_if_t<std::is_same<std::invoke_result_t<T&, Tensor>, Tensor>::value, unsigned>;
  template <typename T>
  hook_return_void_t<T> register_hook(T&& hook) const;
  template <typename T>
  hook_return_var_t<T> register_hook(T&& hook) const;

  Tensor data() const { return TensorBase::data(); }
  void _backward(TensorList inputs, const c10::optional<Tensor>& gradient,
                 c10::optional<bool> keep_graph, bool create_graph) const;
  const Tensor& requires_grad_(bool _requires_grad = true) const {
    TensorBase::requires_grad_(_requires_grad);
    return *this;
  }
};

std::ostream& operator<<(std::ostream& out, const Tensor& t);

template <typename T>
auto TensorBase::register_hook(T&& hook) const -> TensorBase::hook_return_void_t<T> {
  return _register_hook([fn = std::forward<T>(hook)](const TensorBase& grad) mutable {
    fn(grad);
    return TensorBase();
  });
}
template <typename T>
auto TensorBase::register_hook(T&& hook) const -> TensorBase::hook_return_var_t<T> {
  return _register_hook(std::forward<T>(hook));
}
template <typename T>
auto Tensor::register_hook(T&& hook) const -> Tensor::hook_return_void_t<T> {
  return _register_hook([fn = std::forward<T>(hook)](const TensorBase& grad_base) mutable {
    fn(Tensor(grad_base));
    return Tensor();
  });
}
template <typename T>
auto Tensor::register_hook(T&& hook) const -> Tensor::hook_return_var_t<T> {
  return _register_hook([fn = std::forward<T>(hook)](const TensorBase& grad_base) mutable {
    return TensorBase(fn(Tensor(grad_base)));
  });
}

} // namespace at
