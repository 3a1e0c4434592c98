// ddplint mock of <c10/util/variant.h> (LibTorch 1.13): just enough of
// c10::variant for the option types (loss reduction, init modes).
#pragma once
#include <cstddef>
#include <type_traits>

namespace c10 {
template <typename... Ts>
class variant {
  std::size_t index_ = 0;

 public:
  variant() = default;
  template <typename T,
            typename = std::enable_if_t<
                (std::is_same<std::decay_t<T>, Ts>::value || ...)>>
  variant(T&&) {}
  std::size_t index() const noexcept { return index_; }
};
} // namespace c10
