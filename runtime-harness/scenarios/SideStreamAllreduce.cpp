//===- SideStreamAllreduce.cpp - A gradient all-reduce racing the step ----===//
//
// Gradients all-reduced on a side CUDA stream, to overlap communication
// with other work, and the optimizer stepping on the main stream. A c10d
// Work's wait() orders only the stream that is current when it is called
// after the collective: here the side stream. Nothing orders the main
// stream after it, so the step can read the gradients before the
// reduction has written them (or while it writes them), each rank its own
// mix of local and averaged values, and the replicas part. The host never
// blocks, so nothing fails; only the weights show it. The fixes wait on the
// Work with the main stream current, or record an event on the side stream
// after the wait and make the main stream wait on that event.
//
// Only a GPU has streams: the table lists this scenario only where
// LibTorch has CUDA, and it needs `--device cuda`.
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

using namespace ddpscenario;

namespace {

/// The gradients in one flat buffer, the bucket of a hand-written sync
/// (c10d collectives take one tensor per device and process).
torch::Tensor flatten(Net &Model) {
  std::vector<torch::Tensor> Flat;
  for (auto &P : Model->parameters())
    Flat.push_back(P.grad().reshape({-1}));
  return torch::cat(Flat);
}

void unflatten(const torch::Tensor &Bucket, Net &Model) {
  int64_t Offset = 0;
  for (auto &P : Model->parameters()) {
    int64_t N = P.numel();
    P.grad().copy_(Bucket.narrow(0, Offset, N).view_as(P.grad()));
    Offset += N;
  }
}

/// One step's sync: the gradient bucket all-reduced with the side stream
/// current (after the main stream's backward), then read back on the main
/// stream. The buggy variant waits on the Work with the side stream
/// current, which orders only the side stream.
void averageOnSide(Context &C, Net &Model, c10::cuda::CUDAStream Main,
                   c10::cuda::CUDAStream Side) {
  auto &Group = *C.dist.process_group;
  torch::Tensor Bucket = flatten(Model);
  std::vector<torch::Tensor> Tensors{Bucket};
  at::cuda::CUDAEvent BucketReady;
  BucketReady.record(Main);
  c10::intrusive_ptr<c10d::Work> Work;
  {
    c10::cuda::CUDAStreamGuard OnSide(Side);
    BucketReady.block(Side);
    Work = Group.allreduce(Tensors);
  }
  {
    // The stream current at wait() is the one that waits: the side stream,
    // or in fixed-wait the main stream, which reads the bucket.
    c10::cuda::CUDAStreamGuard Waiting(C.variant == "fixed-wait" ? Main : Side);
    Work->wait();
  }
  if (C.variant == "fixed-event") {
    at::cuda::CUDAEvent Reduced;
    Reduced.record(Side);
    Reduced.block(Main);
  }
  // The main stream reads the bucket: averaged only if it waited.
  unflatten(Bucket.div_(Group.getSize()), Model);
}

void run(Context &C) {
  if (!C.device.is_cuda())
    throw ddpharness::Skip("no-cuda", "side-stream-allreduce races CUDA "
                                      "streams: run it with --device cuda");
  Net Model = make_model(C.device);
  torch::optim::SGD Optimizer(Model->parameters(), kLearningRate);
  c10::cuda::CUDAStream Main = c10::cuda::getCurrentCUDAStream(C.device.index());
  c10::cuda::CUDAStream Side =
      c10::cuda::getStreamFromPool(/*isHighPriority=*/false, C.device.index());

  for (int64_t Step = 0; Step < C.steps; ++Step) {
    Batch B = shard_batch(Step, C.dist.rank, C.device);
    Optimizer.zero_grad();
    torch::mse_loss(Model->forward(B.x), B.y).backward();
    averageOnSide(C, Model, Main, Side);
    Optimizer.step();
    C.probe.step(*Model, Step);
  }
}

} // namespace

namespace ddpscenario {
extern const Scenario SideStreamAllreduce = {
    "side-stream-allreduce",
    "ddp-unwaited-work",
    "divergence",
    {"buggy", "fixed-wait", "fixed-event"},
    "all-reduce waited on a side stream, step on the main stream: a race",
    run,
    /*needs_cuda=*/true};
} // namespace ddpscenario
