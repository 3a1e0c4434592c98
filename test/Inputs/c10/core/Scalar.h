// ddplint mock of <c10/core/Scalar.h> (LibTorch 1.13). The implicit
// constructors are the real set (uint8_t, int8_t, int16_t, int, int64_t,
// float, double, and bool via a template), so e.g. a size_t or unsigned
// argument is ambiguous exactly as with the real Scalar.
#pragma once
#include <cstdint>
#include <type_traits>
#include <c10/macros/Macros.h>

namespace c10 {

class C10_API Scalar {
 public:
  Scalar() : Scalar(int64_t(0)) {}
  ~Scalar() {}
  Scalar(Scalar&& rhs) noexcept : d_(rhs.d_), integral_(rhs.integral_) {}
  Scalar(const Scalar& rhs) : d_(rhs.d_), integral_(rhs.integral_) {}
  Scalar& operator=(Scalar&& other) noexcept {
    d_ = other.d_;
    integral_ = other.integral_;
    return *this;
  }
  Scalar& operator=(const Scalar& other) {
    d_ = other.d_;
    integral_ = other.integral_;
    return *this;
  }
  Scalar(uint8_t vv) : d_(vv), integral_(true) {}
  Scalar(int8_t vv) : d_(vv), integral_(true) {}
  Scalar(int16_t vv) : d_(vv), integral_(true) {}
  Scalar(int vv) : d_(vv), integral_(true) {}
  Scalar(int64_t vv) : d_(static_cast<double>(vv)), integral_(true) {}
  Scalar(float vv) : d_(vv) {}
  Scalar(double vv) : d_(vv) {}
  template <typename T,
            typename std::enable_if<std::is_same<T, bool>::value, bool>::type* = nullptr>
  Scalar(T vv) : d_(vv ? 1 : 0), integral_(true) {}

  double toDouble() const { return d_; }
  float toFloat() const { return static_cast<float>(d_); }
  int64_t toLong() const { return static_cast<int64_t>(d_); }
  int toInt() const { return static_cast<int>(d_); }
  bool toBool() const { return d_ != 0; }
  template <typename T>
  T to() const {
    return static_cast<T>(d_);
  }
  bool isFloatingPoint() const { return !integral_; }
  bool isIntegral(bool includeBool) const { return integral_; }
  bool isBoolean() const;
  Scalar operator-() const;

 private:
  double d_ = 0;
  bool integral_ = false;
};

} // namespace c10
