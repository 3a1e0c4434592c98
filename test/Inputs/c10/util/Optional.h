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

template <class T>
class optional {
  union {
    char dummy_;
    T val_;
  };
  bool has_ = false;

  template <class U>
  using not_self_t = std::enable_if_t<!std::is_same<std::decay_t<U>, optional>::value &&
                                      !std::is_same<std::decay_t<U>, nullopt_t>::value &&
                                      std::is_constructible<T, U&&>::value>;

 public:
  using value_type = T;

  optional() noexcept : dummy_() {}
  optional(nullopt_t) noexcept : dummy_() {}
  optional(const optional& o) : dummy_(), has_(o.has_) {
    if (has_) ::new (static_cast<void*>(&val_)) T(o.val_);
  }
  optional(optional&& o) : dummy_(), has_(o.has_) {
    if (has_) ::new (static_cast<void*>(&val_)) T(std::move(o.val_));
  }
  template <class U = T, class = not_self_t<U>>
  optional(U&& v) : val_(std::forward<U>(v)), has_(true) {}
  template <class U, class = std::enable_if_t<std::is_constructible<T, const U&>::value>>
  optional(const optional<U>& o) : dummy_(), has_(bool(o)) {
    if (has_) ::new (static_cast<void*>(&val_)) T(*o);
  }
  ~optional() {
    if (has_) val_.~T();
  }

  optional& operator=(const optional& o) {
    reset();
    if (o.has_) emplace(o.val_);
    return *this;
  }
  optional& operator=(optional&& o) {
    reset();
    if (o.has_) emplace(std::move(o.val_));
    return *this;
  }
  optional& operator=(nullopt_t) noexcept {
    reset();
    return *this;
  }
  template <class U = T, class = not_self_t<U>>
  optional& operator=(U&& v) {
    reset();
    emplace(std::forward<U>(v));
    return *this;
  }

  constexpr bool has_value() const noexcept { return has_; }
  constexpr explicit operator bool() const noexcept { return has_; }
  T& value() & { return val_; }
  const T& value() const& { return val_; }
  T&& value() && { return std::move(val_); }
  T& operator*() & { return val_; }
  const T& operator*() const& { return val_; }
  T&& operator*() && { return std::move(val_); }
  T* operator->() { return &val_; }
  const T* operator->() const { return &val_; }
  template <class U>
  T value_or(U&& d) const& {
    return has_ ? val_ : static_cast<T>(std::forward<U>(d));
  }
  void reset() noexcept {
    if (has_) val_.~T();
    has_ = false;
  }
  template <class... Args>
  T& emplace(Args&&... args) {
    reset();
    ::new (static_cast<void*>(&val_)) T(std::forward<Args>(args)...);
    has_ = true;
    return val_;
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
