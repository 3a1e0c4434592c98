//===- Launcher.cpp - Starting and watching the ranks ---------------------===//
//
// Every rank runs in a process group of its own (its pid), so signalling the
// group reaches whatever the rank forked. The harness also makes itself a
// child subreaper: descendants that leave their group (setsid) and lose their
// parent are reparented to the harness, which kills them at the end.
//
//===----------------------------------------------------------------------===//

#include "Launcher.h"

#include "OutputLines.h"
#include "Process.h"

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

extern char **environ;

using namespace ddpharness;

static llvm::Error makeError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

namespace {

constexpr double Never = std::numeric_limits<double>::infinity();

// The signal handlers only record and wake the poll loop.
volatile sig_atomic_t PendingInterrupt = 0;
int WakeWriteFd = -1;

void onSignal(int Signal) {
  int SavedErrno = errno;
  if (Signal != SIGCHLD)
    PendingInterrupt = Signal;
  if (WakeWriteFd >= 0) {
    char Byte = 0;
    (void)!write(WakeWriteFd, &Byte, 1);
  }
  errno = SavedErrno;
}

const int WatchedSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};

/// Installs the handlers for one launch and restores the previous ones.
class SignalScope {
public:
  llvm::Error install() {
    int Fds[2];
    if (pipe2(Fds, O_CLOEXEC | O_NONBLOCK) != 0)
      return makeError(llvm::Twine("pipe: ") + std::strerror(errno));
    WakeReadFd = Fds[0];
    WakeWriteFd = Fds[1];
    PendingInterrupt = 0;
    struct sigaction Action {};
    Action.sa_handler = onSignal;
    sigemptyset(&Action.sa_mask);
    Action.sa_flags = SA_RESTART;
    for (size_t I = 0; I < std::size(WatchedSignals); ++I)
      sigaction(WatchedSignals[I], &Action, &Previous[I]);
    Installed = true;
    return llvm::Error::success();
  }
  ~SignalScope() {
    if (!Installed)
      return;
    for (size_t I = 0; I < std::size(WatchedSignals); ++I)
      sigaction(WatchedSignals[I], &Previous[I], nullptr);
    close(WakeWriteFd);
    WakeWriteFd = -1;
    close(WakeReadFd);
  }
  int readFd() const { return WakeReadFd; }

private:
  struct sigaction Previous[std::size(WatchedSignals)];
  int WakeReadFd = -1;
  bool Installed = false;
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
  std::vector<std::string> environmentFor(int Rank, int Port) const;
  llvm::Error spawn(int Rank, int Port);
  void loop();
  void readStream(Stream &S);
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
};

} // namespace

RankRun::~RankRun() {
  for (Stream &S : Streams)
    if (S.Fd >= 0)
      close(S.Fd);
  for (int Fd : LogFds)
    if (Fd >= 0)
      close(Fd);
}

llvm::Error RankRun::openLogs() {
  for (int Rank = 0; Rank < Options.NumRanks; ++Rank)
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

std::vector<std::string> RankRun::environmentFor(int Rank, int Port) const {
  static const llvm::StringRef Replaced[] = {
      "RANK",        "LOCAL_RANK",          "WORLD_SIZE",
      "LOCAL_WORLD_SIZE", "MASTER_ADDR",     "MASTER_PORT",
      "DDP_HARNESS_RUN_DIR", "DDP_HARNESS_BACKEND"};
  std::vector<std::string> Env;
  bool HasOmpThreads = false;
  for (char **E = environ; *E; ++E) {
    llvm::StringRef Entry(*E);
    llvm::StringRef Name = Entry.split('=').first;
    if (std::find(std::begin(Replaced), std::end(Replaced), Name) !=
        std::end(Replaced))
      continue;
    if (llvm::any_of(Options.Environment, [&](const std::string &Extra) {
          return llvm::StringRef(Extra).split('=').first == Name;
        }))
      continue;
    HasOmpThreads |= Name == "OMP_NUM_THREADS";
    Env.push_back(Entry.str());
  }
  std::string N = std::to_string(Options.NumRanks);
  Env.push_back("RANK=" + std::to_string(Rank));
  Env.push_back("LOCAL_RANK=" + std::to_string(Rank));
  Env.push_back("WORLD_SIZE=" + N);
  Env.push_back("LOCAL_WORLD_SIZE=" + N);
  Env.push_back("MASTER_ADDR=127.0.0.1");
  Env.push_back("MASTER_PORT=" + std::to_string(Port));
  Env.push_back("DDP_HARNESS_RUN_DIR=" + Options.RunDir);
  Env.push_back("DDP_HARNESS_BACKEND=" + Options.Backend);
  Env.insert(Env.end(), Options.Environment.begin(), Options.Environment.end());
  // As torchrun does: N ranks on one machine each get one OpenMP thread
  // unless the user chose otherwise.
  if (!HasOmpThreads && Options.NumRanks > 1)
    Env.push_back("OMP_NUM_THREADS=1");
  return Env;
}

llvm::Error RankRun::spawn(int Rank, int Port) {
  int Out[2], Err[2], ExecFailed[2];
  if (pipe2(Out, O_CLOEXEC) != 0)
    return makeError(llvm::Twine("pipe: ") + std::strerror(errno));
  if (pipe2(Err, O_CLOEXEC) != 0) {
    close(Out[0]);
    close(Out[1]);
    return makeError(llvm::Twine("pipe: ") + std::strerror(errno));
  }
  if (pipe2(ExecFailed, O_CLOEXEC) != 0) {
    for (int Fd : {Out[0], Out[1], Err[0], Err[1]})
      close(Fd);
    return makeError(llvm::Twine("pipe: ") + std::strerror(errno));
  }

  // Everything the child needs is built before fork: between fork and exec
  // only async-signal-safe calls are allowed.
  std::vector<std::string> Env = environmentFor(Rank, Port);
  std::vector<char *> Envp, Argv;
  for (std::string &E : Env)
    Envp.push_back(E.data());
  Envp.push_back(nullptr);
  for (const std::string &A : Options.Command)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  int DevNull = open("/dev/null", O_RDONLY | O_CLOEXEC);

  pid_t Pid = fork();
  if (Pid < 0) {
    int Errno = errno;
    for (int Fd : {Out[0], Out[1], Err[0], Err[1], ExecFailed[0],
                   ExecFailed[1], DevNull})
      close(Fd);
    return makeError(llvm::Twine("fork: ") + std::strerror(Errno));
  }
  if (Pid == 0) {
    setpgid(0, 0);
    struct sigaction Default {};
    Default.sa_handler = SIG_DFL;
    sigemptyset(&Default.sa_mask);
    for (int Signal : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE})
      sigaction(Signal, &Default, nullptr);
    sigset_t None;
    sigemptyset(&None);
    sigprocmask(SIG_SETMASK, &None, nullptr);
    if (DevNull >= 0)
      dup2(DevNull, 0);
    dup2(Out[1], 1);
    dup2(Err[1], 2);
    execve(Argv[0], Argv.data(), Envp.data());
    int Errno = errno;
    (void)!write(ExecFailed[1], &Errno, sizeof(Errno));
    _exit(127);
  }
  // Also here, so the group exists before any signal the parent may send.
  setpgid(Pid, Pid);
  close(DevNull);
  close(Out[1]);
  close(Err[1]);
  close(ExecFailed[1]);

  RankStatus Status;
  Status.Rank = Rank;
  Status.Pid = Pid;
  Result.Ranks.push_back(Status);

  for (const std::pair<int, bool> &Pipe :
       {std::pair{Out[0], false}, {Err[0], true}}) {
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

  int ChildErrno = 0;
  ssize_t N;
  do
    N = read(ExecFailed[0], &ChildErrno, sizeof(ChildErrno));
  while (N < 0 && errno == EINTR);
  close(ExecFailed[0]);
  if (N == static_cast<ssize_t>(sizeof(ChildErrno)))
    return makeError("cannot execute '" + Options.Command[0] +
                     "': " + std::strerror(ChildErrno));
  return llvm::Error::success();
}

/// The backtrace LibTorch 2.x appends to every c10::Error's message
/// ("Exception raised from ...", then "frame #N: ..."): the line that says
/// what went wrong comes before it.
static bool isBacktraceLine(llvm::StringRef Line) {
  return Line.starts_with("frame #") ||
         Line.starts_with("Exception raised from ");
}

void RankRun::emitLine(int Rank, bool IsStderr, const std::string &Line) {
  if (!Line.empty() && !isBacktraceLine(Line))
    Result.Ranks[Rank].LastLine = Line;
  if (Options.Output == RankOutput::LogOnly)
    return;
  FILE *To = (Options.Output == RankOutput::Stream && !IsStderr) ? stdout
                                                                  : stderr;
  std::fprintf(To, "[rank %d] %s\n", Rank, Line.c_str());
}

void RankRun::readStream(Stream &S) {
  char Buf[65536];
  // Bounded, so one chatty rank cannot starve the others or the timeout.
  for (int Reads = 0; Reads < 16 && S.Fd >= 0; ++Reads) {
    ssize_t N = read(S.Fd, Buf, sizeof(Buf));
    if (N > 0) {
      (void)!write(S.LogFd, Buf, N);
      S.Splitter->feed(Buf, N);
      continue;
    }
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0 && errno == EAGAIN)
      return;
    S.Splitter->finish();
    close(S.Fd);
    S.Fd = -1;
  }
}

void RankRun::drainStreams() {
  for (Stream &S : Streams) {
    while (S.Fd >= 0) {
      char Buf[65536];
      ssize_t N = read(S.Fd, Buf, sizeof(Buf));
      if (N > 0) {
        (void)!write(S.LogFd, Buf, N);
        S.Splitter->feed(Buf, N);
        continue;
      }
      if (N < 0 && errno == EINTR)
        continue;
      S.Splitter->finish();
      close(S.Fd);
      S.Fd = -1;
    }
  }
}

void RankRun::reap(double Now) {
  int Status;
  pid_t Pid;
  while ((Pid = waitpid(-1, &Status, WNOHANG)) > 0) {
    auto It = std::find_if(Result.Ranks.begin(), Result.Ranks.end(),
                           [Pid](const RankStatus &R) { return R.Pid == Pid; });
    if (It == Result.Ranks.end())
      continue; // an orphaned descendant reparented to us
    It->Reaped = true;
    if (WIFSIGNALED(Status)) {
      It->Signal = WTERMSIG(Status);
      It->ExitCode = -1;
    } else {
      It->ExitCode = WEXITSTATUS(Status);
    }
    if (It->failedOnItsOwn() && Result.CrashedRank < 0 &&
        Result.Verdict == ProcessVerdict::Ok) {
      Result.CrashedRank = It->Rank;
      Result.Verdict = ProcessVerdict::Crash;
      CrashStopAt = Now + Options.GraceSeconds;
    }
  }
}

bool RankRun::allReaped() const {
  return std::all_of(Result.Ranks.begin(), Result.Ranks.end(),
                     [](const RankStatus &R) { return R.Reaped; });
}

void RankRun::signalLiveGroups(int Signal) {
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
  pid_t Self = getpid();
  std::vector<pid_t> Found;
  for (const ProcessEntry &P : listProcesses())
    if (P.State != 'Z' && (P.Parent == Self || Groups.count(P.Group)))
      Found.push_back(P.Pid);
  return Found;
}

void RankRun::loop() {
  const double Deadline = monotonicSeconds() + Options.TimeoutSeconds;
  bool Cleaning = false;
  double CleanKillAt = Never, DrainUntil = Never;
  std::set<pid_t> LeftoverSeen;

  while (true) {
    double Now = monotonicSeconds();
    if (!allReaped()) {
      if (PendingInterrupt && Result.Verdict != ProcessVerdict::Interrupted) {
        Result.Verdict = ProcessVerdict::Interrupted;
        Result.InterruptSignal = PendingInterrupt;
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
    } else {
      // The ranks are gone; whatever they left behind goes too. Only groups
      // that still have members are signalled: an empty group's id may
      // belong to an unrelated process by now.
      std::vector<pid_t> Left = leftovers();
      LeftoverSeen.insert(Left.begin(), Left.end());
      int Signal = 0;
      if (!Cleaning) {
        Cleaning = true;
        CleanKillAt = Now + Options.GraceSeconds;
        Signal = SIGTERM;
      } else if (Now >= CleanKillAt) {
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
      if (!Left.empty() && Now >= CleanKillAt + 10)
        break;
      if (Left.empty()) {
        if (DrainUntil == Never)
          DrainUntil = Now + 0.5;
        bool Open = std::any_of(Streams.begin(), Streams.end(),
                                [](const Stream &S) { return S.Fd >= 0; });
        if (!Open || Now >= DrainUntil)
          break;
      }
    }

    // Sleep until the next deadline still ahead, output, or a signal.
    double Wake = Never;
    for (double T : {Deadline, CrashStopAt, KillAt, CleanKillAt, DrainUntil})
      if (T > Now)
        Wake = std::min(Wake, T);
    int WaitMs = 250;
    if (Wake != Never)
      WaitMs = std::clamp(static_cast<int>((Wake - Now) * 1000) + 1, 1, 250);
    // Leftover processes are found by polling /proc.
    if (Cleaning)
      WaitMs = std::min(WaitMs, 20);

    std::vector<pollfd> Fds;
    std::vector<Stream *> Owners;
    Fds.push_back({Signals.readFd(), POLLIN, 0});
    Owners.push_back(nullptr);
    for (Stream &S : Streams)
      if (S.Fd >= 0) {
        Fds.push_back({S.Fd, POLLIN, 0});
        Owners.push_back(&S);
      }
    int Ready = poll(Fds.data(), Fds.size(), WaitMs);
    if (Ready > 0) {
      for (size_t I = 0; I < Fds.size(); ++I) {
        if (!(Fds[I].revents & (POLLIN | POLLHUP | POLLERR)))
          continue;
        if (!Owners[I]) {
          char Buf[256];
          while (read(Fds[I].fd, Buf, sizeof(Buf)) > 0) {
          }
          continue;
        }
        readStream(*Owners[I]);
      }
      std::fflush(stdout);
      std::fflush(stderr);
    }
    reap(monotonicSeconds());
  }
  drainStreams();
  std::fflush(stdout);
  std::fflush(stderr);
  Result.LeftoverProcesses = LeftoverSeen.size();
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
  for (int Rank = 0; Rank < Options.NumRanks; ++Rank)
    if (llvm::Error E = spawn(Rank, *Port)) {
      // Do not leave the ranks already started behind.
      beginTerminate(monotonicSeconds());
      signalLiveGroups(SIGKILL);
      for (RankStatus &R : Result.Ranks)
        waitpid(R.Pid, nullptr, 0);
      return std::move(E);
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
