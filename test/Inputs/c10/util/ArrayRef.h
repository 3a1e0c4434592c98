// ddplint mock of <c10/util/ArrayRef.h> (LibTorch 1.13): a non-owning view.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace c10 {

template <typename T>
class ArrayRef final {
  const T* data_ = nullptr;
  std::size_t length_ = 0;

 public:
  using iterator = const T*;
  using const_iterator = const T*;
  using size_type = std::size_t;
  using value_type = T;

  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), length_(1) {}
  constexpr ArrayRef(const T* data, std::size_t length) : data_(data), length_(length) {}
  constexpr ArrayRef(const T* begin, const T* end) : data_(begin), length_(end - begin) {}
  template <typename A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), length_(v.size()) {}
  template <std::size_t N>
  constexpr ArrayRef(const T (&arr)[N]) : data_(arr), length_(N) {}
  constexpr ArrayRef(const std::initializer_list<T>& il)
      : data_(il.begin() == il.end() ? nullptr : il.begin()), length_(il.size()) {}

  constexpr iterator begin() const { return data_; }
  constexpr iterator end() const { return data_ + length_; }
  constexpr const T* data() const { return data_; }
  constexpr std::size_t size() const { return length_; }
  constexpr bool empty() const { return length_ == 0; }
  constexpr const T& front() const { return data_[0]; }
  constexpr const T& back() const { return data_[length_ - 1]; }
  constexpr const T& operator[](std::size_t i) const { return data_[i]; }
  const T& at(std::size_t i) const { return data_[i]; }
  ArrayRef<T> slice(std::size_t n, std::size_t m) const { return {data_ + n, m}; }
  ArrayRef<T> slice(std::size_t n) const { return {data_ + n, length_ - n}; }
  std::vector<T> vec() const { return std::vector<T>(data_, data_ + length_); }
  bool equals(ArrayRef rhs) const {
    if (length_ != rhs.length_) return false;
    for (std::size_t i = 0; i < length_; ++i)
      if (!(data_[i] == rhs.data_[i])) return false;
    return true;
  }
};

template <typename T>
bool operator==(ArrayRef<T> a1, ArrayRef<T> a2) {
  return a1.equals(a2);
}
template <typename T>
bool operator!=(ArrayRef<T> a1, ArrayRef<T> a2) {
  return !a1.equals(a2);
}
template <typename T>
bool operator==(const std::vector<T>& a1, ArrayRef<T> a2) {
  return ArrayRef<T>(a1).equals(a2);
}
template <typename T>
bool operator!=(const std::vector<T>& a1, ArrayRef<T> a2) {
  return !ArrayRef<T>(a1).equals(a2);
}
template <typename T>
bool operator==(ArrayRef<T> a1, const std::vector<T>& a2) {
  return a1.equals(ArrayRef<T>(a2));
}
template <typename T>
bool operator!=(ArrayRef<T> a1, const std::vector<T>& a2) {
  return !a1.equals(ArrayRef<T>(a2));
}

using IntArrayRef = ArrayRef<int64_t>;

} // namespace c10
