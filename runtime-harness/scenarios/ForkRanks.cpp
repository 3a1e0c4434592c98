//===- ForkRanks.cpp - Ranks forked from one loaded process ---------------===//

#include "ForkRanks.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr const char *kSpecVariable = "DDP_HARNESS_FORKED_RANKS";

bool ForkedRank = false;

/// "STATUS:OUT0,ERR0:OUT1,ERR1...": the status pipe's write end, then each
/// rank's stdout and stderr, inherited from the launcher.
struct ForkSpec {
  int StatusFd = -1;
  std::vector<int> Out, Err;
};

bool parseSpec(const char *Text, ForkSpec &Spec) {
  char *End = nullptr;
  errno = 0;
  Spec.StatusFd = static_cast<int>(std::strtol(Text, &End, 10));
  if (errno || End == Text || Spec.StatusFd < 0)
    return false;
  while (*End == ':') {
    const char *Pair = End + 1;
    int Out = static_cast<int>(std::strtol(Pair, &End, 10));
    if (End == Pair || *End != ',')
      return false;
    const char *Second = End + 1;
    int Err = static_cast<int>(std::strtol(Second, &End, 10));
    if (End == Second || Out < 0 || Err < 0)
      return false;
    Spec.Out.push_back(Out);
    Spec.Err.push_back(Err);
  }
  return *End == '\0' && !Spec.Out.empty();
}

/// The threads of this process, from /proc/self/task; 0 when unreadable.
int threadCount() {
  DIR *Tasks = opendir("/proc/self/task");
  if (!Tasks)
    return 0;
  int N = 0;
  while (dirent *Entry = readdir(Tasks))
    N += Entry->d_name[0] != '.';
  closedir(Tasks);
  return N;
}

void writeStatusLine(int Fd, const char *Kind, int Rank, long Value) {
  char Line[64];
  int N = std::snprintf(Line, sizeof(Line), "%s %d %ld\n", Kind, Rank, Value);
  // Short lines on a pipe are written whole.
  while (write(Fd, Line, N) < 0 && errno == EINTR) {
  }
}

const int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

sigset_t stopSignals() {
  sigset_t Set;
  sigemptyset(&Set);
  for (int Signal : kStopSignals)
    sigaddset(&Set, Signal);
  return Set;
}

/// In a forked child: rank \p Rank's variables and streams, the protocol's
/// descriptors closed, the signal mask back. Execs this program afresh when
/// \p Exec (threads existed at the fork point).
void becomeRank(const ForkSpec &Spec, int Rank, bool Exec, char **Argv) {
  std::string R = std::to_string(Rank);
  setenv("RANK", R.c_str(), 1);
  setenv("LOCAL_RANK", R.c_str(), 1);
  dup2(Spec.Out[Rank], 1);
  dup2(Spec.Err[Rank], 2);
  close(Spec.StatusFd);
  for (size_t I = 0; I < Spec.Out.size(); ++I)
    for (int Fd : {Spec.Out[I], Spec.Err[I]})
      if (Fd > 2)
        close(Fd);
  sigset_t Stop = stopSignals();
  sigprocmask(SIG_UNBLOCK, &Stop, nullptr);
  if (!Exec) {
    ForkedRank = true;
    return;
  }
  execv("/proc/self/exe", Argv);
  std::fprintf(stderr, "ddp-scenario: cannot exec /proc/self/exe: %s\n",
               std::strerror(errno));
  _exit(127);
}

/// The supervisor after the forks: ignores the signals that stop ranks (the
/// launcher signals the whole process group), reports each child's end and
/// exits when none is left, without LibTorch's exit handlers (tens of
/// milliseconds the run would wait for).
[[noreturn]] void supervise(const ForkSpec &Spec, const std::vector<pid_t> &Pids) {
  struct sigaction Ignore {};
  Ignore.sa_handler = SIG_IGN;
  sigemptyset(&Ignore.sa_mask);
  for (int Signal : kStopSignals)
    sigaction(Signal, &Ignore, nullptr);
  sigset_t Stop = stopSignals();
  sigprocmask(SIG_UNBLOCK, &Stop, nullptr);
  size_t Left = 0;
  for (pid_t Pid : Pids)
    Left += Pid > 0;
  while (Left > 0) {
    int Status = 0;
    pid_t Pid = waitpid(-1, &Status, 0);
    if (Pid < 0 && errno == EINTR)
      continue;
    if (Pid < 0)
      break;
    for (size_t Rank = 0; Rank < Pids.size(); ++Rank)
      if (Pids[Rank] == Pid) {
        writeStatusLine(Spec.StatusFd, "exit", static_cast<int>(Rank), Status);
        --Left;
      }
  }
  std::fflush(nullptr);
  _exit(0);
}

} // namespace

std::optional<int> ddpscenario::forkRanksFromEnvironment(char **Argv) {
  const char *Text = std::getenv(kSpecVariable);
  if (!Text)
    return std::nullopt;
  ForkSpec Spec;
  if (!parseSpec(Text, Spec)) {
    std::fprintf(stderr, "ddp-scenario: malformed %s '%s'\n", kSpecVariable,
                 Text);
    return 2;
  }
  unsetenv(kSpecVariable);
  // A thread would not survive into the children, and whatever it held
  // (a lock, a pool's state) would be broken there.
  int Threads = threadCount();
  bool Exec = Threads != 1;
  if (Exec)
    std::fprintf(stderr,
                 "ddp-scenario: %d threads before the ranks fork; each rank "
                 "starts this program afresh\n",
                 Threads);
  // A stop signal before the supervisor ignores them waits in the mask.
  sigset_t Stop = stopSignals();
  sigprocmask(SIG_BLOCK, &Stop, nullptr);
  std::fflush(nullptr);
  std::vector<pid_t> Pids;
  for (int Rank = 0; Rank < static_cast<int>(Spec.Out.size()); ++Rank) {
    pid_t Pid = fork();
    if (Pid == 0) {
      becomeRank(Spec, Rank, Exec, Argv);
      return std::nullopt;
    }
    Pids.push_back(Pid);
    if (Pid < 0)
      writeStatusLine(Spec.StatusFd, "exit", Rank, W_EXITCODE(127, 0));
    else
      writeStatusLine(Spec.StatusFd, "pid", Rank, Pid);
  }
  supervise(Spec, Pids);
}

bool ddpscenario::isForkedRank() { return ForkedRank; }

void ddpscenario::exitForkedRank(int Code) {
  std::fflush(nullptr);
  _exit(Code);
}
