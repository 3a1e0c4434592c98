// ddplint mock of <torch/csrc/distributed/c10d/Types.hpp>.
//  - default and DDPLINT_MOCK_C10D_V2 (LibTorch 1.13 and 2.x): ReduceOp is a
//    struct (a CustomClassHolder) wrapping the unscoped enum
//    ReduceOp::RedOpType {SUM, AVG, PRODUCT, ...}, implicitly convertible
//    both ways, so `ReduceOp::SUM` and `opts.reduceOp = ReduceOp::AVG` work.
//  - DDPLINT_MOCK_C10D_OLD: ReduceOp is `enum class ReduceOp : uint8_t`.
//    LibTorch <= 1.10 had no AVG; the mock adds it anyway (after UNUSED) so
//    tests can spell it. With DDPLINT_MOCK_C10D_OLD_INTRUSIVE the 1.11/1.12
//    order (SUM, AVG, PRODUCT, ...) is used instead.
// The options structs are aggregates (designated initializers work), except
// under DDPLINT_MOCK_C10D_OLD without _INTRUSIVE, where AllreduceOptions has
// a virtual destructor as in LibTorch <= 1.7.
#pragma once
#include <chrono>
#include <cstdint>
#include <vector>
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <c10/util/intrusive_ptr.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace c10d {

#if !defined(DDPLINT_MOCK_C10D_OLD)
struct TORCH_API _SupplementBase : torch::CustomClassHolder {
  virtual ~_SupplementBase() {}
};

struct NCCLPreMulSumSupplement : _SupplementBase {
  double double_factor{0.0};
  std::vector<at::Tensor> tensor_factors;
  NCCLPreMulSumSupplement(double f) : double_factor{f} {}
  NCCLPreMulSumSupplement(std::vector<at::Tensor> f) : tensor_factors{std::move(f)} {}
};

struct TORCH_API ReduceOp : torch::CustomClassHolder {
  enum RedOpType : uint8_t {
    SUM = 0,
    AVG = 1,
    PRODUCT = 2,
    MIN = 3,
    MAX = 4,
    BAND = 5,
    BOR = 6,
    BXOR = 7,
    PREMUL_SUM = 8,
    UNUSED = 9
  };

  ReduceOp() {}
  ReduceOp(RedOpType op) : op_(op) {}
  ReduceOp(RedOpType op, c10::intrusive_ptr<_SupplementBase> optional_supplement)
      : op_(op), supplement_(optional_supplement) {}
  ReduceOp(const ReduceOp& other) : op_(other.op_), supplement_(other.supplement_) {}
  const ReduceOp& operator=(const ReduceOp& other) {
    op_ = other.op_;
    supplement_ = other.supplement_;
    return *this;
  }
  operator RedOpType() const { return op_; }
  bool operator==(const std::uint8_t other) { return other == op_; }
  bool operator==(const ReduceOp::RedOpType other) { return *this == static_cast<std::uint8_t>(other); }
  bool operator==(const ReduceOp& other) { return *this == other.op_; }

  RedOpType op_ = SUM;
  c10::intrusive_ptr<_SupplementBase> supplement_;
};

template <typename T>
ReduceOp makeNCCLPreMulSum(const T& factor) {
  ReduceOp rop;
  rop.op_ = ReduceOp::PREMUL_SUM;
  rop.supplement_ = c10::make_intrusive<NCCLPreMulSumSupplement>(factor);
  return rop;
}
#elif defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
enum class ReduceOp : std::uint8_t { SUM = 0, AVG = 1, PRODUCT, MIN, MAX, BAND, BOR, BXOR, UNUSED };
#else
enum class ReduceOp : std::uint8_t { SUM = 0, PRODUCT, MIN, MAX, BAND, BOR, BXOR, UNUSED, AVG /* mock-only */ };
#endif

constexpr auto kUnsetTimeout = std::chrono::milliseconds(-1);

#if defined(DDPLINT_MOCK_C10D_OLD) && !defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
#define DDPLINT_MOCK_C10D_RANK_T int
#else
#define DDPLINT_MOCK_C10D_RANK_T int64_t
#endif

struct BroadcastOptions {
  DDPLINT_MOCK_C10D_RANK_T rootRank = 0;
  DDPLINT_MOCK_C10D_RANK_T rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
#if defined(DDPLINT_MOCK_C10D_V2)
  bool asyncOp = true;
#endif
};

struct AllreduceOptions {
#if defined(DDPLINT_MOCK_C10D_OLD) && !defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
  virtual ~AllreduceOptions() = default;
#endif
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
#if defined(DDPLINT_MOCK_C10D_V2)
  c10::optional<at::Tensor> sparseIndices = c10::nullopt;
#endif
};

struct AllreduceCoalescedOptions : AllreduceOptions {};

struct ReduceOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  DDPLINT_MOCK_C10D_RANK_T rootRank = 0;
  DDPLINT_MOCK_C10D_RANK_T rootTensor = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct AllgatherOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
#if defined(DDPLINT_MOCK_C10D_V2)
  bool asyncOp = true;
#endif
};

struct GatherOptions {
  DDPLINT_MOCK_C10D_RANK_T rootRank = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct ScatterOptions {
  DDPLINT_MOCK_C10D_RANK_T rootRank = 0;
  std::chrono::milliseconds timeout = kUnsetTimeout;
#if defined(DDPLINT_MOCK_C10D_V2)
  bool asyncOp = true;
#endif
};

struct ReduceScatterOptions {
  ReduceOp reduceOp = ReduceOp::SUM;
  std::chrono::milliseconds timeout = kUnsetTimeout;
#if defined(DDPLINT_MOCK_C10D_V2)
  bool asyncOp = true;
#endif
};

struct AllToAllOptions {
  std::chrono::milliseconds timeout = kUnsetTimeout;
};

struct BarrierOptions {
#if !defined(DDPLINT_MOCK_C10D_OLD) || defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
  std::vector<int64_t> device_ids;
#endif
  std::chrono::milliseconds timeout = kUnsetTimeout;
#if defined(DDPLINT_MOCK_C10D_V2)
  c10::optional<at::Device> device;
#endif
};

} // namespace c10d

#undef DDPLINT_MOCK_C10D_RANK_T
