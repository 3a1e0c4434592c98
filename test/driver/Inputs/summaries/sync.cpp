#include "groups.h"

#include <nccl.h>
#include <torch/torch.h>

void sync_gradients(torch::nn::Linear &model, ncclComm_t comm,
                    cudaStream_t stream) {
  open_group();
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat,
                  ncclSum, comm, stream);
  }
  close_group();
}
