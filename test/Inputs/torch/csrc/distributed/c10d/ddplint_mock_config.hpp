// ddplint mock-only helper (no real counterpart): selects which c10d API
// shape the mock c10d headers declare. See test/Inputs/README.md.
//   default                       LibTorch 1.13 (as installed by Debian)
//   DDPLINT_MOCK_C10D_V2          LibTorch 2.x (Backend base class, getBackend)
//   DDPLINT_MOCK_C10D_OLD         LibTorch <= 1.7 (nested ProcessGroup::Work,
//                                 std::shared_ptr everywhere)
//   + DDPLINT_MOCK_C10D_OLD_INTRUSIVE  LibTorch 1.8-1.12 (nested
//                                 ProcessGroup::Work, c10::intrusive_ptr)
//   DDPLINT_MOCK_C10D_STRICT_GUARDS  backend headers are empty unless
//                                 USE_C10D_GLOO / USE_C10D_NCCL / USE_C10D_MPI
//                                 is defined, as the real ones.
// The macros below only spell types; they leave no trace in the AST.
#pragma once
#include <memory>
#include <c10/util/intrusive_ptr.h>

#if defined(DDPLINT_MOCK_C10D_V2) && defined(DDPLINT_MOCK_C10D_OLD)
#error "DDPLINT_MOCK_C10D_V2 and DDPLINT_MOCK_C10D_OLD are exclusive"
#endif

#if defined(DDPLINT_MOCK_C10D_OLD)
#if defined(DDPLINT_MOCK_C10D_OLD_INTRUSIVE)
#define DDPLINT_MOCK_C10D_WORK_PTR c10::intrusive_ptr<ProcessGroup::Work>
#define DDPLINT_MOCK_C10D_PTR(T) c10::intrusive_ptr<T>
#define DDPLINT_MOCK_C10D_BASE : public torch::CustomClassHolder
#define DDPLINT_MOCK_C10D_ALLGATHER_BASE _allgather_base
#else
#define DDPLINT_MOCK_C10D_WORK_PTR std::shared_ptr<ProcessGroup::Work>
#define DDPLINT_MOCK_C10D_PTR(T) std::shared_ptr<T>
#define DDPLINT_MOCK_C10D_BASE
#define DDPLINT_MOCK_C10D_ALLGATHER_BASE allgather_base
#endif
#define DDPLINT_MOCK_C10D_PURE = 0
#else
#define DDPLINT_MOCK_C10D_WORK_PTR c10::intrusive_ptr<Work>
#define DDPLINT_MOCK_C10D_PTR(T) c10::intrusive_ptr<T>
#define DDPLINT_MOCK_C10D_BASE : public torch::CustomClassHolder
#define DDPLINT_MOCK_C10D_ALLGATHER_BASE _allgather_base
#define DDPLINT_MOCK_C10D_PURE
#endif

// The collectives every backend implements, as member declarations.
// V: `virtual` or nothing; S: `override`, `= 0` or nothing.
#define DDPLINT_MOCK_C10D_COLLECTIVES(V, S)                                                   \
  V DDPLINT_MOCK_C10D_WORK_PTR broadcast(std::vector<at::Tensor>& tensors,                     \
                                         const BroadcastOptions& opts = BroadcastOptions()) S; \
  V DDPLINT_MOCK_C10D_WORK_PTR allreduce(std::vector<at::Tensor>& tensors,                     \
                                         const AllreduceOptions& opts = AllreduceOptions()) S; \
  V DDPLINT_MOCK_C10D_WORK_PTR allreduce_coalesced(                                            \
      std::vector<at::Tensor>& tensors,                                                        \
      const AllreduceCoalescedOptions& opts = AllreduceCoalescedOptions()) S;                  \
  V DDPLINT_MOCK_C10D_WORK_PTR reduce(std::vector<at::Tensor>& tensors,                        \
                                      const ReduceOptions& opts = ReduceOptions()) S;          \
  V DDPLINT_MOCK_C10D_WORK_PTR allgather(std::vector<std::vector<at::Tensor>>& outputTensors,  \
                                         std::vector<at::Tensor>& inputTensors,                \
                                         const AllgatherOptions& opts = AllgatherOptions()) S; \
  V DDPLINT_MOCK_C10D_WORK_PTR DDPLINT_MOCK_C10D_ALLGATHER_BASE(                               \
      at::Tensor& outputBuffer, at::Tensor& inputBuffer,                                       \
      const AllgatherOptions& opts = AllgatherOptions()) S;                                    \
  V DDPLINT_MOCK_C10D_WORK_PTR gather(std::vector<std::vector<at::Tensor>>& outputTensors,     \
                                      std::vector<at::Tensor>& inputTensors,                   \
                                      const GatherOptions& opts = GatherOptions()) S;          \
  V DDPLINT_MOCK_C10D_WORK_PTR scatter(std::vector<at::Tensor>& outputTensors,                 \
                                       std::vector<std::vector<at::Tensor>>& inputTensors,     \
                                       const ScatterOptions& opts = ScatterOptions()) S;       \
  V DDPLINT_MOCK_C10D_WORK_PTR reduce_scatter(                                                 \
      std::vector<at::Tensor>& outputTensors, std::vector<std::vector<at::Tensor>>& inputTensors, \
      const ReduceScatterOptions& opts = ReduceScatterOptions()) S;                            \
  V DDPLINT_MOCK_C10D_WORK_PTR send(std::vector<at::Tensor>& tensors, int dstRank, int tag) S; \
  V DDPLINT_MOCK_C10D_WORK_PTR recv(std::vector<at::Tensor>& tensors, int srcRank, int tag) S; \
  V DDPLINT_MOCK_C10D_WORK_PTR recvAnysource(std::vector<at::Tensor>& tensors, int tag) S;     \
  V DDPLINT_MOCK_C10D_WORK_PTR barrier(const BarrierOptions& opts = BarrierOptions()) S;

// Collectives that have a default (throwing) body in the base class.
#define DDPLINT_MOCK_C10D_ALLGATHER_COALESCED(V, S)                                            \
  V DDPLINT_MOCK_C10D_WORK_PTR allgather_coalesced(                                            \
      std::vector<std::vector<at::Tensor>>& outputTensorLists,                                 \
      std::vector<at::Tensor>& inputTensors, const AllgatherOptions& opts = AllgatherOptions()) S;
#define DDPLINT_MOCK_C10D_ALLTOALL_BASE(V, S)                                                  \
  V DDPLINT_MOCK_C10D_WORK_PTR alltoall_base(                                                  \
      at::Tensor& outputBuffer, at::Tensor& inputBuffer, std::vector<int64_t>& outputSplitSizes, \
      std::vector<int64_t>& inputSplitSizes, const AllToAllOptions& opts = AllToAllOptions()) S;
#define DDPLINT_MOCK_C10D_ALLTOALL(V, S)                                                       \
  V DDPLINT_MOCK_C10D_WORK_PTR alltoall(std::vector<at::Tensor>& outputTensors,                \
                                        std::vector<at::Tensor>& inputTensors,                 \
                                        const AllToAllOptions& opts = AllToAllOptions()) S;
#define DDPLINT_MOCK_C10D_REDUCE_SCATTER_BASE(V, S)                                            \
  V DDPLINT_MOCK_C10D_WORK_PTR _reduce_scatter_base(                                           \
      at::Tensor& outputBuffer, at::Tensor& inputBuffer,                                       \
      const ReduceScatterOptions& opts = ReduceScatterOptions()) S;
