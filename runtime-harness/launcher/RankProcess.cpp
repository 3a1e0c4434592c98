//===- RankProcess.cpp - One rank's process -------------------------------===//

#include "RankProcess.h"

#include "Process.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

extern char **environ;

using namespace ddpharness;

namespace {

/// Three pipes for one rank: stdout, stderr, and the one the child writes
/// errno to when exec fails. On failure none stays open.
llvm::Error openRankPipes(int Out[2], int Err[2], int ExecFailed[2]) {
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
  return llvm::Error::success();
}

/// The child's side of fork: a process group of its own, default signal
/// handling, the pipes as stdout and stderr, then exec. Only
/// async-signal-safe calls.
[[noreturn]] void execRank(char *const Argv[], char *const Envp[], int DevNull,
                           int OutFd, int ErrFd, int ExecFailedFd,
                           const std::vector<int> &InheritFds) {
  setpgid(0, 0);
  for (int Fd : InheritFds)
    fcntl(Fd, F_SETFD, 0);
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
  dup2(OutFd, 1);
  dup2(ErrFd, 2);
  execve(Argv[0], Argv, Envp);
  int Errno = errno;
  (void)!write(ExecFailedFd, &Errno, sizeof(Errno));
  _exit(127);
}

} // namespace

std::vector<std::string>
ddpharness::rankEnvironment(const LaunchOptions &Options, int Rank, int Port) {
  static const llvm::StringRef Replaced[] = {"RANK",
                                             "LOCAL_RANK",
                                             "WORLD_SIZE",
                                             "LOCAL_WORLD_SIZE",
                                             "MASTER_ADDR",
                                             "MASTER_PORT",
                                             "DDP_HARNESS_RUN_DIR",
                                             "DDP_HARNESS_BACKEND",
                                             "DDP_HARNESS_FORKED_RANKS"};
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
  if (Options.ForeignLauncher.empty()) {
    Env.push_back("RANK=" + std::to_string(Rank));
    Env.push_back("LOCAL_RANK=" + std::to_string(Rank));
    Env.push_back("WORLD_SIZE=" + N);
    Env.push_back("LOCAL_WORLD_SIZE=" + N);
  }
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

llvm::Expected<StartedRank>
ddpharness::startRank(const LaunchOptions &Options, int Rank, int Port,
                      const std::vector<std::string> &ExtraEnv,
                      const std::vector<int> &InheritFds) {
  int Out[2], Err[2], ExecFailed[2];
  if (llvm::Error E = openRankPipes(Out, Err, ExecFailed))
    return std::move(E);
  // Everything the child needs is built before fork: between fork and exec
  // only async-signal-safe calls are allowed.
  std::vector<std::string> Env = rankEnvironment(Options, Rank, Port);
  Env.insert(Env.end(), ExtraEnv.begin(), ExtraEnv.end());
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
    for (int Fd : {Out[0], Out[1], Err[0], Err[1], ExecFailed[0], ExecFailed[1],
                   DevNull})
      close(Fd);
    return makeError(llvm::Twine("fork: ") + std::strerror(Errno));
  }
  if (Pid == 0)
    execRank(Argv.data(), Envp.data(), DevNull, Out[1], Err[1], ExecFailed[1],
             InheritFds);
  // Also here, so the group exists before any signal the parent may send.
  setpgid(Pid, Pid);
  close(DevNull);
  close(Out[1]);
  close(Err[1]);
  close(ExecFailed[1]);
  return StartedRank{Pid, Out[0], Err[0], ExecFailed[0]};
}

int ddpharness::readExecErrno(int ExecFailedFd) {
  int ChildErrno = 0;
  ssize_t N;
  do
    N = read(ExecFailedFd, &ChildErrno, sizeof(ChildErrno));
  while (N < 0 && errno == EINTR);
  close(ExecFailedFd);
  return N == static_cast<ssize_t>(sizeof(ChildErrno)) ? ChildErrno : 0;
}
