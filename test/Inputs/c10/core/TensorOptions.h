// ddplint mock of <c10/core/TensorOptions.h> (+ Layout, MemoryFormat) from
// LibTorch 1.13: implicit constructors from Device (and anything a Device
// is constructible from, e.g. kCUDA), ScalarType, TypeMeta, Layout and
// MemoryFormat, chained setters, and the free helper functions.
#pragma once
#include <type_traits>
#include <utility>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <c10/util/Optional.h>

namespace c10 {

enum class Layout : int8_t { Strided, Sparse, SparseCsr, Mkldnn, SparseCsc, SparseBsr, SparseBsc, NumOptions };
constexpr auto kStrided = Layout::Strided;
constexpr auto kSparse = Layout::Sparse;
constexpr auto kSparseCsr = Layout::SparseCsr;
constexpr auto kMkldnn = Layout::Mkldnn;

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d, NumOptions };

struct C10_API TensorOptions {
  TensorOptions() = default;
  /* implicit */ TensorOptions(Layout layout) { this->layout_ = layout; }
  template <typename T,
            typename = std::enable_if_t<std::is_same<std::decay_t<T>, Device>::value>>
  /* implicit */ TensorOptions(T&& device) : device_(std::forward<T>(device)) {}
  template <typename... Args,
            typename = std::enable_if_t<std::is_constructible<Device, Args&&...>::value>>
  /* implicit */ TensorOptions(Args&&... args)
      : TensorOptions(Device(std::forward<Args>(args)...)) {}
  /* implicit */ TensorOptions(caffe2::TypeMeta dtype) : dtype_(dtype.toScalarType()) {}
  /* implicit */ TensorOptions(ScalarType dtype) : dtype_(dtype) {}
  /* implicit */ TensorOptions(MemoryFormat memory_format) : memory_format_(memory_format) {}

  TensorOptions device(c10::optional<Device> device) const noexcept {
    TensorOptions r = *this;
    r.device_ = device;
    return r;
  }
  template <typename... Args>
  TensorOptions device(Args&&... args) const noexcept {
    return device(c10::optional<Device>(Device(std::forward<Args>(args)...)));
  }
  TensorOptions device_index(int16_t device_index) const noexcept;
  TensorOptions dtype(c10::optional<caffe2::TypeMeta> dtype) const noexcept;
  TensorOptions dtype(c10::optional<ScalarType> dtype) const noexcept {
    TensorOptions r = *this;
    r.dtype_ = dtype;
    return r;
  }
  template <typename T>
  TensorOptions& dtype();
  TensorOptions layout(c10::optional<Layout> layout) const noexcept;
  TensorOptions requires_grad(c10::optional<bool> requires_grad) const noexcept {
    TensorOptions r = *this;
    r.requires_grad_ = requires_grad;
    return r;
  }
  TensorOptions pinned_memory(c10::optional<bool> pinned_memory) const noexcept;
  TensorOptions memory_format(c10::optional<MemoryFormat> memory_format) const noexcept;

  Device device() const noexcept { return device_ ? *device_ : Device(kCPU); }
  bool has_device() const noexcept { return bool(device_); }
  int32_t device_index() const noexcept { return device().index(); }
  caffe2::TypeMeta dtype() const noexcept;
  bool has_dtype() const noexcept { return bool(dtype_); }
  Layout layout() const noexcept;
  bool requires_grad() const noexcept { return requires_grad_ ? *requires_grad_ : false; }
  bool has_requires_grad() const noexcept { return bool(requires_grad_); }
  bool pinned_memory() const noexcept;
  bool is_sparse() const;

 private:
  c10::optional<Device> device_;
  c10::optional<ScalarType> dtype_;
  c10::optional<Layout> layout_;
  c10::optional<bool> requires_grad_;
  c10::optional<MemoryFormat> memory_format_;
};

inline TensorOptions dtype(caffe2::TypeMeta dtype) { return TensorOptions().dtype(dtype); }
inline TensorOptions dtype(ScalarType dtype) { return TensorOptions().dtype(dtype); }
inline TensorOptions layout(Layout layout) { return TensorOptions().layout(layout); }
inline TensorOptions device(Device device) { return TensorOptions().device(device); }
inline TensorOptions device_index(int16_t device_index) {
  return TensorOptions().device_index(device_index);
}
inline TensorOptions requires_grad(bool requires_grad = true) {
  return TensorOptions().requires_grad(requires_grad);
}
inline TensorOptions memory_format(MemoryFormat memory_format) {
  return TensorOptions().memory_format(memory_format);
}

} // namespace c10
