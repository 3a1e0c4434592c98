// ddplint mock of <torch/csrc/distributed/c10d/Work.hpp>.
//  - default (LibTorch 1.13) and DDPLINT_MOCK_C10D_V2 (2.x): c10d::Work is a
//    top-level class; collectives return c10::intrusive_ptr<c10d::Work>.
//    1.13 has NO `ProcessGroup::Work` (neither nested class nor alias).
//  - DDPLINT_MOCK_C10D_OLD: there is no top-level Work; the class is nested,
//    c10d::ProcessGroup::Work (see ProcessGroup.hpp). kNoTimeout and OpType
//    are declared here in every mode.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>
#include <torch/csrc/distributed/c10d/ddplint_mock_config.hpp>

constexpr auto kNoTimeout = std::chrono::milliseconds(0);

namespace c10d {

constexpr const char* const kSeqNumStoreKey = "SEQ_NUM_STORE_KEY";

enum class OpType : std::uint8_t {
  BROADCAST = 0,
  ALLREDUCE = 1,
  ALLREDUCE_COALESCED = 2,
  REDUCE = 3,
  ALLGATHER = 4,
  _ALLGATHER_BASE = 5,
  ALLGATHER_COALESCED = 6,
  GATHER = 7,
  SCATTER = 8,
  REDUCE_SCATTER = 9,
  ALLTOALL_BASE = 10,
  ALLTOALL = 11,
  SEND = 12,
  RECV = 13,
  RECVANYSOURCE = 14,
  BARRIER = 15,
  _REDUCE_SCATTER_BASE = 16,
  UNKNOWN = 100,
};

TORCH_API std::string opTypeToString(OpType opType);
TORCH_API bool isP2POp(OpType opType, bool batchP2P = false);

#if !defined(DDPLINT_MOCK_C10D_OLD)
class TORCH_API Work : public torch::CustomClassHolder {
 public:
  Work(int rank = -1, OpType opType = OpType::UNKNOWN, const char* profilingTitle = nullptr,
       const c10::optional<std::vector<at::Tensor>>& inputTensors = c10::nullopt);
  virtual ~Work();

  virtual bool isCompleted();
  virtual bool isSuccess() const;
  virtual std::exception_ptr exception() const;
  virtual int sourceRank() const;
  virtual std::vector<at::Tensor> result();
  virtual void synchronize();
  virtual bool wait(std::chrono::milliseconds timeout = kNoTimeout);
  virtual void abort();
  virtual c10::intrusive_ptr<c10::ivalue::Future> getFuture();
  OpType retrieveOpType();
  static c10::intrusive_ptr<Work> create_from_future(c10::intrusive_ptr<c10::ivalue::Future>);

 protected:
  void finish(std::exception_ptr exception = nullptr);
  void finishAndThrow(std::exception_ptr exception);
  bool completed_ = false;
  std::exception_ptr exception_;
  const int rank_;
  OpType opType_;
};
#endif

} // namespace c10d
