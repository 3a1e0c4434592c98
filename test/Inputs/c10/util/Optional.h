// ddplint mock of <c10/util/Optional.h> (LibTorch 1.13). In 1.13
// c10::optional is its own class template (not an alias of std::optional);
// the mock keeps that spelling and stores its value in a std::optional.
#pragma once
#include <optional>
#include <type_traits>
#include <utility>

namespace c10 {

struct nullopt_t {
  constexpr explicit nullopt_t(int) {}
};
constexpr nullopt_t nullopt{0};

template <class T>
class optional {
  std::optional<T> v_;

  template <class U>
  using not_self_t = std::enable_if_t<
      !std::is_same<std::decay_t<U>, optional>::value &&
      !std::is_same<std::decay_t<U>, nullopt_t>::value &&
      std::is_constructible<T, U&&>::value>;

 public:
  using value_type = T;

  constexpr optional() noexcept = default;
  constexpr optional(nullopt_t) noexcept {}
  optional(const optional&) = default;
  optional(optional&&) = default;
  template <class U = T, class = not_self_t<U>>
  constexpr optional(U&& v) : v_(std::forward<U>(v)) {}
  template <class U, class = std::enable_if_t<std::is_constructible<T, const U&>::value>>
  optional(const optional<U>& o) {
    if (o) v_.emplace(*o);
  }

  optional& operator=(const optional&) = default;
  optional& operator=(optional&&) = default;
  optional& operator=(nullopt_t) noexcept {
    v_.reset();
    return *this;
  }
  template <class U = T, class = not_self_t<U>>
  optional& operator=(U&& v) {
    v_ = std::forward<U>(v);
    return *this;
  }

  constexpr bool has_value() const noexcept { return v_.has_value(); }
  constexpr explicit operator bool() const noexcept { return v_.has_value(); }
  T& value() & { return *v_; }
  const T& value() const& { return *v_; }
  T&& value() && { return std::move(*v_); }
  T& operator*() & { return *v_; }
  const T& operator*() const& { return *v_; }
  T&& operator*() && { return std::move(*v_); }
  T* operator->() { return &*v_; }
  const T* operator->() const { return &*v_; }
  template <class U>
  T value_or(U&& d) const& {
    return v_ ? *v_ : static_cast<T>(std::forward<U>(d));
  }
  void reset() noexcept { v_.reset(); }
  template <class... Args>
  T& emplace(Args&&... args) {
    return v_.emplace(std::forward<Args>(args)...);
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
