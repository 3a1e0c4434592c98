//===- Trace.h - Each rank's collectives, as it issues them ---------------===//
//
// The collective trace: libddpharness-trace.so is preloaded into every rank
// `ddp-harness run` starts, and records each collective the rank issues
// through MPI (MpiTrace.cpp, over the PMPI profiling interface), NCCL
// (NcclTrace.cpp) and, with libddpharness-trace-c10d.so beside it, c10d's
// process groups (C10dTrace.cpp).
//
// One line per event goes to $DDP_HARNESS_RUN_DIR/collectives-rank<R>.tsv
// with a single write(2) on a file opened O_APPEND, so a crash or a kill
// loses at most the event in flight. Tab-separated:
//
//   C id group kind op count dtype root blocking thread time frames
//       a collective issued (blocking: 1 when the call itself waits for
//       the other ranks, 0 when a wait() or MPI_Wait does);
//   W id time     a wait on collective id began;
//   D id time     collective id, or the wait on it, returned;
//   S records ns  at exit: the records written and the nanoseconds the
//                 process spent in the trace.
//
// time is CLOCK_REALTIME in nanoseconds; frames are the first few return
// addresses outside the communication libraries and LibTorch, each
// `module+0xoffset` (offset from the module's load address, or the address
// itself for a non-PIE executable), for the launcher to symbolise.
// Nothing is recorded unless the launcher set DDP_HARNESS_RUN_DIR.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_TRACE_TRACE_H
#define DDPHARNESS_TRACE_TRACE_H

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace ddptrace {

struct Collective {
  /// The communicator or process group, named the same way on every rank
  /// ("MPI_COMM_WORLD", "gloo#0").
  std::string group;
  /// allreduce, broadcast, barrier, ...
  const char *kind = "";
  /// The reduce op ("SUM", "MAX"), or "-" for a collective without one.
  std::string op = "-";
  int64_t count = 0;
  std::string dtype = "-";
  /// The root rank, or -1.
  int64_t root = -1;
  bool blocking = true;
};

/// Records an issued collective; its id for wait/done, or -1 when the
/// trace is off (no run directory) or the record could not be written.
__attribute__((visibility("default"))) int64_t issued(const Collective &C);
/// The definition of \p Symbol that the one calling this hides: the MPI,
/// NCCL or LibTorch the program loaded (dlsym(RTLD_NEXT), relative to the
/// library this is compiled into). Without one the process cannot go on:
/// it aborts, naming the symbol.
template <typename Fn> Fn nextDefinition(const char *Symbol) {
  void *Found = dlsym(RTLD_NEXT, Symbol);
  if (!Found) {
    std::fprintf(stderr, "ddpharness-trace: no %s after this library: %s\n",
                 Symbol, dlerror());
    std::abort();
  }
  return reinterpret_cast<Fn>(Found);
}

/// Records the start of a wait on collective \p Id (ignored for -1).
__attribute__((visibility("default"))) void waiting(int64_t Id);
/// Records that collective \p Id, or the wait on it, returned.
__attribute__((visibility("default"))) void done(int64_t Id);

/// Asynchronous collectives not yet waited on: each one's record, by the
/// handle the program waits on (an MPI request, a c10d Work).
template <typename Handle> class PendingWaits {
public:
  void remember(Handle H, int64_t Id) {
    if (Id < 0)
      return;
    std::lock_guard<std::mutex> Guard(Lock);
    Ids[H] = Id;
  }
  /// The record of \p H, now waited on; -1 when none is pending.
  int64_t forget(Handle H) {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = Ids.find(H);
    if (It == Ids.end())
      return -1;
    int64_t Id = It->second;
    Ids.erase(It);
    return Id;
  }

private:
  std::mutex Lock;
  std::map<Handle, int64_t> Ids;
};

} // namespace ddptrace

#endif
