//===- C10dTrace.cpp - c10d's process-group collectives -------------------===//
//
// libddpharness-trace-c10d.so defines the collectives of c10d's Gloo process
// group and c10d::Work::wait. Each records itself and calls LibTorch's own,
// found with dlsym(RTLD_NEXT) by its mangled name. Virtual calls reach these
// definitions too: libtorch_cpu's vtables bind their entries through the
// dynamic symbol table, so the preloaded definition wins (as the
// auto-probe's optimizer steps do).
//
// A collective is recorded when it is issued (c10d queues it on the
// group's own thread); where the rank blocks is the wait() on its Work.
// Groups are named by the order this rank first used them in ("gloo#0").
//
//===----------------------------------------------------------------------===//

#include "../Trace.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace {

using WorkPtr = c10::intrusive_ptr<c10d::Work>;
using Tensors = std::vector<at::Tensor>;
using TensorLists = std::vector<std::vector<at::Tensor>>;

std::string groupName(const void *Group) {
  static std::mutex Lock;
  static std::map<const void *, int> Seen;
  std::lock_guard<std::mutex> Guard(Lock);
  return "gloo#" + std::to_string(
                       Seen.emplace(Group, int(Seen.size())).first->second);
}

const char *opName(const c10d::ReduceOp &Op) {
  switch (static_cast<c10d::ReduceOp::RedOpType>(Op)) {
  case c10d::ReduceOp::SUM: return "SUM";
  case c10d::ReduceOp::PRODUCT: return "PROD";
  case c10d::ReduceOp::MIN: return "MIN";
  case c10d::ReduceOp::MAX: return "MAX";
  case c10d::ReduceOp::AVG: return "AVG";
  default: return "other";
  }
}

ddptrace::Collective describe(const void *Group, const char *Kind,
                              const Tensors &T, int64_t Root = -1) {
  ddptrace::Collective C;
  C.group = groupName(Group);
  C.kind = Kind;
  C.root = Root;
  C.blocking = false;
  for (const at::Tensor &Each : T)
    C.count += Each.defined() ? Each.numel() : 0;
  if (!T.empty() && T[0].defined())
    C.dtype = c10::toString(T[0].scalar_type());
  return C;
}

/// Work issued and not yet waited on: its record.
ddptrace::PendingWaits<const c10d::Work *> Pending;

/// Records \p C, issues it through LibTorch's own definition (\p Run), and
/// keeps its record for the wait on the Work it returns.
template <typename Call>
WorkPtr issue(const ddptrace::Collective &C, Call Run) {
  int64_t Id = ddptrace::issued(C);
  WorkPtr Work = Run();
  if (Work)
    Pending.remember(Work.get(), Id);
  return Work;
}

} // namespace

WorkPtr c10d::ProcessGroupGloo::allreduce(Tensors &T,
                                          const AllreduceOptions &O) {
  using Fn = WorkPtr (*)(void *, Tensors &, const AllreduceOptions &);
  static Fn Real = ddptrace::nextDefinition<Fn>(
      "_ZN4c10d16ProcessGroupGloo9allreduceERSt6vector"
      "IN2at6TensorESaIS3_EERKNS_16AllreduceOptionsE");
  ddptrace::Collective C = describe(this, "allreduce", T);
  C.op = opName(O.reduceOp);
  return issue(C, [&] { return Real(this, T, O); });
}

WorkPtr c10d::ProcessGroupGloo::allreduce_coalesced(
    Tensors &T, const AllreduceCoalescedOptions &O) {
  using Fn =
      WorkPtr (*)(void *, Tensors &, const AllreduceCoalescedOptions &);
  static Fn Real = ddptrace::nextDefinition<Fn>(
      "_ZN4c10d16ProcessGroupGloo19allreduce_coalescedERSt6vectorIN2at6Tensor"
      "ESaIS3_EERKNS_25AllreduceCoalescedOptionsE");
  ddptrace::Collective C = describe(this, "allreduce", T);
  C.op = opName(O.reduceOp);
  return issue(C, [&] { return Real(this, T, O); });
}

WorkPtr c10d::ProcessGroupGloo::broadcast(Tensors &T,
                                          const BroadcastOptions &O) {
  using Fn = WorkPtr (*)(void *, Tensors &, const BroadcastOptions &);
  static Fn Real = ddptrace::nextDefinition<Fn>(
      "_ZN4c10d16ProcessGroupGloo9broadcastERSt6vector"
      "IN2at6TensorESaIS3_EERKNS_16BroadcastOptionsE");
  return issue(describe(this, "broadcast", T, O.rootRank),
               [&] { return Real(this, T, O); });
}

WorkPtr c10d::ProcessGroupGloo::reduce(Tensors &T, const ReduceOptions &O) {
  using Fn = WorkPtr (*)(void *, Tensors &, const ReduceOptions &);
  static Fn Real = ddptrace::nextDefinition<Fn>(
      "_ZN4c10d16ProcessGroupGloo6reduceERSt6vectorIN2"
      "at6TensorESaIS3_EERKNS_13ReduceOptionsE");
  ddptrace::Collective C = describe(this, "reduce", T, O.rootRank);
  C.op = opName(O.reduceOp);
  return issue(C, [&] { return Real(this, T, O); });
}

WorkPtr c10d::ProcessGroupGloo::barrier(const BarrierOptions &O) {
  using Fn = WorkPtr (*)(void *, const BarrierOptions &);
  static Fn Real = ddptrace::nextDefinition<Fn>(
      "_ZN4c10d16ProcessGroupGloo7barrierERKNS_14BarrierOptionsE");
  return issue(describe(this, "barrier", {}),
               [&] { return Real(this, O); });
}

WorkPtr c10d::ProcessGroupGloo::allgather(TensorLists &Out, Tensors &In,
                                          const AllgatherOptions &O) {
  using Fn =
      WorkPtr (*)(void *, TensorLists &, Tensors &, const AllgatherOptions &);
  static Fn Real = ddptrace::nextDefinition<Fn>(
      "_ZN4c10d16ProcessGroupGloo9allgatherERSt6vectorIS1_IN2at6TensorESaIS3_"
      "EESaIS5_EERS5_RKNS_16AllgatherOptionsE");
  return issue(describe(this, "allgather", In),
               [&] { return Real(this, Out, In, O); });
}

WorkPtr c10d::ProcessGroupGloo::gather(TensorLists &Out, Tensors &In,
                                       const GatherOptions &O) {
  using Fn =
      WorkPtr (*)(void *, TensorLists &, Tensors &, const GatherOptions &);
  static Fn Real = ddptrace::nextDefinition<Fn>(
      "_ZN4c10d16ProcessGroupGloo6gatherERSt6vectorIS1_IN2at6TensorESaIS3_EE"
      "SaIS5_EERS5_RKNS_13GatherOptionsE");
  return issue(describe(this, "gather", In, O.rootRank),
               [&] { return Real(this, Out, In, O); });
}

bool c10d::Work::wait(std::chrono::milliseconds Timeout) {
  using Fn = bool (*)(void *, std::chrono::milliseconds);
  static Fn Real = ddptrace::nextDefinition<Fn>(
      "_ZN4c10d4Work4waitENSt6chrono8durationIlSt5ratioILl1ELl1000EEEE");
  int64_t Id = Pending.forget(this);
  ddptrace::waiting(Id);
  bool Result = Real(this, Timeout);
  ddptrace::done(Id);
  return Result;
}
