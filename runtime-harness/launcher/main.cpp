//===- main.cpp - ddp-harness entry point ---------------------------------===//
//
// ddp-harness runs a program on several ranks and tells whether its replicas
// stayed in sync. Subcommands live in a table: adding one is a row here and a
// function in Commands.h.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "ExitCodes.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace ddpharness;

namespace {

struct Subcommand {
  const char *Name;
  const char *Summary;
  int (*Run)(const std::vector<std::string> &Args);
};

const Subcommand Subcommands[] = {
    {"run", "run a program on N ranks and analyse what its probes recorded",
     runCommand},
    {"compare", "put two runs' tables side by side (buggy next to fixed)",
     compareCommand},
    {"scenarios", "run every scenario of ddp-scenario and measure verdicts",
     scenariosCommand},
    {"confirm", "run the scenarios behind ddplint's findings; annotate them",
     confirmCommand},
    {"analyze", "analyse a run directory that another launcher's ranks "
                "wrote (mpirun, srun)",
     analyzeCommand},
};

void printUsage(FILE *To) {
  std::fprintf(To, "usage: ddp-harness <command> [options] [-- program "
                   "[args...]]\n\ncommands:\n");
  for (const Subcommand &S : Subcommands)
    std::fprintf(To, "  %-12s%s\n", S.Name, S.Summary);
  std::fprintf(To,
               "\n'ddp-harness <command> --help' describes a command's "
               "options.\nexit codes: 0 ranks exited 0, 2 harness error, 3 "
               "hang, 4 crash (docs/harness.md)\n");
}

} // namespace

int main(int Argc, char **Argv) {
  // A closed stdout (`ddp-harness ... | head`) must not kill the harness
  // while it still has ranks to clean up.
  std::signal(SIGPIPE, SIG_IGN);
  if (Argc < 2) {
    printUsage(stderr);
    return ExitHarnessError;
  }
  std::string Name = Argv[1];
  if (Name == "-h" || Name == "--help" || Name == "help") {
    printUsage(stdout);
    return ExitOk;
  }
  std::vector<std::string> Args(Argv + 2, Argv + Argc);
  for (const Subcommand &S : Subcommands)
    if (Name == S.Name)
      return S.Run(Args);
  std::fprintf(stderr, "ddp-harness: error: unknown command '%s'\n\n",
               Name.c_str());
  printUsage(stderr);
  return ExitHarnessError;
}
