// ddplint mock of <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>.
// Base class: ProcessGroup (default = LibTorch 1.13, and DDPLINT_MOCK_C10D_OLD)
// or Backend (DDPLINT_MOCK_C10D_V2 = LibTorch 2.x). The real header is empty
// unless USE_C10D_GLOO is defined; the mock only does that under
// DDPLINT_MOCK_C10D_STRICT_GUARDS.
#pragma once
#if !defined(DDPLINT_MOCK_C10D_STRICT_GUARDS) || defined(USE_C10D_GLOO)
#include <chrono>
#include <memory>
#include <string>
#include <vector>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>

namespace gloo {
namespace transport {
class Device;
} // namespace transport
} // namespace gloo

namespace c10d {

constexpr const char* GLOO_BACKEND_NAME = "gloo";

#if defined(DDPLINT_MOCK_C10D_V2)
class TORCH_API ProcessGroupGloo : public Backend {
#else
class TORCH_API ProcessGroupGloo : public ProcessGroup {
#endif
 public:
#if defined(DDPLINT_MOCK_C10D_OLD) && !defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
  struct Options {
    explicit Options();
    std::vector<std::shared_ptr<::gloo::transport::Device>> devices;
    std::chrono::milliseconds timeout;
    int threads;
  };
#else
#if defined(DDPLINT_MOCK_C10D_V2)
  struct TORCH_API Options : public Backend::Options {
    explicit Options(std::chrono::milliseconds timeout = kBackendDefaultTimeout);
    static c10::intrusive_ptr<Options> create(std::chrono::milliseconds timeout = kBackendDefaultTimeout) {
      return c10::make_intrusive<Options>(timeout);
    }
#else
  struct TORCH_API Options : public ProcessGroup::Options {
    explicit Options(std::chrono::milliseconds timeout = kProcessGroupDefaultTimeout);
    static c10::intrusive_ptr<Options> create(std::chrono::milliseconds timeout = kProcessGroupDefaultTimeout) {
      return c10::make_intrusive<Options>(timeout);
    }
#endif
    std::vector<std::shared_ptr<::gloo::transport::Device>> devices;
    int threads;
  };
#endif

#if !defined(DDPLINT_MOCK_C10D_OLD) || defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
  const std::string getBackendName() const override { return std::string(GLOO_BACKEND_NAME); }
#endif

  static std::shared_ptr<::gloo::transport::Device> createDeviceForInterface(const std::string& interface);
  static std::shared_ptr<::gloo::transport::Device> createDeviceForHostname(const std::string& hostname);
  static std::shared_ptr<::gloo::transport::Device> createDefaultDevice();

#if defined(DDPLINT_MOCK_C10D_OLD) && !defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
  explicit ProcessGroupGloo(const std::shared_ptr<Store>& store, int rank, int size,
                            Options options = Options());
#else
  explicit ProcessGroupGloo(const c10::intrusive_ptr<Store>& store, int rank, int size,
                            c10::intrusive_ptr<Options> options = Options::create());
  c10::intrusive_ptr<Options> getOptions();
#endif
  virtual ~ProcessGroupGloo();

  DDPLINT_MOCK_C10D_COLLECTIVES(, override)
  DDPLINT_MOCK_C10D_ALLGATHER_COALESCED(, override)
  DDPLINT_MOCK_C10D_ALLTOALL_BASE(, override)
#if !defined(DDPLINT_MOCK_C10D_OLD)
  void monitoredBarrier(const BarrierOptions& opts = BarrierOptions(), bool waitAllRanks = false) override;
  void setSequenceNumberForGroup() override;
  uint64_t getSequenceNumberForGroup() override;
#endif
  int getNumThreads();
};

} // namespace c10d
#endif
