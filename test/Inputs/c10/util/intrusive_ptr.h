// ddplint mock of <c10/util/intrusive_ptr.h> (LibTorch 1.13): reference
// counted pointer to a c10::intrusive_ptr_target, with the real template
// parameters <TTarget, NullType>.
#pragma once
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace c10 {

class intrusive_ptr_target {
  template <class, class>
  friend class intrusive_ptr;
  mutable std::size_t refcount_ = 0;

 protected:
  virtual ~intrusive_ptr_target() = default;
  intrusive_ptr_target() noexcept = default;
  intrusive_ptr_target(const intrusive_ptr_target&) noexcept {}
  intrusive_ptr_target& operator=(const intrusive_ptr_target&) noexcept { return *this; }

 private:
  virtual void release_resources() {}
};

namespace detail {
template <class TTarget>
struct intrusive_target_default_null_type final {
  static constexpr TTarget* singleton() noexcept { return nullptr; }
};
} // namespace detail

template <class TTarget,
          class NullType = detail::intrusive_target_default_null_type<TTarget>>
class intrusive_ptr final {
  TTarget* target_;

  template <class, class>
  friend class intrusive_ptr;

  void retain_() {
    if (target_) ++target_->refcount_;
  }
  void reset_() noexcept {
    if (target_ && --target_->refcount_ == 0) delete target_;
  }
  explicit intrusive_ptr(TTarget* target, int) noexcept : target_(target) {}

 public:
  using element_type = TTarget;

  intrusive_ptr() noexcept : target_(NullType::singleton()) {}
  intrusive_ptr(std::nullptr_t) noexcept : intrusive_ptr() {}
  intrusive_ptr(intrusive_ptr&& rhs) noexcept : target_(rhs.target_) {
    rhs.target_ = NullType::singleton();
  }
  template <class From, class FromNullType,
            class = std::enable_if_t<std::is_convertible<From*, TTarget*>::value>>
  intrusive_ptr(intrusive_ptr<From, FromNullType>&& rhs) noexcept : target_(rhs.target_) {
    rhs.target_ = FromNullType::singleton();
  }
  intrusive_ptr(const intrusive_ptr& rhs) : target_(rhs.target_) { retain_(); }
  template <class From, class FromNullType,
            class = std::enable_if_t<std::is_convertible<From*, TTarget*>::value>>
  intrusive_ptr(const intrusive_ptr<From, FromNullType>& rhs) : target_(rhs.target_) {
    retain_();
  }
  ~intrusive_ptr() noexcept { reset_(); }

  intrusive_ptr& operator=(intrusive_ptr rhs) & noexcept {
    std::swap(target_, rhs.target_);
    return *this;
  }

  TTarget* get() const noexcept { return target_; }
  TTarget& operator*() const noexcept { return *target_; }
  TTarget* operator->() const noexcept { return target_; }
  operator bool() const noexcept { return target_ != NullType::singleton(); }
  void reset() noexcept {
    reset_();
    target_ = NullType::singleton();
  }
  void swap(intrusive_ptr& r) noexcept { std::swap(target_, r.target_); }
  bool defined() const noexcept { return target_ != NullType::singleton(); }
  std::size_t use_count() const noexcept { return target_ ? target_->refcount_ : 0; }
  bool unique() const noexcept { return use_count() == 1; }
  TTarget* release() noexcept {
    TTarget* r = target_;
    target_ = NullType::singleton();
    return r;
  }
  static intrusive_ptr reclaim(TTarget* owning_ptr) { return intrusive_ptr(owning_ptr, 0); }

  template <class... Args>
  static intrusive_ptr make(Args&&... args) {
    intrusive_ptr result(new TTarget(std::forward<Args>(args)...), 0);
    result.retain_();
    return result;
  }
};

template <class TTarget,
          class NullType = detail::intrusive_target_default_null_type<TTarget>,
          class... Args>
inline intrusive_ptr<TTarget, NullType> make_intrusive(Args&&... args) {
  return intrusive_ptr<TTarget, NullType>::make(std::forward<Args>(args)...);
}

template <class T1, class N1, class T2, class N2>
inline bool operator==(const intrusive_ptr<T1, N1>& a, const intrusive_ptr<T2, N2>& b) noexcept {
  return a.get() == b.get();
}
template <class T1, class N1, class T2, class N2>
inline bool operator!=(const intrusive_ptr<T1, N1>& a, const intrusive_ptr<T2, N2>& b) noexcept {
  return a.get() != b.get();
}
template <class T1, class N1>
inline bool operator==(const intrusive_ptr<T1, N1>& a, std::nullptr_t) noexcept {
  return a.get() == nullptr;
}
template <class T1, class N1>
inline bool operator!=(const intrusive_ptr<T1, N1>& a, std::nullptr_t) noexcept {
  return a.get() != nullptr;
}

} // namespace c10
