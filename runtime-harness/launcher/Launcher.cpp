//===- Launcher.cpp - Starting and watching the ranks ---------------------===//
//
// Every rank runs in a process group of its own (its pid), so signalling the
// group reaches whatever the rank forked; ranks forked from one process
// (ForkedRanks.h) share that process's group. The harness also makes itself a
// child subreaper: descendants that leave their group (setsid) and lose their
// parent are reparented to the harness, which kills them at the end.
//
//===----------------------------------------------------------------------===//

#include "Launcher.h"

#include "ForkedRanks.h"
#include "OutputLines.h"
#include "Process.h"
#include "RankProcess.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <memory>
#include <poll.h>
#include <set>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ddpharness;

namespace {

constexpr double Never = std::numeric_limits<double>::infinity();

/// The end of a run: once every rank is reaped, what the ranks left behind
/// gets SIGTERM, then SIGKILL after the grace, and the output pipes are
/// drained for a moment.
struct CleanupState {
  bool Cleaning = false;
  double KillAt = Never;
  double DrainUntil = Never;
  std::set<pid_t> Seen;
};

/// One of a rank's two output streams.
struct Stream {
  int Rank;
  bool IsStderr;
  int Fd;
  int LogFd;
  std::unique_ptr<LineSplitter> Splitter;
};

class RankRun {
public:
  explicit RankRun(const LaunchOptions &Options) : Options(Options) {}
  ~RankRun();

  llvm::Expected<LaunchResult> run();

private:
  llvm::Error openLogs();
  llvm::Error spawn(int Rank, int Port);
  llvm::Error spawnForked(int Port);
  void applyForkEvents(double Now);
  void recordEnd(RankStatus &R, int Status, double Now);
  void addStreams(int Rank, int OutFd, int ErrFd);
  void loop();
  void watchRanks(double Now, double Deadline);
  bool cleanUp(double Now, CleanupState &Clean);
  void waitForEvents(int WaitMs);
  void readStream(Stream &S, int MaxReads, bool Closing);
  void drainStreams();
  void reap(double Now);
  bool allReaped() const;
  void beginTerminate(double Now);
  void signalLiveGroups(int Signal);
  std::vector<pid_t> leftovers() const;
  void emitLine(int Rank, bool IsStderr, const std::string &Line);

  const LaunchOptions &Options;
  LaunchResult Result;
  std::vector<Stream> Streams;
  std::vector<int> LogFds;
  SignalScope Signals;
  bool Terminating = false;
  bool Killed = false;
  double KillAt = Never;
  double CrashStopAt = Never;
  /// Ranks forked from one process (ForkedRanks.h): that process, the group
  /// all of them are in, and its status pipe.
  pid_t Supervisor = -1;
  bool SupervisorReaped = false;
  int SupervisorStatus = 0;
  int StatusFd = -1;
  std::string StatusPending;
};

} // namespace

RankRun::~RankRun() {
  for (Stream &S : Streams)
    if (S.Fd >= 0)
      close(S.Fd);
  for (int Fd : LogFds)
    if (Fd >= 0)
      close(Fd);
  if (StatusFd >= 0)
    close(StatusFd);
}

llvm::Error RankRun::openLogs() {
  for (int Rank = 0; Rank < Options.processCount(); ++Rank)
    for (const char *Which : {"stdout", "stderr"}) {
      std::string Path = Options.RunDir + "/" + Which + "-rank" +
                         std::to_string(Rank) + ".log";
      int Fd = open(Path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                    0644);
      if (Fd < 0)
        return makeError("run directory '" + Options.RunDir +
                         "' is not writable: cannot create " + Path + ": " +
                         std::strerror(errno));
      LogFds.push_back(Fd);
    }
  return llvm::Error::success();
}

llvm::Error RankRun::spawn(int Rank, int Port) {
  llvm::Expected<StartedRank> Started = startRank(Options, Rank, Port);
  if (!Started)
    return Started.takeError();
  RankStatus Status;
  Status.Rank = Rank;
  Status.Pid = Started->Pid;
  Result.Ranks.push_back(Status);
  addStreams(Rank, Started->OutFd, Started->ErrFd);
  if (int ChildErrno = readExecErrno(Started->ExecFailedFd))
    return makeError("cannot execute '" + Options.Command[0] +
                     "': " + std::strerror(ChildErrno));
  return llvm::Error::success();
}

llvm::Error RankRun::spawnForked(int Port) {
  llvm::Expected<ForkedStart> Started = startForkedRanks(Options, Port);
  if (!Started)
    return Started.takeError();
  Supervisor = Started->Pid;
  StatusFd = Started->StatusFd;
  for (int Rank = 0; Rank < Options.NumRanks; ++Rank) {
    RankStatus Status;
    Status.Rank = Rank;
    Result.Ranks.push_back(Status);
    addStreams(Rank, Started->OutFds[Rank], Started->ErrFds[Rank]);
  }
  if (int ChildErrno = readExecErrno(Started->ExecFailedFd))
    return makeError("cannot execute '" + Options.Command[0] +
                     "': " + std::strerror(ChildErrno));
  return llvm::Error::success();
}

void RankRun::addStreams(int Rank, int OutFd, int ErrFd) {
  for (const std::pair<int, bool> &Pipe :
       {std::pair{OutFd, false}, {ErrFd, true}}) {
    int Fd = Pipe.first;
    bool IsStderr = Pipe.second;
    fcntl(Fd, F_SETFL, fcntl(Fd, F_GETFL) | O_NONBLOCK);
    Stream S{Rank, IsStderr, Fd, LogFds[Rank * 2 + (IsStderr ? 1 : 0)],
             nullptr};
    S.Splitter = std::make_unique<LineSplitter>(
        [this, Rank, IsStderr](const std::string &Line) {
          emitLine(Rank, IsStderr, Line);
        });
    Streams.push_back(std::move(S));
  }
}

void RankRun::emitLine(int Rank, bool IsStderr, const std::string &Line) {
  if (!Line.empty() && !isBacktraceLine(Line))
    Result.Ranks[Rank].LastLine = Line;
  if (Options.Output == RankOutput::LogOnly)
    return;
  FILE *To = (Options.Output == RankOutput::Stream && !IsStderr) ? stdout
                                                                  : stderr;
  if (!Options.ForeignLauncher.empty())
    std::fprintf(To, "[%s] %s\n", Options.ForeignLauncher.c_str(),
                 Line.c_str());
  else
    std::fprintf(To, "[rank %d] %s\n", Rank, Line.c_str());
}

/// Reads at most \p MaxReads chunks, so one chatty rank cannot starve the
/// others or the timeout; closes the stream at its end, or once nothing is
/// left to read when \p Closing.
void RankRun::readStream(Stream &S, int MaxReads, bool Closing) {
  char Buf[65536];
  for (int Reads = 0; Reads < MaxReads && S.Fd >= 0; ++Reads) {
    ssize_t N = read(S.Fd, Buf, sizeof(Buf));
    if (N > 0) {
      (void)!write(S.LogFd, Buf, N);
      S.Splitter->feed(Buf, N);
      continue;
    }
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0 && errno == EAGAIN && !Closing)
      return;
    S.Splitter->finish();
    close(S.Fd);
    S.Fd = -1;
  }
}

void RankRun::drainStreams() {
  for (Stream &S : Streams)
    readStream(S, std::numeric_limits<int>::max(), /*Closing=*/true);
}

void RankRun::recordEnd(RankStatus &R, int Status, double Now) {
  R.Reaped = true;
  if (WIFSIGNALED(Status)) {
    R.Signal = WTERMSIG(Status);
    R.ExitCode = -1;
  } else {
    R.ExitCode = WEXITSTATUS(Status);
  }
  if (R.failedOnItsOwn() && Result.CrashedRank < 0 &&
      Result.Verdict == ProcessVerdict::Ok) {
    Result.CrashedRank = R.Rank;
    Result.Verdict = ProcessVerdict::Crash;
    CrashStopAt = Now + Options.GraceSeconds;
  }
}

/// The forked ranks' pids and ends, as the supervisor reported them; once
/// it is gone, a rank it never reported (not forked, or its pid lost when
/// the supervisor was killed) ends as the supervisor did.
void RankRun::applyForkEvents(double Now) {
  for (const ForkEvent &E : readForkEvents(StatusFd, StatusPending)) {
    if (E.Rank < 0 || E.Rank >= static_cast<int>(Result.Ranks.size()))
      continue;
    RankStatus &R = Result.Ranks[E.Rank];
    if (!E.IsExit)
      R.Pid = static_cast<pid_t>(E.Value);
    else if (!R.Reaped)
      recordEnd(R, static_cast<int>(E.Value), Now);
  }
  if (SupervisorReaped && StatusFd < 0)
    for (RankStatus &R : Result.Ranks)
      if (!R.Reaped && R.Pid < 0)
        recordEnd(R, SupervisorStatus, Now);
}

void RankRun::reap(double Now) {
  int Status;
  pid_t Pid;
  while ((Pid = waitpid(-1, &Status, WNOHANG)) > 0) {
    if (Pid == Supervisor) {
      SupervisorReaped = true;
      SupervisorStatus = Status;
    }
    // Ranks forked by the supervisor are reparented to us if it dies first.
    if (Supervisor > 0)
      applyForkEvents(Now);
    auto It = std::find_if(Result.Ranks.begin(), Result.Ranks.end(),
                           [Pid](const RankStatus &R) { return R.Pid == Pid; });
    if (It == Result.Ranks.end())
      continue; // an orphaned descendant reparented to us
    if (!It->Reaped)
      recordEnd(*It, Status, Now);
  }
  if (Supervisor > 0)
    applyForkEvents(Now);
}

bool RankRun::allReaped() const {
  return (Supervisor < 0 || SupervisorReaped) &&
         std::all_of(Result.Ranks.begin(), Result.Ranks.end(),
                     [](const RankStatus &R) { return R.Reaped; });
}

void RankRun::signalLiveGroups(int Signal) {
  // Forked ranks share the supervisor's group, which ignores SIGTERM.
  if (Supervisor > 0) {
    kill(-Supervisor, Signal);
    if (Signal == SIGTERM)
      kill(-Supervisor, SIGCONT);
    return;
  }
  for (RankStatus &R : Result.Ranks)
    if (!R.Reaped) {
      kill(-R.Pid, Signal);
      // A stopped process acts on SIGTERM only once it runs again.
      if (Signal == SIGTERM)
        kill(-R.Pid, SIGCONT);
    }
}

void RankRun::beginTerminate(double Now) {
  Terminating = true;
  for (RankStatus &R : Result.Ranks)
    if (!R.Reaped)
      R.StoppedByHarness = true;
  signalLiveGroups(SIGTERM);
  KillAt = Now + Options.GraceSeconds;
}

std::vector<pid_t> RankRun::leftovers() const {
  std::set<pid_t> Groups;
  for (const RankStatus &R : Result.Ranks)
    Groups.insert(R.Pid);
  if (Supervisor > 0)
    Groups.insert(Supervisor);
  pid_t Self = getpid();
  std::vector<pid_t> Found;
  for (const ProcessEntry &P : listProcesses())
    if (P.State != 'Z' && (P.Parent == Self || Groups.count(P.Group)))
      Found.push_back(P.Pid);
  return Found;
}

/// While ranks live: an interrupt, the timeout, or the end of a crashed
/// rank's grace begins the termination; the grace after SIGTERM ends in
/// SIGKILL.
void RankRun::watchRanks(double Now, double Deadline) {
  int Interrupt = Signals.pendingInterrupt();
  if (Interrupt && Result.Verdict != ProcessVerdict::Interrupted) {
    Result.Verdict = ProcessVerdict::Interrupted;
    Result.InterruptSignal = Interrupt;
    if (!Terminating)
      beginTerminate(Now);
  }
  if (!Terminating && Now >= Deadline) {
    if (Result.Verdict == ProcessVerdict::Ok)
      Result.Verdict = ProcessVerdict::Hang;
    beginTerminate(Now);
  }
  if (!Terminating && Now >= CrashStopAt)
    beginTerminate(Now);
  if (Terminating && !Killed && Now >= KillAt) {
    signalLiveGroups(SIGKILL);
    Killed = true;
  }
}

/// Once the ranks are gone, whatever they left behind goes too. Only groups
/// that still have members are signalled: an empty group's id may belong to
/// an unrelated process by now. True when the run is over.
bool RankRun::cleanUp(double Now, CleanupState &Clean) {
  std::vector<pid_t> Left = leftovers();
  Clean.Seen.insert(Left.begin(), Left.end());
  int Signal = 0;
  if (!Clean.Cleaning) {
    Clean.Cleaning = true;
    Clean.KillAt = Now + Options.GraceSeconds;
    Signal = SIGTERM;
  } else if (Now >= Clean.KillAt) {
    // Every round from now on: also whatever they forked meanwhile.
    Signal = SIGKILL;
  }
  if (Signal)
    for (pid_t P : Left) {
      kill(P, Signal);
      if (Signal == SIGTERM)
        kill(P, SIGCONT);
    }
  // A process stuck in the kernel (state D) ignores even SIGKILL for a
  // while; the harness does not wait for it forever.
  if (!Left.empty())
    return Now >= Clean.KillAt + 10;
  if (Clean.DrainUntil == Never)
    Clean.DrainUntil = Now + 0.5;
  bool Open = std::any_of(Streams.begin(), Streams.end(),
                          [](const Stream &S) { return S.Fd >= 0; });
  return !Open || Now >= Clean.DrainUntil;
}

/// Waits up to \p WaitMs for output or a signal, and reads what came.
void RankRun::waitForEvents(int WaitMs) {
  std::vector<pollfd> Fds;
  std::vector<Stream *> Owners;
  Fds.push_back({Signals.readFd(), POLLIN, 0});
  Owners.push_back(nullptr);
  for (Stream &S : Streams)
    if (S.Fd >= 0) {
      Fds.push_back({S.Fd, POLLIN, 0});
      Owners.push_back(&S);
    }
  // Last, past Owners: read by reap(), which follows.
  if (StatusFd >= 0)
    Fds.push_back({StatusFd, POLLIN, 0});
  if (poll(Fds.data(), Fds.size(), WaitMs) <= 0)
    return;
  for (size_t I = 0; I < Owners.size(); ++I) {
    if (!(Fds[I].revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    if (!Owners[I]) {
      char Buf[256];
      while (read(Fds[I].fd, Buf, sizeof(Buf)) > 0) {
      }
      continue;
    }
    readStream(*Owners[I], 16, /*Closing=*/false);
  }
  std::fflush(stdout);
  std::fflush(stderr);
}

void RankRun::loop() {
  const double Deadline = monotonicSeconds() + Options.TimeoutSeconds;
  CleanupState Clean;
  while (true) {
    double Now = monotonicSeconds();
    if (!allReaped())
      watchRanks(Now, Deadline);
    else if (cleanUp(Now, Clean))
      break;

    // Sleep until the next deadline still ahead, output, or a signal.
    double Wake = Never;
    for (double T :
         {Deadline, CrashStopAt, KillAt, Clean.KillAt, Clean.DrainUntil})
      if (T > Now)
        Wake = std::min(Wake, T);
    int WaitMs = 250;
    if (Wake != Never)
      WaitMs = std::clamp(static_cast<int>((Wake - Now) * 1000) + 1, 1, 250);
    // Leftover processes are found by polling /proc.
    if (Clean.Cleaning)
      WaitMs = std::min(WaitMs, 20);
    waitForEvents(WaitMs);
    reap(monotonicSeconds());
  }
  drainStreams();
  std::fflush(stdout);
  std::fflush(stderr);
  Result.LeftoverProcesses = Clean.Seen.size();
  // Reap whatever we were the parent of.
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

llvm::Expected<LaunchResult> RankRun::run() {
  if (llvm::Error E = openLogs())
    return std::move(E);
  if (llvm::Error E = Signals.install())
    return std::move(E);
  // Orphaned descendants of the ranks become our children, so none escapes.
  prctl(PR_SET_CHILD_SUBREAPER, 1);

  int PortFd = -1;
  llvm::Expected<int> Port = reserveLoopbackPort(PortFd);
  if (!Port)
    return Port.takeError();
  Result.Port = *Port;

  if (Options.OnStart)
    Options.OnStart(*Port);
  double Start = monotonicSeconds();
  // Released just before the ranks start, so rank 0 can bind it.
  close(PortFd);
  if (forkRanksFor(Options)) {
    if (llvm::Error E = spawnForked(*Port)) {
      if (Supervisor > 0) {
        kill(-Supervisor, SIGKILL);
        waitpid(Supervisor, nullptr, 0);
      }
      return std::move(E);
    }
  } else {
    for (int Rank = 0; Rank < Options.processCount(); ++Rank)
      if (llvm::Error E = spawn(Rank, *Port)) {
        // Do not leave the ranks already started behind.
        beginTerminate(monotonicSeconds());
        signalLiveGroups(SIGKILL);
        for (RankStatus &R : Result.Ranks)
          waitpid(R.Pid, nullptr, 0);
        return std::move(E);
      }
  }
  loop();
  Result.WallSeconds = monotonicSeconds() - Start;
  return Result;
}

llvm::Expected<LaunchResult>
ddpharness::launchRanks(const LaunchOptions &Options) {
  RankRun Run(Options);
  return Run.run();
}
