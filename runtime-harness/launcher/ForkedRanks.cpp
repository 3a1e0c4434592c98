//===- ForkedRanks.cpp - Ranks forked from one scenario process -----------===//

#include "ForkedRanks.h"

#include "Process.h"
#include "RankProcess.h"

#include "llvm/ADT/StringRef.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace ddpharness;

namespace {

bool samePath(const std::string &A, const std::string &B) {
  char RealA[PATH_MAX], RealB[PATH_MAX];
  return realpath(A.c_str(), RealA) && realpath(B.c_str(), RealB) &&
         std::strcmp(RealA, RealB) == 0;
}

void closeAll(const std::vector<int> &Fds) {
  for (int Fd : Fds)
    close(Fd);
}

} // namespace

bool ddpharness::forkRanksFor(const LaunchOptions &Options) {
  if (!Options.ForeignLauncher.empty() || Options.NumRanks < 2 ||
      Options.Command.empty())
    return false;
  if (const char *Spawn = std::getenv("DDP_HARNESS_SPAWN_RANKS");
      Spawn && *Spawn && std::strcmp(Spawn, "0") != 0)
    return false;
  // Only the program built with this harness speaks the protocol, not one
  // DDP_HARNESS_SCENARIO_BIN names.
  return samePath(Options.Command[0],
                  executableDirectory() + "/../libexec/ddp-scenario");
}

llvm::Expected<ForkedStart>
ddpharness::startForkedRanks(const LaunchOptions &Options, int Port) {
  // Ranks 1..N-1's stdout and stderr, then the status pipe.
  std::vector<int> ReadEnds, WriteEnds;
  for (int I = 0; I < 2 * (Options.NumRanks - 1) + 1; ++I) {
    int Fds[2];
    if (pipe2(Fds, O_CLOEXEC) != 0) {
      int Errno = errno;
      closeAll(ReadEnds);
      closeAll(WriteEnds);
      return makeError(llvm::Twine("pipe: ") + std::strerror(Errno));
    }
    ReadEnds.push_back(Fds[0]);
    WriteEnds.push_back(Fds[1]);
  }
  std::string Spec = "DDP_HARNESS_FORKED_RANKS=" +
                     std::to_string(WriteEnds.back()) + ":1,2";
  for (int Rank = 1; Rank < Options.NumRanks; ++Rank)
    Spec += ":" + std::to_string(WriteEnds[2 * (Rank - 1)]) + "," +
            std::to_string(WriteEnds[2 * (Rank - 1) + 1]);
  llvm::Expected<StartedRank> Started =
      startRank(Options, 0, Port, {Spec}, WriteEnds);
  closeAll(WriteEnds);
  if (!Started) {
    closeAll(ReadEnds);
    return Started.takeError();
  }
  ForkedStart Start;
  Start.Pid = Started->Pid;
  Start.ExecFailedFd = Started->ExecFailedFd;
  Start.OutFds.push_back(Started->OutFd);
  Start.ErrFds.push_back(Started->ErrFd);
  for (int Rank = 1; Rank < Options.NumRanks; ++Rank) {
    Start.OutFds.push_back(ReadEnds[2 * (Rank - 1)]);
    Start.ErrFds.push_back(ReadEnds[2 * (Rank - 1) + 1]);
  }
  Start.StatusFd = ReadEnds.back();
  fcntl(Start.StatusFd, F_SETFL, fcntl(Start.StatusFd, F_GETFL) | O_NONBLOCK);
  return Start;
}

static void parseForkEvents(std::string &Pending,
                            std::vector<ForkEvent> &Events) {
  size_t Newline;
  while ((Newline = Pending.find('\n')) != std::string::npos) {
    llvm::StringRef Line = llvm::StringRef(Pending).take_front(Newline);
    llvm::SmallVector<llvm::StringRef, 3> Fields;
    Line.split(Fields, ' ');
    int Rank;
    long Value;
    if (Fields.size() == 3 && !Fields[1].getAsInteger(10, Rank) &&
        !Fields[2].getAsInteger(10, Value) &&
        (Fields[0] == "pid" || Fields[0] == "exit"))
      Events.push_back({Fields[0] == "exit", Rank, Value});
    Pending.erase(0, Newline + 1);
  }
}

std::vector<ForkEvent> ddpharness::readForkEvents(int &Fd,
                                                  std::string &Pending) {
  std::vector<ForkEvent> Events;
  while (Fd >= 0) {
    char Buf[4096];
    ssize_t N = read(Fd, Buf, sizeof(Buf));
    if (N > 0) {
      Pending.append(Buf, N);
      continue;
    }
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0 && errno == EAGAIN)
      break;
    close(Fd);
    Fd = -1;
  }
  parseForkEvents(Pending, Events);
  return Events;
}
