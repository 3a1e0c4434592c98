// Hand-written gradient sync over NCCL, as a CPU lint machine sees it: no
// NCCL and no CUDA toolkit installed.
#include <torch/torch.h>
#include <nccl.h>
#include <cuda_runtime.h>

#include <cstdlib>

#define NCCL_CHECK(cmd)                                                        \
  do {                                                                         \
    ncclResult_t r = cmd;                                                      \
    if (r != ncclSuccess)                                                      \
      std::abort();                                                            \
  } while (0)

struct Net : torch::nn::Module {
  Net() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};

// The signature names ncclComm_t and cudaStream_t: without their
// declarations clang drops the whole function.
void train_step(Net &model, torch::optim::SGD &optimizer, ncclComm_t comm,
                cudaStream_t stream) {
  optimizer.zero_grad();
  model.forward(torch::ones({8, 4})).sum().backward();
  for (auto &p : model.parameters()) {
    torch::Tensor g = p.grad();
    NCCL_CHECK(ncclAllReduce(g.data_ptr(), g.data_ptr(), g.numel(), ncclFloat,
                             ncclSum, comm, stream));
  }
  cudaStreamSynchronize(stream);
  optimizer.step();
}
