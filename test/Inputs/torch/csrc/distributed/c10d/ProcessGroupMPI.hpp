// ddplint mock of <torch/csrc/distributed/c10d/ProcessGroupMPI.hpp>.
// Base class: ProcessGroup (default = LibTorch 1.13, DDPLINT_MOCK_C10D_OLD)
// or Backend (DDPLINT_MOCK_C10D_V2). Real header: empty unless USE_C10D_MPI
// (mirrored only under DDPLINT_MOCK_C10D_STRICT_GUARDS).
#pragma once
#if !defined(DDPLINT_MOCK_C10D_STRICT_GUARDS) || defined(USE_C10D_MPI)
#include <memory>
#include <string>
#include <vector>
#include <mpi.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>

namespace c10d {

constexpr const char* MPI_BACKEND_NAME = "mpi";

#if defined(DDPLINT_MOCK_C10D_V2)
class TORCH_API ProcessGroupMPI : public Backend {
#else
class TORCH_API ProcessGroupMPI : public ProcessGroup {
#endif
 public:
  explicit ProcessGroupMPI(int rank, int size, MPI_Comm pgComm);
  virtual ~ProcessGroupMPI();
  void abort();
#if !defined(DDPLINT_MOCK_C10D_OLD) || defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
  const std::string getBackendName() const override { return std::string(MPI_BACKEND_NAME); }
#endif

  DDPLINT_MOCK_C10D_COLLECTIVES(, override)
  DDPLINT_MOCK_C10D_ALLGATHER_COALESCED(, override)
  DDPLINT_MOCK_C10D_ALLTOALL_BASE(, override)
  DDPLINT_MOCK_C10D_ALLTOALL(, override)

  static DDPLINT_MOCK_C10D_PTR(ProcessGroupMPI) createProcessGroupMPI(std::vector<int> ranks = {});
};

} // namespace c10d
#endif
