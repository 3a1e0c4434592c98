// ddplint mock of <torch/nn/modules.h> (LibTorch 1.13), subset: Linear,
// Conv2d, Dropout, ReLU, BatchNorm1d, Functional, Sequential (+ AnyModule).
// Impl classes derive from Cloneable<Impl> (through the same intermediate
// templates as the real ones) and holders come from TORCH_MODULE.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include <torch/nn/cloneable.h>
#include <torch/nn/functional.h>
#include <torch/nn/module.h>
#include <torch/nn/options.h>
#include <torch/nn/pimpl.h>
#include <torch/types.h>

namespace torch {
namespace nn {

class TORCH_API LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options_);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LinearOptions options;
  Tensor weight;
  Tensor bias;
};
TORCH_MODULE(Linear);

template <size_t D, typename Derived>
class ConvNdImpl : public torch::nn::Cloneable<Derived> {
 public:
  explicit ConvNdImpl(ConvOptions<D> options_) : options(std::move(options_)) {}
  void reset() override {}
  void reset_parameters();
  ConvOptions<D> options;
  Tensor weight;
  Tensor bias;
};

class TORCH_API Conv2dImpl : public ConvNdImpl<2, Conv2dImpl> {
 public:
  Conv2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv2dImpl(Conv2dOptions options_);
  Tensor forward(const Tensor& input);
};
TORCH_MODULE(Conv2d);

namespace detail {
template <typename Derived>
class _DropoutNd : public torch::nn::Cloneable<Derived> {
 public:
  _DropoutNd(double p) : _DropoutNd(DropoutOptions().p(p)) {}
  explicit _DropoutNd(const DropoutOptions& options_ = {}) : options(options_) {}
  void reset() override {}
  DropoutOptions options;
};
} // namespace detail

class TORCH_API DropoutImpl : public detail::_DropoutNd<DropoutImpl> {
 public:
  using detail::_DropoutNd<DropoutImpl>::_DropoutNd;
  Tensor forward(Tensor input);
};
TORCH_MODULE(Dropout);

class TORCH_API ReLUImpl : public torch::nn::Cloneable<ReLUImpl> {
 public:
  explicit ReLUImpl(const ReLUOptions& options_ = {});
  Tensor forward(Tensor input);
  void reset() override;
  ReLUOptions options;
};
TORCH_MODULE(ReLU);

class TORCH_API MSELossImpl : public torch::nn::Cloneable<MSELossImpl> {
 public:
  explicit MSELossImpl(const MSELossOptions& options_ = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  void reset() override;
  MSELossOptions options;
};
TORCH_MODULE(MSELoss);

template <size_t D, typename Derived, typename DerivedOptions>
class NormImplBase : public torch::nn::Cloneable<Derived> {
 public:
  NormImplBase(const DerivedOptions& options_) : options(options_) {}
  void reset() override {}
  void reset_running_stats();
  void reset_parameters();
  DerivedOptions options;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
  Tensor num_batches_tracked;
};

template <size_t D, typename Derived>
class BatchNormImplBase : public NormImplBase<D, Derived, BatchNormOptions> {
 public:
  using NormImplBase<D, Derived, BatchNormOptions>::NormImplBase;
  Tensor forward(const Tensor& input);
};

class TORCH_API BatchNorm1dImpl : public BatchNormImplBase<1, BatchNorm1dImpl> {
 public:
  using BatchNormImplBase<1, BatchNorm1dImpl>::BatchNormImplBase;
};
TORCH_MODULE(BatchNorm1d);

class TORCH_API FunctionalImpl : public torch::nn::Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;
  explicit FunctionalImpl(Function function);
  template <typename SomeFunction, typename... Args,
            typename = torch::enable_if_t<(sizeof...(Args) > 0)>>
  explicit FunctionalImpl(SomeFunction original_function, Args&&... args)
      : function_(std::bind(original_function, std::placeholders::_1, std::forward<Args>(args)...)) {}
  void reset() override;
  Tensor forward(Tensor input);
  Tensor operator()(Tensor input);
  bool is_serializable() const override;

 private:
  Function function_;
};
TORCH_MODULE(Functional);

// <torch/nn/modules/container/any.h>: type-erased module handle.
class AnyModule {
 public:
  AnyModule() = default;
  template <typename ModuleType>
  explicit AnyModule(std::shared_ptr<ModuleType> module) : ptr_(std::move(module)) {}
  template <typename ModuleType, typename = torch::detail::enable_if_module_t<ModuleType>>
  explicit AnyModule(ModuleType&& module)
      : ptr_(std::make_shared<std::decay_t<ModuleType>>(std::forward<ModuleType>(module))) {}
  template <typename ModuleType>
  explicit AnyModule(const ModuleHolder<ModuleType>& module_holder) : ptr_(module_holder.ptr()) {}
  template <typename... ArgumentTypes>
  Tensor forward(ArgumentTypes&&... arguments) {
    return Tensor();
  }
  std::shared_ptr<Module> ptr() const { return ptr_; }
  template <typename T>
  std::shared_ptr<T> ptr() const {
    return std::dynamic_pointer_cast<T>(ptr_);
  }
  bool is_empty() const noexcept { return ptr_ == nullptr; }

 private:
  std::shared_ptr<Module> ptr_;
};

class NamedAnyModule {
 public:
  template <typename ModuleType>
  NamedAnyModule(std::string name, std::shared_ptr<ModuleType> module_ptr)
      : NamedAnyModule(std::move(name), AnyModule(std::move(module_ptr))) {}
  template <typename M, typename = torch::detail::enable_if_module_t<M>>
  NamedAnyModule(std::string name, M&& module)
      : NamedAnyModule(std::move(name), AnyModule(std::forward<M>(module))) {}
  template <typename M>
  NamedAnyModule(std::string name, const ModuleHolder<M>& module_holder)
      : NamedAnyModule(std::move(name), AnyModule(module_holder)) {}
  NamedAnyModule(std::string name, AnyModule any_module)
      : name_(std::move(name)), module_(std::move(any_module)) {}
  const std::string& name() const noexcept { return name_; }
  AnyModule& module() noexcept { return module_; }

 private:
  std::string name_;
  AnyModule module_;
};

class SequentialImpl : public Cloneable<SequentialImpl> {
 public:
  using Iterator = std::vector<AnyModule>::iterator;
  using ConstIterator = std::vector<AnyModule>::const_iterator;

  SequentialImpl() = default;
  template <typename... Modules>
  explicit SequentialImpl(Modules&&... modules) {
    modules_.reserve(sizeof...(Modules));
    push_back(std::forward<Modules>(modules)...);
  }
  explicit SequentialImpl(torch::OrderedDict<std::string, AnyModule>&& ordered_dict);
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules);

  void reset() override {}
  template <typename ReturnType = Tensor, typename... InputTypes>
  ReturnType forward(InputTypes&&... inputs) {
    return ReturnType();
  }

  template <typename ModuleType>
  void push_back(std::shared_ptr<ModuleType> module_ptr) {
    push_back(std::to_string(modules_.size()), std::move(module_ptr));
  }
  template <typename ModuleType>
  void push_back(std::string name, std::shared_ptr<ModuleType> module_ptr) {
    push_back(std::move(name), AnyModule(std::move(module_ptr)));
  }
  template <typename M, typename = torch::detail::enable_if_module_t<M>>
  void push_back(M&& module) {
    push_back(std::to_string(modules_.size()), std::forward<M>(module));
  }
  template <typename M, typename = torch::detail::enable_if_module_t<M>>
  void push_back(std::string name, M&& module) {
    using Type = typename std::remove_reference<M>::type;
    push_back(std::move(name), std::make_shared<Type>(std::forward<M>(module)));
  }
  template <typename M>
  void push_back(const ModuleHolder<M>& module_holder) {
    push_back(std::to_string(modules_.size()), module_holder);
  }
  template <typename M>
  void push_back(std::string name, const ModuleHolder<M>& module_holder) {
    push_back(std::move(name), module_holder.ptr());
  }
  void push_back(AnyModule any_module) {
    push_back(std::to_string(modules_.size()), std::move(any_module));
  }
  void push_back(std::string name, AnyModule any_module);

  Iterator begin() { return modules_.begin(); }
  ConstIterator begin() const { return modules_.begin(); }
  Iterator end() { return modules_.end(); }
  ConstIterator end() const { return modules_.end(); }
  std::shared_ptr<Module> ptr(size_t index) const { return modules_[index].ptr(); }
  template <typename T>
  std::shared_ptr<T> ptr(size_t index) const {
    return modules_[index].ptr<T>();
  }
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return size() == 0; }

 private:
  template <typename First, typename Second, typename... Rest>
  void push_back(First&& first, Second&& second, Rest&&... rest) {
    push_back(std::forward<First>(first));
    push_back(std::forward<Second>(second), std::forward<Rest>(rest)...);
  }
  void push_back() {}
  std::vector<AnyModule> modules_;
};

class Sequential : public torch::nn::ModuleHolder<SequentialImpl> {
 public:
  using torch::nn::ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential();
  Sequential(std::initializer_list<NamedAnyModule> named_modules);
};

} // namespace nn
} // namespace torch
