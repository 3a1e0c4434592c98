//===- ProcessGroup.cpp - A process group from torchrun's environment -----===//

#include "ddpharness/ProcessGroup.h"

#include "ddpharness/LauncherEnv.h"

#include <torch/cuda.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <thread>
#include <type_traits>

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace ddpharness;

namespace {

std::string envOr(const char *Name, const char *Default) {
  const char *V = std::getenv(Name);
  return V && *V ? V : Default;
}

/// LibTorch 2.x builds the libuv-based store by default, and a LibTorch built
/// without libuv (Debian's 2.6) aborts every rank on it ("use_libuv was
/// requested but PyTorch was build without libuv support"). The classic
/// store exists in every version; 1.x has no such option.
template <typename StoreOptions>
auto useClassicStore(StoreOptions &Options, int)
    -> decltype(Options.useLibUV = false, void()) {
  Options.useLibUV = false;
}
template <typename StoreOptions> void useClassicStore(StoreOptions &, long) {}

/// A whole decimal number in [Min, Max], or an error naming the variable.
long envInt(const char *Name, const char *Default, long Min, long Max) {
  const char *V = std::getenv(Name);
  std::string Text = V && *V ? V : (Default ? Default : "");
  if (Text.empty())
    throw std::runtime_error(std::string(Name) +
                             " is not set; start the program with "
                             "'ddp-harness run' or torchrun");
  errno = 0;
  char *End = nullptr;
  long N = std::strtol(Text.c_str(), &End, 10);
  if (errno || End == Text.c_str() || *End || N < Min || N > Max)
    throw std::runtime_error(std::string(Name) + "='" + Text +
                             "' is not a number in [" + std::to_string(Min) +
                             ", " + std::to_string(Max) + "]");
  return N;
}

/// The process group programs call, around a backend's implementation. In
/// LibTorch 1.x ProcessGroupGloo and ProcessGroupNCCL are process groups
/// themselves. From 2.0 on they are c10d::Backend objects, and a
/// c10d::ProcessGroup front end dispatches each collective to the backend
/// registered for its tensors' device type, as torch.distributed's
/// init_process_group sets it up. The front end's constructor took an
/// Options object up to 2.5 and takes none (with setDefaultBackend) after;
/// the branches are templates so that each LibTorch compiles only its own.
template <typename Group, typename Impl>
c10::intrusive_ptr<c10d::ProcessGroup>
frontEnd(c10::intrusive_ptr<Impl> Backend,
         const c10::intrusive_ptr<c10d::Store> &Store, const Distributed &D,
         const std::string &Name, std::chrono::milliseconds Timeout,
         std::initializer_list<c10::DeviceType> Devices) {
  if constexpr (std::is_base_of_v<Group, Impl>) {
    return Backend;
  } else {
    auto Type = Name == "nccl" ? Group::BackendType::NCCL
                               : Group::BackendType::GLOO;
    c10::intrusive_ptr<Group> Front;
    if constexpr (std::is_constructible_v<Group, c10::intrusive_ptr<c10d::Store>,
                                          int, int>) {
      Front = c10::make_intrusive<Group>(Store, D.rank, D.world_size);
      Front->setDefaultBackend(Type);
    } else {
      Front = c10::make_intrusive<Group>(
          Store, D.rank, D.world_size,
          c10::make_intrusive<typename Group::Options>(Name, Timeout));
    }
    for (c10::DeviceType Device : Devices)
      Front->setBackend(Device, Type, Backend);
    return Front;
  }
}

c10::intrusive_ptr<c10d::ProcessGroup>
makeGloo(const c10::intrusive_ptr<c10d::Store> &Store, const Distributed &D,
         std::chrono::milliseconds Timeout) {
  auto Options = c10d::ProcessGroupGloo::Options::create(Timeout);
  // The harness and torchrun put every rank on this host: bind Gloo's pairs
  // to the store's address rather than whatever the hostname resolves to.
  Options->devices.push_back(
      c10d::ProcessGroupGloo::createDeviceForHostname(
          envOr("MASTER_ADDR", "127.0.0.1")));
  auto Gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(
      Store, D.rank, D.world_size, Options);
  // Gloo also carries CUDA tensors (staged through host memory): the only
  // way to run two ranks on one GPU, where NCCL refuses.
  return frontEnd<c10d::ProcessGroup>(Gloo, Store, D, "gloo", Timeout,
                                      {c10::DeviceType::CPU,
                                       c10::DeviceType::CUDA});
}

/// Rank and world sizes from the launcher's variables (LauncherEnv.h).
void readRanks(Distributed &D) {
  LauncherRanks R = read_launcher_ranks();
  D.rank = R.rank;
  D.world_size = R.world_size;
  D.local_rank = R.local_rank;
  D.local_world_size = R.local_world_size;
}

/// DDP_HARNESS_BACKEND when set, else NCCL where it can serve every local
/// rank, else Gloo. An NCCL request with fewer GPUs than local ranks shares
/// the GPUs (shareGpus). Throws Skip for an NCCL request this machine cannot
/// serve.
std::string chooseBackend(const Distributed &D) {
  std::string Requested = envOr("DDP_HARNESS_BACKEND", "");
  if (!Requested.empty() && Requested != "gloo" && Requested != "nccl")
    throw std::runtime_error("DDP_HARNESS_BACKEND='" + Requested +
                             "': expected gloo or nccl");
  bool GpusFit = cuda_usable() &&
                 torch::cuda::device_count() >=
                     static_cast<size_t>(D.local_world_size);
#ifdef USE_C10D_NCCL
  bool HaveNccl = true;
#else
  bool HaveNccl = false;
#endif
  if (Requested == "nccl") {
    if (!HaveNccl)
      throw Skip("no-nccl", "this LibTorch was built without NCCL "
                            "(Debian's libtorch-dev is CPU-only)");
    if (!cuda_usable())
      throw Skip("no-cuda", "NCCL needs a GPU and none is usable");
  }
  return !Requested.empty()     ? Requested
         : (HaveNccl && GpusFit) ? "nccl"
                                 : "gloo";
}

/// Sets Name to Value unless the user set it.
void defaultEnv(const char *Name, const std::string &Value) {
  if (!std::getenv(Name))
    ::setenv(Name, Value.c_str(), /*overwrite=*/0);
}

/// NCCL refuses two ranks of one communicator on one GPU ("Duplicate GPU
/// detected"): it compares their host hash and bus id. With a host hash of
/// its own (NCCL_HOSTID) each rank looks like one on another host, and the
/// ranks talk over NCCL's socket transport; peer-to-peer and shared memory
/// are off, since both need the ranks to know they share a host. Must run
/// before the first collective creates the communicator.
std::string shareGpus(const Distributed &D, size_t Gpus) {
  defaultEnv("NCCL_HOSTID", "ddp-harness-rank-" + std::to_string(D.rank));
  defaultEnv("NCCL_P2P_DISABLE", "1");
  defaultEnv("NCCL_SHM_DISABLE", "1");
  defaultEnv("NCCL_IB_DISABLE", "1");
  std::string Addr = envOr("MASTER_ADDR", "127.0.0.1");
  if (Addr == "127.0.0.1" || Addr == "localhost")
    defaultEnv("NCCL_SOCKET_IFNAME", "lo");
  return std::to_string(D.local_world_size) + " local ranks share " +
         std::to_string(Gpus) + " GPU" + (Gpus == 1 ? "" : "s") +
         ": NCCL over sockets, a host id per rank (NCCL_HOSTID), "
         "peer-to-peer and shared memory off";
}

/// Where the ranks meet: MASTER_ADDR and MASTER_PORT.
struct Rendezvous {
  std::string Addr;
  uint16_t Port;
};

/// Every launcher needs these: torchrun and `ddp-harness run` set them,
/// mpirun passes them on with `-x MASTER_ADDR -x MASTER_PORT`, and a Slurm job
/// script exports them before srun.
Rendezvous readRendezvous() {
  if (!std::getenv("MASTER_PORT") || !*std::getenv("MASTER_PORT"))
    throw std::runtime_error(
        "MASTER_PORT is not set; 'ddp-harness run' and torchrun set it, "
        "mpirun needs '-x MASTER_ADDR -x MASTER_PORT', a Slurm job script "
        "exports it");
  return {envOr("MASTER_ADDR", "127.0.0.1"),
          static_cast<uint16_t>(envInt("MASTER_PORT", nullptr, 1, 65535))};
}

/// Whether a TCP connection to \p At is refused (nobody listens yet).
bool refused(const addrinfo *Addresses) {
  bool Refused = false;
  for (const addrinfo *A = Addresses; A; A = A->ai_next) {
    int Fd =
        ::socket(A->ai_family, A->ai_socktype | SOCK_CLOEXEC, A->ai_protocol);
    if (Fd < 0)
      continue;
    int Rc = ::connect(Fd, A->ai_addr, A->ai_addrlen);
    int Error = errno;
    ::close(Fd);
    if (Rc == 0)
      return false;
    Refused |= Error == ECONNREFUSED;
  }
  return Refused;
}

/// LibTorch 1.x's store client sleeps a whole second after a refused
/// connection, and a rank that loads LibTorch sooner than rank 0 is refused:
/// the start of a run took one LibTorch start plus a second. Until rank 0's
/// store listens, the connection is tried here every few milliseconds;
/// anything but a refusal is left to the store to report.
void awaitStoreServer(const Rendezvous &At, std::chrono::milliseconds Timeout) {
  addrinfo Hints{};
  Hints.ai_socktype = SOCK_STREAM;
  Hints.ai_flags = AI_NUMERICSERV;
  addrinfo *Addresses = nullptr;
  if (::getaddrinfo(At.Addr.c_str(), std::to_string(At.Port).c_str(), &Hints,
                    &Addresses) != 0)
    return;
  auto Deadline = std::chrono::steady_clock::now() + Timeout;
  while (refused(Addresses) && std::chrono::steady_clock::now() < Deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::freeaddrinfo(Addresses);
}

/// A TCPStore at the rendezvous address, served by rank 0.
c10::intrusive_ptr<c10d::Store> makeStore(const Distributed &D,
                                          const Rendezvous &At,
                                          std::chrono::milliseconds Timeout) {
  if (D.rank != 0)
    awaitStoreServer(At, Timeout);
  c10d::TCPStoreOptions StoreOptions;
  StoreOptions.port = At.Port;
  StoreOptions.isServer = D.rank == 0;
  StoreOptions.numWorkers = D.world_size;
  StoreOptions.timeout = Timeout;
  useClassicStore(StoreOptions, 0);
  return c10::make_intrusive<c10d::TCPStore>(At.Addr, StoreOptions);
}

} // namespace

bool ddpharness::cuda_usable() {
  return torch::cuda::is_available() && torch::cuda::device_count() > 0;
}

Distributed
ddpharness::init_process_group_from_env(const ProcessGroupOptions &Options) {
  Distributed D;
  readRanks(D);
  Rendezvous At = readRendezvous();
  D.backend = chooseBackend(D);
  c10::intrusive_ptr<c10d::Store> Store = makeStore(D, At, Options.timeout);
  if (D.backend == "gloo") {
    D.process_group = makeGloo(Store, D, Options.timeout);
    return D;
  }
#ifdef USE_C10D_NCCL
  size_t Gpus = torch::cuda::device_count();
  D.device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(
                                             D.local_rank % Gpus));
  if (Gpus < static_cast<size_t>(D.local_world_size)) {
    D.shared_gpus = shareGpus(D, Gpus);
    if (D.rank == 0)
      std::fprintf(stderr, "ddp-harness: note: %s\n", D.shared_gpus.c_str());
  }
  auto NcclOptions = c10d::ProcessGroupNCCL::Options::create();
  NcclOptions->timeout = Options.timeout;
  D.process_group = frontEnd<c10d::ProcessGroup>(
      c10::make_intrusive<c10d::ProcessGroupNCCL>(Store, D.rank, D.world_size,
                                                  NcclOptions),
      Store, D, "nccl", Options.timeout, {c10::DeviceType::CUDA});
#endif
  return D;
}
