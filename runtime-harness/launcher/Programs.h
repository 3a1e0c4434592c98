//===- Programs.h - Building a flagged program to run it ------------------===//
//
// `confirm` runs the user's own program, not only the scenario of a check,
// when the flagged file is a complete program (it defines main). It builds
// the file against the LibTorch the harness was built with, by generating a
// small CMake project that finds Torch with find_package (so LibTorch 1.13
// from Debian and 2.x from a PyTorch install build alike), and runs it
// under the launcher. A program that includes <ddpharness/...> is linked
// with the harness library and records what its own probe calls say; any
// other program runs with libddpharness-autoprobe.so preloaded, which
// records the fingerprints at every optimizer step.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_PROGRAMS_H
#define DDPHARNESS_LAUNCHER_PROGRAMS_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ddpharness {

/// Whether \p Source defines `main`: a complete program on its own.
bool definesMain(const std::string &Source);

/// Whether \p Source includes the harness library's headers.
bool usesHarnessLibrary(const std::string &Source);

/// The translation units of the program whose main is in a flagged file,
/// from a compile database (ProgramSources.cpp states the rule).
struct ProgramSources {
  /// The flagged file first, then the other units, absolute.
  std::vector<std::string> Files;
  /// The flagged file's include directories and definitions there.
  std::vector<std::string> IncludeDirs, Definitions;
  /// The compile_commands.json used, or empty when none was found.
  std::string Database;
};

/// The units of \p File's program (absolute path of a file defining main).
ProgramSources programSources(const std::string &File);

struct BuiltProgram {
  /// The executable.
  std::string Path;
  /// Environment the ranks need ("LD_PRELOAD=..." for the auto-probe).
  std::vector<std::string> Environment;
  /// True when the program calls the probe itself.
  bool OwnProbe = false;
  /// The units it was built from.
  ProgramSources Sources;
};

/// Builds \p File (absolute) into \p Dir (fresh, absolute); the build's
/// output goes to Dir/build.log. The error names the first compiler or
/// linker error, or why the harness cannot build programs at all.
llvm::Expected<BuiltProgram> buildProgram(const std::string &File,
                                          const std::string &Dir,
                                          double Timeout);

/// "LD_PRELOAD=<auto-probe>": $DDP_HARNESS_AUTOPROBE, or
/// ../lib/libddpharness-autoprobe.so next to ddp-harness; an error when that
/// file is missing.
llvm::Expected<std::string> autoProbePreload();

/// The collective trace for \p Program: ../lib/libddpharness-trace.so next
/// to ddp-harness (or $DDP_HARNESS_TRACE), with libddpharness-trace-c10d.so
/// before it when the executable names c10d. Empty, after one warning on
/// stderr naming the folder looked in, when the libraries are missing; empty
/// for a program that is not ELF.
std::vector<std::string> traceLibraries(const std::string &Program);

/// \p Environment with \p Libraries preloaded: added to its LD_PRELOAD
/// entry, or to a new one that keeps the inherited LD_PRELOAD after them.
void addPreload(std::vector<std::string> &Environment,
                const std::vector<std::string> &Libraries);

/// What `run` knows of a program's probe from its executable file.
enum class ProbeKind {
  /// It links the harness library's probe.
  Own,
  /// A LibTorch program with optimizers and no probe: the auto-probe serves.
  NeedsAutoProbe,
  /// An executable that references no LibTorch optimizer.
  NoOptimizer,
  /// Not an ELF executable (a script): nothing is known.
  NotElf,
};

/// Reads \p Path (an executable) and tells, from strings that survive
/// stripping: the probe's "DDP_HARNESS_PROBE_INTERVAL" literal marks the
/// harness library's probe; LibTorch optimizer symbols ("_ZN5torch5optim")
/// in the dynamic symbol table mark a program the auto-probe can serve.
ProbeKind inspectProgram(const std::string &Path);

} // namespace ddpharness

#endif
