// Collectives and rank sources outside c10d: MPI, NCCL, boost::mpi, and a
// framework communicator named in CollectiveFunctions / RankFunctions.
//
// RUN: %probe %s -config="{CheckOptions: {CollectiveFunctions: '::fw::Communicator::sum;::fw::Communicator::share=broadcast', RankFunctions: '::boost::mpi::communicator::rank;MPI_Comm_rank@1;ncclCommUserRank@1;::fw::Communicator::index'}}" \
// RUN:   -- %mock_flags 2>/dev/null | FileCheck %s -implicit-check-not='warning:'
// Without the options, the framework's calls are nothing special:
// RUN: %probe %s -- %mock_flags 2>/dev/null | FileCheck %s -check-prefix=DEFAULT -implicit-check-not='warning:'
// DEFAULT-NOT: fw

#include <torch/torch.h>
#include <mpi.h>
#include <nccl.h>
#include <boost/mpi.hpp>

#include <functional>

void mpi(torch::Tensor &grad) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
// CHECK: :[[@LINE-1]]:33: warning: rank written here [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:33: warning: rank written here [probe-vocabulary]
  MPI_Comm_size(MPI_COMM_WORLD, &world);
// CHECK: :[[@LINE-1]]:33: warning: world size written here [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:33: warning: world size written here [probe-vocabulary]
  MPI_Allreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
// CHECK: :[[@LINE-1]]:3: warning: collective allreduce (mpi) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op sum [probe-vocabulary]
// DEFAULT: :[[@LINE-3]]:3: warning: collective allreduce (mpi) [probe-vocabulary]
// DEFAULT: :[[@LINE-4]]:3: warning: reduce op sum [probe-vocabulary]
  MPI_Request request;
// CHECK: :[[@LINE-1]]:15: warning: 'request' holds pending work [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:15: warning: 'request' holds pending work [probe-vocabulary]
  MPI_Iallreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
// CHECK: :[[@LINE-1]]:3: warning: collective allreduce (mpi, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op sum [probe-vocabulary]
// CHECK: :[[@LINE-3]]:99: warning: request written here [probe-vocabulary]
// DEFAULT: :[[@LINE-4]]:3: warning: collective allreduce (mpi, asynchronous) [probe-vocabulary]
// DEFAULT: :[[@LINE-5]]:3: warning: reduce op sum [probe-vocabulary]
// DEFAULT: :[[@LINE-6]]:99: warning: request written here [probe-vocabulary]
  MPI_Wait(&request, MPI_STATUS_IGNORE);
// CHECK: :[[@LINE-1]]:3: warning: wait [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:3: warning: wait [probe-vocabulary]
  MPI_Bcast(grad.data_ptr(), grad.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
// CHECK: :[[@LINE-1]]:3: warning: collective broadcast (mpi) [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:3: warning: collective broadcast (mpi) [probe-vocabulary]
  MPI_Barrier(MPI_COMM_WORLD);
// CHECK: :[[@LINE-1]]:3: warning: collective barrier (mpi) [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:3: warning: collective barrier (mpi) [probe-vocabulary]
}

void nccl(torch::Tensor &grad, ncclComm_t comm, cudaStream_t stream) {
// CHECK: :[[@LINE-1]]:43: warning: 'comm' is a communicator [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:43: warning: 'comm' is a communicator [probe-vocabulary]
  int rank = 0;
  ncclCommUserRank(comm, &rank);
// CHECK: :[[@LINE-1]]:26: warning: rank written here [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:26: warning: rank written here [probe-vocabulary]
  ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat, ncclSum, comm, stream);
// CHECK: :[[@LINE-1]]:3: warning: collective allreduce (nccl, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op sum [probe-vocabulary]
// DEFAULT: :[[@LINE-3]]:3: warning: collective allreduce (nccl, asynchronous) [probe-vocabulary]
// DEFAULT: :[[@LINE-4]]:3: warning: reduce op sum [probe-vocabulary]
  ncclBroadcast(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat, 0, comm, stream);
// CHECK: :[[@LINE-1]]:3: warning: collective broadcast (nccl, asynchronous) [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:3: warning: collective broadcast (nccl, asynchronous) [probe-vocabulary]
}

void boost_mpi(float *values, int n) {
  boost::mpi::communicator world;
// CHECK: :[[@LINE-1]]:28: warning: 'world' is a communicator [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:28: warning: 'world' is a communicator [probe-vocabulary]
  int rank = world.rank();
// CHECK: :[[@LINE-1]]:20: warning: rank query [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:20: warning: rank query [probe-vocabulary]
  boost::mpi::all_reduce(world, values, n, values, std::plus<float>());
// CHECK: :[[@LINE-1]]:3: warning: collective allreduce (boost-mpi) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op sum [probe-vocabulary]
// DEFAULT: :[[@LINE-3]]:3: warning: collective allreduce (boost-mpi) [probe-vocabulary]
// DEFAULT: :[[@LINE-4]]:3: warning: reduce op sum [probe-vocabulary]
  boost::mpi::broadcast(world, rank, 0);
// CHECK: :[[@LINE-1]]:3: warning: collective broadcast (boost-mpi) [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:3: warning: collective broadcast (boost-mpi) [probe-vocabulary]
  world.barrier();
// CHECK: :[[@LINE-1]]:9: warning: collective barrier (boost-mpi) [probe-vocabulary]
// DEFAULT: :[[@LINE-2]]:9: warning: collective barrier (boost-mpi) [probe-vocabulary]
}

namespace fw {
struct Communicator {
  void sum(torch::Tensor &t);
  void share(torch::Tensor &t, int root);
  int index() const;
};
} // namespace fw

void framework(fw::Communicator &comm, torch::Tensor &grad) {
  comm.sum(grad);
// CHECK: :[[@LINE-1]]:8: warning: collective allreduce (configured) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:8: warning: reduce op sum [probe-vocabulary]
  comm.share(grad, 0);
// CHECK: :[[@LINE-1]]:8: warning: collective broadcast (configured) [probe-vocabulary]
  int me = comm.index();
// CHECK: :[[@LINE-1]]:17: warning: rank query [probe-vocabulary]
  (void)me;
}
