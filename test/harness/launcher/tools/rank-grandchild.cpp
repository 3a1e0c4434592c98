//===- rank-grandchild.cpp - A rank that leaves a process behind ----------===//
//
// rank-grandchild --pid-file PREFIX [--setsid] [--ignore-term] [--hang]
//
// Forks a child that would outlive the rank: it writes its pid to
// PREFIX-rank<R>.pid and sleeps. --setsid moves it out of the rank's process
// group (only the harness's subreaper catches it then); --ignore-term makes
// it ignore SIGTERM; --hang makes the rank itself hang instead of exiting 0.
//
//===----------------------------------------------------------------------===//

#include "RankEnv.h"

#include <csignal>
#include <unistd.h>

int main(int Argc, char **Argv) {
  RankEnv Env = readRankEnv();
  std::string PidFile = flagValue(Argc, Argv, "--pid-file", "") + "-rank" +
                        std::to_string(Env.Rank) + ".pid";
  int Ready[2];
  if (pipe(Ready) != 0)
    return 1;
  pid_t Child = fork();
  if (Child == 0) {
    close(Ready[0]);
    if (hasFlag(Argc, Argv, "--setsid"))
      setsid();
    if (hasFlag(Argc, Argv, "--ignore-term"))
      std::signal(SIGTERM, SIG_IGN);
    if (FILE *F = std::fopen(PidFile.c_str(), "w")) {
      std::fprintf(F, "%d\n", static_cast<int>(getpid()));
      std::fclose(F);
    }
    (void)!write(Ready[1], "x", 1);
    close(Ready[1]);
    for (;;)
      pause();
  }
  close(Ready[1]);
  char Byte;
  (void)!read(Ready[0], &Byte, 1);
  std::printf("rank %d: left process %d behind\n", Env.Rank,
              static_cast<int>(Child));
  std::fflush(stdout);
  if (hasFlag(Argc, Argv, "--hang"))
    for (;;)
      pause();
  return 0;
}
