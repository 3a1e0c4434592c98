//===- Reducer.cpp - Bucketed gradient averaging from accumulator hooks ---===//

#include "ddpharness/Reducer.h"

#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/torch.h>

#include <stdexcept>

using namespace ddpharness;

namespace {

struct AccumulatorHook : torch::autograd::FunctionPostHook {
  AccumulatorHook(Reducer &R, size_t Index) : R(R), Index(Index) {}
  torch::autograd::variable_list
  operator()(const torch::autograd::variable_list &Outputs,
             const torch::autograd::variable_list & /*Inputs*/) override {
    R.mark_ready(Index);
    return Outputs;
  }
  Reducer &R;
  size_t Index;
};

} // namespace

void ddpharness::broadcast_from_rank0(const std::vector<torch::Tensor> &Tensors,
                                      c10d::ProcessGroup &Group) {
  if (Tensors.empty())
    return;
  torch::NoGradGuard NoGrad;
  std::vector<torch::Tensor> Flats;
  for (const torch::Tensor &T : Tensors)
    Flats.push_back(T.detach().reshape(-1));
  std::vector<torch::Tensor> Buffer{torch::cat(Flats)};
  c10d::BroadcastOptions Options;
  Options.rootRank = 0;
  Group.broadcast(Buffer, Options)->wait();
  int64_t At = 0;
  for (const torch::Tensor &T : Tensors) {
    T.detach().copy_(Buffer[0].narrow(0, At, T.numel()).view_as(T));
    At += T.numel();
  }
}

Reducer::Reducer(std::vector<torch::Tensor> AllParams,
                 c10::intrusive_ptr<c10d::ProcessGroup> GroupHandle,
                 int64_t BucketBytes)
    : Group(std::move(GroupHandle)) {
  for (torch::Tensor &P : AllParams)
    if (P.requires_grad())
      Params.push_back(P);
  // Gradients become ready roughly in reverse order of the parameters'
  // registration (the last layer's first), so buckets are filled from the
  // back, as PyTorch does, and the first bucket can go while backward runs.
  BucketOf.resize(Params.size());
  int64_t Bytes = 0;
  for (size_t I = Params.size(); I-- > 0;) {
    int64_t Size = Params[I].numel() * Params[I].element_size();
    if (Buckets.empty() || (Bytes > 0 && Bytes + Size > BucketBytes)) {
      Buckets.emplace_back();
      Bytes = 0;
    }
    Buckets.back().Params.push_back(I);
    BucketOf[I] = Buckets.size() - 1;
    Bytes += Size;
  }
  for (size_t I = 0; I < Params.size(); ++I) {
    std::shared_ptr<torch::autograd::Node> Acc =
        torch::autograd::impl::grad_accumulator(Params[I]);
    HookKeys.push_back(
        Acc->add_post_hook(std::make_unique<AccumulatorHook>(*this, I)));
    Accumulators.push_back(std::move(Acc));
  }
}

Reducer::~Reducer() {
  // A wrapper rebuilt around the same module must not leave hooks that point
  // at a destroyed reducer.
  for (size_t I = 0; I < Accumulators.size(); ++I)
    Accumulators[I]->del_post_hook(HookKeys[I]);
}

void Reducer::prepare_for_backward() {
  std::lock_guard<std::mutex> Lock(Mutex);
  Armed = true;
  FinalizeQueued = false;
  NextBucket = 0;
  for (Bucket &B : Buckets) {
    B.Pending = B.Params.size();
    B.Work.reset();
    B.Flat = torch::Tensor();
  }
}

void Reducer::mark_ready(size_t Index) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (!Armed)
    return; // a backward the wrapper's forward did not prepare: stay local
  if (!FinalizeQueued) {
    FinalizeQueued = true;
    torch::autograd::Engine::get_default_engine().queue_callback(
        [this] { finalize(); });
  }
  Bucket &B = Buckets[BucketOf[Index]];
  if (B.Pending == 0)
    throw std::runtime_error(
        "ddpharness::DistributedDataParallel: a parameter's gradient became "
        "ready twice in one backward (a module used twice per forward?)");
  --B.Pending;
  launchReadyBuckets();
}

void Reducer::launchReadyBuckets() {
  // Strictly in bucket order: every rank must issue the same collectives in
  // the same sequence, whatever order its hooks fire in.
  while (NextBucket < Buckets.size() && Buckets[NextBucket].Pending == 0) {
    Bucket &B = Buckets[NextBucket++];
    std::vector<torch::Tensor> Grads;
    for (size_t I : B.Params)
      Grads.push_back(Params[I].grad().reshape(-1));
    std::vector<torch::Tensor> Tensors{torch::cat(Grads)};
    B.Work = Group->allreduce(Tensors);
    B.Flat = Tensors[0];
  }
}

void Reducer::finalize() {
  std::lock_guard<std::mutex> Lock(Mutex);
  Armed = false;
  if (NextBucket != Buckets.size()) {
    size_t Missing = 0;
    for (const Bucket &B : Buckets)
      Missing += B.Pending;
    throw std::runtime_error(
        "ddpharness::DistributedDataParallel: " + std::to_string(Missing) +
        " parameters got no gradient in this backward, so their buckets "
        "were never reduced; every parameter must take part in the loss");
  }
  torch::NoGradGuard NoGrad;
  for (Bucket &B : Buckets) {
    B.Work->wait();
    B.Flat.div_(Group->getSize());
    int64_t At = 0;
    for (size_t I : B.Params) {
      torch::Tensor Grad = Params[I].mutable_grad();
      Grad.copy_(B.Flat.narrow(0, At, Grad.numel()).view_as(Grad));
      At += Grad.numel();
    }
    B.Work.reset();
    B.Flat = torch::Tensor();
  }
  ++Reductions;
}
