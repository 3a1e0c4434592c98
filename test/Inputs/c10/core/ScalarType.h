// ddplint mock of <c10/core/ScalarType.h> (LibTorch 1.13): ScalarType, the
// k<Name> constants, and caffe2::TypeMeta (what Tensor::dtype() returns).
#pragma once
#include <cstdint>
#include <c10/macros/Macros.h>

namespace c10 {

// Same enumerator order as 1.13.
enum class ScalarType : int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double,
  ComplexHalf, ComplexFloat, ComplexDouble, Bool,
  QInt8, QUInt8, QInt32, BFloat16, QUInt4x2, QUInt2x4,
  Undefined, NumOptions
};

constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kComplexHalf = ScalarType::ComplexHalf;
constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kQInt8 = ScalarType::QInt8;
constexpr ScalarType kQUInt8 = ScalarType::QUInt8;
constexpr ScalarType kQInt32 = ScalarType::QInt32;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

const char* toString(ScalarType t);
bool isFloatingType(ScalarType t);
bool isIntegralType(ScalarType t, bool includeBool);

} // namespace c10

namespace caffe2 {
class TypeMeta final {
  c10::ScalarType st_ = c10::ScalarType::Undefined;

 public:
  TypeMeta() noexcept = default;
  template <class T>
  static TypeMeta Make();
  static TypeMeta fromScalarType(c10::ScalarType st) {
    TypeMeta m;
    m.st_ = st;
    return m;
  }
  TypeMeta& operator=(c10::ScalarType st) noexcept {
    st_ = st;
    return *this;
  }
  c10::ScalarType toScalarType() const { return st_; }
  std::size_t itemsize() const noexcept;
  bool isScalarType(c10::ScalarType st) const { return st_ == st; }
  template <typename T>
  bool Match() const noexcept;
  friend bool operator==(const TypeMeta& a, const TypeMeta& b) noexcept { return a.st_ == b.st_; }
  friend bool operator!=(const TypeMeta& a, const TypeMeta& b) noexcept { return a.st_ != b.st_; }
};
} // namespace caffe2

namespace c10 {
inline ScalarType typeMetaToScalarType(caffe2::TypeMeta dtype) { return dtype.toScalarType(); }
inline caffe2::TypeMeta scalarTypeToTypeMeta(ScalarType st) { return caffe2::TypeMeta::fromScalarType(st); }
inline bool operator==(const ScalarType t, const caffe2::TypeMeta m) { return m.isScalarType(t); }
inline bool operator==(const caffe2::TypeMeta m, const ScalarType t) { return m.isScalarType(t); }
inline bool operator!=(const ScalarType t, const caffe2::TypeMeta m) { return !(t == m); }
inline bool operator!=(const caffe2::TypeMeta m, const ScalarType t) { return !(t == m); }
} // namespace c10
