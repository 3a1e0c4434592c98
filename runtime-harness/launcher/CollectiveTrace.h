//===- CollectiveTrace.h - Where the ranks' collectives part --------------===//
//
// Reads each rank's collective trace (collectives-rank<R>.tsv, written by
// libddpharness-trace.so: runtime-harness/trace/Trace.h), resolves each
// collective's call site to function, file and line (llvm-symbolizer, or
// addr2line), and answers two questions: the first collective at which the
// ranks disagree (kind, reduce op, element count, type or root differ, or
// some ranks issued it and others none), and where each rank is blocked (a
// collective it entered, or a wait it began, and never left), with how long
// it had waited when the run ended.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_COLLECTIVETRACE_H
#define DDPHARNESS_LAUNCHER_COLLECTIVETRACE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ddpharness {

struct CallSite {
  std::string Function;
  std::string File;
  int Line = 0;
  /// "File:Line (Function)", or the raw "module+0xoffset" when it could
  /// not be resolved.
  std::string describe() const;
};

struct TracedCollective {
  int64_t Id = 0;
  /// Position among this rank's collectives on the same group.
  int64_t Index = 0;
  std::string Group, Kind, Op, Dtype;
  int64_t Count = 0;
  int64_t Root = -1;
  bool Blocking = true;
  int64_t IssuedNs = 0;
  /// When a wait on it began, and when it (or the wait) returned; -1 when
  /// not recorded.
  int64_t WaitNs = -1, DoneNs = -1;
  /// Innermost first: the program's frames outside the harness library.
  std::vector<CallSite> Sites;
  /// "allreduce SUM 49 x Float, root 0".
  std::string describe() const;
  /// Whether two ranks issued the same collective.
  bool sameAs(const TracedCollective &O) const;
};

struct RankCollectives {
  bool Present = false;
  std::vector<TracedCollective> Issued;
  /// Index into Issued of the collective this rank was blocked in when the
  /// run ended, and for how long (seconds).
  std::optional<size_t> Blocked;
  double BlockedSeconds = 0;
};

struct CollectiveAnalysis {
  /// Some rank left a trace.
  bool Available = false;
  std::vector<RankCollectives> Ranks;
  /// The first disagreement: its group and index, and per rank the
  /// collective it issued there (unset: it issued none).
  bool Disagree = false;
  std::string Group;
  int64_t Index = -1;
  std::vector<std::optional<size_t>> At;
  std::vector<std::string> Warnings;
};

/// Reads the traces in \p Dir for \p NumRanks ranks (0: as many as there
/// are files). The run ended when harness.json was written, or else when
/// the last trace was.
CollectiveAnalysis analyseCollectives(const std::string &Dir, int NumRanks);

} // namespace ddpharness

#endif
