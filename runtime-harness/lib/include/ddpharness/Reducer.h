//===- Reducer.h - Bucketed gradient averaging from accumulator hooks -----===//
//
// What PyTorch's C++ reducer does for DistributedDataParallel, in small:
// a post-hook on each parameter's gradient accumulator (the autograd node
// that writes .grad) reports the gradient ready; when a bucket's gradients
// are all ready it is flattened and all-reduced asynchronously, buckets in
// a fixed order so every rank issues the same collectives; at the end of
// backward the results are divided by the world size and copied back.
//
// Two properties matter because user code breaks them silently:
//  - the hooks live on the accumulator objects that existed at
//    construction. Module::to with another dtype or device replaces the
//    parameters' data and autograd gives them new accumulators, without
//    these hooks: nothing is reduced any more (seed 000);
//  - the hooks only act while armed, and only the wrapper's forward arms
//    them (prepare_for_backward): a forward through the inner module leaves
//    every gradient local (seed 001).
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_REDUCER_H
#define DDPHARNESS_REDUCER_H

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace ddpharness {

class Reducer {
public:
  /// Hooks every parameter of \p AllParams that requires a gradient, in
  /// buckets of at most \p BucketBytes (a larger parameter gets a bucket of
  /// its own); \p GroupHandle all-reduces them.
  Reducer(std::vector<torch::Tensor> AllParams,
          c10::intrusive_ptr<c10d::ProcessGroup> GroupHandle,
          int64_t BucketBytes);
  ~Reducer();
  Reducer(const Reducer &) = delete;
  Reducer &operator=(const Reducer &) = delete;

  /// Arms the hooks for the next backward. Called by the wrapper's forward.
  void prepare_for_backward();

  /// Called from the accumulator hook of parameter \p Index.
  void mark_ready(size_t Index);

  size_t bucket_count() const { return Buckets.size(); }
  /// How many backward passes were reduced (for tests and reports).
  int64_t reductions() const { return Reductions; }

private:
  struct Bucket {
    std::vector<size_t> Params;
    size_t Pending = 0;
    torch::Tensor Flat;
    c10::intrusive_ptr<c10d::Work> Work;
  };

  void launchReadyBuckets();
  void finalize();

  std::vector<torch::Tensor> Params;
  c10::intrusive_ptr<c10d::ProcessGroup> Group;
  std::vector<Bucket> Buckets;
  std::vector<size_t> BucketOf;
  /// The accumulators the hooks were added to. Held, because autograd keeps
  /// only a weak reference: without an owner, an accumulator (and its hooks)
  /// would die after each backward.
  std::vector<std::shared_ptr<torch::autograd::Node>> Accumulators;
  std::vector<uintptr_t> HookKeys;

  std::mutex Mutex;
  bool Armed = false;
  bool FinalizeQueued = false;
  size_t NextBucket = 0;
  int64_t Reductions = 0;
};

/// Copies rank 0's values of \p Tensors to every rank, in one flattened
/// broadcast.
void broadcast_from_rank0(const std::vector<torch::Tensor> &Tensors,
                          c10d::ProcessGroup &Group);

} // namespace ddpharness

#endif
