//===- Process.h - POSIX process helpers for the launcher -----------------===//
//
// The pieces of process handling that do not depend on ranks: finding an
// executable, naming signals, picking a free port, finding our orphaned
// descendants, and running a helper program to capture its output.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_PROCESS_H
#define DDPHARNESS_LAUNCHER_PROCESS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <csignal>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ddpharness {

/// An error carrying \p Message: the one helper every layer of the launcher
/// builds its errors with.
llvm::Error makeError(const llvm::Twine &Message);

/// Seconds on a monotonic clock.
double monotonicSeconds();

/// Resolves \p Program the way execvp would (a name without '/' is looked up
/// in PATH) and checks that the result is an executable regular file.
llvm::Expected<std::string> resolveExecutable(const std::string &Program);

/// "SIGSEGV" for 11, "signal 77" for what has no name.
std::string signalName(int Signal);

/// Binds port 0 on 127.0.0.1 and returns the port the kernel chose. The
/// socket is returned open in \p Fd so the port stays reserved until the
/// caller closes it, just before the ranks start.
llvm::Expected<int> reserveLoopbackPort(int &Fd);

struct ProcessEntry {
  pid_t Pid;
  pid_t Parent;
  pid_t Group;
  char State;
};

/// Every process /proc shows, with its parent and process group.
std::vector<ProcessEntry> listProcesses();

/// Runs \p Argv with stdin from /dev/null and returns its standard output.
/// Fails if it cannot start, exits nonzero or runs longer than \p Timeout
/// seconds (then it is killed). Its standard error goes to \p Stderr.
llvm::Expected<std::string> captureOutput(const std::vector<std::string> &Argv,
                                          double Timeout, std::string &Stderr);

/// Catches SIGCHLD, SIGINT, SIGTERM and SIGHUP while it lives: each wakes
/// the poll loop through readFd(), and the last of the three that stop the
/// harness is kept as pendingInterrupt(). The previous handlers come back
/// at destruction. One at a time: the handlers share global state.
class SignalScope {
public:
  SignalScope() = default;
  SignalScope(const SignalScope &) = delete;
  SignalScope &operator=(const SignalScope &) = delete;
  ~SignalScope();

  llvm::Error install();
  /// Readable after a signal arrived; drain it before polling again.
  int readFd() const { return WakeReadFd; }
  /// SIGINT, SIGTERM or SIGHUP when one arrived, else 0.
  int pendingInterrupt() const;

  /// SIGCHLD, SIGINT, SIGTERM and SIGHUP.
  static constexpr size_t NumSignals = 4;

private:
  struct sigaction Previous[NumSignals];
  int WakeReadFd = -1;
  bool Installed = false;
};

/// The directory holding the running executable.
std::string executableDirectory();

} // namespace ddpharness

#endif
