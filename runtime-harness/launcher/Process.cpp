//===- Process.cpp - POSIX process helpers for the launcher ---------------===//

#include "Process.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <iterator>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

using namespace ddpharness;

llvm::Error ddpharness::makeError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

double ddpharness::monotonicSeconds() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return static_cast<double>(T.tv_sec) + T.tv_nsec * 1e-9;
}

static llvm::Error checkExecutable(const std::string &Path,
                                   const std::string &AsGiven) {
  struct stat St;
  if (stat(Path.c_str(), &St) != 0)
    return makeError("cannot execute '" + AsGiven + "': " +
                     std::strerror(errno));
  if (S_ISDIR(St.st_mode))
    return makeError("cannot execute '" + AsGiven + "': it is a directory");
  if (!S_ISREG(St.st_mode))
    return makeError("cannot execute '" + AsGiven +
                     "': not a regular file");
  if (access(Path.c_str(), X_OK) != 0 || (St.st_mode & 0111) == 0)
    return makeError("cannot execute '" + AsGiven +
                     "': permission denied (not executable)");
  return llvm::Error::success();
}

llvm::Expected<std::string>
ddpharness::resolveExecutable(const std::string &Program) {
  if (Program.empty())
    return makeError("cannot execute '': empty program name");
  if (Program.find('/') != std::string::npos) {
    if (llvm::Error E = checkExecutable(Program, Program))
      return std::move(E);
    return Program;
  }
  const char *Path = std::getenv("PATH");
  llvm::SmallVector<llvm::StringRef, 16> Dirs;
  llvm::StringRef(Path ? Path : "/usr/local/bin:/usr/bin:/bin")
      .split(Dirs, ':', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  for (llvm::StringRef Dir : Dirs) {
    std::string Candidate =
        (Dir.empty() ? std::string(".") : Dir.str()) + "/" + Program;
    struct stat St;
    if (access(Candidate.c_str(), X_OK) == 0 &&
        stat(Candidate.c_str(), &St) == 0 && S_ISREG(St.st_mode))
      return Candidate;
  }
  return makeError("cannot execute '" + Program +
                   "': not found in PATH (give a path with '/' for a file "
                   "in the current directory)");
}

std::string ddpharness::signalName(int Signal) {
  struct Named {
    int Number;
    const char *Name;
  };
  static const Named Names[] = {
      {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
      {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
      {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
      {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
      {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
      {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"}, {SIGSTOP, "SIGSTOP"},
      {SIGTSTP, "SIGTSTP"}, {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
      {SIGSYS, "SIGSYS"},
  };
  for (const Named &N : Names)
    if (N.Number == Signal)
      return N.Name;
  return "signal " + std::to_string(Signal);
}

llvm::Expected<int> ddpharness::reserveLoopbackPort(int &Fd) {
  Fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (Fd < 0)
    return makeError(llvm::Twine("cannot create a socket to find a free "
                                 "port: ") +
                     std::strerror(errno));
  sockaddr_in Addr{};
  Addr.sin_family = AF_INET;
  Addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  Addr.sin_port = 0;
  socklen_t Len = sizeof(Addr);
  if (bind(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof(Addr)) != 0 ||
      getsockname(Fd, reinterpret_cast<sockaddr *>(&Addr), &Len) != 0) {
    std::string Why = std::strerror(errno);
    close(Fd);
    Fd = -1;
    return makeError("cannot bind a free port on 127.0.0.1: " + Why);
  }
  return ntohs(Addr.sin_port);
}

std::vector<ProcessEntry> ddpharness::listProcesses() {
  std::vector<ProcessEntry> Processes;
  DIR *Proc = opendir("/proc");
  if (!Proc)
    return Processes;
  while (dirent *Entry = readdir(Proc)) {
    char *End;
    long Pid = std::strtol(Entry->d_name, &End, 10);
    if (*End != '\0' || Pid <= 0)
      continue;
    std::string StatPath = std::string("/proc/") + Entry->d_name + "/stat";
    int Fd = open(StatPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (Fd < 0)
      continue;
    char Buf[512];
    ssize_t N = read(Fd, Buf, sizeof(Buf) - 1);
    close(Fd);
    if (N <= 0)
      continue;
    Buf[N] = '\0';
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and ')'.
    const char *Close = std::strrchr(Buf, ')');
    if (!Close)
      continue;
    char State;
    long Parent, Group;
    if (std::sscanf(Close + 1, " %c %ld %ld", &State, &Parent, &Group) != 3)
      continue;
    Processes.push_back({static_cast<pid_t>(Pid), static_cast<pid_t>(Parent),
                         static_cast<pid_t>(Group), State});
  }
  closedir(Proc);
  return Processes;
}

namespace {

/// A helper program started by captureOutput, with the read ends of its
/// stdout and stderr.
struct Captured {
  pid_t Pid;
  int OutFd, ErrFd;
  /// errno of a failed exec, or 0.
  int ExecErrno;
};

llvm::Expected<Captured> startCaptured(const std::vector<std::string> &Argv) {
  int Out[2], Err[2], ExecFailed[2];
  if (pipe2(Out, O_CLOEXEC) != 0)
    return makeError(llvm::Twine("pipe: ") + std::strerror(errno));
  if (pipe2(Err, O_CLOEXEC) != 0 || pipe2(ExecFailed, O_CLOEXEC) != 0)
    return makeError(llvm::Twine("pipe: ") + std::strerror(errno));
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);

  pid_t Pid = fork();
  if (Pid < 0)
    return makeError(llvm::Twine("fork: ") + std::strerror(errno));
  if (Pid == 0) {
    setpgid(0, 0);
    int Null = open("/dev/null", O_RDONLY);
    if (Null >= 0)
      dup2(Null, 0);
    dup2(Out[1], 1);
    dup2(Err[1], 2);
    signal(SIGPIPE, SIG_DFL);
    execv(Args[0], Args.data());
    int Errno = errno;
    (void)!write(ExecFailed[1], &Errno, sizeof(Errno));
    _exit(127);
  }
  setpgid(Pid, Pid);
  close(Out[1]);
  close(Err[1]);
  close(ExecFailed[1]);
  int ChildErrno = 0;
  bool ExecError = read(ExecFailed[0], &ChildErrno, sizeof(ChildErrno)) ==
                   static_cast<ssize_t>(sizeof(ChildErrno));
  close(ExecFailed[0]);
  return Captured{Pid, Out[0], Err[0], ExecError ? ChildErrno : 0};
}

/// Reads \p C's stdout and stderr until both close or \p Timeout seconds
/// pass; false when the time ran out (then its process group is killed).
/// Closes both pipes.
bool collectOutput(const Captured &C, double Timeout, std::string &Stdout,
                   std::string &Stderr) {
  double Deadline = monotonicSeconds() + Timeout;
  bool TimedOut = false;
  pollfd Fds[2] = {{C.OutFd, POLLIN, 0}, {C.ErrFd, POLLIN, 0}};
  int Open = 2;
  while (Open > 0) {
    double Left = Deadline - monotonicSeconds();
    if (Left <= 0) {
      TimedOut = true;
      break;
    }
    if (poll(Fds, 2, static_cast<int>(Left * 1000) + 1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    for (pollfd &P : Fds) {
      if (P.fd < 0 || !(P.revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char Buf[65536];
      ssize_t N = read(P.fd, Buf, sizeof(Buf));
      if (N > 0) {
        (P.fd == C.OutFd ? Stdout : Stderr).append(Buf, N);
      } else if (N == 0 || errno != EINTR) {
        close(P.fd);
        P.fd = -1;
        --Open;
      }
    }
  }
  if (TimedOut)
    kill(-C.Pid, SIGKILL);
  for (pollfd &P : Fds)
    if (P.fd >= 0)
      close(P.fd);
  return !TimedOut;
}

} // namespace

llvm::Expected<std::string>
ddpharness::captureOutput(const std::vector<std::string> &Argv, double Timeout,
                          std::string &Stderr) {
  llvm::Expected<Captured> C = startCaptured(Argv);
  if (!C)
    return C.takeError();
  std::string Stdout;
  bool Finished = collectOutput(*C, Timeout, Stdout, Stderr);
  int Status = 0;
  while (waitpid(C->Pid, &Status, 0) < 0 && errno == EINTR) {
  }
  // Descendants it left in its group must not outlive it.
  kill(-C->Pid, SIGKILL);

  if (C->ExecErrno)
    return makeError("cannot execute '" + Argv[0] +
                     "': " + std::strerror(C->ExecErrno));
  if (!Finished)
    return makeError("'" + Argv[0] + "' did not finish within " +
                     llvm::Twine(static_cast<int>(Timeout)) + " s");
  if (WIFSIGNALED(Status))
    return makeError("'" + Argv[0] + "' was killed by " +
                     signalName(WTERMSIG(Status)));
  if (WEXITSTATUS(Status) != 0)
    return makeError("'" + Argv[0] + "' exited with code " +
                     llvm::Twine(WEXITSTATUS(Status)));
  return Stdout;
}

namespace {

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
static_assert(std::size(WatchedSignals) == SignalScope::NumSignals,
              "one saved action per watched signal");

} // namespace

llvm::Error SignalScope::install() {
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

SignalScope::~SignalScope() {
  if (!Installed)
    return;
  for (size_t I = 0; I < std::size(WatchedSignals); ++I)
    sigaction(WatchedSignals[I], &Previous[I], nullptr);
  close(WakeWriteFd);
  WakeWriteFd = -1;
  close(WakeReadFd);
}

int SignalScope::pendingInterrupt() const { return PendingInterrupt; }

std::string ddpharness::executableDirectory() {
  char Buf[4096];
  ssize_t N = readlink("/proc/self/exe", Buf, sizeof(Buf) - 1);
  if (N <= 0)
    return ".";
  std::string Path(Buf, N);
  size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? "." : Path.substr(0, Slash);
}
