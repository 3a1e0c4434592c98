// Both entry points, the clang-tidy plugin and the driver, on the mock headers:
// RUN: %clang_tidy %s -checks='-*,ddp-unaveraged-allreduce' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unaveraged-allreduce' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// A call that does not type-check is a call of its candidates; the compile
// error goes to standard error, the finding to standard output:
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unaveraged-allreduce' -- %mock_flags -DWITH_BROKEN_CODE 2> %t.broken \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI,CHECK-BROKEN -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck %s -check-prefix=CHECK-ERROR < %t.broken
//
// A framework collective named in CollectiveFunctions sums too; a world-size
// function named in WorldSizeFunctions averages:
// RUN: %clang_tidy %s -checks='-*,ddp-unaveraged-allreduce' \
// RUN:   -config="{CheckOptions: {CollectiveFunctions: '::fw::Communicator::sum', WorldSizeFunctions: '::c10d::ProcessGroup::getSize;::c10d::Backend::getSize;::boost::mpi::communicator::size;MPI_Comm_size@1;ncclCommCount@1;::fw::Communicator::count'}}" \
// RUN:   -- %mock_flags -DWITH_OPTIONS 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI,CHECK-OPTIONS -implicit-check-not='{{warning|error|note}}:'
//
// A learning rate divided by the world size averages the updates of the
// optimizer built with it, and of no other: one that nothing steps silences
// nothing.
// RUN: %clang_tidy %s -checks='-*,ddp-unaveraged-allreduce' -- %mock_flags -DSCALED_LEARNING_RATE 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI -implicit-check-not='{{warning|error|note}}:'
//
// An average in an #ifdef branch counts where the branch is built, and only
// there:
// RUN: %clang_tidy %s -checks='-*,ddp-unaveraged-allreduce' -- %mock_flags -DUSE_GRADIENT_AVERAGE 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=AVERAGED
//
// test/integration runs this same file against the real LibTorch headers.

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
// The mocks have MPI, NCCL and boost::mpi; a machine with the real LibTorch
// headers may have none of them (test/integration).
#if __has_include(<mpi.h>) && __has_include(<nccl.h>) && __has_include(<boost/mpi.hpp>)
#define WITH_MPI_NCCL_BOOST
#include <mpi.h>
#include <nccl.h>
#include <boost/mpi.hpp>
#endif

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace F = torch::nn::functional;

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

int env_int(const std::string &name, int fallback);

//===----------------------------------------------------------------------===//
// Summed, never averaged
//===----------------------------------------------------------------------===//

void per_parameter_sum(c10d::ProcessGroup &pg, Net &model,
                       torch::optim::SGD &optimizer, torch::Tensor x,
                       torch::Tensor y) {
  optimizer.zero_grad();
  F::mse_loss(model->forward(x), y).backward();
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step: gradients are summed over N ranks, so the effective learning rate is N times larger; divide them by the world size after the reduction (grad.div_(process_group->getSize())), or reduce with ReduceOp::AVG [ddp-unaveraged-allreduce]
    // CHECK-MESSAGES: :[[@LINE+2]]:13: note: the optimizer steps with the summed gradients here
  }
  optimizer.step();
}

// A helper nobody in this file calls: the sum is what it hands back.
void allreduce_gradients(c10d::ProcessGroup &process_group,
                         const std::vector<torch::Tensor> &parameters) {
  for (const auto &parameter : parameters) {
    auto grad = parameter.grad();
    if (!grad.defined())
      continue;
    std::vector<at::Tensor> tensors{grad};
    process_group.allreduce(tensors)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'allreduce' sums the gradients over all ranks and nothing divides them by the world size
  }
}

// An explicit SUM, and a flattened bucket copied back unaveraged.
void flattened_sum(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net &model) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad().reshape({-1}));
  std::vector<at::Tensor> bucket{torch::cat(grads)};
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::SUM;
  pg->allreduce(bucket, options)->wait();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'allreduce' sums the gradients over all ranks
  int64_t offset = 0;
  for (auto &p : model->parameters()) {
    auto n = p.numel();
    p.mutable_grad().copy_(bucket[0].slice(0, offset, offset + n).view_as(p));
    offset += n;
  }
}

// Divided by the world size only for a log line: the quotient is a new
// tensor, read down to a number; the optimizer steps with the sum.
void divided_copy_for_logging(c10d::ProcessGroup &pg, Net &model,
                              torch::optim::SGD &optimizer, double &logged) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad().reshape({-1}));
  std::vector<at::Tensor> bucket{torch::cat(grads)};
  pg.allreduce(bucket)->wait();
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'allreduce' sums the gradients over all ranks
  int64_t offset = 0;
  for (auto &p : model->parameters()) {
    auto n = p.numel();
    p.mutable_grad().copy_(bucket[0].slice(0, offset, offset + n).view_as(p));
    offset += n;
  }
  auto mean = bucket[0] / pg.getSize();
  logged = mean.norm().item<double>();
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: note: the optimizer steps with the summed gradients here
}

// Divided, but not by the world size.
void divided_by_the_batch_count(c10d::ProcessGroup &pg, Net &model,
                                int accumulation_steps) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'allreduce' sums the gradients over all ranks
    p.grad().div_(accumulation_steps);
  }
}

// Averaged on rank 0 only.
void averaged_on_one_rank(c10d::ProcessGroup &pg, Net &model) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'allreduce' sums the gradients over all ranks
    if (pg.getRank() == 0)
      p.grad().div_(pg.getSize());
  }
}

#ifdef WITH_MPI_NCCL_BOOST
void mpi_sum(Net &model) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    MPI_Allreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM,
    // CHECK-MPI: :[[@LINE-1]]:5: warning: 'MPI_Allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step: gradients are summed over N ranks, so the effective learning rate is N times larger; divide them by the size MPI_Comm_size reports, after the reduction [ddp-unaveraged-allreduce]
                  MPI_COMM_WORLD);
  }
}

// The ranks' coordinates kept in a struct filled by MPI: only the field
// MPI_Comm_size writes is the world size.
struct Cluster {
  int id = 0;
  int members = 1;
  int gpus_per_node = 1;
};

Cluster join_cluster() {
  Cluster cluster;
  MPI_Comm_rank(MPI_COMM_WORLD, &cluster.id);
  MPI_Comm_size(MPI_COMM_WORLD, &cluster.members);
  return cluster;
}

// Divided by the wrong field of the struct.
void mpi_divided_by_another_field(const Cluster &cluster, Net &model) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    MPI_Allreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM,
    // CHECK-MPI: :[[@LINE-1]]:5: warning: 'MPI_Allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step
                  MPI_COMM_WORLD);
    grad.div_(cluster.gpus_per_node);
  }
}

// Divided by the number of samples summed over every rank: the gradients
// become the mean over the global batch, an average.
void mpi_divided_by_the_global_sample_count(Net &model, torch::Tensor batch,
                                            torch::optim::SGD &opt) {
  int here = batch.size(0);
  int everywhere = 0;
  MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (auto &p : model->parameters()) {
    MPI_Allreduce(MPI_IN_PLACE, p.grad().data_ptr(), p.grad().numel(),
                  MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    p.grad().div_(everywhere);
  }
  opt.step();
}

// A loss summed over the ranks is no count: dividing gradients by it does
// not average them.
void mpi_divided_by_a_summed_loss(Net &model, torch::Tensor loss,
                                  torch::optim::SGD &opt) {
  double mine = loss.item<double>();
  double total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (auto &p : model->parameters()) {
    MPI_Allreduce(MPI_IN_PLACE, p.grad().data_ptr(), p.grad().numel(),
    // CHECK-MPI: :[[@LINE-1]]:5: warning: 'MPI_Allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step
                  MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    p.grad().div_(total);
  }
  opt.step();
  // CHECK-MPI: :[[@LINE-1]]:7: note: the optimizer steps with the summed gradients here
}

void nccl_sum(Net &model, ncclComm_t comm, cudaStream_t stream) {
  for (auto &p : model->parameters()) {
    float *data = p.mutable_grad().data_ptr<float>();
    ncclAllReduce(data, data, p.numel(), ncclFloat, ncclSum, comm, stream);
    // CHECK-MPI: :[[@LINE-1]]:5: warning: 'ncclAllReduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step: gradients are summed over N ranks, so the effective learning rate is N times larger; reduce with ncclAvg, or divide them by the world size after the reduction [ddp-unaveraged-allreduce]
  }
}

void boost_sum(boost::mpi::communicator &world, Net &model) {
  std::vector<float> flat;
  for (auto &p : model->parameters()) {
    float *g = p.grad().data_ptr<float>();
    flat.insert(flat.end(), g, g + p.numel());
  }
  boost::mpi::all_reduce(world, boost::mpi::inplace(flat.data()),
                         static_cast<int>(flat.size()), std::plus<float>());
  // CHECK-MPI: :[[@LINE-2]]:3: warning: 'all_reduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step: gradients are summed over N ranks, so the effective learning rate is N times larger; divide them by comm.size() after the reduction [ddp-unaveraged-allreduce]
}
#endif

// A reduce-scatter of the flattened gradients (each rank then steps its
// shard) sums too.
void sharded_sum(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net &model,
                 torch::optim::SGD &optimizer) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad().flatten());
  auto flat = torch::cat(grads);
  std::vector<at::Tensor> shard{torch::empty_like(flat.narrow(0, 0, 1))};
  std::vector<std::vector<at::Tensor>> inputs{{flat.narrow(0, 0, 1), flat.narrow(0, 1, 1)}};
  pg->reduce_scatter(shard, inputs)->wait();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'reduce_scatter' sums the gradients over all ranks
  // CHECK-MESSAGES: :[[@LINE+1]]:13: note: the optimizer steps with the summed gradients here
  optimizer.step();
}

// A closure that reduces inside the optimizer step.
void closure_sum(c10d::ProcessGroup &pg, Net &model, torch::optim::SGD &optimizer,
                 torch::Tensor x, torch::Tensor y) {
  optimizer.step([&] {
    optimizer.zero_grad();
    auto loss = F::mse_loss(model->forward(x), y);
    loss.backward();
    for (auto &p : model->parameters()) {
      std::vector<at::Tensor> grads{p.grad()};
      pg.allreduce(grads)->wait();
      // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'allreduce' sums the gradients over all ranks
    }
    return loss;
  });
}

// A helper called from this file by a caller that does not average either.
void sum_grads(c10d::ProcessGroup &pg, std::vector<torch::Tensor> &grads) {
  pg.allreduce(grads)->wait();
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'allreduce' sums the gradients over all ranks
}

void caller_without_average(c10d::ProcessGroup &pg, Net &model,
                            torch::optim::SGD &optimizer) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  sum_grads(pg, grads);
  // CHECK-MESSAGES: :[[@LINE+1]]:13: note: the optimizer steps with the summed gradients here
  optimizer.step();
}

//===----------------------------------------------------------------------===//
// Averaged: correct patterns
//===----------------------------------------------------------------------===//

void divided_in_the_loop(c10d::ProcessGroup &pg, Net &model,
                         torch::optim::SGD &optimizer) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    p.grad().div_(pg.getSize());
  }
  optimizer.step();
}

// A new tensor, the quotient, copied back into the gradients: directly, or
// through a local and a view of it.
void quotient_copied_back(c10d::ProcessGroup &pg, Net &model,
                          torch::optim::SGD &optimizer) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad().reshape({-1}));
  std::vector<at::Tensor> bucket{torch::cat(grads)};
  pg.allreduce(bucket)->wait();
  auto averaged = bucket[0] / pg.getSize();
  int64_t offset = 0;
  for (auto &p : model->parameters()) {
    auto n = p.numel();
    p.mutable_grad().copy_(averaged.slice(0, offset, offset + n).view_as(p));
    offset += n;
  }
  optimizer.step();
}
void quotient_assigned(c10d::ProcessGroup &pg, Net &model,
                       torch::optim::SGD &optimizer) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    p.mutable_grad() = grads[0] / pg.getSize();
  }
  optimizer.step();
}

// Averaged in a second loop, by a world size read from the environment.
void divided_in_a_second_loop(c10d::ProcessGroup &pg, Net &model,
                              torch::optim::SGD &optimizer) {
  const int world = env_int("WORLD_SIZE", 1);
  std::vector<c10::intrusive_ptr<c10d::Work>> pending;
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pending.push_back(pg.allreduce(grads));
  }
  for (auto &work : pending)
    work->wait();
  for (auto &item : model->named_parameters())
    item.value().mutable_grad() = item.value().grad() / world;
  optimizer.step();
}

void multiplied_by_the_reciprocal(c10d::ProcessGroup &pg, Net &model,
                                  torch::optim::SGD &optimizer) {
  const double scale = 1.0 / pg.getSize();
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    p.grad().mul_(scale);
  }
  optimizer.step();
}

void foreach_mul(c10d::ProcessGroup &pg, Net &model, torch::optim::SGD &optimizer,
                 int world_size) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  pg.allreduce_coalesced(grads)->wait();
  at::_foreach_mul_(grads, 1.0 / world_size);
  optimizer.step();
}

// Assignment through .data(), as DOMAIN idioms write it.
void assigned_through_data(c10d::ProcessGroup &pg, Net &model, int n_ranks) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    p.grad().data() = p.grad().data() / n_ranks;
  }
}

void reduce_op_avg(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net &model) {
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::AVG;
  pg->allreduce(grads, options)->wait();
}

void reduce_op_avg_designated(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                              Net &model) {
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  pg->allreduce(grads, c10d::AllreduceOptions{.reduceOp = c10d::ReduceOp::AVG})
      ->wait();
}

void premultiplied_sum(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net &model) {
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::makeNCCLPreMulSum(1.0 / pg->getSize());
  pg->allreduce(grads, options)->wait();
}

// The gradient divided before it is reduced: the sum of the quotients is
// the mean (examples/src/train.cpp's temperature gradient).
void divided_before_the_reduction(c10d::ProcessGroup &pg,
                                  torch::Tensor &temperature,
                                  torch::optim::SGD &optimizer) {
  std::vector<at::Tensor> grads{temperature.mutable_grad().div_(pg.getSize())};
  auto work = pg.allreduce(grads);
  work->wait();
  optimizer.step();
}

// The loss scaled by 1 / world size before backward(): every gradient is
// already divided.
void scaled_loss(c10d::ProcessGroup &pg, Net &model, torch::optim::SGD &optimizer,
                 torch::Tensor x, torch::Tensor y) {
  auto loss = F::mse_loss(model->forward(x), y) / pg.getSize();
  loss.backward();
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
  }
  optimizer.step();
}

#ifdef WITH_MPI_NCCL_BOOST
void mpi_divided(Net &model, torch::optim::SGD &optimizer) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    MPI_Allreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    grad.div_(size);
  }
  optimizer.step();
}

// A loss total summed after the gradients were averaged: the communicator
// and the datatypes the two calls share carry no data from one to the other.
void mpi_loss_total_beside_averaged_gradients(Net &model,
                                              torch::optim::SGD &optimizer,
                                              torch::Tensor loss) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  double epoch_loss = 0, total_loss = 0;
  epoch_loss += loss.item<double>();
  loss.backward();
  for (auto &p : model->named_parameters()) {
    MPI_Allreduce(MPI_IN_PLACE, p.value().grad().data_ptr(),
                  p.value().grad().numel(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    p.value().grad().data() = p.value().grad().data() / ranks;
  }
  MPI_Allreduce(&epoch_loss, &total_loss, 1, MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  optimizer.step();
}

void mpi_raw_buffer(Net &model, std::vector<float> &buffer) {
  int nprocs = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  for (auto &p : model->parameters()) {
    float *grad = p.grad().data_ptr<float>();
    std::copy(grad, grad + p.numel(), buffer.begin());
  }
  MPI_Allreduce(MPI_IN_PLACE, buffer.data(), static_cast<int>(buffer.size()),
                MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (size_t i = 0; i < buffer.size(); ++i)
    buffer[i] /= nprocs;
}

// The world size MPI_Comm_size wrote into a struct's field, read in another
// function.
void mpi_divided_by_the_size_field(const Cluster &cluster, Net &model) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    MPI_Allreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    grad.mul_(1.0 / cluster.members);
  }
}

// MPI_MAX is not a sum.
void mpi_max(Net &model) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    MPI_Allreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_MAX,
                  MPI_COMM_WORLD);
  }
}

void nccl_avg(Net &model, ncclComm_t comm, cudaStream_t stream) {
  for (auto &p : model->parameters()) {
    float *data = p.mutable_grad().data_ptr<float>();
    ncclAllReduce(data, data, p.numel(), ncclFloat, ncclAvg, comm, stream);
  }
}

void nccl_premultiplied(Net &model, ncclComm_t comm, cudaStream_t stream) {
  int count = 1;
  ncclCommCount(comm, &count);
  float scale = 1.0f / count;
  ncclRedOp_t average;
  ncclRedOpCreatePreMulSum(&average, &scale, ncclFloat, ncclScalarHostImmediate, comm);
  for (auto &p : model->parameters()) {
    float *data = p.mutable_grad().data_ptr<float>();
    ncclAllReduce(data, data, p.numel(), ncclFloat, average, comm, stream);
  }
}

// The sum lands in another buffer, which is averaged.
void boost_into_output(boost::mpi::communicator &world, Net &model) {
  for (auto &p : model->parameters()) {
    auto g = p.grad().contiguous();
    std::vector<float> in(g.data_ptr<float>(), g.data_ptr<float>() + g.numel());
    std::vector<float> out(in.size());
    boost::mpi::all_reduce(world, in.data(), static_cast<int>(in.size()),
                           out.data(), std::plus<float>());
    for (auto &v : out)
      v /= world.size();
    std::copy(out.begin(), out.end(), p.grad().data_ptr<float>());
  }
}

void boost_divided(boost::mpi::communicator &world, std::vector<float> &grads) {
  boost::mpi::all_reduce(world, boost::mpi::inplace(grads.data()),
                         static_cast<int>(grads.size()), std::plus<float>());
  for (auto &g : grads)
    g /= world.size();
}
#endif

// A metric, not a gradient (examples/src/dist_utils.cpp's all_reduce_sum).
torch::Tensor all_reduce_sum(c10d::ProcessGroup &pg, const torch::Tensor &values) {
  std::vector<at::Tensor> tensors{values.detach().clone()};
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::SUM;
  pg.allreduce(tensors, options)->wait();
  return tensors.front();
}

double all_reduce_mean(c10d::ProcessGroup &pg, double value) {
  auto total = all_reduce_sum(pg, torch::tensor({value}, torch::kDouble));
  return total.item<double>() / pg.getSize();
}

// A global gradient norm: the sum of squares is the right reduction.
void clip_global_norm(c10d::ProcessGroup &pg, Net &model, double max_norm) {
  auto total = torch::zeros({1});
  for (auto &p : model->parameters())
    total += p.grad().pow(2).sum();
  std::vector<at::Tensor> norm{total};
  pg.allreduce(norm)->wait();
}

// The world size kept by a trainer, from its constructor.
struct Trainer {
  explicit Trainer(c10::intrusive_ptr<c10d::ProcessGroup> pg)
      : pg_(pg), ranks_(pg->getSize()) {}
  void sync(Net &model) {
    for (auto &p : model->parameters()) {
      std::vector<at::Tensor> grads{p.grad()};
      pg_->allreduce(grads)->wait();
      p.grad().div_(ranks_);
    }
  }
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  int64_t ranks_;
};

// The world size handed to a constructor, kept in a field of an unremarkable
// name.
class Averager {
public:
  Averager(c10d::ProcessGroup &pg, int64_t count) : pg_(pg), count_(count) {}
  void sync(Net &model) {
    for (auto &p : model->parameters()) {
      std::vector<at::Tensor> grads{p.grad()};
      pg_.allreduce(grads)->wait();
      p.grad().div_(count_);
    }
  }

private:
  c10d::ProcessGroup &pg_;
  int64_t count_;
};

void averaged_by_a_constructed_helper(c10d::ProcessGroup &pg, Net &model) {
  Averager averager(pg, pg.getSize());
  averager.sync(model);
}

// Averaged by a function defined elsewhere, handed the gradients and
// 1 / world size.
void scale_gradients(Net &model, double factor);

void averaged_by_a_helper(c10d::ProcessGroup &pg, Net &model,
                          torch::optim::SGD &optimizer) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
  }
  scale_gradients(model, 1.0 / pg.getSize());
  optimizer.step();
}

// A summing helper whose every caller averages after it.
void sum_gradients(c10d::ProcessGroup &pg, std::vector<torch::Tensor> &grads) {
  for (auto &g : grads) {
    std::vector<at::Tensor> one{g};
    pg.allreduce(one)->wait();
  }
}

void caller_averages(c10d::ProcessGroup &pg, Net &model,
                     torch::optim::SGD &optimizer) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  sum_gradients(pg, grads);
  for (auto &g : grads)
    g.div_(pg.getSize());
  optimizer.step();
}

#ifdef SCALED_LEARNING_RATE
// An optimizer built with the learning rate divided by the world size that
// nothing steps: it averages no update of the file, so every finding stays
// (see the RUN line above).
void unused_scaled_optimizer(c10d::ProcessGroup &pg, Net &model) {
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.1 / pg.getSize()));
  (void)optimizer;
}
#endif

// The optimizer that steps with the sum has its learning rate divided by the
// world size: that averages its updates instead.
void negative_scaled_learning_rate(c10d::ProcessGroup &pg, Net &model,
                                   torch::Tensor x, torch::Tensor y) {
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.1 / pg.getSize()));
  optimizer.zero_grad();
  F::mse_loss(model->forward(x), y).backward();
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
  }
  optimizer.step();
}

// ... also when the options are scaled on a variable and the optimizer is
// handed to the function that sums and steps.
void sum_then_step(c10d::ProcessGroup &pg, Net &model,
                   torch::optim::Optimizer &optimizer) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
  }
  optimizer.step();
}

void negative_scaled_options_handed_down(c10d::ProcessGroup &pg, Net &model,
                                         torch::Tensor x, torch::Tensor y) {
  torch::optim::SGDOptions options(0.1);
  options.lr(0.1 / pg.getSize());
  auto optimizer =
      std::make_shared<torch::optim::SGD>(model->parameters(), options);
  F::mse_loss(model->forward(x), y).backward();
  sum_then_step(pg, model, *optimizer);
}

// ... also when the learning rate of its parameter group is scaled in place.
void negative_scaled_parameter_group(c10d::ProcessGroup &pg, Net &model,
                                     torch::optim::SGD &optimizer) {
  static_cast<torch::optim::SGDOptions &>(optimizer.param_groups()[0].options())
      .lr(0.1 / pg.getSize());
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
  }
  optimizer.step();
}

// An average in an #ifdef branch this configuration does not build does not
// run: the sum is reported (the RUN line that defines USE_GRADIENT_AVERAGE
// builds it, and the sum is averaged there).
void gated_average(c10d::ProcessGroup &pg, Net &model,
                   torch::optim::SGD &optimizer) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step
    // CHECK-MESSAGES: :[[@LINE+6]]:13: note: the optimizer steps with the summed gradients here
    // AVERAGED-NOT: :[[@LINE-3]]:8: warning:
#ifdef USE_GRADIENT_AVERAGE
    p.grad().div_(pg.getSize());
#endif
  }
  optimizer.step();
}

// A scaled optimizer beside the one that steps averages nothing.
void scaled_optimizer_does_not_step(c10d::ProcessGroup &pg, Net &model,
                                    torch::optim::SGD &optimizer) {
  torch::optim::SGD warmup(model->parameters(),
                           torch::optim::SGDOptions(0.1 / pg.getSize()));
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step
    // CHECK-MESSAGES: :[[@LINE+2]]:13: note: the optimizer steps with the summed gradients here
  }
  optimizer.step();
  (void)warmup;
}

// A helper handed a scaled optimizer by one caller and a plain one by
// another: the plain one steps with the sum.
void sum_then_step_either(c10d::ProcessGroup &pg, Net &model,
                          torch::optim::SGD &optimizer) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step
    // CHECK-MESSAGES: :[[@LINE+2]]:13: note: the optimizer steps with the summed gradients here
  }
  optimizer.step();
}

void steps_scaled(c10d::ProcessGroup &pg, Net &model) {
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.1 / pg.getSize()));
  sum_then_step_either(pg, model, optimizer);
}

void steps_plain(c10d::ProcessGroup &pg, Net &model,
                 torch::optim::SGD &optimizer) {
  sum_then_step_either(pg, model, optimizer);
}

// A summing helper that leaves the sum to its callers: one steps an
// optimizer with a scaled learning rate, the other a plain one, which steps
// with the sum. Every caller must average it, whichever comes first.
void sum_for_either_caller(c10d::ProcessGroup &pg, Net &model) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step
    // CHECK-MESSAGES: :[[@LINE+14]]:13: note: the optimizer steps with the summed gradients here
  }
}

void steps_sum_scaled(c10d::ProcessGroup &pg, Net &model) {
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.1 / pg.getSize()));
  sum_for_either_caller(pg, model);
  optimizer.step();
}

void steps_sum_plain(c10d::ProcessGroup &pg, Net &model,
                     torch::optim::SGD &optimizer) {
  sum_for_either_caller(pg, model);
  optimizer.step();
}

// ... and when the only caller steps at the scaled rate, the update is
// averaged.
void sum_for_scaled_caller(c10d::ProcessGroup &pg, Net &model) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
  }
}

void negative_caller_steps_scaled(c10d::ProcessGroup &pg, Net &model) {
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.1 / pg.getSize()));
  sum_for_scaled_caller(pg, model);
  optimizer.step();
}

// A wrapper reducing a bucket in a gradient hook and averaging it in the
// method that waits for it (examples/src/ddp.h).
class BucketDDP : public torch::nn::Module {
public:
  void synchronize_gradients() {
    if (!pending_)
      return;
    pending_->wait();
    bucket_.div_(pg_->getSize());
  }
  void mark_gradient_ready() {
    std::vector<torch::Tensor> flat;
    for (auto &p : params_)
      flat.push_back(p.grad().reshape({-1}));
    bucket_ = torch::cat(flat);
    std::vector<at::Tensor> tensors{bucket_};
    pending_ = pg_->allreduce(tensors);
  }

private:
  std::vector<torch::Tensor> params_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  torch::Tensor bucket_;
  c10::intrusive_ptr<c10d::Work> pending_;
};

// The operation arrives as a parameter: nothing to say.
void op_from_caller(c10d::ProcessGroup &pg, Net &model,
                    const c10d::AllreduceOptions &options) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads, options)->wait();
  }
}

#ifdef WITH_OPTIONS
namespace fw {
struct Communicator {
  void sum(torch::Tensor &t);
  int count() const;
};
} // namespace fw

void configured_sum(fw::Communicator &comm, Net &model) {
  for (auto &p : model->parameters())
    comm.sum(p.mutable_grad());
  // CHECK-OPTIONS: :[[@LINE-1]]:10: warning: 'sum' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step: gradients are summed over N ranks, so the effective learning rate is N times larger; divide them by the world size after the reduction [ddp-unaveraged-allreduce]
}

void configured_average(fw::Communicator &comm, Net &model) {
  for (auto &p : model->parameters()) {
    comm.sum(p.mutable_grad());
    p.mutable_grad().div_(comm.count());
  }
}

// A framework communicator's size() is its world size.
struct Group {
  void sum(torch::Tensor &t);
  int size() const;
};

void framework_size(fw::Communicator &comm, Group &group, Net &model) {
  for (auto &p : model->parameters()) {
    comm.sum(p.mutable_grad());
    p.mutable_grad().div_(group.size());
  }
}
#endif

// A quotient captured by a lambda that copies it back: a lambda's body is
// not followed, but the capture passes the value on, so it is kept.
void quotient_captured(c10d::ProcessGroup &pg, Net &model,
                       torch::optim::SGD &optimizer) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    auto averaged = grads[0] / pg.getSize();
    auto write_back = [&averaged, &p] { p.mutable_grad().copy_(averaged); };
    write_back();
  }
  optimizer.step();
}

// A SUM all-reduce of a copy of the gradients made for it alone, read down to
// numbers for a log line: the optimizer never sees the sum.
void summed_copy_logged(c10d::ProcessGroup &pg, Net &model,
                        torch::optim::SGD &optimizer) {
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> one{p.grad()};
    pg.allreduce(one)->wait();
    p.grad().div_(pg.getSize());
    grads.push_back(p.grad());
  }
  auto local = torch::cat(grads);
  std::vector<at::Tensor> truth{local.clone()};
  pg.allreduce(truth)->wait();
  std::printf("gradient norm %f\n", truth[0].norm().item<double>());
  // Through a local made for it: the same.
  auto norms = torch::stack(grads);
  std::vector<at::Tensor> stacked{norms};
  pg.allreduce(stacked)->wait();
  double largest = norms.norm().item<double>();
  std::printf("%f\n", largest);
  optimizer.step();
}

// The same copy, read back into the gradients: the sum reaches the step.
void summed_copy_written_back(c10d::ProcessGroup &pg, Net &model,
                              torch::optim::SGD &optimizer) {
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  std::vector<at::Tensor> flat{torch::cat(grads)};
  pg.allreduce(flat)->wait();
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'allreduce' sums the gradients over all ranks
  int64_t offset = 0;
  for (auto &p : model->parameters()) {
    p.grad().copy_(flat[0].slice(0, offset, offset + p.grad().numel()));
    offset += p.grad().numel();
  }
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: note: the optimizer steps with the summed gradients here
}

// Known false positive (docs/checks/ddp-unaveraged-allreduce.md): a SUM
// all-reduce of a copy of the gradients kept as a tensor (a statistic handed
// back to the caller) is reported like a gradient sync, though the optimizer
// never sees it.
void false_positive_summed_copy_for_statistics(c10d::ProcessGroup &pg,
                                               Net &model,
                                               torch::optim::SGD &optimizer,
                                               torch::Tensor &total) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    p.grad().div_(pg.getSize());
  }
  std::vector<at::Tensor> copy{model->fc->weight.grad().clone()};
  pg.allreduce(copy)->wait();
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'allreduce' sums the gradients over all ranks
  total = copy[0];
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: note: the optimizer steps with the summed gradients here
}

// Known false positive: a copy filled after its declaration (push_back) is
// not recognised as made for the collective alone, even when only a log line
// reads it.
void false_positive_copy_filled_later(c10d::ProcessGroup &pg, Net &model,
                                      torch::optim::SGD &optimizer) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> grads{p.grad()};
    pg.allreduce(grads)->wait();
    p.grad().div_(pg.getSize());
  }
  std::vector<at::Tensor> copy;
  copy.push_back(model->fc->weight.grad().clone());
  pg.allreduce(copy)->wait();
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'allreduce' sums the gradients over all ranks
  std::printf("%f\n", copy[0].norm().item<double>());
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: note: the optimizer steps with the summed gradients here
}

// Known false negatives (docs/checks/ddp-unaveraged-allreduce.md):
// - a gradient averaged anywhere earlier in the step counts, even another
//   parameter's;
// - a learning rate divided by the world size anywhere in the file silences
//   every report of the file.

// Summed, then divided by a count summed over every rank (tokens, samples):
// an average over the whole batch. Divided by this rank's own count, the sum
// stays N times too large.
double all_sum(c10d::ProcessGroup &pg, double local) {
  std::vector<at::Tensor> value{torch::tensor({local}, torch::kDouble)};
  pg.allreduce(value)->wait();
  return value[0].item<double>();
}
void divided_by_reduced_count(c10d::ProcessGroup &pg, Net &model,
                              torch::optim::SGD &optimizer, double local_tokens) {
  model->forward(torch::ones({2, 4})).sum().backward();
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  pg.allreduce_coalesced(grads)->wait();
  const double tokens = all_sum(pg, local_tokens);
  for (auto &g : grads)
    g.div_(tokens);
  optimizer.step();
}
void divided_by_local_count(c10d::ProcessGroup &pg, Net &model,
                            torch::optim::SGD &optimizer, double local_tokens) {
  model->forward(torch::ones({2, 4})).sum().backward();
  std::vector<at::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad());
  pg.allreduce_coalesced(grads)->wait();
  // CHECK-MESSAGES: :[[@LINE-1]]:6: warning: 'allreduce_coalesced' sums the gradients over all ranks and nothing divides them by the world size
  for (auto &g : grads)
    g.div_(local_tokens);
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: note: the optimizer steps with the summed gradients here
}

//===----------------------------------------------------------------------===//
// Helpers whose reduction the caller picks
//===----------------------------------------------------------------------===//

namespace helpers {
enum class Op { Sum, Max };
c10::intrusive_ptr<c10d::ProcessGroup> &group();
void allreduce(at::Tensor &t, Op op = Op::Sum) {
  c10d::AllreduceOptions options;
  options.reduceOp = op == Op::Sum ? c10d::ReduceOp::SUM : c10d::ReduceOp::MAX;
  std::vector<at::Tensor> tensors{t};
  group()->allreduce(tensors, options)->wait();
}
void reduce_with(at::Tensor &t, c10d::ReduceOp op) {
  c10d::AllreduceOptions options;
  options.reduceOp = op;
  std::vector<at::Tensor> tensors{t};
  group()->allreduce(tensors, options)->wait();
}
} // namespace helpers

void helper_sums(Net &model, torch::optim::SGD &optimizer) {
  model->forward(torch::ones({2, 4})).sum().backward();
  for (auto &p : model->parameters())
    helpers::allreduce(p.mutable_grad(), helpers::Op::Sum);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step
  // CHECK-MESSAGES: :[[@LINE-15]]:12: note: the sum is taken here, inside 'allreduce'
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: note: the optimizer steps with the summed gradients here
}
void helper_sums_by_default_then_scales(Net &model, torch::optim::SGD &optimizer) {
  model->forward(torch::ones({2, 4})).sum().backward();
  const double scale = 1.0 / helpers::group()->getSize();
  for (auto &p : model->parameters()) {
    helpers::allreduce(p.mutable_grad());
    p.mutable_grad().mul_(scale);
  }
  optimizer.step();
}
void helper_takes_the_maximum(Net &model, torch::optim::SGD &optimizer) {
  model->forward(torch::ones({2, 4})).sum().backward();
  for (auto &p : model->parameters())
    helpers::allreduce(p.mutable_grad(), helpers::Op::Max);
  optimizer.step();
}
void helper_handed_the_op(Net &model, torch::optim::SGD &optimizer) {
  model->forward(torch::ones({2, 4})).sum().backward();
  for (auto &p : model->parameters())
    helpers::reduce_with(p.mutable_grad(), c10d::ReduceOp::SUM);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'reduce_with' sums the gradients over all ranks
  // CHECK-MESSAGES: :[[@LINE-33]]:12: note: the sum is taken here, inside 'reduce_with'
  for (auto &p : model->parameters())
    helpers::reduce_with(p.mutable_grad(), c10d::ReduceOp::AVG);
  optimizer.step();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: note: the optimizer steps with the summed gradients here
}

#ifdef WITH_BROKEN_CODE
// `grad()` is a const reference: no candidate takes it, on any LibTorch.
void sum_into(torch::Tensor &grad, c10d::ProcessGroup &pg, c10d::ReduceOp op) {
  c10d::AllreduceOptions options;
  options.reduceOp = op;
  std::vector<at::Tensor> tensors{grad};
  pg.allreduce(tensors, options)->wait();
}
void broken_call_sums(Net &model, c10d::ProcessGroup &pg, torch::optim::SGD &optimizer) {
  model->forward(torch::ones({2, 4})).sum().backward();
  for (auto &p : model->parameters())
    sum_into(p.grad(), pg, c10d::ReduceOp::SUM);
  // CHECK-ERROR: :[[@LINE-1]]:5: error: no matching function for call to 'sum_into'
  // CHECK-BROKEN: :[[@LINE-2]]:5: warning: 'sum_into' sums the gradients over all ranks and nothing divides them by the world size
  // CHECK-BROKEN: :[[@LINE-8]]:6: note: the sum is taken here, inside 'sum_into'
  optimizer.step();
  // CHECK-BROKEN: :[[@LINE-1]]:13: note: the optimizer steps with the summed gradients here
}
// The same broken call asking for an average.
void broken_call_averages(Net &model, c10d::ProcessGroup &pg, torch::optim::SGD &optimizer) {
  model->forward(torch::ones({2, 4})).sum().backward();
  for (auto &p : model->parameters())
    sum_into(p.grad(), pg, c10d::ReduceOp::AVG);
  // CHECK-ERROR: :[[@LINE-1]]:5: error: no matching function for call to 'sum_into'
  optimizer.step();
}
#endif

//===----------------------------------------------------------------------===//
// Class templates nothing instantiates: analysed as written
//===----------------------------------------------------------------------===//

template <class Model, class Optimizer>
class TemplateLoop {
public:
  template <class DataLoader>
  void summed(DataLoader &loader) {
    for (auto &batch : loader) {
      model_->forward(batch.data).sum().backward();
      for (auto &p : model_->parameters()) {
        std::vector<at::Tensor> grads{p.grad()};
        pg_->allreduce(grads)->wait();
        // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step
      }
      optimizer_.step();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: note: the optimizer steps with the summed gradients here
    }
  }
  template <class DataLoader>
  void averaged(DataLoader &loader) {
    for (auto &batch : loader) {
      model_->forward(batch.data).sum().backward();
      std::vector<at::Tensor> grads;
      for (auto &p : model_->parameters())
        grads.push_back(p.grad());
      pg_->allreduce_coalesced(grads)->wait();
      for (auto &g : grads)
        g.div_(pg_->getSize());
      optimizer_.step();
    }
  }

private:
  Model model_;
  Optimizer optimizer_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
};
