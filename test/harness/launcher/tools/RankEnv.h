//===- RankEnv.h - What a test rank reads from its environment ------------===//
//
// The test programs in this directory behave like ranks of a data-parallel
// job: they read torchrun's variables and the harness's run directory.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_TEST_RANKENV_H
#define DDPHARNESS_TEST_RANKENV_H

#include <cstdio>
#include <cstdlib>
#include <string>

struct RankEnv {
  int Rank = 0;
  int WorldSize = 1;
  int LocalRank = 0;
  int LocalWorldSize = 1;
  std::string Addr;
  int Port = 0;
  /// Empty outside the harness (under torchrun): then nothing is probed.
  std::string RunDir;
  std::string Backend;
};

inline int requiredInt(const char *Name) {
  const char *V = std::getenv(Name);
  if (!V || !*V) {
    std::fprintf(stderr, "test rank: %s is not set\n", Name);
    std::exit(2);
  }
  return std::atoi(V);
}

inline RankEnv readRankEnv() {
  RankEnv E;
  E.Rank = requiredInt("RANK");
  E.WorldSize = requiredInt("WORLD_SIZE");
  E.LocalRank = requiredInt("LOCAL_RANK");
  E.LocalWorldSize = requiredInt("LOCAL_WORLD_SIZE");
  E.Port = requiredInt("MASTER_PORT");
  const char *Addr = std::getenv("MASTER_ADDR");
  E.Addr = Addr ? Addr : "";
  const char *Dir = std::getenv("DDP_HARNESS_RUN_DIR");
  E.RunDir = Dir ? Dir : "";
  const char *Backend = std::getenv("DDP_HARNESS_BACKEND");
  E.Backend = Backend ? Backend : "";
  return E;
}

/// Value of "--name V" in argv, or \p Default.
inline std::string flagValue(int Argc, char **Argv, const std::string &Name,
                             const std::string &Default) {
  for (int I = 1; I + 1 < Argc; ++I)
    if (Name == Argv[I])
      return Argv[I + 1];
  return Default;
}

inline bool hasFlag(int Argc, char **Argv, const std::string &Name) {
  for (int I = 1; I < Argc; ++I)
    if (Name == Argv[I])
      return true;
  return false;
}

#endif
