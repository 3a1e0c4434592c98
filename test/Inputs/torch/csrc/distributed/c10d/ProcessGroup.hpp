// ddplint mock of <torch/csrc/distributed/c10d/ProcessGroup.hpp>.
//  - default (LibTorch 1.13): ProcessGroup is the abstract base of the
//    backends; collectives are virtual, return c10::intrusive_ptr<Work>
//    (top-level c10d::Work) and have throwing default bodies.
//  - DDPLINT_MOCK_C10D_V2 (2.x): ProcessGroup wraps per-device Backends
//    (getBackend, setBackend, BackendType); collectives still virtual.
//  - DDPLINT_MOCK_C10D_OLD (<= 1.7): nested ProcessGroup::Work, pure virtual
//    collectives returning std::shared_ptr<ProcessGroup::Work>, a plain
//    (non-CustomClassHolder) class, `allgather_base` without underscore.
//    With DDPLINT_MOCK_C10D_OLD_INTRUSIVE (1.8-1.12): same, but
//    c10::intrusive_ptr<ProcessGroup::Work> and `_allgather_base`.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

constexpr auto kProcessGroupDefaultTimeout = std::chrono::milliseconds(30 * 60 * 1000);

namespace c10d {

class TORCH_API ProcessGroup DDPLINT_MOCK_C10D_BASE {
 public:
#if defined(DDPLINT_MOCK_C10D_OLD)
  class Work DDPLINT_MOCK_C10D_BASE {
   public:
    Work(int rank = -1, OpType opType = OpType::UNKNOWN, const char* profilingTitle = nullptr);
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

   protected:
    void finish(std::exception_ptr exception = nullptr);
    void finishAndThrow(std::exception_ptr exception);
    bool completed_ = false;
    std::exception_ptr exception_;
    const int rank_;
    OpType opType_;
  };
#endif
#if !defined(DDPLINT_MOCK_C10D_OLD) || defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
  struct TORCH_API Options : torch::CustomClassHolder {
    explicit Options(std::string backend, std::chrono::milliseconds timeout = kProcessGroupDefaultTimeout)
        : timeout(timeout), backend(backend) {}
    virtual ~Options() = default;
    std::chrono::milliseconds timeout;
    const std::string backend;
  };
#endif

#if defined(DDPLINT_MOCK_C10D_V2)
  enum BackendType {
    UNDEFINED = 0,
    GLOO = 1,
    NCCL = 2,
    UCC = 3,
    MPI = 4,
    CUSTOM = 5,
  };
  explicit ProcessGroup(int rank, int size);
  explicit ProcessGroup(const c10::intrusive_ptr<::c10d::Store>& store, int rank, int size,
                        c10::intrusive_ptr<Options> options);
  ~ProcessGroup() override;
#else
  explicit ProcessGroup(int rank, int size);
  virtual ~ProcessGroup();
#endif

  int getRank() const { return rank_; }
  int getSize() const { return size_; }
#if !defined(DDPLINT_MOCK_C10D_OLD) || defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
  virtual const std::string getBackendName() const;
#endif

#if defined(DDPLINT_MOCK_C10D_V2)
  BackendType getBackendType() const;
  virtual void startCoalescing(c10::DeviceType deviceType);
  virtual c10::intrusive_ptr<Work> endCoalescing(c10::DeviceType deviceType);
#elif !defined(DDPLINT_MOCK_C10D_OLD)
  virtual void startCoalescing() {}
  virtual void endCoalescing(std::vector<c10::intrusive_ptr<Work>>& reqs) {}
#endif

  DDPLINT_MOCK_C10D_COLLECTIVES(virtual, DDPLINT_MOCK_C10D_PURE)
  DDPLINT_MOCK_C10D_ALLGATHER_COALESCED(virtual, )
  DDPLINT_MOCK_C10D_ALLTOALL_BASE(virtual, )
  DDPLINT_MOCK_C10D_ALLTOALL(virtual, )
#if !defined(DDPLINT_MOCK_C10D_OLD)
  DDPLINT_MOCK_C10D_REDUCE_SCATTER_BASE(virtual, )
  virtual void monitoredBarrier(const BarrierOptions& opts, bool waitAllRanks = false);
  virtual void setSequenceNumberForGroup();
  virtual uint64_t getSequenceNumberForGroup();
#endif

#if defined(DDPLINT_MOCK_C10D_V2)
  virtual c10::intrusive_ptr<Work> allgather_into_tensor_coalesced(
      std::vector<at::Tensor>& outputTensors, std::vector<at::Tensor>& inputTensors,
      const AllgatherOptions& opts = AllgatherOptions());
  virtual c10::intrusive_ptr<Work> reduce_scatter_tensor_coalesced(
      std::vector<at::Tensor>& outputTensors, std::vector<at::Tensor>& inputTensors,
      const ReduceScatterOptions& opts = ReduceScatterOptions());

  c10::intrusive_ptr<Options> getOptions();
  bool hasBackends();
  void setBackend(c10::DeviceType deviceType, BackendType backendType,
                  const c10::optional<c10::intrusive_ptr<Backend>>& backend);
  c10::intrusive_ptr<Backend> getDefaultBackend() const;
  c10::intrusive_ptr<Backend> getBackend(c10::DeviceType deviceType);
  c10::intrusive_ptr<Backend> getBackend(BackendType backendType) const;
  std::vector<c10::Device> getDeviceTypes() const;
  const std::string& getGroupName() const;
  void setGroupName(const std::string& name);
#endif

 protected:
#if !defined(DDPLINT_MOCK_C10D_OLD)
  void init();
#endif
  const int rank_;
  const int size_;
};

} // namespace c10d
