//===- ProcessGroup.h - A process group from torchrun's environment -------===//
//
// Reads the ranks from the launcher's variables (torchrun's and `ddp-harness
// run`'s RANK..., Open MPI's, PMI's or Slurm's: LauncherEnv.h), MASTER_ADDR
// and MASTER_PORT, rendezvouses through
// a TCPStore served by rank 0, and builds the process group: Gloo for CPU
// tensors, NCCL when CUDA is present and every local rank has a GPU of its
// own, or when NCCL is asked for (local ranks then share the GPUs, NCCL
// talking over sockets as between hosts). Debian's LibTorch has neither CUDA nor NCCL; asking for them there is
// a Skip with a named reason, never a silent fallback.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_PROCESSGROUP_H
#define DDPHARNESS_PROCESSGROUP_H

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/types.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace ddpharness {

/// Something this machine or build cannot do. \c reason is a short fixed
/// name ("no-cuda", "no-nccl") that tests and reports key
/// on; what() says it in words.
class Skip : public std::runtime_error {
public:
  Skip(std::string Reason, const std::string &Message)
      : std::runtime_error(Message), reason(std::move(Reason)) {}
  std::string reason;
};

/// Exit code of a program that stopped because of a Skip (the automake
/// convention, which lit and ctest scripts recognise).
constexpr int kSkipExitCode = 77;

struct ProcessGroupOptions {
  /// How long a collective may wait for the other ranks. Short enough that
  /// a job whose ranks disagree fails in a test's lifetime, long enough for
  /// a rank that is still loading LibTorch.
  std::chrono::milliseconds timeout = std::chrono::seconds(120);
};

struct Distributed {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  /// "gloo" or "nccl".
  std::string backend;
  /// Where this rank's tensors live: CPU with Gloo, cuda:LOCAL_RANK with NCCL.
  torch::Device device = torch::kCPU;
  c10::intrusive_ptr<c10d::ProcessGroup> process_group;
  /// Empty, or how NCCL ranks share GPUs when there are fewer GPUs than
  /// local ranks (rank 0 also prints it as a note).
  std::string shared_gpus;

  bool is_main() const { return rank == 0; }
};

/// The backend comes from DDP_HARNESS_BACKEND when set ("gloo" or "nccl");
/// otherwise NCCL when this build has it, CUDA is present and the local
/// world fits the GPUs, else Gloo. NCCL asked for with fewer GPUs than local
/// ranks puts rank R on GPU R % count and sets NCCL_HOSTID,
/// NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_IB_DISABLE (and
/// NCCL_SOCKET_IFNAME=lo for a local rendezvous) where the user has not. Throws std::runtime_error for a missing
/// or malformed variable and Skip for an NCCL request this machine cannot
/// serve.
Distributed init_process_group_from_env(const ProcessGroupOptions &Options = {});

/// Whether this LibTorch was built with CUDA and sees a GPU.
bool cuda_usable();

} // namespace ddpharness

#endif
