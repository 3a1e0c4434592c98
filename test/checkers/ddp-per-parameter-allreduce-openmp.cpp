// ddp-per-parameter-allreduce where the step runs on one OpenMP thread per
// GPU: a region of `#pragma omp parallel` runs where it stands, so a step
// called from one inside the batch loop runs again and again. Mock headers
// only.
// RUN: %clang_tidy %s -checks='-*,ddp-per-parameter-allreduce' -- %mock_flags -fopenmp 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-per-parameter-allreduce' -- %mock_flags -fopenmp 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <nccl.h>
#include <cuda_runtime.h>
#include <vector>

struct Dense {
  float *d_weightDelta;
  float *biasDelta;
  int inputs, outputs;
  void update();
};

ncclComm_t comms[8];
cudaStream_t streams[8];
Dense *dense[8][4];
std::vector<int> widths;

void train_step(int dev) {
  // One all-reduce per layer's weights and one per its biases, every step.
  for (int i = 0; i < widths.size() - 1; i++) {
    Dense *layer = dense[dev][i];
    // CHECK: :[[@LINE+2]]:5: warning: one allreduce per parameter
    // CHECK: :[[@LINE-3]]:3: note: loop over the parameters here
    ncclAllReduce(layer->d_weightDelta, layer->d_weightDelta,
                  layer->inputs * layer->outputs, ncclFloat32, ncclSum,
                  comms[dev], streams[dev]);
    // CHECK: :[[@LINE+2]]:5: warning: one allreduce per parameter
    // CHECK: :[[@LINE-8]]:3: note: loop over the parameters here
    ncclAllReduce(layer->biasDelta, layer->biasDelta, layer->outputs,
                  ncclFloat32, ncclSum, comms[dev], streams[dev]);
  }
  for (int i = 0; i < widths.size() - 1; i++)
    dense[dev][i]->update();
}

// The same walk once, before training: the weights are handed out once.
void start_replicas(int dev) {
  for (int i = 0; i < widths.size() - 1; i++) {
    Dense *layer = dense[dev][i];
    ncclBroadcast(layer->d_weightDelta, layer->d_weightDelta,
                  layer->inputs * layer->outputs, ncclFloat32, 0, comms[dev],
                  streams[dev]);
  }
}

int omp_get_thread_num();

void train(int batches) {
#pragma omp parallel
  start_replicas(omp_get_thread_num());
  for (int batch = 0; batch < batches; batch++) {
#pragma omp parallel
    {
      int dev = omp_get_thread_num();
      train_step(dev);
    }
  }
}
