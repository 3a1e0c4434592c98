//===- Commands.h - ddp-harness's subcommands -----------------------------===//
//
// Each subcommand takes the arguments after its name and returns the exit
// status (ExitCodes.h). main.cpp lists them in its table.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_COMMANDS_H
#define DDPHARNESS_LAUNCHER_COMMANDS_H

#include "Run.h"

#include <string>
#include <vector>

namespace ddpharness {

int runCommand(const std::vector<std::string> &Args);
int compareCommand(const std::vector<std::string> &Args);
int scenariosCommand(const std::vector<std::string> &Args);
int confirmCommand(const std::vector<std::string> &Args);
int analyzeCommand(const std::vector<std::string> &Args);

/// Prints "ddp-harness <command>: error: <message>" to stderr and returns
/// ExitHarnessError.
int reportHarnessError(const std::string &Command, const std::string &Message);
/// The exit code of `run` (and `run --launcher`) for a launch's verdict.
int exitCodeFor(const LaunchResult &R);

/// `run`'s report of \p Run: the tables and the summary, or one JSON object
/// on stdout; \p Process says how the processes ended.
void printRunReport(const LaunchOptions &Options, const AnalysedRun &Run,
                    const HarnessRecord &Process, int ExitCode, bool Json);

} // namespace ddpharness

#endif
