// Both entry points, the clang-tidy plugin and the driver, on the mock headers
// (MPI included):
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' -- %mock_flags -DWITH_MPI 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- %mock_flags -DWITH_MPI 2> %t.err \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// The same findings with the c10d of LibTorch 2.x and of 1.7 and before:
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- %mock_flags -DWITH_MPI -DDDPLINT_MOCK_C10D_V2 2> %t.err2 \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err2
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- %mock_flags -DWITH_MPI -DDDPLINT_MOCK_C10D_OLD 2> %t.err3 \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err3
//
// A call that does not type-check is still a collective site when a
// candidate of this unit issues one:
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-divergent-collective' -- %mock_flags -DWITH_MPI -DWITH_BROKEN_CODE 2> %t.broken.err \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI,CHECK-BROKEN -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck %s -check-prefix=CHECK-ERROR -implicit-check-not='error:' < %t.broken.err
//
// RankVariables adds names that hold the rank:
// RUN: %clang_tidy %s -checks='-*,ddp-divergent-collective' \
// RUN:   -config="{CheckOptions: {RankVariables: 'me'}}" \
// RUN:   -- %mock_flags -DWITH_MPI -DWITH_RANK_VARIABLES 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-MPI,CHECK-NAMES -implicit-check-not='{{warning|error|note}}:'
//
// test/integration runs this same file against the real LibTorch headers,
// without WITH_MPI (Debian's LibTorch does not bring MPI).

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#ifdef WITH_MPI
#include <mpi.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

using c10d::ProcessGroup;

struct Context {
  int rank = 0;
  int world_size = 1;
  c10::intrusive_ptr<ProcessGroup> process_group;
  bool is_main() const { return rank == 0; }
};

// Defined in another translation unit; they are handed the process group,
// so they are taken to issue collectives (and to return reduced values).
void sync_gradients(ProcessGroup &pg, torch::nn::Module &model);
double all_reduce_mean(ProcessGroup &pg, double value);

using Dataset = torch::data::datasets::MapDataset<
    torch::data::datasets::TensorDataset,
    torch::data::transforms::Stack<torch::data::TensorExample>>;
using Loader = torch::data::StatelessDataLoader<
    Dataset, torch::data::samplers::DistributedRandomSampler>;

void allreduce_one(ProcessGroup &pg, const torch::Tensor &t) {
  std::vector<at::Tensor> tensors{t};
  pg.allreduce(tensors)->wait();
}

//===----------------------------------------------------------------------===//
// Gradient presence (seed 001)
//===----------------------------------------------------------------------===//

void reduce_defined_gradients(torch::nn::Module &model, ProcessGroup &pg) {
  for (auto &p : model.parameters()) {
    if (p.grad().defined()) {
      std::vector<at::Tensor> tensors{p.grad()};
      pg.allreduce(tensors)->wait();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: collective 'allreduce' runs only on ranks where a condition that depends on whether this rank has a gradient holds; ranks that skip it wait forever in their next collective (the job hangs); materialise a zero gradient (torch::zeros_like) instead of skipping, and reduce on every rank [ddp-divergent-collective]
      // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on whether this rank has a gradient
    }
  }
}

void skip_undefined_gradients(const std::vector<torch::Tensor> &parameters,
                              ProcessGroup &pg) {
  for (const auto &parameter : parameters) {
    auto grad = parameter.grad();
    if (!grad.defined()) {
      continue;
    }
    std::vector<at::Tensor> tensors{grad};
    pg.allreduce(tensors)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'allreduce' is skipped by ranks that leave early through 'continue' on a condition that depends on whether this rank has a gradient; the ranks that stay wait forever in it (the job hangs); materialise a zero gradient (torch::zeros_like) instead of skipping, and reduce on every rank [ddp-divergent-collective]
    // CHECK-MESSAGES: :[[@LINE-6]]:9: note: this condition depends on whether this rank has a gradient
    // CHECK-MESSAGES: :[[@LINE-6]]:7: note: ranks where it holds leave through this 'continue'
  }
}

// An undefined gradient has no elements: `numel() != 0` asks whether this
// rank has one.
void broadcast_with_gradient(torch::Tensor &tensor, ProcessGroup &pg) {
  bool has_grad = tensor.grad().numel() != 0;
  if (has_grad) {
    std::vector<at::Tensor> grads{tensor.mutable_grad()};
    pg.broadcast(grads)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'broadcast' runs only on ranks where a condition that depends on whether this rank has a gradient holds
    // CHECK-MESSAGES: :[[@LINE-4]]:7: note: this condition depends on whether this rank has a gradient
    // CHECK-MESSAGES: :[[@LINE-6]]:19: note: whether the gradient exists is read here
  }
  std::vector<at::Tensor> tensors{tensor};
  pg.broadcast(tensors)->wait();
}

// The number of elements of a parameter is the model's, the same everywhere.
void negative_parameter_numel(torch::Tensor &parameter, ProcessGroup &pg) {
  if (parameter.numel() != 0) {
    std::vector<at::Tensor> tensors{parameter};
    pg.broadcast(tensors)->wait();
  }
}

#ifdef WITH_MPI
void named_parameters_mpi(torch::nn::Module &model) {
  for (auto &item : model.named_parameters()) {
    auto &g = item.value().mutable_grad();
    if (g.defined())
      MPI_Allreduce(MPI_IN_PLACE, g.data_ptr(), g.numel(), MPI_FLOAT, MPI_SUM,
      // CHECK-MPI: :[[@LINE-1]]:7: warning: collective 'MPI_Allreduce' runs only on ranks where a condition that depends on whether this rank has a gradient holds
      // CHECK-MPI: :[[@LINE-3]]:9: note: this condition depends on whether this rank has a gradient
                    MPI_COMM_WORLD);
  }
}
#endif

//===----------------------------------------------------------------------===//
// The rank
//===----------------------------------------------------------------------===//

void broadcast_from_rank_zero(ProcessGroup &pg, torch::Tensor state) {
  if (pg.getRank() == 0) {
    std::vector<at::Tensor> tensors{state};
    pg.broadcast(tensors)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'broadcast' runs only on ranks where a condition that depends on the rank holds; ranks that skip it wait forever in their next collective (the job hangs); issue it on every rank (a root/non-root split must call the matching collective on both sides) [ddp-divergent-collective]
    // CHECK-MESSAGES: :[[@LINE-4]]:7: note: this condition depends on the rank
  }
}

int my_rank(ProcessGroup &pg) { return pg.getRank(); }

void rank_through_helper(ProcessGroup &pg) {
  const int r = my_rank(pg);
  const bool leader = r == 0;
  if (leader)
    pg.barrier()->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'barrier' runs only on ranks where a condition that depends on the rank holds
    // CHECK-MESSAGES: :[[@LINE-3]]:7: note: this condition depends on the rank
    // CHECK-MESSAGES: :[[@LINE-6]]:17: note: the rank comes from here
}

void rank_member_and_short_circuit(Context &context, bool verbose) {
  if (context.is_main() && verbose)
    context.process_group->barrier()->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'barrier' runs only on ranks where a condition that depends on the rank holds
    // CHECK-MESSAGES: :[[@LINE-3]]:7: note: this condition depends on the rank
}

void early_return_on_rank(ProcessGroup &pg, torch::Tensor t) {
  if (pg.getRank() != 0)
    return;
  allreduce_one(pg, t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'allreduce_one', which issues collective 'allreduce', is skipped by ranks that leave early through 'return' on a condition that depends on the rank; the ranks that stay wait forever in it (the job hangs); issue it on every rank (a root/non-root split must call the matching collective on both sides) [ddp-divergent-collective]
  // CHECK-MESSAGES: :[[@LINE-4]]:7: note: this condition depends on the rank
  // CHECK-MESSAGES: :[[@LINE-4]]:5: note: ranks where it holds leave through this 'return'
  // CHECK-MESSAGES: :[[@LINE-108]]:3: note: the collective is issued here, inside 'allreduce_one'
}

void rank_from_environment(ProcessGroup &pg) {
  const char *rank_env = std::getenv("RANK");
  if (rank_env && std::atoi(rank_env) == 0)
    pg.barrier()->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'barrier' runs only on ranks where a condition that depends on the rank holds
    // CHECK-MESSAGES: :[[@LINE-3]]:7: note: this condition depends on the rank
    // CHECK-MESSAGES: :[[@LINE-5]]:26: note: the rank comes from here
}

#ifdef WITH_MPI
void mpi_rank_output(float *buffer, int count) {
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (me == 0)
    MPI_Bcast(buffer, count, MPI_FLOAT, 0, MPI_COMM_WORLD);
    // CHECK-MPI: :[[@LINE-1]]:5: warning: collective 'MPI_Bcast' runs only on ranks where a condition that depends on the rank holds
    // CHECK-MPI: :[[@LINE-3]]:7: note: this condition depends on the rank
    // CHECK-MPI: :[[@LINE-5]]:3: note: the rank comes from here
}
#endif

void rank_dependent_trip_count(ProcessGroup &pg, int local_rank) {
  for (int i = 0; i < local_rank; ++i)
    pg.barrier()->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'barrier' runs only on ranks where a condition that depends on the rank holds
    // CHECK-MESSAGES: :[[@LINE-3]]:19: note: this condition depends on the rank
}

class Trainer {
public:
  explicit Trainer(c10::intrusive_ptr<ProcessGroup> pg) : pg_(std::move(pg)) {
    is_root_ = pg_->getRank() == 0;
  }
  void share(torch::Tensor t) {
    if (is_root_) {
      std::vector<at::Tensor> tensors{t};
      pg_->broadcast(tensors)->wait();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: collective 'broadcast' runs only on ranks where a condition that depends on the rank holds
      // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on the rank
    }
  }

private:
  c10::intrusive_ptr<ProcessGroup> pg_;
  bool is_root_ = false;
};

// The condition is on a parameter; a caller passes something that differs.
void sync_if(ProcessGroup &pg, const torch::Tensor &grad, bool has_grad) {
  if (has_grad)
    allreduce_one(pg, grad);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'allreduce_one', which issues collective 'allreduce', runs only on ranks where a condition that depends on whether this rank has a gradient holds
    // CHECK-MESSAGES: :[[@LINE-3]]:7: note: this condition depends on whether this rank has a gradient
    // CHECK-MESSAGES: :[[@LINE+6]]:27: note: whether the gradient exists is read here
    // CHECK-MESSAGES: :[[@LINE-165]]:3: note: the collective is issued here, inside 'allreduce_one'
}

void sync_if_caller(torch::nn::Module &model, ProcessGroup &pg) {
  for (auto &p : model.parameters())
    sync_if(pg, p.grad(), p.grad().defined());
}

#ifdef WITH_RANK_VARIABLES
void named_rank(ProcessGroup &pg, int me) {
  if (me == 0)
    pg.barrier()->wait();
    // CHECK-NAMES: :[[@LINE-1]]:5: warning: collective 'barrier' runs only on ranks where a condition that depends on the rank holds
    // CHECK-NAMES: :[[@LINE-3]]:7: note: this condition depends on the rank
}
#endif

//===----------------------------------------------------------------------===//
// Data local to a rank
//===----------------------------------------------------------------------===//

void local_loss_early_stop(Loader &loader, torch::nn::Module &model,
                           ProcessGroup &pg, int epochs, double target) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    double loss_sum = 0.0;
    int64_t batches = 0;
    for (auto &batch : loader) {
      auto loss = batch.data.sum();
      sync_gradients(pg, model);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'sync_gradients', which is handed the communicator and so issues collectives, is skipped from the next iteration on by ranks that leave early through 'break' on a condition that depends on this rank's own data (a loss or metric that was not reduced across ranks); the ranks that stay wait forever in it (the job hangs); reduce the value across ranks before testing it, so that every rank takes the same branch [ddp-divergent-collective]
      // CHECK-MESSAGES: :[[@LINE+9]]:9: note: this condition depends on this rank's own data
      // CHECK-MESSAGES: :[[@LINE+9]]:7: note: ranks where it holds leave through this 'break'
      // CHECK-MESSAGES: :[[@LINE-6]]:24: note: this rank's own data comes from here
      loss_sum += loss.item<double>();
      ++batches;
    }
    const double epoch_loss = loss_sum / static_cast<double>(batches);
    const double mean_loss = all_reduce_mean(pg, epoch_loss);
    (void)mean_loss;
    if (epoch_loss < target)
      break;
  }
}

void batch_counter(Loader &loader, torch::nn::Module &model, ProcessGroup &pg) {
  int64_t batches = 0;
  for (auto &batch : loader) {
    (void)batch;
    ++batches;
  }
  if (batches > 0)
    sync_gradients(pg, model);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'sync_gradients', which is handed the communicator and so issues collectives, runs only on ranks where a condition that depends on how many batches this rank processed holds
    // CHECK-MESSAGES: :[[@LINE-3]]:7: note: this condition depends on how many batches this rank processed
    // CHECK-MESSAGES: :[[@LINE-8]]:3: note: this loop counts this rank's batches
}

void loader_exhaustion(Loader &loader, torch::nn::Module &model,
                       ProcessGroup &pg, int max_steps) {
  auto it = loader.begin();
  for (int step = 0; step < max_steps; ++step) {
    if (it == loader.end())
      break;
    ++it;
    sync_gradients(pg, model);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'sync_gradients', which is handed the communicator and so issues collectives, is skipped by ranks that leave early through 'break' on a condition that depends on whether this rank's data loader is exhausted
    // CHECK-MESSAGES: :[[@LINE-5]]:9: note: this condition depends on whether this rank's data loader is exhausted
    // CHECK-MESSAGES: :[[@LINE-5]]:7: note: ranks where it holds leave through this 'break'
    // CHECK-MESSAGES: :[[@LINE-9]]:13: note: this rank's data loader position is read here
  }
}

void empty_batch(Loader &loader, torch::nn::Module &model, ProcessGroup &pg) {
  for (auto &batch : loader) {
    if (batch.data.numel() == 0)
      continue;
    sync_gradients(pg, model);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'sync_gradients', which is handed the communicator and so issues collectives, is skipped by ranks that leave early through 'continue' on a condition that depends on the shape of a tensor local to this rank
    // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on the shape of a tensor local to this rank
    // CHECK-MESSAGES: :[[@LINE-4]]:7: note: ranks where it holds leave through this 'continue'
  }
}

void nan_loss_throws(Loader &loader, torch::nn::Module &model,
                     ProcessGroup &pg) {
  for (auto &batch : loader) {
    auto loss = batch.data.sum();
    if (std::isnan(loss.item<double>()))
      throw std::runtime_error("loss is NaN");
    sync_gradients(pg, model);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'sync_gradients', which is handed the communicator and so issues collectives, is skipped by ranks that leave early through 'throw' on a condition that depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE-4]]:7: note: ranks where it holds leave through this 'throw'
    // CHECK-MESSAGES: :[[@LINE-8]]:22: note: this rank's own data comes from here
  }
}

// Only the first collective an early exit skips is reported.
void one_finding_per_exit(Loader &loader, ProcessGroup &pg, torch::Tensor a,
                          torch::Tensor b) {
  for (auto &batch : loader) {
    if (batch.data.mean().item<double>() < 0.0)
      return;
    allreduce_one(pg, a);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'allreduce_one', which issues collective 'allreduce', is skipped by ranks that leave early through 'return'
    // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE-4]]:7: note: ranks where it holds leave through this 'return'
    // CHECK-MESSAGES: :[[@LINE-7]]:22: note: this rank's own data comes from here
    // CHECK-MESSAGES: :[[@LINE-273]]:3: note: the collective is issued here, inside 'allreduce_one'
    allreduce_one(pg, b);
  }
}

// An all-gather agrees on its outputs, not on its input; the exit skips the
// barrier after it in this iteration (reported) and the all-gather of the
// next (not reported again).
void tests_allgather_input(Loader &loader, ProcessGroup &pg, int world) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    auto local = torch::zeros({1});
    for (auto &batch : loader)
      local += batch.data.sum();
    std::vector<std::vector<at::Tensor>> gathered(
        1, std::vector<at::Tensor>(world));
    std::vector<at::Tensor> inputs{local};
    pg.allgather(gathered, inputs)->wait();
    if (local.item<double>() > 0.0)
      break;
    pg.barrier()->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'barrier' is skipped by ranks that leave early through 'break' on a condition that depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE-4]]:7: note: ranks where it holds leave through this 'break'
    // CHECK-MESSAGES: :[[@LINE-12]]:24: note: this rank's own data comes from here
  }
}

// Values kept in a struct, a container or a field carry their divergence.
struct EpochStats {
  double loss = 0.0;
  int64_t batches = 0;
};

void stats_struct(Loader &loader, torch::nn::Module &model, ProcessGroup &pg) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    EpochStats stats;
    for (auto &batch : loader) {
      sync_gradients(pg, model);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'sync_gradients', which is handed the communicator and so issues collectives, is skipped from the next iteration on by ranks that leave early through 'break' on a condition that depends on this rank's own data
      // CHECK-MESSAGES: :[[@LINE+6]]:9: note: this condition depends on this rank's own data
      // CHECK-MESSAGES: :[[@LINE+6]]:7: note: ranks where it holds leave through this 'break'
      // CHECK-MESSAGES: :[[@LINE-5]]:24: note: this rank's own data comes from here
      stats.loss += batch.data.sum().item<double>();
      ++stats.batches;
    }
    if (stats.loss / static_cast<double>(stats.batches) < 0.1)
      break;
  }
}

void history_vector(Loader &loader, torch::nn::Module &model,
                    ProcessGroup &pg) {
  std::vector<double> history;
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (auto &batch : loader) {
      sync_gradients(pg, model);
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'sync_gradients', which is handed the communicator and so issues collectives, is skipped from the next iteration on by ranks that leave early through 'break'
      // CHECK-MESSAGES: :[[@LINE+5]]:9: note: this condition depends on this rank's own data
      // CHECK-MESSAGES: :[[@LINE+5]]:7: note: ranks where it holds leave through this 'break'
      // CHECK-MESSAGES: :[[@LINE-5]]:24: note: this rank's own data comes from here
      history.push_back(batch.data.sum().item<double>());
    }
    if (history.back() < 0.1)
      break;
  }
}

class LocalTrainer {
public:
  LocalTrainer(c10::intrusive_ptr<ProcessGroup> pg, torch::nn::Module &model)
      : pg_(std::move(pg)), model_(model) {}
  void run_epoch(Loader &loader) {
    for (auto &batch : loader) {
      sync_gradients(*pg_, model_);
      last_loss_ = batch.data.sum().item<double>();
    }
  }
  bool converged() const { return last_loss_ < 0.1; }

private:
  c10::intrusive_ptr<ProcessGroup> pg_;
  torch::nn::Module &model_;
  double last_loss_ = 1e9;
};

void field_through_method(LocalTrainer &trainer, Loader &loader) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    trainer.run_epoch(loader);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'run_epoch', which issues collectives, is skipped from the next iteration on by ranks that leave early through 'break' on a condition that depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE+3]]:9: note: this condition depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE+3]]:7: note: ranks where it holds leave through this 'break'
    // CHECK-MESSAGES: :[[@LINE-18]]:7: note: the collective is issued here, inside 'run_epoch'
    if (trainer.converged())
      break;
  }
}

// The collective in the condition itself runs on the next iteration only on
// the ranks that did not break.
double local_epoch(Loader &loader, torch::nn::Module &model, ProcessGroup &pg) {
  double sum = 0.0;
  for (auto &batch : loader) {
    sync_gradients(pg, model);
    sum += batch.data.sum().item<double>();
  }
  return sum;
}

void collective_in_condition(Loader &loader, torch::nn::Module &model,
                             ProcessGroup &pg) {
  for (int epoch = 0; epoch < 10; ++epoch)
    if (local_epoch(loader, model, pg) < 0.1)
      // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'local_epoch', which issues collectives, is skipped from the next iteration on by ranks that leave early through 'break'
      // CHECK-MESSAGES: :[[@LINE-2]]:9: note: this condition depends on this rank's own data
      // CHECK-MESSAGES: :[[@LINE+2]]:7: note: ranks where it holds leave through this 'break'
      // CHECK-MESSAGES: :[[@LINE-13]]:5: note: the collective is issued here, inside 'local_epoch'
      break;
}

// Data-parallel wrappers arm their gradient hooks in forward(): after a
// forward through one, backward() all-reduces.
struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x; }
};
TORCH_MODULE(Net);

class ReplicaDDP : public torch::nn::Module {
public:
  ReplicaDDP(Net module, c10::intrusive_ptr<ProcessGroup> pg)
      : module_(std::move(module)), pg_(std::move(pg)) {}
  torch::Tensor forward(torch::Tensor x) { return module_->forward(x); }
  void on_gradient(torch::Tensor grad) { allreduce_one(*pg_, grad); }

private:
  Net module_;
  c10::intrusive_ptr<ProcessGroup> pg_;
};

void skip_nan_batches(ReplicaDDP &ddp, Loader &loader,
                      torch::optim::Optimizer &optimizer) {
  for (auto &batch : loader) {
    optimizer.zero_grad();
    auto loss = ddp.forward(batch.data).sum();
    if (std::isnan(loss.item<double>()))
      continue;
    loss.backward();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'backward', which runs the all-reducing gradient hooks of wrapper 'ddp', is skipped by ranks that leave early through 'continue' on a condition that depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE-4]]:7: note: ranks where it holds leave through this 'continue'
    // CHECK-MESSAGES: :[[@LINE-9]]:22: note: this rank's own data comes from here
    optimizer.step();
  }
}

// The whole condition explains the finding: the rank, not the step.
void log_on_rank_zero(Loader &loader, Context &context, torch::Tensor loss,
                      int64_t log_every) {
  int64_t step = 0;
  for (int epoch = 0; epoch < 2; ++epoch) {
    for (auto &batch : loader) {
      (void)batch;
      if (context.rank == 0 && step % log_every == 0)
        allreduce_one(*context.process_group, loss);
        // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'allreduce_one', which issues collective 'allreduce', runs only on ranks where a condition that depends on the rank holds
        // CHECK-MESSAGES: :[[@LINE-3]]:11: note: this condition depends on the rank
        // CHECK-MESSAGES: :[[@LINE-438]]:3: note: the collective is issued here, inside 'allreduce_one'
      ++step;
    }
  }
}

// The operand that differs may come last in a chain of && / ||.
void last_operand(Context &context, torch::nn::Module &model,
                  int64_t patience, int64_t epochs) {
  for (int64_t epoch = 0; epoch < epochs; ++epoch) {
    sync_gradients(*context.process_group, model);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'sync_gradients', which is handed the communicator and so issues collectives, is skipped from the next iteration on by ranks that leave early through 'break' on a condition that depends on the rank
    // CHECK-MESSAGES: :[[@LINE+2]]:9: note: this condition depends on the rank
    // CHECK-MESSAGES: :[[@LINE+2]]:7: note: ranks where it holds leave through this 'break'
    if (epoch > patience && context.rank != 0)
      break;
  }
}

//===----------------------------------------------------------------------===//
// Correct patterns: no warning
//===----------------------------------------------------------------------===//

// Rank-local work that is not a collective, before an unconditional reduce.
void zero_missing_gradients(torch::nn::Module &model, ProcessGroup &pg) {
  for (auto &p : model.parameters()) {
    if (!p.grad().defined())
      p.mutable_grad() = torch::zeros_like(p);
    std::vector<at::Tensor> tensors{p.grad()};
    pg.allreduce(tensors)->wait();
  }
}

// A backward() on every path before the test: which parameters have a
// gradient is then the model's structure, the same on every rank (a forward
// that skips layers by its data is out of sight).
void reduce_after_backward(torch::nn::Module &model, torch::Tensor loss,
                           ProcessGroup &pg) {
  loss.backward();
  for (auto &p : model.parameters()) {
    if (!p.grad().defined())
      continue;
    std::vector<at::Tensor> tensors{p.grad()};
    pg.allreduce(tensors)->wait();
  }
}

void zero_on_rank_zero(ProcessGroup &pg, torch::Tensor grad) {
  if (pg.getRank() == 0)
    grad.zero_();
  allreduce_one(pg, grad);
}

void log_and_save_on_rank_zero(Context &context, torch::nn::Module &model,
                               torch::Tensor t) {
  allreduce_one(*context.process_group, t);
  if (context.is_main()) {
    std::printf("%f\n", t.sum().item<double>());
    torch::save(t, "t.pt");
  }
  if (context.rank != 0)
    return;
  torch::save(t, "again.pt");
}

// Root gathers into a buffer, the others pass none: the same collective on
// both sides.
void gather_to_root(ProcessGroup &pg, torch::Tensor local) {
  std::vector<at::Tensor> inputs{local};
  if (pg.getRank() == 0) {
    std::vector<std::vector<at::Tensor>> outputs(1);
    pg.gather(outputs, inputs)->wait();
  } else {
    std::vector<std::vector<at::Tensor>> outputs;
    pg.gather(outputs, inputs)->wait();
  }
}

#ifdef WITH_MPI
void gather_to_root_mpi(const float *local, float *all, int count) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    MPI_Gather(local, count, MPI_FLOAT, all, count, MPI_FLOAT, 0,
               MPI_COMM_WORLD);
  else
    MPI_Gather(local, count, MPI_FLOAT, nullptr, 0, MPI_FLOAT, 0,
               MPI_COMM_WORLD);
}
#endif

void non_root_returns_after_its_gather(ProcessGroup &pg, torch::Tensor local) {
  std::vector<at::Tensor> inputs{local};
  std::vector<std::vector<at::Tensor>> outputs;
  if (pg.getRank() != 0) {
    pg.gather(outputs, inputs)->wait();
    return;
  }
  outputs.resize(1);
  pg.gather(outputs, inputs)->wait();
}

// An early stop on a value that came out of a collective.
void reduced_loss_early_stop(Loader &loader, torch::nn::Module &model,
                             ProcessGroup &pg, int epochs, double target) {
  for (int epoch = 0; epoch < epochs; ++epoch) {
    double loss_sum = 0.0;
    for (auto &batch : loader) {
      sync_gradients(pg, model);
      loss_sum += batch.data.sum().item<double>();
    }
    auto total = torch::tensor({loss_sum});
    std::vector<at::Tensor> tensors{total};
    pg.allreduce(tensors)->wait();
    if (total.item<double>() / pg.getSize() < target)
      break;
    const double mean = all_reduce_mean(pg, loss_sum);
    if (mean < target)
      break;
  }
}

void stop_flag_broadcast_from_root(Loader &loader, torch::nn::Module &model,
                                   ProcessGroup &pg, double target) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    for (auto &batch : loader) {
      (void)batch;
      sync_gradients(pg, model);
    }
    auto stop = torch::zeros({1});
    if (pg.getRank() == 0 && target > 0.5)
      stop.fill_(1);
    std::vector<at::Tensor> tensors{stop};
    pg.broadcast(tensors)->wait();
    if (stop.item<int>() != 0)
      break;
  }
}

#ifdef WITH_MPI
void mpi_reduced_flag(int local_done) {
  int done = 0;
  MPI_Allreduce(&local_done, &done, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (done > 0)
    return;
  MPI_Barrier(MPI_COMM_WORLD);
}
#endif

// Conditions that are the same on every rank.
void uniform_conditions(Context &context, torch::Tensor t, bool sync_buffers,
                        int64_t step, int64_t sync_every) {
  if (sync_buffers && context.world_size > 1)
    allreduce_one(*context.process_group, t);
  if (context.process_group->getSize() > 1 && step % sync_every == 0)
    allreduce_one(*context.process_group, t);
  for (int root = 0; root < context.world_size; ++root) {
    std::vector<at::Tensor> tensors{t};
    c10d::BroadcastOptions options;
    options.rootRank = root;
    context.process_group->broadcast(tensors, options)->wait();
  }
}

// The loop over this rank's loader: distributed samplers give every rank the
// same number of batches. A step counter tested inside it is as uniform.
void accumulate_gradients(Loader &loader, torch::nn::Module &model,
                          ProcessGroup &pg) {
  int64_t step = 0;
  for (auto &batch : loader) {
    (void)batch;
    if (++step % 4 == 0)
      sync_gradients(pg, model);
  }
}

// Frozen parameters and bucket sizes are the same on every rank.
void bucketed(torch::nn::Module &model, ProcessGroup &pg) {
  std::vector<at::Tensor> bucket;
  int64_t numel = 0;
  for (auto &p : model.parameters()) {
    if (!p.requires_grad())
      continue;
    bucket.push_back(p.grad());
    numel += p.numel();
    if (numel > 1 << 20) {
      pg.allreduce(bucket)->wait();
      bucket.clear();
      numel = 0;
    }
  }
  if (!bucket.empty())
    pg.allreduce(bucket)->wait();
}

// A tensor hook runs only when its gradient was computed.
void hook_tests_its_gradient(torch::nn::Module &model, ProcessGroup &pg) {
  for (auto &p : model.parameters())
    p.register_hook([&pg](torch::Tensor grad) {
      if (grad.defined())
        allreduce_one(pg, grad);
      return grad;
    });
}

// An assertion that does not return: the rank fails instead of skipping.
void asserted(ProcessGroup &pg, torch::Tensor t) {
  if (t.numel() == 0)
    std::abort();
  allreduce_one(pg, t);
}

// A struct that holds the rank, and values picked from it (a device index,
// a store that is the server on rank 0, a process group built from them):
// its other fields stay uniform, also after it is returned.
struct Peers {
  int rank = 0;
  int size = 1;
  int device = 0;
  c10::intrusive_ptr<ProcessGroup> pg;
};

Peers connect_peers(c10::intrusive_ptr<ProcessGroup> pg, int per_node) {
  Peers peers;
  peers.rank = pg->getRank();
  peers.size = pg->getSize();
  peers.device = peers.rank % per_node;
  peers.pg = std::move(pg);
  return peers;
}

void context_struct(c10::intrusive_ptr<ProcessGroup> pg, torch::Tensor t) {
  Peers peers = connect_peers(std::move(pg), 8);
  if (peers.size > 1)
    allreduce_one(*peers.pg, t);
}

// A failed check that aborts stops the rank; it skips nothing for the
// others.
void abort_on_failure(ProcessGroup &pg, torch::Tensor t, int rank) {
  if (rank == 0) {
    const bool ok = t.defined();
    if (!ok)
      std::abort();
  }
  allreduce_one(pg, t);
}

// The rank picks which rows a rank holds, not how many.
void rank_offset_shard(ProcessGroup &pg, torch::nn::Module &model,
                       const torch::Tensor &data, int rank, int world) {
  const int64_t per_rank = data.size(0) / world;
  auto mine = torch::randperm(data.size(0)).narrow(0, rank * per_rank, per_rank);
  for (int64_t start = 0; start + 32 <= mine.size(0); start += 32)
    sync_gradients(pg, model);
}

// A loop over a vector of gradients handed in runs once per tensor of the
// model on every rank, whatever the gradients hold.
void allreduce_each(ProcessGroup &pg, std::vector<torch::Tensor> &grads) {
  for (auto &g : grads) {
    std::vector<at::Tensor> one{g};
    pg.allreduce(one)->wait();
  }
}
void gradients_handed_to_a_loop(ProcessGroup &pg, torch::nn::Module &model) {
  std::vector<torch::Tensor> grads;
  for (auto &p : model.parameters())
    grads.push_back(p.grad());
  allreduce_each(pg, grads);
}

// The closure an optimizer step runs assigns the caller's locals through
// its by-reference captures: the loss it computed from this rank's batch.
void closure_loss_early_stop(Loader &loader, torch::nn::Module &model,
                             torch::optim::SGD &optimizer, ProcessGroup &pg) {
  for (auto &batch : loader) {
    double loss_value = 0.0;
    optimizer.step([&] {
      auto loss = batch.data.sum();
      loss.backward();
      loss_value = loss.item<double>();
      return loss;
    });
    if (loss_value < 0.1)
      break;
    sync_gradients(pg, model);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'sync_gradients', which is handed the communicator and so issues collectives, is skipped by ranks that leave early through 'break' on a condition that depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on this rank's own data
    // CHECK-MESSAGES: :[[@LINE-4]]:7: note: ranks where it holds leave through this 'break'
    // CHECK-MESSAGES: :[[@LINE-14]]:22: note: this rank's own data comes from here
  }
}
// The same loss reduced inside the closure before it is kept.
void closure_reduced_loss(Loader &loader, torch::nn::Module &model,
                          torch::optim::SGD &optimizer, ProcessGroup &pg) {
  for (auto &batch : loader) {
    double loss_value = 0.0;
    optimizer.step([&] {
      auto loss = batch.data.sum();
      loss.backward();
      std::vector<at::Tensor> mean{loss.detach()};
      pg.allreduce(mean)->wait();
      loss_value = mean[0].item<double>();
      return loss;
    });
    if (loss_value < 0.1)
      break;
    sync_gradients(pg, model);
  }
}

// A helper handed the rank and a non-const reference changes the value only
// if its body writes it.
void print_totals(int rank, torch::Tensor &totals) {
  if (rank == 0)
    std::printf("%f\n", totals[0].item<double>());
}
void scale_by_rank(int rank, torch::Tensor &totals) { totals.mul_(rank + 1); }
void reduced_then_printed(ProcessGroup &pg, torch::nn::Module &model, int rank) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::Tensor totals = torch::ones({2});
    std::vector<at::Tensor> reduced{totals};
    pg.allreduce(reduced)->wait();
    print_totals(rank, totals);
    if (totals[0].item<double>() < 0.5)
      break;
    sync_gradients(pg, model);
  }
}
void reduced_then_rescaled(ProcessGroup &pg, torch::nn::Module &model, int rank) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::Tensor totals = torch::ones({2});
    std::vector<at::Tensor> reduced{totals};
    pg.allreduce(reduced)->wait();
    scale_by_rank(rank, totals);
    if (totals[0].item<double>() < 0.5)
      break;
    sync_gradients(pg, model);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'sync_gradients', which is handed the communicator and so issues collectives, is skipped by ranks that leave early through 'break' on a condition that depends on the rank
    // CHECK-MESSAGES: :[[@LINE-4]]:9: note: this condition depends on the rank
    // CHECK-MESSAGES: :[[@LINE-4]]:7: note: ranks where it holds leave through this 'break'
    // CHECK-MESSAGES: :[[@LINE-7]]:5: note: the rank comes from here
  }
}

//===----------------------------------------------------------------------===//
// Class templates nothing instantiates: analysed as written
//===----------------------------------------------------------------------===//

template <class Model, class Optimizer>
class TemplateTrainer {
public:
  template <class DataLoader>
  void train(DataLoader &loader, double threshold) {
    for (auto &batch : loader) {
      optimizer_.zero_grad();
      auto loss = model_->forward(batch.data).sum();
      loss.backward();
      if (loss.template item<double>() < threshold)
        break;
      std::vector<at::Tensor> grads{model_->parameters()[0].grad()};
      pg_->allreduce(grads)->wait();
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: collective 'allreduce' is skipped by ranks that leave early through 'break' on a condition that depends on this rank's own data
      // CHECK-MESSAGES: :[[@LINE-5]]:11: note: this condition depends on this rank's own data
      // CHECK-MESSAGES: :[[@LINE-5]]:9: note: ranks where it holds leave through this 'break'
      // CHECK-MESSAGES: :[[@LINE-11]]:24: note: this rank's own data comes from here
      optimizer_.step();
    }
  }
  // The loss is reduced before the test: every rank takes the same branch.
  template <class DataLoader>
  void train_reduced(DataLoader &loader, double threshold) {
    for (auto &batch : loader) {
      auto loss = model_->forward(batch.data).sum();
      loss.backward();
      std::vector<at::Tensor> mean{loss.detach()};
      pg_->allreduce(mean)->wait();
      if (mean[0].template item<double>() < threshold)
        break;
      std::vector<at::Tensor> grads{model_->parameters()[0].grad()};
      pg_->allreduce(grads)->wait();
    }
  }
  // A range that is no loader holds the same items everywhere.
  template <class Schedule>
  void warmup(Schedule &schedule) {
    for (auto &step : schedule) {
      if (step.skip)
        continue;
      std::vector<at::Tensor> grads{model_->parameters()[0].grad()};
      pg_->allreduce(grads)->wait();
    }
  }

  // The loader's sampler is built with the rank, and the loader's type is a
  // template parameter's: the loop still runs once per batch, as often on
  // every rank (the sampler pads each rank to the same count).
  template <class Data>
  void train_sharded(Data &data, int rank, int world_size) {
    torch::data::samplers::DistributedRandomSampler sampler(
        data.size().value(), world_size, rank);
    auto loader = torch::data::make_data_loader(data, sampler, 32);
    for (auto &batch : *loader) {
      auto loss = model_->forward(batch.data).sum();
      loss.backward();
      pg_->barrier()->wait();
    }
  }

private:
  Model model_;
  Optimizer optimizer_;
  c10::intrusive_ptr<ProcessGroup> pg_;
};

#ifdef WITH_BROKEN_CODE
// `grad()` is a const reference that no candidate takes: clang keeps the
// call as a recovery expression, and the helper it names issues the
// all-reduce that only ranks holding a gradient reach.
void all_reduce_tensor(torch::Tensor &t, c10d::ProcessGroup &pg) {
  std::vector<at::Tensor> tensors{t};
  pg.allreduce(tensors)->wait();
}
void reduce_present_gradients(Net &model, c10d::ProcessGroup &pg) {
  for (auto &p : model->parameters())
    if (p.grad().defined())
      all_reduce_tensor(p.grad(), pg);
  // CHECK-ERROR: :[[@LINE-1]]:7: error: no matching function for call to 'all_reduce_tensor'
  // CHECK-BROKEN: :[[@LINE-2]]:7: warning: 'all_reduce_tensor', which issues collective 'allreduce', runs only on ranks where a condition that depends on whether this rank has a gradient holds
  // CHECK-BROKEN: :[[@LINE-4]]:9: note: this condition depends on whether this rank has a gradient
  // CHECK-BROKEN: :[[@LINE-9]]:3: note: the collective is issued here, inside 'all_reduce_tensor'
}
#endif

//===----------------------------------------------------------------------===//
// Known false negatives
//===----------------------------------------------------------------------===//

// A range-for over a loader whose ranks hold different numbers of batches
// (a sampler that does not pad, per-rank files) is taken as uniform, and so
// is a loop over a container of tensors handed in, whatever the caller
// filled it with.
// Values held in fields other than rank-named ones are tracked only through
// the class's own methods.

#ifdef WITH_MPI
// A model whose width is read from a rank-indexed table: a module holds as
// many parameters as its class registers, so the initial broadcast over
// them runs as often on every rank.
struct WideImpl : torch::nn::Module {
  explicit WideImpl(int width) {
    fc = register_module("fc", torch::nn::Linear(4, width));
  }
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Wide);

void broadcast_model_built_from_rank_table() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<int> widths = {8, 8, 8, 8};
  Wide model(widths[rank]);
  for (auto &p : model->parameters())
    MPI_Bcast(p.data_ptr(), (int)p.numel(), MPI_FLOAT, 0, MPI_COMM_WORLD);
}
#endif

// A backward() that only some paths run (a rank with no batch this step)
// leaves the gradients as the last step did, or undefined.
void reduce_after_some_backward(torch::nn::Module &model, torch::Tensor loss,
                                bool has_batch, ProcessGroup &pg) {
  if (has_batch)
    loss.backward();
  for (auto &p : model.parameters()) {
    if (!p.grad().defined())
      continue;
    std::vector<at::Tensor> tensors{p.grad()};
    pg.allreduce(tensors)->wait();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: collective 'allreduce' is skipped by ranks that leave early through 'continue' on a condition that depends on whether this rank has a gradient
    // CHECK-MESSAGES: :[[@LINE-5]]:9: note: this condition depends on whether this rank has a gradient
    // CHECK-MESSAGES: :[[@LINE-5]]:7: note: ranks where it holds leave through this 'continue'
  }
}
