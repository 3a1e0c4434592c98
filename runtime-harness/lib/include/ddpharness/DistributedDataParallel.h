//===- DistributedDataParallel.h - A reference wrapper like PyTorch's DDP -===//
//
// LibTorch's C++ frontend has no DistributedDataParallel; this one behaves
// like PyTorch's where ddplint's checks care:
//  - construction copies rank 0's parameters and buffers to every rank;
//  - a post-hook on each parameter's gradient accumulator averages the
//    gradients in buckets during backward (Reducer.h);
//  - only this wrapper's forward arms the hooks for the next backward.
// So the user bugs the harness demonstrates (a dtype or device move after
// wrapping, a forward on the inner module) break it through the same
// mechanism that breaks PyTorch's.
//
//   Net model;
//   ddpharness::DistributedDataParallel<Net> ddp(model, dist.process_group);
//   auto loss = torch::mse_loss(ddp(x), y);
//   loss.backward();       // gradients averaged over the ranks here
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_DISTRIBUTEDDATAPARALLEL_H
#define DDPHARNESS_DISTRIBUTEDDATAPARALLEL_H

#include "ddpharness/Reducer.h"

#include <memory>
#include <utility>

namespace ddpharness {

struct DistributedDataParallelOptions {
  /// PyTorch's default bucket_cap_mb is 25; the harness's models are small,
  /// so a smaller cap still gives several buckets on a real model.
  int64_t bucket_bytes = 1 << 20;
  /// Copy rank 0's parameters and buffers at construction, as PyTorch does.
  bool broadcast_at_construction = true;
};

/// \p ModuleType is a module holder (what TORCH_MODULE declares) or a
/// std::shared_ptr to a module: something with operator-> that shares the
/// module with the caller, as PyTorch's wrapper shares the nn.Module.
template <typename ModuleType> class DistributedDataParallel {
public:
  DistributedDataParallel(ModuleType Module,
                          c10::intrusive_ptr<c10d::ProcessGroup> Group,
                          DistributedDataParallelOptions Options = {})
      : Inner(std::move(Module)) {
    if (Options.broadcast_at_construction) {
      std::vector<torch::Tensor> State = Inner->parameters();
      for (const torch::Tensor &B : Inner->buffers())
        State.push_back(B);
      broadcast_from_rank0(State, *Group);
    }
    R = std::make_unique<Reducer>(Inner->parameters(), std::move(Group),
                                  Options.bucket_bytes);
  }

  /// Arms the gradient hooks, then runs the inner module's forward.
  template <typename... Args> decltype(auto) forward(Args &&...A) {
    R->prepare_for_backward();
    return Inner->forward(std::forward<Args>(A)...);
  }
  template <typename... Args> decltype(auto) operator()(Args &&...A) {
    return forward(std::forward<Args>(A)...);
  }

  /// The wrapped module (PyTorch's `ddp.module`). Its forward does not sync.
  ModuleType &module() { return Inner; }
  std::vector<torch::Tensor> parameters() { return Inner->parameters(); }
  const Reducer &reducer() const { return *R; }

private:
  ModuleType Inner;
  std::unique_ptr<Reducer> R;
};

} // namespace ddpharness

#endif
