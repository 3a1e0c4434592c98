// ddplint mock of <torch/csrc/distributed/c10d/Backend.hpp>.
//  - default (LibTorch 1.13 as shipped by Debian): the header exists and
//    declares a namespace-scope c10d::Options and a c10d::Backend class with
//    the collective methods, but NOTHING derives from it: ProcessGroupGloo,
//    ProcessGroupNCCL and ProcessGroupMPI derive from ProcessGroup.
//  - DDPLINT_MOCK_C10D_V2 (LibTorch 2.x): Backend (with nested
//    Backend::Options) is the base of ProcessGroupGloo/NCCL/MPI, and
//    ProcessGroup dispatches to it (ProcessGroup::getBackend()).
//  - DDPLINT_MOCK_C10D_OLD: empty (no Backend before 1.13).
#pragma once
#include <chrono>
#include <string>
#include <vector>
#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#if defined(DDPLINT_MOCK_C10D_V2)

constexpr auto kBackendDefaultTimeout = std::chrono::milliseconds(30 * 60 * 1000);

namespace c10d {

class TORCH_API Backend : public torch::CustomClassHolder {
 public:
  struct TORCH_API Options : torch::CustomClassHolder {
    explicit Options(std::string backend, std::chrono::milliseconds timeout = kBackendDefaultTimeout)
        : timeout(timeout), backend(std::move(backend)) {}
    ~Options() override = default;
    std::chrono::milliseconds timeout;
    const std::string backend;
  };

  explicit Backend(int rank, int size);
  ~Backend() override = 0;

  int getRank() const { return rank_; }
  int getSize() const { return size_; }
  int64_t getID() const;
  virtual void startCoalescing();
  virtual c10::intrusive_ptr<Work> endCoalescing();
  virtual const std::string getBackendName() const;

  DDPLINT_MOCK_C10D_COLLECTIVES(virtual, )
  DDPLINT_MOCK_C10D_ALLGATHER_COALESCED(virtual, )
  DDPLINT_MOCK_C10D_ALLTOALL_BASE(virtual, )
  DDPLINT_MOCK_C10D_ALLTOALL(virtual, )
  DDPLINT_MOCK_C10D_REDUCE_SCATTER_BASE(virtual, )
  virtual c10::intrusive_ptr<Work> allreduce_sparse(std::vector<at::Tensor>& tensors,
                                                    const AllreduceOptions& opts = AllreduceOptions());
  virtual c10::intrusive_ptr<Work> allgather_into_tensor_coalesced(
      std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
      const AllgatherOptions& opts = AllgatherOptions());
  virtual c10::intrusive_ptr<Work> reduce_scatter_tensor_coalesced(
      std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
      const ReduceScatterOptions& opts = ReduceScatterOptions());
  virtual void monitoredBarrier(const BarrierOptions& opts, bool waitAllRanks = false);
  virtual void setSequenceNumberForGroup();
  virtual uint64_t getSequenceNumberForGroup();
  void setGroupName(const std::string& name);
  const std::string& getGroupName() const;

 protected:
  void init();
  const int rank_;
  const int size_;
};

} // namespace c10d

#elif !defined(DDPLINT_MOCK_C10D_OLD)

constexpr auto kDefaultTimeout = std::chrono::milliseconds(30 * 60 * 1000);

namespace c10d {

struct TORCH_API Options : torch::CustomClassHolder {
  explicit Options(std::string backend, std::chrono::milliseconds timeout = kDefaultTimeout)
      : timeout(timeout), backend(backend) {}
  virtual ~Options() = default;
  std::chrono::milliseconds timeout;
  const std::string backend;
};

class TORCH_API Backend : public torch::CustomClassHolder {
 public:
  explicit Backend(int rank, int size);
  virtual ~Backend() = 0;

  virtual const std::string getBackendName() const;
  DDPLINT_MOCK_C10D_COLLECTIVES(virtual, )
  DDPLINT_MOCK_C10D_ALLGATHER_COALESCED(virtual, )
  DDPLINT_MOCK_C10D_ALLTOALL_BASE(virtual, )
  DDPLINT_MOCK_C10D_ALLTOALL(virtual, )
  DDPLINT_MOCK_C10D_REDUCE_SCATTER_BASE(virtual, )
  virtual void monitoredBarrier(const BarrierOptions& opts, bool waitAllRanks = false);
  virtual void setSequenceNumberForGroup();
  virtual uint64_t getSequenceNumberForGroup();
  int getRank() const { return rank_; }
  int getSize() const { return size_; }

 protected:
  void init();
  const int rank_;
  const int size_;
};

} // namespace c10d

#endif
