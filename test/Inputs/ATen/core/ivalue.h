// ddplint mock of <ATen/core/ivalue.h> (LibTorch 1.13): torch::CustomClassHolder
// (base of every c10d object), a small c10::IValue and c10::ivalue::Future
// (what Work::getFuture() returns). TypePtr is simplified to a shared_ptr.
#pragma once
#include <memory>
#include <vector>
#include <c10/util/intrusive_ptr.h>
#include <ATen/core/Tensor.h>

namespace torch {
class TORCH_API CustomClassHolder : public c10::intrusive_ptr_target {};
} // namespace torch

namespace c10 {

struct Type;
using TypePtr = std::shared_ptr<Type>;
struct TensorType {
  static TypePtr get();
};
struct ListType {
  static TypePtr ofTensors();
};
struct NoneType {
  static TypePtr get();
};

struct TORCH_API IValue final {
  IValue() = default;
  IValue(at::Tensor t);
  IValue(std::vector<at::Tensor> v);
  IValue(double d);
  IValue(int64_t i);
  IValue(bool b);
  bool isTensor() const;
  bool isTensorList() const;
  bool isNone() const;
  at::Tensor toTensor() const&;
  std::vector<at::Tensor> toTensorVector() const;
  double toDouble() const;
  int64_t toInt() const;
  bool toBool() const;
};

namespace ivalue {
struct Future;
}

struct C10_EXPORT ivalue::Future final : c10::intrusive_ptr_target {
  explicit Future(TypePtr type, std::vector<c10::Device> devices = {});
  void wait();
  void waitAndThrow();
  bool completed() const;
  bool hasValue() const;
  bool hasError() const;
  IValue value();
  const IValue& constValue() const;
  void markCompleted(IValue value);
  void markCompleted();
  TypePtr elementType() const;
  std::vector<c10::Device> devices() const;
  template <typename T>
  c10::intrusive_ptr<Future> then(T callback, TypePtr type) {
    return c10::intrusive_ptr<Future>();
  }
  void addCallback(std::function<void(Future&)> callback);
};

} // namespace c10

namespace at {
using c10::IValue;
}
