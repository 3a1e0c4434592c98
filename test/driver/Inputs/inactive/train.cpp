// Distributed code switched by the build, as public training code does it.
#include <torch/torch.h>
#include "dist.h"
#include <comm_lib.h>

#ifdef USE_NCCL
#include <nccl.h>
void sync_gradients(torch::Tensor &grad, ncclComm_t comm, cudaStream_t stream) {
  ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat,
                ncclSum, comm, stream);
}
#else
void sync_gradients(torch::Tensor &) {}
#endif

#ifndef NO_C10D
void local_only() {}
#else
void barrier_all(c10d::ProcessGroup &pg) { pg.barrier()->wait(); }
#endif

#if defined(USE_MPI) && !defined(NO_MPI)
void sync_mpi(torch::Tensor &grad) {
  MPI_Allreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT,
                MPI_SUM, MPI_COMM_WORLD);
}
#endif

#ifdef USE_PROFILER
void profile() { /* timers only */ }
#endif

#if 0
void old_sync(c10d::ProcessGroup &pg) { pg.barrier()->wait(); }
#endif
