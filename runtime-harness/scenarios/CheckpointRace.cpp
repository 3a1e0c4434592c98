//===- CheckpointRace.cpp - Rank 1 reads the checkpoint rank 0 writes -----===//
//
// Rank 0 saves its parameters to a checkpoint file and rank 1 loads the same
// file right away, the way a resume or an evaluation hand-off is written.
// Nothing orders the read after the write: rank 1 opens the previous try's
// file, or one rank 0 is still writing (the load throws on the torn archive
// and rank 1 keeps what it had), and its parameters differ from rank 0's.
// Each try rank 0 writes new values, so a stale read shows; a barrier at the
// end of each try keeps the tries in step. The fix puts a barrier between
// the save and the load.
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

using namespace ddpscenario;

namespace {

/// Large enough that writing it takes rank 0 milliseconds (8 MiB).
struct StateImpl : torch::nn::Module {
  StateImpl() : weight(register_parameter("weight", torch::zeros({1024, 2048}))) {}
  torch::Tensor weight;
};
TORCH_MODULE(State);

/// Tries of write-then-read: rank 1 reads a stale file on nearly every try
/// of the buggy variant, so a few are plenty and the run stays quick.
constexpr int64_t kMaxTries = 8;

/// One file both ranks name: the launcher's port is unique to the run.
std::string checkpointPath() {
  const char *Port = std::getenv("MASTER_PORT");
  return (std::filesystem::temp_directory_path() /
          ("ddp-scenario-checkpoint-race-" + std::string(Port ? Port : "0") +
           ".pt"))
      .string();
}

void run(Context &C) {
  auto &Group = *C.dist.process_group;
  const std::string Path = checkpointPath();
  State Model;
  for (int64_t Try = 0; Try < std::min(C.steps, kMaxTries); ++Try) {
    if (C.dist.rank == 0) {
      torch::NoGradGuard NoGrad;
      Model->weight.fill_(static_cast<double>(Try + 1));
      torch::save(Model, Path);
    }
    if (C.variant == "fixed")
      Group.barrier()->wait();
    if (C.dist.rank != 0) {
      try {
        torch::load(Model, Path);
      } catch (const std::exception &) {
        // A file rank 0 has not finished (or not yet created): this rank
        // keeps the parameters it had, as a resume that skips a bad
        // checkpoint would.
      }
    }
    C.probe.step(*Model, Try);
    Group.barrier()->wait();
  }
  if (C.dist.rank == 0)
    std::remove(Path.c_str());
}

} // namespace

namespace ddpscenario {
extern const Scenario CheckpointRace = {
    "checkpoint-race",
    "ddp-checkpoint-race",
    "divergence",
    {"buggy", "fixed"},
    "rank 0 saves a checkpoint and rank 1 loads it with no barrier in "
    "between: rank 1 reads a stale or partial file",
    run};
} // namespace ddpscenario
