//===- MpiTrace.cpp - MPI's collectives, through the profiling interface --===//
//
// Each MPI collective defined here records itself and calls the PMPI_
// entry point of the MPI library the program loaded (dlsym(RTLD_NEXT)), so
// the trace links no MPI library: a program without MPI never reaches this
// code. Reduce ops are named by Open MPI's predefined op objects (the ABI
// this is built against); a user-defined op is "user".
//
//===----------------------------------------------------------------------===//

#include "Trace.h"

#include <mpi.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>
#include <mutex>

namespace {

#define DDPTRACE_REAL(Name)                                                    \
  static auto Real = ddptrace::nextDefinition<decltype(&P##Name)>("P" #Name)

std::string opName(MPI_Op Op) {
  static const char *const Names[][2] = {
      {"ompi_mpi_op_sum", "SUM"},   {"ompi_mpi_op_prod", "PROD"},
      {"ompi_mpi_op_max", "MAX"},   {"ompi_mpi_op_min", "MIN"},
      {"ompi_mpi_op_band", "BAND"}, {"ompi_mpi_op_bor", "BOR"},
      {"ompi_mpi_op_land", "LAND"}, {"ompi_mpi_op_lor", "LOR"},
      {"ompi_mpi_op_maxloc", "MAXLOC"}, {"ompi_mpi_op_minloc", "MINLOC"}};
  for (const auto &Entry : Names)
    if (dlsym(RTLD_DEFAULT, Entry[0]) == static_cast<void *>(Op))
      return Entry[1];
  return "user";
}

std::string typeName(MPI_Datatype Type) {
  char Name[MPI_MAX_OBJECT_NAME];
  int Length = 0;
  DDPTRACE_REAL(MPI_Type_get_name);
  if (Real(Type, Name, &Length) != MPI_SUCCESS || Length == 0)
    return "derived";
  return std::string(Name, Length);
}

/// MPI_COMM_WORLD and MPI_COMM_SELF by name; other communicators by the
/// order this rank first used them in, and their size.
std::string commName(MPI_Comm Comm) {
  char Name[MPI_MAX_OBJECT_NAME];
  int Length = 0;
  DDPTRACE_REAL(MPI_Comm_get_name);
  if (Real(Comm, Name, &Length) == MPI_SUCCESS && Length > 0)
    return std::string(Name, Length);
  static std::mutex Lock;
  static std::map<MPI_Comm, int> Seen;
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = Seen.emplace(Comm, int(Seen.size())).first;
  int Size = 0;
  static auto RealSize =
      ddptrace::nextDefinition<decltype(&PMPI_Comm_size)>("PMPI_Comm_size");
  (void)RealSize(Comm, &Size);
  return "comm#" + std::to_string(It->second) + "/" + std::to_string(Size);
}

ddptrace::Collective collective(const char *Kind, MPI_Comm Comm, int Count,
                                MPI_Datatype Type, int Root = -1,
                                bool Blocking = true) {
  ddptrace::Collective C;
  C.group = commName(Comm);
  C.kind = Kind;
  C.count = Count;
  C.dtype = typeName(Type);
  C.root = Root;
  C.blocking = Blocking;
  return C;
}

ddptrace::Collective reducing(const char *Kind, MPI_Comm Comm, int Count,
                              MPI_Datatype Type, MPI_Op Op, int Root = -1,
                              bool Blocking = true) {
  ddptrace::Collective C =
      collective(Kind, Comm, Count, Type, Root, Blocking);
  C.op = opName(Op);
  return C;
}

/// Nonblocking collectives: the request's record, until MPI_Wait.
ddptrace::PendingWaits<MPI_Request> PendingRequests;

/// A nonblocking collective: recorded, issued (\p Run), and its record kept
/// for the MPI_Wait on \p Request.
template <typename Call>
int nonblocking(const ddptrace::Collective &C, MPI_Request *Request,
                Call Run) {
  int64_t Id = ddptrace::issued(C);
  int Result = Run();
  if (Request)
    PendingRequests.remember(*Request, Id);
  return Result;
}

template <typename Call> int traced(const ddptrace::Collective &C, Call Run) {
  int64_t Id = ddptrace::issued(C);
  int Result = Run();
  ddptrace::done(Id);
  return Result;
}

} // namespace

extern "C" {

int MPI_Allreduce(const void *Send, void *Receive, int Count,
                  MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm) {
  DDPTRACE_REAL(MPI_Allreduce);
  return traced(reducing("allreduce", Comm, Count, Type, Op),
                [&] { return Real(Send, Receive, Count, Type, Op, Comm); });
}

int MPI_Reduce(const void *Send, void *Receive, int Count, MPI_Datatype Type,
               MPI_Op Op, int Root, MPI_Comm Comm) {
  DDPTRACE_REAL(MPI_Reduce);
  return traced(
      reducing("reduce", Comm, Count, Type, Op, Root),
      [&] { return Real(Send, Receive, Count, Type, Op, Root, Comm); });
}

int MPI_Bcast(void *Buffer, int Count, MPI_Datatype Type, int Root,
              MPI_Comm Comm) {
  DDPTRACE_REAL(MPI_Bcast);
  return traced(collective("broadcast", Comm, Count, Type, Root),
                [&] { return Real(Buffer, Count, Type, Root, Comm); });
}

int MPI_Barrier(MPI_Comm Comm) {
  DDPTRACE_REAL(MPI_Barrier);
  ddptrace::Collective C;
  C.group = commName(Comm);
  C.kind = "barrier";
  return traced(C,
                [&] { return Real(Comm); });
}

int MPI_Allgather(const void *Send, int SendCount, MPI_Datatype SendType,
                  void *Receive, int ReceiveCount, MPI_Datatype ReceiveType,
                  MPI_Comm Comm) {
  DDPTRACE_REAL(MPI_Allgather);
  return traced(collective("allgather", Comm, SendCount, SendType), [&] {
    return Real(Send, SendCount, SendType, Receive, ReceiveCount,
                ReceiveType, Comm);
  });
}

int MPI_Gather(const void *Send, int SendCount, MPI_Datatype SendType,
               void *Receive, int ReceiveCount, MPI_Datatype ReceiveType,
               int Root, MPI_Comm Comm) {
  DDPTRACE_REAL(MPI_Gather);
  return traced(collective("gather", Comm, SendCount, SendType, Root), [&] {
    return Real(Send, SendCount, SendType, Receive, ReceiveCount,
                ReceiveType, Root, Comm);
  });
}

int MPI_Scatter(const void *Send, int SendCount, MPI_Datatype SendType,
                void *Receive, int ReceiveCount, MPI_Datatype ReceiveType,
                int Root, MPI_Comm Comm) {
  DDPTRACE_REAL(MPI_Scatter);
  return traced(
      collective("scatter", Comm, ReceiveCount, ReceiveType, Root), [&] {
        return Real(Send, SendCount, SendType, Receive, ReceiveCount,
                    ReceiveType, Root, Comm);
      });
}

int MPI_Alltoall(const void *Send, int SendCount, MPI_Datatype SendType,
                 void *Receive, int ReceiveCount, MPI_Datatype ReceiveType,
                 MPI_Comm Comm) {
  DDPTRACE_REAL(MPI_Alltoall);
  return traced(collective("alltoall", Comm, SendCount, SendType), [&] {
    return Real(Send, SendCount, SendType, Receive, ReceiveCount,
                ReceiveType, Comm);
  });
}

int MPI_Reduce_scatter_block(const void *Send, void *Receive, int Count,
                             MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm) {
  DDPTRACE_REAL(MPI_Reduce_scatter_block);
  return traced(reducing("reduce_scatter", Comm, Count, Type, Op),
                [&] { return Real(Send, Receive, Count, Type, Op, Comm); });
}

int MPI_Iallreduce(const void *Send, void *Receive, int Count,
                   MPI_Datatype Type, MPI_Op Op, MPI_Comm Comm,
                   MPI_Request *Request) {
  DDPTRACE_REAL(MPI_Iallreduce);
  return nonblocking(
      reducing("allreduce", Comm, Count, Type, Op, -1, false), Request,
      [&] { return Real(Send, Receive, Count, Type, Op, Comm, Request); });
}

int MPI_Ibcast(void *Buffer, int Count, MPI_Datatype Type, int Root,
               MPI_Comm Comm, MPI_Request *Request) {
  DDPTRACE_REAL(MPI_Ibcast);
  return nonblocking(
      collective("broadcast", Comm, Count, Type, Root, false), Request,
      [&] { return Real(Buffer, Count, Type, Root, Comm, Request); });
}

int MPI_Wait(MPI_Request *Request, MPI_Status *Status) {
  DDPTRACE_REAL(MPI_Wait);
  int64_t Id = Request ? PendingRequests.forget(*Request) : -1;
  ddptrace::waiting(Id);
  int Result = Real(Request, Status);
  ddptrace::done(Id);
  return Result;
}

int MPI_Waitall(int Count, MPI_Request Requests[], MPI_Status Statuses[]) {
  DDPTRACE_REAL(MPI_Waitall);
  std::vector<int64_t> Ids;
  for (int I = 0; I < Count; ++I)
    if (int64_t Id = PendingRequests.forget(Requests[I]); Id >= 0)
      Ids.push_back(Id);
  for (int64_t Id : Ids)
    ddptrace::waiting(Id);
  int Result = Real(Count, Requests, Statuses);
  for (int64_t Id : Ids)
    ddptrace::done(Id);
  return Result;
}

} // extern "C"
