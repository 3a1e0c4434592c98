// ddplint mock of <c10/util/Optional.h> (LibTorch 1.13). In 1.13
// c10::optional is its own class template (not an alias of std::optional);
// the mock keeps that spelling with a small union-based implementation.
#pragma once
#include <new>
#include <type_traits>
#include <utility>

namespace c10 {

struct nullopt_t {
  constexpr explicit nullopt_t(int) {}
};
constexpr nullopt_t nullopt{0};

namespace detail_ {
// Storage: trivially destructible iff T is (as the real c10::optional).
template <class T, bool = std::is_trivially_destructible<T>::value>
struct optional_storage {
  union {
    char dummy_;
    T val_;
  };
  bool has_ = false;
  constexpr optional_storage() noexcept : dummy_() {}
  template <class... Args>
  constexpr explicit optional_storage(int, Args&&... args) : val_(std::forward<Args>(args)...), has_(true) {}
  ~optional_storage() {
    if (has_) val_.~T();
  }
  void destroy() noexcept {
    if (has_) val_.~T();
    has_ = false;
  }
};
template <class T>
struct optional_storage<T, true> {
  union {
    char dummy_;
    T val_;
  };
  bool has_ = false;
  constexpr optional_storage() noexcept : dummy_() {}
  template <class... Args>
  constexpr explicit optional_storage(int, Args&&... args) : val_(std::forward<Args>(args)...), has_(true) {}
  void destroy() noexcept { has_ = false; }
};

// Copy/move: trivial iff T is trivially copyable (as the real c10::optional).
template <class T, bool = std::is_trivially_copyable<T>::value>
struct optional_base : optional_storage<T> {
  using optional_storage<T>::optional_storage;
  optional_base() = default;
  optional_base(const optional_base& o) : optional_storage<T>() {
    if (o.has_) construct(o.val_);
  }
  optional_base(optional_base&& o) : optional_storage<T>() {
    if (o.has_) construct(std::move(o.val_));
  }
  optional_base& operator=(const optional_base& o) {
    this->destroy();
    if (o.has_) construct(o.val_);
    return *this;
  }
  optional_base& operator=(optional_base&& o) {
    this->destroy();
    if (o.has_) construct(std::move(o.val_));
    return *this;
  }
  template <class... Args>
  void construct(Args&&... args) {
    ::new (static_cast<void*>(&this->val_)) T(std::forward<Args>(args)...);
    this->has_ = true;
  }
};
template <class T>
struct optional_base<T, true> : optional_storage<T> {
  using optional_storage<T>::optional_storage;
  optional_base() = default;
  template <class... Args>
  void construct(Args&&... args) {
    ::new (static_cast<void*>(&this->val_)) T(std::forward<Args>(args)...);
    this->has_ = true;
  }
};
} // namespace detail_

template <class T>
class optional : private detail_::optional_base<T> {
  using base = detail_::optional_base<T>;
  template <class U>
  using not_self_t = std::enable_if_t<!std::is_same<std::decay_t<U>, optional>::value &&
                                      !std::is_same<std::decay_t<U>, nullopt_t>::value &&
                                      std::is_constructible<T, U&&>::value>;

 public:
  using value_type = T;

  constexpr optional() noexcept {}
  constexpr optional(nullopt_t) noexcept {}
  template <class U = T, class = not_self_t<U>>
  constexpr optional(U&& v) : base(0, std::forward<U>(v)) {}
  template <class U, class = std::enable_if_t<std::is_constructible<T, const U&>::value>>
  optional(const optional<U>& o) {
    if (o) this->construct(*o);
  }

  optional& operator=(nullopt_t) noexcept {
    reset();
    return *this;
  }
  template <class U = T, class = not_self_t<U>>
  optional& operator=(U&& v) {
    reset();
    this->construct(std::forward<U>(v));
    return *this;
  }

  constexpr bool has_value() const noexcept { return this->has_; }
  constexpr explicit operator bool() const noexcept { return this->has_; }
  T& value() & { return this->val_; }
  const T& value() const& { return this->val_; }
  T&& value() && { return std::move(this->val_); }
  T& operator*() & { return this->val_; }
  const T& operator*() const& { return this->val_; }
  T&& operator*() && { return std::move(this->val_); }
  T* operator->() { return &this->val_; }
  const T* operator->() const { return &this->val_; }
  template <class U>
  T value_or(U&& d) const& {
    return this->has_ ? this->val_ : static_cast<T>(std::forward<U>(d));
  }
  void reset() noexcept { this->destroy(); }
  template <class... Args>
  T& emplace(Args&&... args) {
    reset();
    this->construct(std::forward<Args>(args)...);
    return this->val_;
  }
};

template <class T>
constexpr bool operator==(const optional<T>& x, nullopt_t) noexcept { return !x; }
template <class T>
constexpr bool operator==(nullopt_t, const optional<T>& x) noexcept { return !x; }
template <class T>
constexpr bool operator!=(const optional<T>& x, nullopt_t) noexcept { return bool(x); }
template <class T>
constexpr bool operator!=(nullopt_t, const optional<T>& x) noexcept { return bool(x); }

template <class T>
constexpr optional<std::decay_t<T>> make_optional(T&& v) {
  return optional<std::decay_t<T>>(std::forward<T>(v));
}

} // namespace c10
