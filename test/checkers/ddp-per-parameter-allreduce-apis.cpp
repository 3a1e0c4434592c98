// ddp-per-parameter-allreduce beyond c10d 1.13: MPI, NCCL, boost::mpi, c10d
// 2.x and a framework communicator named in CollectiveFunctions. Mock headers
// only.
// RUN: %clang_tidy %s -checks='-*,ddp-per-parameter-allreduce' \
// RUN:   -config="{CheckOptions: {CollectiveFunctions: '::fw::Communicator::sum'}}" \
// RUN:   -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW,CHECK-FW -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-per-parameter-allreduce' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
// RUN: %clang_tidy %s -checks='-*,ddp-per-parameter-allreduce' -- %mock_flags -DDDPLINT_MOCK_C10D_V2 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-NEW -implicit-check-not='{{warning|error|note}}:'
// Old c10d (std::shared_ptr<ProcessGroup::Work>, no Backend):
// RUN: %clang_tidy %s -checks='-*,ddp-per-parameter-allreduce' -- %mock_flags -DDDPLINT_MOCK_C10D_OLD 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#ifndef DDPLINT_MOCK_C10D_OLD
#include <torch/csrc/distributed/c10d/Backend.hpp>
#endif
#include <mpi.h>
#include <nccl.h>
#include <boost/mpi.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

void mpi_blocking(Net &model) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    MPI_Allreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
}

void mpi_nonblocking_waited_in_loop(Net &model) {
  for (auto &item : model->named_parameters()) {
    MPI_Request request;
    MPI_Iallreduce(MPI_IN_PLACE, item.value().grad().data_ptr(),
                   item.value().grad().numel(), MPI_FLOAT, MPI_SUM,
                   MPI_COMM_WORLD, &request);
    // CHECK-MESSAGES: :[[@LINE-3]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-6]]:3: note: loop over the parameters here
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
}

void mpi_nonblocking_waited_after_loop(Net &model) {
  std::vector<MPI_Request> requests;
  for (auto &p : model->parameters()) {
    requests.emplace_back();
    MPI_Iallreduce(MPI_IN_PLACE, p.grad().data_ptr(), p.grad().numel(),
                   MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &requests.back());
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one allreduce per parameter: each tensor is a separate collective
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

void nccl_per_parameter(Net &model, ncclComm_t comm, cudaStream_t stream) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat,
                  ncclSum, comm, stream);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
}

void boost_per_parameter(Net &model, boost::mpi::communicator &world) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    boost::mpi::all_reduce(world, boost::mpi::inplace(grad.data_ptr<float>()),
                           static_cast<int>(grad.numel()), std::plus<float>());
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
}

#ifndef DDPLINT_MOCK_C10D_OLD
void backend_per_parameter(Net &model, c10d::Backend &backend) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p.grad()};
    backend.allreduce(tensors)->wait();
    // CHECK-NEW: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-NEW: :[[@LINE-4]]:3: note: loop over the parameters here
  }
}
#endif

void process_group_waited_local(Net &model, c10d::ProcessGroup &pg) {
  for (auto &p : model->parameters()) {
    std::vector<at::Tensor> tensors{p.grad()};
    auto work = pg.allreduce(tensors);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
    work->wait();
  }
}

namespace fw {
struct Communicator {
  void sum(torch::Tensor &t);
};
} // namespace fw

void framework_per_parameter(Net &model, fw::Communicator &comm) {
  for (auto &p : model->parameters()) {
    comm.sum(p.mutable_grad());
    // CHECK-FW: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-FW: :[[@LINE-3]]:3: note: loop over the parameters here
  }
}

// An index loop over the parameters.
void index_loop(Net &model) {
  auto params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    auto grad = params[i].grad();
    MPI_Allreduce(MPI_IN_PLACE, grad.data_ptr(), grad.numel(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
}

// A framework of the project's own: layers with gradient buffers that are
// not spelled grad(), reduced through a function declared here and defined
// in another file (named for the collective it issues).
struct Layer {
  std::vector<float> dw_, db_;
  float *params_gradients;
  int param_size;
  std::vector<float> moveGradients();
};
namespace fw {
void allReduce(std::vector<float> &values);
}

void layer_fields(std::vector<Layer> &layers) {
  for (auto &l : layers) {
    MPI_Allreduce(MPI_IN_PLACE, l.dw_.data(), (int)l.dw_.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
  }
}

void layer_index(std::vector<Layer *> &network, int layers, ncclComm_t comm,
                 cudaStream_t stream) {
  for (int i = layers - 1; i >= 0; --i) {
    ncclAllReduce(network[i]->params_gradients, network[i]->params_gradients,
                  network[i]->param_size, ncclFloat, ncclSum, comm, stream);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
  }
}

void layer_local(std::vector<Layer> &layers) {
  for (size_t i = 0; i < layers.size(); ++i) {
    auto &layer = layers[i];
    std::vector<float> gradient = layer.moveGradients();
    fw::allReduce(gradient);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
}

void nabla_tables(std::vector<float *> &nabla_w, std::vector<float *> &sums,
                  std::vector<int> &sizes) {
  for (size_t i = 0; i < nabla_w.size(); i++)
    MPI_Reduce(nabla_w[i], sums[i], sizes[i], MPI_FLOAT, MPI_SUM, 0,
               MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one blocking reduce per parameter
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
}

// Layers kept in a linked list, walked with a pointer.
struct ListLayer {
  ListLayer *next;
  double *gradients;
  int nnodes;
  int visits;
};

void layer_list(ListLayer *input) {
  ListLayer *current = input;
  while (current != nullptr) {
    MPI_Allreduce(MPI_IN_PLACE, current->gradients, current->nnodes,
                  MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
    current = current->next;
  }
}

// OK: the walk only counts; the one buffer it sums is not the layer's.
void layer_list_counts(ListLayer *input, double *flat, int total) {
  int layers = 0;
  for (ListLayer *l = input; l != nullptr; l = l->next)
    ++layers;
  MPI_Allreduce(MPI_IN_PLACE, flat, total, MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  ListLayer *current = input;
  while (current != nullptr) {
    MPI_Allreduce(MPI_IN_PLACE, &current->visits, 1, MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    current = current->next;
  }
}

// A second loop over the gradients a first loop collected.
void gradients_container(Net &model) {
  std::vector<torch::Tensor> gradients;
  for (auto &p : model->parameters())
    gradients.push_back(p.grad());
  for (auto &g : gradients)
    MPI_Allreduce(MPI_IN_PLACE, g.data_ptr(), g.numel(), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one blocking allreduce per parameter
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
}

//===----------------------------------------------------------------------===//
// Correct patterns
//===----------------------------------------------------------------------===//

// One flat gradient buffer in chunks under MPI's count limit, and buckets of
// gradients: already coalesced.
void negative_flat_chunks(float *grads, size_t count) {
  const size_t limit = 1u << 30;
  for (size_t offset = 0; offset < count; offset += limit)
    MPI_Allreduce(MPI_IN_PLACE, grads + offset,
                  (int)std::min(limit, count - offset), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
}
void negative_buckets(std::vector<std::vector<float>> &grad_buckets) {
  for (auto &bucket : grad_buckets)
    MPI_Allreduce(MPI_IN_PLACE, bucket.data(), (int)bucket.size(), MPI_FLOAT,
                  MPI_SUM, MPI_COMM_WORLD);
}

// Every rank the root in turn of its own weights: a broadcast, at start-up.
void negative_each_root(std::vector<float *> &weights, int count, int world) {
  for (int r = 0; r < world; ++r)
    MPI_Bcast(weights[r], count, MPI_FLOAT, r, MPI_COMM_WORLD);
}

// One collective per device, in one NCCL group opened and closed through
// helpers of the class: fused into one launch.
struct Devices {
  std::vector<float *> grads;
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  size_t count;
  void groupStart() const { ncclGroupStart(); }
  void groupEnd() const { ncclGroupEnd(); }
  void reduce() const {
    groupStart();
    for (size_t i = 0; i < grads.size(); ++i)
      ncclAllReduce(grads[i], grads[i], count, ncclFloat, ncclSum, comms[i],
                    streams[i]);
    groupEnd();
  }
};

// A model averaged once after training, a parameter at a time: the rounds
// are paid once, not every step.
void negative_average_after_training(Net &model, int steps) {
  for (int step = 0; step < steps; ++step)
    model->forward(torch::ones({1, 4})).sum().backward();
  auto param = model->parameters();
  for (size_t i = 0; i < param.size(); ++i)
    MPI_Allreduce(MPI_IN_PLACE, param[i].data_ptr(), param[i].numel(),
                  MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

// The same index loop over the gradients: a per-step shape wherever it sits.
void gradients_by_index(Net &model) {
  auto param = model->parameters();
  for (size_t i = 0; i < param.size(); ++i)
    MPI_Allreduce(MPI_IN_PLACE, param[i].grad().data_ptr(),
                  param[i].grad().numel(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one blocking allreduce per parameter
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
}

// A loop over steps that reduces the whole gradient buffer once a step.
void negative_steps(float *grads, int count, int steps) {
  for (int step = 0; step < steps; ++step)
    MPI_Allreduce(MPI_IN_PLACE, grads, count, MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
}

// NCCL fuses the calls of a group into one launch.
void negative_nccl_group(Net &model, ncclComm_t comm, cudaStream_t stream) {
  ncclGroupStart();
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat,
                  ncclSum, comm, stream);
  }
  ncclGroupEnd();
}

// A group opened and closed around the devices of one parameter fuses the
// devices' calls only: every parameter is still a launch of its own.
void nccl_group_per_parameter(Net &model, std::vector<ncclComm_t> &comms,
                              std::vector<cudaStream_t> &streams) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    ncclGroupStart();
    for (size_t d = 0; d < comms.size(); ++d)
      ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat,
                    ncclSum, comms[d], streams[d]);
    // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: one allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-7]]:3: note: loop over the parameters here
    ncclGroupEnd();
  }
}

// A group opened once per kind of gradient tensor that reduces every
// layer's slice on one communicator fuses the layers' calls into one.
void negative_group_per_tensor_kind(Net &model, int layers, ncclComm_t comm,
                                    cudaStream_t stream) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    size_t slice = grad.numel() / layers;
    ncclGroupStart();
    for (int l = 0; l < layers; ++l)
      ncclAllReduce(static_cast<float *>(grad.data_ptr()) + l * slice,
                    static_cast<float *>(grad.data_ptr()) + l * slice, slice,
                    ncclFloat, ncclSum, comm, stream);
    ncclGroupEnd();
  }
}

void negative_mpi_flat(Net &model) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model->parameters())
    grads.push_back(p.grad().reshape({-1}));
  auto flat = torch::cat(grads);
  MPI_Allreduce(MPI_IN_PLACE, flat.data_ptr(), flat.numel(), MPI_FLOAT, MPI_SUM,
                MPI_COMM_WORLD);
}

void negative_mpi_broadcast_once(Net &model) {
  for (auto &p : model->parameters())
    MPI_Bcast(p.data_ptr(), p.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
}

// A framework's own tensor type in class templates nothing instantiates:
// the MPI call's buffer depends on the template parameter, so clang leaves
// the call unresolved; its name finds one MPI function.
template <typename T> struct HomeTensor {
  T *data();
  long size() const;
  std::shared_ptr<HomeTensor> getGrad();
};

template <typename T> struct TemplateMpiTrainer {
  std::vector<std::shared_ptr<HomeTensor<T>>> params;
  void sync_gradients() {
    for (std::shared_ptr<HomeTensor<T>> &param : params)
      MPI_Allreduce(MPI_IN_PLACE, param->getGrad()->data(),
                    param->getGrad()->size(), MPI_DOUBLE, MPI_SUM,
                    MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-3]]:7: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:5: note: loop over the parameters here
  }
  // Start-up broadcasts, and reductions of values that are not the
  // parameters' gradients: silent.
  void broadcast_parameters() {
    for (std::shared_ptr<HomeTensor<T>> &param : params)
      MPI_Bcast(param->data(), param->size(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  void sync_losses(std::vector<std::shared_ptr<HomeTensor<T>>> &losses) {
    for (auto &loss : losses)
      MPI_Allreduce(MPI_IN_PLACE, loss->data(), loss->size(), MPI_DOUBLE,
                    MPI_SUM, MPI_COMM_WORLD);
  }
};

// boost::mpi's function templates, left unresolved the same way: each
// parameter's gradient gathered to the root on its own.
template <typename T> struct BoostGatherTrainer {
  std::vector<std::shared_ptr<HomeTensor<T>>> params;
  void average_on_root(boost::mpi::communicator &world) {
    for (std::shared_ptr<HomeTensor<T>> &param : params) {
      auto grad = param->getGrad();
      std::vector<decltype(grad)> all;
      if (world.rank() == 0)
        boost::mpi::gather(world, grad, all, 0);
      // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: one blocking gather per parameter
      // CHECK-MESSAGES: :[[@LINE-6]]:5: note: loop over the parameters here
      else
        boost::mpi::gather(world, grad, 0);
      // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: one blocking gather per parameter
      // CHECK-MESSAGES: :[[@LINE-10]]:5: note: loop over the parameters here
    }
  }
};

template <typename T> struct GradTable {
  HomeTensor<T> *get(void *var);
};
template <typename T> struct DistSGD {
  void grad_reduce(const std::vector<void *> &weights, GradTable<T> &grad_table) {
    for (auto w = weights.begin(); w != weights.end(); ++w) {
      HomeTensor<T> *grad = grad_table.get(*w);
      MPI_Allreduce(MPI_IN_PLACE, grad->data(), grad->size(), MPI_FLOAT,
                    MPI_SUM, MPI_COMM_WORLD);
      // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: one blocking allreduce per parameter
      // CHECK-MESSAGES: :[[@LINE-5]]:5: note: loop over the parameters here
    }
  }
};

// A hand-rolled all-reduce in two helpers: rank 0 gathers each gradient,
// sums and broadcasts it back; the others send theirs and receive. Called
// once per parameter, it is a per-parameter sync whichever side runs it.
void gather_and_average(torch::Tensor &g, int world) {
  std::vector<float> all(g.numel() * world);
  MPI_Gather(g.data_ptr<float>(), (int)g.numel(), MPI_FLOAT, all.data(),
             (int)g.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
  MPI_Bcast(g.data_ptr<float>(), (int)g.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
}
void send_and_receive(torch::Tensor &g) {
  MPI_Gather(g.data_ptr<float>(), (int)g.numel(), MPI_FLOAT, nullptr, 0,
             MPI_FLOAT, 0, MPI_COMM_WORLD);
  MPI_Bcast(g.data_ptr<float>(), (int)g.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
}
void gathered_per_parameter(torch::nn::Module &model, int rank, int world) {
  for (auto &p : model.parameters()) {
    torch::Tensor g = p.grad();
    if (rank == 0)
      gather_and_average(g, world);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'gather_and_average' issues one blocking gather per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
    // CHECK-MESSAGES: :[[@LINE-16]]:3: note: the collective is issued here, inside 'gather_and_average'
    else
      send_and_receive(g);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'send_and_receive' issues one blocking gather per parameter
    // CHECK-MESSAGES: :[[@LINE-10]]:3: note: loop over the parameters here
    // CHECK-MESSAGES: :[[@LINE-16]]:3: note: the collective is issued here, inside 'send_and_receive'
  }
}

// A helper that broadcasts each parameter hands out a start: silent.
void broadcast_one(torch::Tensor &t) {
  MPI_Bcast(t.data_ptr<float>(), (int)t.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
}
void negative_broadcast_helper_per_parameter(torch::nn::Module &model) {
  for (auto &p : model.parameters()) {
    torch::Tensor w = p.detach();
    broadcast_one(w);
  }
}

// A communication layer of the project whose methods are defined in
// another unit: what start() and finish() do is out of sight.
struct CommHandler {
  virtual ~CommHandler() = default;
  virtual void start() = 0;
  virtual void finish() = 0;
  virtual void all_reduce(torch::Tensor &t, c10d::ReduceOp op) = 0;
  virtual int rank() const = 0;
  virtual void synchronize() = 0;
  virtual void set_timeout(int seconds) = 0;
  virtual void start_timer() = 0;
  virtual void stop_timer() = 0;
};
struct StepTimer {
  void start();
};

// Brackets out of sight on the handler the all-reduces go through may open
// and close a group (an NCCL override defined elsewhere): not shown to be
// one launch per parameter, so silent.
struct BucketSync {
  std::shared_ptr<CommHandler> handler_;
  void negative_flush_between_brackets(std::vector<torch::Tensor> &grads) {
    handler_->start();
    for (auto &grad : grads)
      handler_->all_reduce(grad, c10d::ReduceOp::SUM);
    handler_->finish();
  }
};

// Out of sight, but on another object: no bracket of the handler's group.
void flush_after_timer(CommHandler &handler, StepTimer &timer, Net &model) {
  timer.start();
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    handler.all_reduce(grad, c10d::ReduceOp::SUM);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
  }
}

// A query out of sight on the same object (its rank, used in a condition)
// is no bracket: it opens no group.
void flush_and_report(CommHandler &handler, Net &model) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    handler.all_reduce(grad, c10d::ReduceOp::SUM);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
    if (handler.rank() == 0)
      grad.zero_();
  }
}

// Out of sight inside the loop: a call after each all-reduce brackets no
// group around the loop.
void flush_and_synchronize(CommHandler &handler, Net &model) {
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    handler.all_reduce(grad, c10d::ReduceOp::SUM);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
    handler.synchronize();
  }
}

// One call out of sight before the loop and none after it: no pair of
// brackets around the collectives.
void flush_after_setting_up(CommHandler &handler, Net &model) {
  handler.set_timeout(30);
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    handler.all_reduce(grad, c10d::ReduceOp::SUM);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
  }
}

// Brackets on another object's handler are not this handler's.
struct Pipeline {
  std::shared_ptr<CommHandler> handler_;
};
void flush_through_other_handler(Pipeline &first, Pipeline &second,
                                 Net &model) {
  first.handler_->start();
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    second.handler_->all_reduce(grad, c10d::ReduceOp::SUM);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: loop over the parameters here
  }
  first.handler_->finish();
}

// A helper that opens and closes a group of its own leaves none open for
// the loop after it.
void sync_buffers(std::vector<float *> &buffers, size_t count, ncclComm_t comm,
                  cudaStream_t stream) {
  ncclGroupStart();
  for (float *b : buffers)
    ncclAllReduce(b, b, count, ncclFloat, ncclSum, comm, stream);
  ncclGroupEnd();
}
void sync_after_buffers(Net &model, std::vector<float *> &buffers,
                        ncclComm_t comm, cudaStream_t stream) {
  sync_buffers(buffers, 16, comm, stream);
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    ncclAllReduce(grad.data_ptr(), grad.data_ptr(), grad.numel(), ncclFloat,
                  ncclSum, comm, stream);
    // CHECK-MESSAGES: :[[@LINE-2]]:5: warning: one allreduce per parameter
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
  }
}

// A known limit: calls out of sight on the same handler around the loop
// that open no group (a timer started and stopped) cannot be told from
// brackets, so the one-per-parameter all-reduces go unreported.
void false_negative_timed_flush(CommHandler &handler, Net &model) {
  handler.start_timer();
  for (auto &p : model->parameters()) {
    auto grad = p.grad();
    handler.all_reduce(grad, c10d::ReduceOp::SUM);
  }
  handler.stop_timer();
}

// A homegrown Adam whose root's step is handed out every step: one blocking
// broadcast per parameter tensor, from a function the
// training loop calls. Start-up broadcasts are paid once; these are paid
// every step.
struct HandTensor {
  float *data;
  int numel;
};
struct HandAdam {
  HandTensor **params;
  HandTensor *m;
  int count;
};
void hand_adam_step(HandAdam &opt) {
  for (int i = 0; i < opt.count; ++i) {
    HandTensor *param = opt.params[i];
    HandTensor *m = &opt.m[i];
    MPI_Bcast(param->data, param->numel, MPI_FLOAT, 0, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: one blocking broadcast per parameter in a loop that runs again and again: every round hands out one tensor with its own launch and latency; flatten the tensors into one buffer (torch::cat, one broadcast, copy back), use broadcast_coalesced, or hand them out once [ddp-per-parameter-allreduce]
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: loop over the parameters here
    // A known false negative: the moment reached through `&opt.m[i]` is
    // not taken for a tensor of the iteration, so its broadcast is silent.
    MPI_Bcast(m->data, m->numel, MPI_FLOAT, 0, MPI_COMM_WORLD);
  }
}
void hand_train(HandAdam &opt, int steps) {
  for (int s = 0; s < steps; ++s)
    hand_adam_step(opt);
}

// The start-up helper of the negative above, called in the epoch loop: the
// parameters are handed out again every epoch, one round each.
void rebroadcast_every_epoch(torch::nn::Module &model, int epochs) {
  for (int e = 0; e < epochs; ++e)
    for (auto &p : model.parameters()) {
      torch::Tensor w = p.detach();
      broadcast_one(w);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'broadcast_one' issues one blocking broadcast per parameter in a loop that runs again and again
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: loop over the parameters here
      // CHECK-MESSAGES: :{{[0-9]+}}:3: note: the collective is issued here, inside 'broadcast_one'
    }
}

// A start-up broadcast that walks the modules, then each module's
// parameters: the outer loop walks with the inner one, it does not repeat
// it. Silent, also through a helper handed each module.
void negative_startup_over_modules(
    std::vector<std::shared_ptr<torch::nn::Module>> &modules) {
  for (auto &m : modules)
    for (auto &p : m->parameters())
      MPI_Bcast(p.data_ptr(), (int)p.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
}
void broadcast_module(torch::nn::Module &m) {
  for (auto &p : m.parameters())
    MPI_Bcast(p.data_ptr(), (int)p.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
}
void negative_startup_helper_per_module(
    std::vector<std::shared_ptr<torch::nn::Module>> &modules) {
  for (auto &m : modules)
    broadcast_module(*m);
}

// The same start-up walk over a homegrown network, each layer's weights
// taken into a local first: the local is made from what the outer loop
// walks.
struct HandOutput {
  float *get_ptr();
  int get_size();
};
struct HandWeight {
  HandOutput *get_output_tensor();
};
struct HandLayer {
  std::vector<HandWeight *> get_weights();
};
void negative_startup_over_layer_locals(std::vector<HandLayer *> &layers) {
  for (HandLayer *layer : layers) {
    std::vector<HandWeight *> weights = layer->get_weights();
    for (HandWeight *weight : weights) {
      HandOutput *out = weight->get_output_tensor();
      MPI_Bcast(out->get_ptr(), out->get_size(), MPI_FLOAT, 0, MPI_COMM_WORLD);
    }
  }
}

// A new model built each time round a benchmark loop, its start handed out
// once: each round hands out another model's start, not the same one again.
void negative_new_model_each_round(const std::vector<int> &batch_sizes) {
  for (int batch_size : batch_sizes) {
    Net model;
    for (auto &p : model->parameters())
      MPI_Bcast(p.data_ptr(), (int)p.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
    (void)batch_size;
  }
}

// The same model's parameters handed out again every round: reported.
void rebroadcast_same_model(Net &model, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    Net &same = model;
    for (auto &p : same->parameters())
      MPI_Bcast(p.data_ptr(), (int)p.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: one blocking broadcast per parameter in a loop that runs again and again
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: loop over the parameters here
  }
}
