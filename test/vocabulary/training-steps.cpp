// Training steps, world-size sources, reduce operations, gradient hooks and
// communicators, as the vocabulary sees them (what ddp-unsynced-gradients and
// ddp-unaveraged-allreduce build on).
//
// RUN: %probe %s -- %mock_flags 2>/dev/null | FileCheck %s -implicit-check-not='warning:'
// With the options, a framework's optimizer, world size and sync helper:
// RUN: %probe %s -config="{CheckOptions: {OptimizerTypes: '::torch::optim::Optimizer;::fw::Sgd', WorldSizeFunctions: '::fw::Comm::count;MPI_Comm_size@1', WorldSizeEnvironmentVariables: 'NUM_WORKERS', GradientSyncFunctions: 'exchange'}}" \
// RUN:   -- %mock_flags -DWITH_OPTIONS 2>/dev/null | FileCheck %s -check-prefix=OPTIONS -implicit-check-not='warning:'
// OPTIONS-NOT: world size query

#include <torch/torch.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <boost/mpi.hpp>
#include <mpi.h>
#include <nccl.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#ifndef WITH_OPTIONS
int env_int(const std::string &name, int fallback);

void steps(torch::optim::SGD &sgd, std::unique_ptr<torch::optim::Adam> &adam,
           torch::Tensor loss, torch::optim::StepLR &scheduler) {
  loss.backward();
// CHECK: :[[@LINE-1]]:8: warning: backward [probe-vocabulary]
  torch::autograd::backward({loss});
// CHECK: :[[@LINE-1]]:3: warning: backward [probe-vocabulary]
  sgd.step();
// CHECK: :[[@LINE-1]]:7: warning: optimizer step [probe-vocabulary]
  adam->step([&] { return loss; });
// CHECK: :[[@LINE-1]]:9: warning: optimizer step with a closure [probe-vocabulary]
  torch::optim::Optimizer::LossClosure closure = [&] { return loss; };
  sgd.step(closure);
// CHECK: :[[@LINE-1]]:7: warning: optimizer step with a closure [probe-vocabulary]
  sgd.step(nullptr);
// CHECK: :[[@LINE-1]]:7: warning: optimizer step [probe-vocabulary]
  scheduler.step();
}

struct Lamb : torch::optim::Optimizer {
// CHECK: :[[@LINE-1]]:8: warning: optimizer class 'Lamb' [probe-vocabulary]
  using Optimizer::Optimizer;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

void world_sizes(c10d::ProcessGroup &pg, boost::mpi::communicator &world,
// CHECK: :[[@LINE-1]]:38: warning: 'pg' is a c10d process group [probe-vocabulary]
// CHECK: :[[@LINE-2]]:68: warning: 'world' is a communicator [probe-vocabulary]
                 ncclComm_t comm, MPI_Comm mpi) {
// CHECK: :[[@LINE-1]]:29: warning: 'comm' is a communicator [probe-vocabulary]
// CHECK: :[[@LINE-2]]:44: warning: 'mpi' is a communicator [probe-vocabulary]
  int a = pg.getSize();
// CHECK: :[[@LINE-1]]:14: warning: world size query [probe-vocabulary]
  int b = world.size();
// CHECK: :[[@LINE-1]]:17: warning: world size query [probe-vocabulary]
  int c = 0, d = 0;
  MPI_Comm_size(mpi, &c);
// CHECK: :[[@LINE-1]]:22: warning: world size written here [probe-vocabulary]
  ncclCommCount(comm, &d);
// CHECK: :[[@LINE-1]]:23: warning: world size written here [probe-vocabulary]
  int e = std::atoi(std::getenv("WORLD_SIZE"));
// CHECK: :[[@LINE-1]]:21: warning: world size query [probe-vocabulary]
  int f = env_int("WORLD_SIZE", 1);
// CHECK: :[[@LINE-1]]:11: warning: world size query [probe-vocabulary]
  int g = env_int("RANK", 0);
  (void)a, (void)b, (void)e, (void)f, (void)g;
}

void reduce_ops(c10d::ProcessGroup &pg, std::vector<torch::Tensor> &grads,
// CHECK: :[[@LINE-1]]:37: warning: 'pg' is a c10d process group [probe-vocabulary]
                const c10d::AllreduceOptions &given) {
  pg.allreduce(grads);
// CHECK: :[[@LINE-1]]:6: warning: collective allreduce (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:6: warning: reduce op sum [probe-vocabulary]
  c10d::AllreduceOptions avg;
  avg.reduceOp = c10d::ReduceOp::AVG;
  pg.allreduce(grads, avg);
// CHECK: :[[@LINE-1]]:6: warning: collective allreduce (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:6: warning: reduce op average [probe-vocabulary]
  pg.allreduce(grads, c10d::AllreduceOptions{.reduceOp = c10d::ReduceOp::MAX});
// CHECK: :[[@LINE-1]]:6: warning: collective allreduce (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:6: warning: reduce op other [probe-vocabulary]
  c10d::AllreduceOptions premul;
  premul.reduceOp = c10d::makeNCCLPreMulSum(0.5);
  pg.allreduce(grads, premul);
// CHECK: :[[@LINE-1]]:6: warning: collective allreduce (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:6: warning: reduce op premultiplied sum [probe-vocabulary]
  pg.allreduce(grads, given);
// CHECK: :[[@LINE-1]]:6: warning: collective allreduce (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:6: warning: reduce op unknown [probe-vocabulary]
  c10d::ReduceScatterOptions scatter;
  scatter.reduceOp = c10d::ReduceOp::AVG;
  std::vector<std::vector<torch::Tensor>> inputs(1, grads);
  pg.reduce_scatter(grads, inputs, scatter);
// CHECK: :[[@LINE-1]]:6: warning: collective reduce_scatter (c10d, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:6: warning: reduce op average [probe-vocabulary]
  pg.broadcast(grads);
// CHECK: :[[@LINE-1]]:6: warning: collective broadcast (c10d, asynchronous) [probe-vocabulary]
}

void mpi_nccl_boost_ops(float *buffer, int n, ncclComm_t comm, cudaStream_t stream,
// CHECK: :[[@LINE-1]]:58: warning: 'comm' is a communicator [probe-vocabulary]
                        boost::mpi::communicator &world, MPI_Op op) {
// CHECK: :[[@LINE-1]]:51: warning: 'world' is a communicator [probe-vocabulary]
  MPI_Allreduce(MPI_IN_PLACE, buffer, n, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
// CHECK: :[[@LINE-1]]:3: warning: collective allreduce (mpi) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op other [probe-vocabulary]
  MPI_Allreduce(MPI_IN_PLACE, buffer, n, MPI_FLOAT, op, MPI_COMM_WORLD);
// CHECK: :[[@LINE-1]]:3: warning: collective allreduce (mpi) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op unknown [probe-vocabulary]
  ncclAllReduce(buffer, buffer, n, ncclFloat, ncclAvg, comm, stream);
// CHECK: :[[@LINE-1]]:3: warning: collective allreduce (nccl, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op average [probe-vocabulary]
  float scale = 0.5f;
  ncclRedOp_t mean;
  ncclRedOpCreatePreMulSum(&mean, &scale, ncclFloat, ncclScalarHostImmediate, comm);
  ncclReduceScatter(buffer, buffer, n, ncclFloat, mean, comm, stream);
// CHECK: :[[@LINE-1]]:3: warning: collective reduce_scatter (nccl, asynchronous) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op premultiplied sum [probe-vocabulary]
  boost::mpi::all_reduce(world, boost::mpi::inplace(buffer), n, boost::mpi::maximum<float>());
// CHECK: :[[@LINE-1]]:3: warning: collective allreduce (boost-mpi) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op other [probe-vocabulary]
  boost::mpi::all_reduce(world, boost::mpi::inplace(buffer), n,
// CHECK: :[[@LINE-1]]:3: warning: collective allreduce (boost-mpi) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op unknown [probe-vocabulary]
                         [](float x, float y) { return x + y; });
}

struct CountHook : torch::autograd::FunctionPostHook {
  torch::autograd::variable_list operator()(const torch::autograd::variable_list &outputs,
                                            const torch::autograd::variable_list &) override {
    return outputs;
  }
};

void hooks(torch::Tensor &param) {
  param.register_hook([](torch::Tensor grad) { return grad; });
// CHECK: :[[@LINE-1]]:9: warning: gradient hook [probe-vocabulary]
  torch::autograd::impl::grad_accumulator(param)->add_post_hook(std::make_unique<CountHook>());
// CHECK: :[[@LINE-1]]:51: warning: gradient hook [probe-vocabulary]
}

void allreduce_gradients(c10d::ProcessGroup &pg, std::vector<torch::Tensor> &params);
// CHECK: :[[@LINE-1]]:46: warning: 'pg' is a c10d process group [probe-vocabulary]
void syncGradients();
void average_grads();
void reduce_metrics();

void sync_helpers(c10d::ProcessGroup &pg, std::vector<torch::Tensor> &params) {
// CHECK: :[[@LINE-1]]:39: warning: 'pg' is a c10d process group [probe-vocabulary]
  allreduce_gradients(pg, params);
// CHECK: :[[@LINE-1]]:3: warning: gradient sync function [probe-vocabulary]
  syncGradients();
// CHECK: :[[@LINE-1]]:3: warning: gradient sync function [probe-vocabulary]
  average_grads();
// CHECK: :[[@LINE-1]]:3: warning: gradient sync function [probe-vocabulary]
  reduce_metrics();
}
#else
namespace fw {
struct Comm {
  int count() const;
};
struct Sgd {
// OPTIONS: :[[@LINE-1]]:8: warning: optimizer class 'Sgd' [probe-vocabulary]
  void step();
};
} // namespace fw
void exchange(std::vector<torch::Tensor> &grads);
void allreduce_gradients(std::vector<torch::Tensor> &grads);

void configured(fw::Comm &comm, fw::Sgd &sgd, std::vector<torch::Tensor> &grads,
                MPI_Comm mpi) {
// OPTIONS: :[[@LINE-1]]:26: warning: 'mpi' is a communicator [probe-vocabulary]
  int n = comm.count();
// OPTIONS: :[[@LINE-1]]:16: warning: world size query [probe-vocabulary]
  int m = 0;
  MPI_Comm_size(mpi, &m);
// OPTIONS: :[[@LINE-1]]:22: warning: world size written here [probe-vocabulary]
  const char *workers = std::getenv("NUM_WORKERS");
// OPTIONS: :[[@LINE-1]]:25: warning: world size query [probe-vocabulary]
  const char *world = std::getenv("WORLD_SIZE");
  sgd.step();
// OPTIONS: :[[@LINE-1]]:7: warning: optimizer step [probe-vocabulary]
  exchange(grads);
// OPTIONS: :[[@LINE-1]]:3: warning: gradient sync function [probe-vocabulary]
  allreduce_gradients(grads);
  (void)n, (void)workers, (void)world;
}
#endif

// Functions of the project's own, defined elsewhere, named for one reducing
// collective in any spelling; a whole-model sync is a gradient sync function
// instead.
namespace fw {
void all_reduce(float *values, int count);
void allReduceGradients();
} // namespace fw
void named_collectives(float *values, int count) {
  fw::all_reduce(values, count);
// CHECK: :[[@LINE-1]]:3: warning: collective allreduce (named) [probe-vocabulary]
// CHECK: :[[@LINE-2]]:3: warning: reduce op unknown [probe-vocabulary]
// OPTIONS: :[[@LINE-3]]:3: warning: collective allreduce (named) [probe-vocabulary]
// OPTIONS: :[[@LINE-4]]:3: warning: reduce op unknown [probe-vocabulary]
  fw::allReduceGradients();
// CHECK: :[[@LINE-1]]:3: warning: gradient sync function [probe-vocabulary]
}
