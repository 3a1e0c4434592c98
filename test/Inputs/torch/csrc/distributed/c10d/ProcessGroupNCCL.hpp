// ddplint mock of <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>.
// Base class: ProcessGroup (default = LibTorch 1.13, DDPLINT_MOCK_C10D_OLD)
// or Backend (DDPLINT_MOCK_C10D_V2). Real header: empty unless USE_C10D_NCCL
// (mirrored only under DDPLINT_MOCK_C10D_STRICT_GUARDS).
#pragma once
#if !defined(DDPLINT_MOCK_C10D_STRICT_GUARDS) || defined(USE_C10D_NCCL)
#include <chrono>
#include <string>
#include <vector>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>

namespace c10d {

constexpr const char* NCCL_BACKEND_NAME = "nccl";

#if defined(DDPLINT_MOCK_C10D_V2)
class TORCH_API ProcessGroupNCCL : public Backend {
#else
class TORCH_API ProcessGroupNCCL : public ProcessGroup {
#endif
 public:
#if defined(DDPLINT_MOCK_C10D_OLD) && !defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
  struct Options {
    explicit Options();
    std::chrono::milliseconds opTimeout;
    bool isHighPriorityStream;
  };
  ProcessGroupNCCL(const std::shared_ptr<Store>& store, int rank, int size, Options options = Options());
#else
#if defined(DDPLINT_MOCK_C10D_V2)
  struct Options : Backend::Options {
#else
  struct Options : ProcessGroup::Options {
#endif
    explicit Options(bool is_high_priority_stream = false);
    static c10::intrusive_ptr<Options> create(bool is_high_priority_stream = false) {
      return c10::make_intrusive<Options>(is_high_priority_stream);
    }
    bool is_high_priority_stream;
  };
  ProcessGroupNCCL(const c10::intrusive_ptr<Store>& store, int rank, int size,
                   c10::intrusive_ptr<Options> options = Options::create());
  c10::intrusive_ptr<Options> getOptions();
#endif
  virtual ~ProcessGroupNCCL();

#if !defined(DDPLINT_MOCK_C10D_OLD) || defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
  const std::string getBackendName() const override { return std::string(NCCL_BACKEND_NAME); }
#endif

  DDPLINT_MOCK_C10D_COLLECTIVES(, override)
  DDPLINT_MOCK_C10D_ALLGATHER_COALESCED(, override)
  DDPLINT_MOCK_C10D_ALLTOALL_BASE(, override)
  DDPLINT_MOCK_C10D_ALLTOALL(, override)
#if !defined(DDPLINT_MOCK_C10D_OLD)
  DDPLINT_MOCK_C10D_REDUCE_SCATTER_BASE(, override)
  void startCoalescing() override;
#endif
#if !defined(DDPLINT_MOCK_C10D_OLD) && !defined(DDPLINT_MOCK_C10D_V2)
  void endCoalescing(std::vector<c10::intrusive_ptr<Work>>& reqs) override;
#endif
#if defined(DDPLINT_MOCK_C10D_V2)
  c10::intrusive_ptr<Work> endCoalescing() override;
#endif
};

} // namespace c10d
#endif
