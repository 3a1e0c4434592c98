//===- main.cpp - ddp-scenario: the shared driver of the scenario table ---===//
//
//   ddp-scenario --list
//   ddp-scenario --cuda-usable
//   ddp-scenario NAME VARIANT [--steps K] [--device cpu|cuda]
//
// `--list` prints the table as JSON for `ddp-harness scenarios`;
// `--cuda-usable` exits 0 when this LibTorch has a usable CUDA device, 77
// otherwise (a GPU with a CPU-only LibTorch included). Otherwise
// it runs one variant of one scenario on this rank, with the process group
// from torchrun's environment and the probe writing into
// $DDP_HARNESS_RUN_DIR. Exit codes: 0 done, 1 the scenario failed, 2 bad
// usage or environment, 77 skipped (a named reason on stderr).
//
//===----------------------------------------------------------------------===//

#include "ForkRanks.h"
#include "Scenario.h"

#include <torch/cuda.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

using namespace ddpscenario;

namespace {

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

void printList() {
  std::printf("[");
  const auto &Table = scenarios();
  for (size_t I = 0; I < Table.size(); ++I) {
    const Scenario &S = *Table[I];
    std::printf("%s\n  {\"name\": \"%s\", \"check\": \"%s\", \"kind\": \"%s\", "
                "\"variants\": [",
                I ? "," : "", S.name, S.check, S.kind);
    for (size_t V = 0; V < S.variants.size(); ++V)
      std::printf("%s\"%s\"", V ? ", " : "", S.variants[V].c_str());
    std::printf("],\n   \"description\": \"%s\"%s}", S.description,
                S.needs_cuda ? ", \"device\": \"cuda\"" : "");
  }
  std::printf("\n]\n");
}

int usage(const char *Message) {
  std::fprintf(stderr,
               "ddp-scenario: %s\n"
               "usage: ddp-scenario --list\n"
               "       ddp-scenario --cuda-usable\n"
               "       ddp-scenario NAME VARIANT [--steps K] "
               "[--device cpu|cuda]\n",
               Message);
  return kExitUsage;
}

const Scenario *find(const std::string &Name) {
  for (const Scenario *S : scenarios())
    if (Name == S->name)
      return S;
  return nullptr;
}

/// What the command line asks to run.
struct Invocation {
  const Scenario *S = nullptr;
  std::string Variant;
  int64_t Steps = 5;
  std::string DeviceName = "cpu";
};

/// `--cuda-usable`: what the test suites ask before running on a GPU. A GPU
/// on the machine is not enough, this LibTorch must have been built with
/// CUDA.
int reportCudaUsable() {
  if (ddpharness::cuda_usable()) {
    std::printf("cuda usable: %d device(s)\n",
                static_cast<int>(torch::cuda::device_count()));
    return 0;
  }
  std::printf("no usable CUDA device for this LibTorch\n");
  return ddpharness::kSkipExitCode;
}

/// Reads NAME VARIANT; the usage exit code when either is unknown.
std::optional<int> parseScenario(char **Argv, Invocation &Inv) {
  Inv.S = find(Argv[1]);
  if (!Inv.S) {
    std::string Names;
    for (const Scenario *T : scenarios())
      Names += (Names.empty() ? "" : ", ") + std::string(T->name);
    return usage(("unknown scenario '" + std::string(Argv[1]) +
                  "'; known: " + Names)
                     .c_str());
  }
  Inv.Variant = Argv[2];
  bool Known = false;
  for (const std::string &V : Inv.S->variants)
    Known |= V == Inv.Variant;
  if (!Known)
    return usage(("scenario '" + std::string(Inv.S->name) +
                  "' has no variant '" + Inv.Variant + "'")
                     .c_str());
  return std::nullopt;
}

/// Reads --steps K and --device D after NAME VARIANT.
std::optional<int> parseFlags(int Argc, char **Argv, Invocation &Inv) {
  for (int I = 3; I < Argc; ++I) {
    std::string Flag = Argv[I];
    if ((Flag != "--steps" && Flag != "--device") || I + 1 >= Argc)
      return usage(("unexpected argument '" + Flag + "'").c_str());
    std::string Value = Argv[++I];
    if (Flag == "--device") {
      Inv.DeviceName = Value;
      continue;
    }
    errno = 0;
    char *End = nullptr;
    Inv.Steps = std::strtoll(Value.c_str(), &End, 10);
    if (errno || End == Value.c_str() || *End || Inv.Steps < 1 ||
        Inv.Steps > 100000)
      return usage(("--steps '" + Value + "' is not a number in [1, 100000]")
                       .c_str());
  }
  if (Inv.DeviceName != "cpu" && Inv.DeviceName != "cuda")
    return usage(("--device '" + Inv.DeviceName + "': expected cpu or cuda")
                     .c_str());
  return std::nullopt;
}

/// Sets up the process group and the probe, and runs the variant on this
/// rank; a Skip or an error ends it with its exit code.
int runVariant(const Invocation &Inv) {
  const Scenario *S = Inv.S;
  int Rank = -1;
  try {
    if (Inv.DeviceName == "cuda" && !ddpharness::cuda_usable())
      throw ddpharness::Skip("no-cuda", "--device cuda, but this LibTorch "
                                        "has no usable CUDA device");
    ddpharness::Distributed Dist = ddpharness::init_process_group_from_env();
    Rank = Dist.rank;
    torch::Device Device =
        Inv.DeviceName == "cuda"
            ? torch::Device(torch::kCUDA,
                            Dist.local_rank % static_cast<int>(
                                                  torch::cuda::device_count()))
            : torch::Device(torch::kCPU);
    ddpharness::Probe Probe;
    std::printf("rank %d: %s %s on %s (%s, %d ranks)\n", Dist.rank, S->name,
                Inv.Variant.c_str(), Device.str().c_str(),
                Dist.backend.c_str(), Dist.world_size);
    std::fflush(stdout);
    Context C{Dist, Probe, Inv.Variant, Inv.Steps, Device};
    S->run(C);
    std::printf("rank %d: done\n", Dist.rank);
    return 0;
  } catch (const ddpharness::Skip &E) {
    std::fprintf(stderr, "ddp-scenario: skipped (%s): %s\n", E.reason.c_str(),
                 E.what());
    return ddpharness::kSkipExitCode;
  } catch (const std::exception &E) {
    // LibTorch 2.x puts a backtrace into every c10::Error's what().
    const auto *C10 = dynamic_cast<const c10::Error *>(&E);
    const char *Message = C10 ? C10->what_without_backtrace() : E.what();
    // Before the process group exists the environment is at fault.
    if (Rank < 0) {
      std::fprintf(stderr, "ddp-scenario: cannot start %s %s: %s\n", S->name,
                   Inv.Variant.c_str(), Message);
      return kExitUsage;
    }
    std::fprintf(stderr, "ddp-scenario: rank %d: %s %s failed: %s\n", Rank,
                 S->name, Inv.Variant.c_str(), Message);
    return kExitFailed;
  }
}

} // namespace

int main(int Argc, char **Argv) {
  // First, while this process has no thread: ranks forked from it, when
  // the harness asked for them.
  if (std::optional<int> Supervisor = forkRanksFromEnvironment(Argv))
    return *Supervisor;
  if (Argc == 2 && std::strcmp(Argv[1], "--list") == 0) {
    printList();
    return 0;
  }
  if (Argc == 2 && std::strcmp(Argv[1], "--cuda-usable") == 0)
    return reportCudaUsable();
  if (Argc < 3)
    return usage("expected --list, or a scenario and a variant");
  Invocation Inv;
  if (std::optional<int> Code = parseScenario(Argv, Inv))
    return *Code;
  if (std::optional<int> Code = parseFlags(Argc, Argv, Inv))
    return *Code;
  int Code = runVariant(Inv);
  // The rank's evidence is written: the probe and the process group ended
  // with runVariant.
  if (isForkedRank())
    exitForkedRank(Code);
  return Code;
}
