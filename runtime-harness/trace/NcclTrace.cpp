//===- NcclTrace.cpp - NCCL's collectives, at their entry points ----------===//
//
// Each NCCL collective defined here records itself and calls the NCCL the
// program loaded (dlsym(RTLD_NEXT)). The prototypes are NCCL's stable C ABI
// (enums as int, handles as pointers), so the trace builds and loads where
// NCCL is absent. NCCL only queues work on a stream: a collective is
// recorded as issued, and where a rank then blocks (a stream
// synchronisation) is not recorded. Communicators are named by the order
// this rank first used them in; ranks that create them in the same order
// name them alike.
//
//===----------------------------------------------------------------------===//

#include "Trace.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace {

using Comm = void *;
using Stream = void *;

/// ncclDataType_t, in NCCL's numbering.
const char *typeName(int Type) {
  static const char *const Names[] = {"int8",    "uint8",   "int32",
                                      "uint32",  "int64",   "uint64",
                                      "float16", "float32", "float64",
                                      "bfloat16"};
  return Type >= 0 && Type < int(sizeof(Names) / sizeof(*Names)) ? Names[Type]
                                                                 : "other";
}

/// ncclRedOp_t, in NCCL's numbering; larger values are user-made ops.
const char *opName(int Op) {
  static const char *const Names[] = {"SUM", "PROD", "MAX", "MIN", "AVG"};
  return Op >= 0 && Op < 5 ? Names[Op] : "user";
}

std::string commName(Comm C) {
  static std::mutex Lock;
  static std::map<Comm, int> Seen;
  std::lock_guard<std::mutex> Guard(Lock);
  return "nccl#" +
         std::to_string(Seen.emplace(C, int(Seen.size())).first->second);
}

ddptrace::Collective collective(const char *Kind, Comm C, size_t Count,
                                int Type, int Op, int Root) {
  ddptrace::Collective Out;
  Out.group = commName(C);
  Out.kind = Kind;
  Out.count = int64_t(Count);
  Out.dtype = typeName(Type);
  Out.op = Op < 0 ? "-" : opName(Op);
  Out.root = Root;
  Out.blocking = false;
  return Out;
}

template <typename Call> int traced(const ddptrace::Collective &C, Call Run) {
  ddptrace::issued(C);
  return Run();
}

} // namespace

// The library is built with hidden visibility; these entry points must be
// exported to interpose NCCL's.
#pragma GCC visibility push(default)
extern "C" {

int ncclAllReduce(const void *Send, void *Receive, size_t Count, int Type,
                  int Op, Comm C, Stream S) {
  using Fn = int (*)(const void *, void *, size_t, int, int, Comm, Stream);
  static Fn Real = ddptrace::nextDefinition<Fn>("ncclAllReduce");
  return traced(collective("allreduce", C, Count, Type, Op, -1),
                [&] { return Real(Send, Receive, Count, Type, Op, C, S); });
}

int ncclBroadcast(const void *Send, void *Receive, size_t Count, int Type,
                  int Root, Comm C, Stream S) {
  using Fn = int (*)(const void *, void *, size_t, int, int, Comm, Stream);
  static Fn Real = ddptrace::nextDefinition<Fn>("ncclBroadcast");
  return traced(collective("broadcast", C, Count, Type, -1, Root),
                [&] { return Real(Send, Receive, Count, Type, Root, C, S); });
}

int ncclBcast(void *Buffer, size_t Count, int Type, int Root, Comm C,
              Stream S) {
  using Fn = int (*)(void *, size_t, int, int, Comm, Stream);
  static Fn Real = ddptrace::nextDefinition<Fn>("ncclBcast");
  return traced(collective("broadcast", C, Count, Type, -1, Root),
                [&] { return Real(Buffer, Count, Type, Root, C, S); });
}

int ncclReduce(const void *Send, void *Receive, size_t Count, int Type,
               int Op, int Root, Comm C, Stream S) {
  using Fn =
      int (*)(const void *, void *, size_t, int, int, int, Comm, Stream);
  static Fn Real = ddptrace::nextDefinition<Fn>("ncclReduce");
  return traced(collective("reduce", C, Count, Type, Op, Root), [&] {
    return Real(Send, Receive, Count, Type, Op, Root, C, S);
  });
}

int ncclAllGather(const void *Send, void *Receive, size_t Count, int Type,
                  Comm C, Stream S) {
  using Fn = int (*)(const void *, void *, size_t, int, Comm, Stream);
  static Fn Real = ddptrace::nextDefinition<Fn>("ncclAllGather");
  return traced(collective("allgather", C, Count, Type, -1, -1),
                [&] { return Real(Send, Receive, Count, Type, C, S); });
}

int ncclReduceScatter(const void *Send, void *Receive, size_t Count,
                      int Type, int Op, Comm C, Stream S) {
  using Fn = int (*)(const void *, void *, size_t, int, int, Comm, Stream);
  static Fn Real = ddptrace::nextDefinition<Fn>("ncclReduceScatter");
  return traced(collective("reduce_scatter", C, Count, Type, Op, -1),
                [&] { return Real(Send, Receive, Count, Type, Op, C, S); });
}

} // extern "C"
#pragma GCC visibility pop
