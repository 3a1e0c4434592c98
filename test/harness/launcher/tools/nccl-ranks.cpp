//===- nccl-ranks.cpp - Ranks that issue NCCL collectives, for the trace --===//
//
// Each rank issues a broadcast and two all-reduces per step through NCCL's
// entry points (the stand-in libnccl of fake-nccl.cpp), on one communicator.
// With `mismatch`, the last rank reduces half as many elements at step 1,
// and with `op` it reduces with MAX (ncclMax) instead of SUM (ncclSum).
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdlib>
#include <cstring>

extern "C" {
int ncclAllReduce(const void *, void *, size_t, int, int, void *, void *);
int ncclBroadcast(const void *, void *, size_t, int, int, void *, void *);
}

int main(int Argc, char **Argv) {
  const char *Mode = Argc > 1 ? Argv[1] : "agree";
  const char *RankText = std::getenv("RANK");
  const char *SizeText = std::getenv("WORLD_SIZE");
  int Rank = RankText ? std::atoi(RankText) : 0;
  bool Last = SizeText && Rank == std::atoi(SizeText) - 1;
  static float Buffer[64];
  void *Comm = &Buffer[0]; // any handle: the stand-in never reads it
  const int Float32 = 7, Sum = 0, Max = 2;
  ncclBroadcast(Buffer, Buffer, 64, Float32, 0, Comm, nullptr);
  for (int Step = 0; Step < 3; ++Step) {
    size_t Count = 64;
    int Op = Sum;
    if (Step == 1 && Last && !std::strcmp(Mode, "mismatch"))
      Count = 32;
    if (Step == 1 && Last && !std::strcmp(Mode, "op"))
      Op = Max;
    ncclAllReduce(Buffer, Buffer, Count, Float32, Op, Comm, nullptr);
    ncclAllReduce(Buffer, Buffer, 8, Float32, Sum, Comm, nullptr);
  }
  return 0;
}
