// Host code of a CUDA trainer: one NCCL all-reduce per layer, then a kernel
// (test/integration/cuda-toolkit.test).
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void scale(float *grad, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    grad[i] *= factor;
}

void sync_layers(float **grads, const int *sizes, int layers, int ranks,
                 ncclComm_t comm, cudaStream_t stream) {
  for (int i = 0; i < layers; ++i) {
    ncclAllReduce(grads[i], grads[i], sizes[i], ncclFloat, ncclSum, comm, stream);
    scale<<<(sizes[i] + 255) / 256, 256, 0, stream>>>(grads[i], sizes[i], 1.0f / ranks);
  }
}
