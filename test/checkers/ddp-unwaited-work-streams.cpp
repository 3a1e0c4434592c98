// ddp-unwaited-work across CUDA streams: an NCCL collective's buffer read on
// another stream, and a c10d Work waited on with a side stream current while
// the step runs on the main stream. Mock headers, both entry points.
// RUN: %clang_tidy %s -checks='-*,ddp-unwaited-work' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unwaited-work' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <vector>

// An SGD kernel's launcher, defined in a .cu file: it reads the gradients on
// the stream it is given.
void sgd_update(float *params, const float *grads, size_t n, float lr,
                cudaStream_t stream);

// --- Raw NCCL on a communication stream ------------------------------------

void nccl_step_on_compute_stream(float *params, float *grads, size_t n,
                                 ncclComm_t comm, cudaStream_t comm_stream,
                                 cudaStream_t compute_stream) {
  ncclAllReduce(grads, grads, n, ncclFloat, ncclSum, comm, comm_stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'ncclAllReduce' writes 'grads' on stream 'comm_stream', and sgd_update reads it on stream 'compute_stream' with nothing ordering the two streams: the read can run before the collective has written the buffer, on each rank its own mix; record a CUDA event on 'comm_stream' after the collective and make 'compute_stream' wait on it (cudaStreamWaitEvent), or synchronize 'comm_stream' first [ddp-unwaited-work]
  sgd_update(params, grads, n, 0.1f, compute_stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: read on stream 'compute_stream' here
}

struct Trainer {
  float *grads_;
  ncclComm_t comm_;
  cudaStream_t comm_stream_, compute_stream_;

  void step(float *params, size_t n, int steps) {
    for (int i = 0; i < steps; ++i) {
      ncclAllReduce(grads_, grads_, n, ncclFloat, ncclSum, comm_, comm_stream_);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'ncclAllReduce' writes 'grads_' on stream 'comm_stream_', and cudaMemcpyAsync reads it on stream 'compute_stream_'
      cudaMemcpyAsync(params, grads_, n * sizeof(float),
                      cudaMemcpyDeviceToDevice, compute_stream_);
      // CHECK-MESSAGES: :[[@LINE-2]]:7: note: read on stream 'compute_stream_' here
    }
  }
};

// Fixed: the compute stream waits on an event recorded after the collective.
void nccl_event_wait(float *params, float *grads, size_t n, ncclComm_t comm,
                     cudaStream_t comm_stream, cudaStream_t compute_stream,
                     cudaEvent_t reduced) {
  ncclAllReduce(grads, grads, n, ncclFloat, ncclSum, comm, comm_stream);
  cudaEventRecord(reduced, comm_stream);
  cudaStreamWaitEvent(compute_stream, reduced, 0);
  sgd_update(params, grads, n, 0.1f, compute_stream);
}

// Fixed: the host waits for the communication stream.
void nccl_synchronized(float *params, float *grads, size_t n, ncclComm_t comm,
                       cudaStream_t comm_stream, cudaStream_t compute_stream) {
  ncclAllReduce(grads, grads, n, ncclFloat, ncclSum, comm, comm_stream);
  cudaStreamSynchronize(comm_stream);
  sgd_update(params, grads, n, 0.1f, compute_stream);
}

// One stream for both: ordered.
void nccl_one_stream(float *params, float *grads, size_t n, ncclComm_t comm,
                     cudaStream_t stream) {
  ncclAllReduce(grads, grads, n, ncclFloat, ncclSum, comm, stream);
  sgd_update(params, grads, n, 0.1f, stream);
}

// Reading only the collective's input on another stream is no race with
// its output.
void nccl_reads_input(float *params, float *local, float *reduced, size_t n,
                      ncclComm_t comm, cudaStream_t comm_stream,
                      cudaStream_t compute_stream) {
  ncclAllReduce(local, reduced, n, ncclFloat, ncclSum, comm, comm_stream);
  sgd_update(params, local, n, 0.1f, compute_stream);
}

// --- c10d: a Work waited on with a side stream current ---------------------

void side_stream_chained_wait(c10d::ProcessGroup &pg,
                              std::vector<at::Tensor> &grads,
                              torch::optim::Optimizer &optimizer,
                              c10::cuda::CUDAStream side) {
  {
    c10::cuda::CUDAStreamGuard guard(side);
    pg.allreduce(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: the work of 'allreduce' is waited on with 'side' current: wait() makes only that stream wait for the collective, so the optimizer step, on another stream after the guard's scope, can read the gradients before the reduction has written them; wait with the stepping stream current, or record a CUDA event on 'side' after the wait and block the stepping stream on it [ddp-unwaited-work]
  }
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: note: optimizer step here
}

void side_stream_kept_work(c10d::ProcessGroup &pg, torch::nn::Linear &net,
                           torch::optim::SGD &optimizer) {
  auto side = at::cuda::getStreamFromPool();
  for (int step = 0; step < 10; ++step) {
    at::Tensor flat = torch::cat({net->weight.grad().view(-1),
                                  net->bias.grad().view(-1)});
    std::vector<at::Tensor> bucket{flat};
    c10::intrusive_ptr<c10d::Work> work;
    {
      at::cuda::CUDAStreamGuard on_side(side);
      work = pg.allreduce(bucket);
      work->wait();
      // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: the work of 'allreduce' is waited on with 'side' current: wait() makes only that stream wait for the collective, so 'flat', read after the guard's scope on another stream, can be read before the reduction has written it; wait with the reading stream current, or record a CUDA event on 'side' after the wait and block the reading stream on it [ddp-unwaited-work]
    }
    flat.div_(pg.getSize());
    // CHECK-MESSAGES: :[[@LINE-1]]:5: note: read here
    optimizer.step();
  }
}

// Fixed: the Work is waited on after the guard, with the main stream current.
void wait_on_main_stream(c10d::ProcessGroup &pg, std::vector<at::Tensor> &grads,
                         torch::optim::Optimizer &optimizer,
                         c10::cuda::CUDAStream side) {
  c10::intrusive_ptr<c10d::Work> work;
  {
    c10::cuda::CUDAStreamGuard guard(side);
    work = pg.allreduce(grads);
  }
  work->wait();
  optimizer.step();
}

// Fixed: an event recorded on the side stream after the wait, and the main
// stream blocked on it.
void event_after_side_wait(c10d::ProcessGroup &pg,
                           std::vector<at::Tensor> &grads,
                           torch::optim::Optimizer &optimizer,
                           c10::cuda::CUDAStream side) {
  at::cuda::CUDAEvent reduced;
  {
    c10::cuda::CUDAStreamGuard guard(side);
    pg.allreduce(grads)->wait();
    reduced.record(side);
  }
  reduced.block(c10::cuda::getCurrentCUDAStream());
  optimizer.step();
}

// The step on the side stream too: ordered.
void step_under_the_guard(c10d::ProcessGroup &pg,
                          std::vector<at::Tensor> &grads,
                          torch::optim::Optimizer &optimizer,
                          c10::cuda::CUDAStream side) {
  c10::cuda::CUDAStreamGuard guard(side);
  pg.allreduce(grads)->wait();
  optimizer.step();
}
