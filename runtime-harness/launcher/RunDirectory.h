//===- RunDirectory.h - The run directory: creating it, reading it --------===//
//
// The run directory is where the evidence of one run lives. The ranks write
// the probe files (docs/harness.md, "Run directory format"); the harness adds
// the ranks' output logs, harness.json (how the processes ended) and
// drift.svg. This file creates the directory and reads it back.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_RUNDIRECTORY_H
#define DDPHARNESS_LAUNCHER_RUNDIRECTORY_H

#include "RunRecords.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ddpharness {

/// Creates the run directory and returns its absolute path. An empty
/// \p Requested makes a fresh `$TMPDIR/ddp-harness/run-<time>-<random>`. A
/// requested directory is created if missing; it must not already hold
/// another run's probe files.
llvm::Expected<std::string> prepareRunDirectory(const std::string &Requested);

/// Creates a fresh `$TMPDIR/ddp-harness/<Prefix>-<time>-<random>`, or
/// \p Requested (which must then be empty or missing).
llvm::Expected<std::string> makeFreshDirectory(const std::string &Requested,
                                               const std::string &Prefix);

/// Writes \p Content to \p Path through a temporary file and a rename, so a
/// reader never sees half of it.
llvm::Error writeFileAtomically(const std::string &Path,
                                const std::string &Content);

struct GradRecord {
  std::string Hash;
  double Norm = 0;
  int64_t Offset = 0;
};

struct ParamRecord {
  std::string Name;
  int64_t Numel = 0;
  std::string Hash;
  double Norm = 0;
  int64_t Offset = 0;
  /// How many values the .bin holds at Offset (and at the gradient's): all
  /// Numel, or a sample of that many, element J * Numel / Stored for J in
  /// [0, Stored). A sample cannot be checked against the hash.
  int64_t Stored = 0;
  std::optional<GradRecord> Grad;
};

/// One line of probe-rank<R>.jsonl.
struct ProbeStep {
  int64_t Step = 0;
  int64_t Epoch = -1;
  int WorldSize = 0;
  std::vector<ParamRecord> Params;
  std::optional<std::vector<int64_t>> Indices;
};

struct RankEvidence {
  int Rank = 0;
  bool HasProbe = false;
  std::vector<ProbeStep> Steps;
  std::string BinPath;
  std::map<std::string, double> Metrics;
  bool HasResult = false;
};

/// How the processes of a run ended, as `ddp-harness run` recorded it.
struct HarnessRecord {
  std::string Verdict;
  int CrashedRank = -1;
  std::vector<std::string> RankStatus; // describe() of each rank
  std::vector<std::string> LastLines;
  double WallSeconds = 0;
  /// Set when another launcher started the ranks: its name, and then
  /// RankStatus holds that one process. "not recorded" as the Verdict: the
  /// processes' end is unknown (a run directory `analyze` reads).
  std::string Launcher;
};

struct RunEvidence {
  std::string Dir;
  /// Indexed by rank; ranks that wrote nothing have HasProbe false.
  std::vector<RankEvidence> Ranks;
  std::optional<HarnessRecord> Harness;
  /// Problems with the evidence that did not stop the analysis.
  std::vector<std::string> Warnings;
};

/// Reads every rank's probe and result files. \p NumRanks 0 means "as many
/// as there are files". Fails only when \p Dir cannot be read at all.
llvm::Expected<RunEvidence> readRunDirectory(const std::string &Dir,
                                             int NumRanks);

/// Reads \p Numel little-endian float32 values at \p Offset of \p BinPath.
llvm::Error readFloats(const std::string &BinPath, int64_t Offset,
                       int64_t Numel, std::vector<float> &Out);

/// The part of \p Result a report shows, as harness.json keeps it.
HarnessRecord recordOf(const LaunchResult &Result);

/// Each rank's pid, end and last line, as JSON.
llvm::json::Array ranksJson(const LaunchResult &Result);

/// harness.json: the launch and how it ended.
std::string harnessRecordJson(const LaunchOptions &Options,
                              const LaunchResult &Result);

} // namespace ddpharness

#endif
