// ddp-unaveraged-allreduce on homegrown networks that keep their gradients in
// fields named as such (`dw_`, `nabla_w`, `sum_grad_`) and sum them with MPI.
// Mock headers only; both entry points.
// RUN: %clang_tidy %s -checks='-*,ddp-unaveraged-allreduce' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unaveraged-allreduce' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>

#include <cstring>
#include <vector>

using Matrix = std::vector<std::vector<float>>;

std::vector<float> flatten(const Matrix &m) {
  std::vector<float> out;
  for (const auto &row : m)
    out.insert(out.end(), row.begin(), row.end());
  return out;
}

// A layer that keeps its weight gradient in `dw_` and steps itself.
struct Layer {
  Matrix w_, dw_;
  float lr_ = 0.1f;
  void step() {
    for (size_t i = 0; i < w_.size(); ++i)
      for (size_t j = 0; j < w_[i].size(); ++j)
        w_[i][j] -= lr_ * dw_[i][j];
  }
};

// BUG: the layer's gradients are summed and copied back; nothing divides.
void allreduce_grad(Layer &l) {
  std::vector<float> send = flatten(l.dw_);
  std::vector<float> recv(send.size());
  MPI_Allreduce(send.data(), recv.data(), (int)send.size(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:3: warning: 'MPI_Allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step{{.*}}divide them by the size MPI_Comm_size reports, after the reduction [ddp-unaveraged-allreduce]
  for (size_t i = 0; i < l.dw_.size(); ++i)
    for (size_t j = 0; j < l.dw_[i].size(); ++j)
      l.dw_[i][j] = recv[i * l.dw_[i].size() + j];
}

// OK: the same, divided by the world size on the way back.
void allreduce_mean_grad(Layer &l) {
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  std::vector<float> send = flatten(l.dw_);
  std::vector<float> recv(send.size());
  MPI_Allreduce(send.data(), recv.data(), (int)send.size(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (size_t i = 0; i < l.dw_.size(); ++i)
    for (size_t j = 0; j < l.dw_[i].size(); ++j)
      l.dw_[i][j] = recv[i * l.dw_[i].size() + j] / world;
}

// A network in the style of a textbook: per-layer `nabla_w` reduced into
// `nabla_w_sum` on the root, which updates with eta over its own share of
// the batch.
class Network {
public:
  void reduce_gradients();
  void update(float eta);
  void train(float eta) {
    reduce_gradients();
    update(eta);
  }

private:
  int layers = 2, sizes[3] = {4, 4, 2};
  int batch_size = 64, workers = 1, rank = 0;
  int worker_batch = 0;
  float **weights = nullptr, **nabla_w = nullptr, **nabla_w_sum = nullptr;
  void setup() {
    MPI_Comm_size(MPI_COMM_WORLD, &workers);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // A count per rank, not a scale: dividing by it multiplies by the
    // number of workers.
    worker_batch = batch_size / workers;
  }
  void multiply(float *out, const float *a, int n, int batch);
  void backprop() {
    for (int i = 0; i < layers; ++i)
      multiply(nabla_w[i], weights[i], sizes[i], worker_batch);
  }
};

// BUG: summed to the root, then stepped with eta / (batch / workers): every
// update is `workers` times too large.
void Network::reduce_gradients() {
  for (int i = 0; i < layers; ++i)
    MPI_Reduce(nabla_w[i], nabla_w_sum[i], sizes[i + 1] * sizes[i], MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-1]]:5: warning: 'MPI_Reduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step{{.*}} [ddp-unaveraged-allreduce]
}

void Network::update(float eta) {
  if (rank != 0)
    return;
  for (int i = 0; i < layers; ++i)
    for (int j = 0; j < sizes[i + 1] * sizes[i]; ++j)
      weights[i][j] -= (eta / worker_batch) * nabla_w_sum[i][j];
}

// A device buffer class of the framework, and an optimizer template nothing
// instantiates that all-reduces its summed gradient buffer.
template <typename T> struct DeviceMemory {
  T *dptr();
  void add_scaled(T alpha, DeviceMemory &x, T beta, int n);
};

template <typename T> class DataParallelSGD {
public:
  // BUG: the summed gradient steps the parameters as it is.
  void step(T alpha) {
    MPI_Allreduce(sum_grad_.dptr(), recv_sum_grad_.dptr(), dim_, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-1]]:5: warning: 'MPI_Allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step{{.*}} [ddp-unaveraged-allreduce]
    param_.add_scaled(-alpha, recv_sum_grad_, T(1), dim_);
  }

private:
  int dim_ = 0;
  DeviceMemory<T> param_, sum_grad_, recv_sum_grad_;
};

// OK: names that only look like gradients are not gradients: a student's
// grades summed over ranks, a warm-up that is gradual.
struct Survey {
  std::vector<float> grades_, gradual_warmup_;
  void total() {
    MPI_Allreduce(MPI_IN_PLACE, grades_.data(), (int)grades_.size(), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, gradual_warmup_.data(), 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
};

// A framework's own tensor and communicator (defined in another unit): the
// root gathers every rank's step and applies each piece itself.
namespace mini {
struct Tensor {
  Tensor grad() const;
  Tensor operator*(double) const;
  Tensor operator/(double) const;
  Tensor &operator-=(const Tensor &);
  Tensor &operator+=(const Tensor &);
  Tensor &operator/=(double);
  Tensor operator[](unsigned long) const;
};
struct Communicator {
  Tensor gather(const Tensor &tensor, int root);
  Tensor broadcast(const Tensor &tensor, int root);
  int rank() const;
  int size() const;
};
} // namespace mini

struct GatheringSGD {
  mini::Communicator &comm;
  std::vector<mini::Tensor *> params;
  double lr = 0.1;

  // BUG: N ranks' steps applied one after the other.
  void step() {
    for (auto *p : params) {
      auto change = p->grad() * lr;
      auto gathered = comm.gather(change, 0);
      // CHECK: :[[@LINE-1]]:28: warning: 'gather' gathers every rank's gradient step and their sum is applied with nothing dividing it by the world size{{.*}} [ddp-unaveraged-allreduce]
      if (comm.rank() == 0)
        for (int k = 0; k < comm.size(); k++)
          *p -= gathered[k];
      // CHECK: :[[@LINE-1]]:11: note: the gathered pieces are added up here
      *p = comm.broadcast(*p, 0);
    }
  }

  // OK: each piece divided by the world size.
  void averaged_pieces() {
    for (auto *p : params) {
      auto gathered = comm.gather(p->grad() * lr, 0);
      for (int k = 0; k < comm.size(); k++)
        *p -= gathered[k] / comm.size();
    }
  }

  // OK: the pieces summed into a total that is divided before it is used.
  void averaged_sum() {
    for (auto *p : params) {
      auto gathered = comm.gather(p->grad(), 0);
      mini::Tensor total = gathered[0];
      for (int k = 1; k < comm.size(); k++)
        total += gathered[k];
      total /= comm.size();
      *p -= total * lr;
    }
  }

  // OK: gathered values that are not gradients (per-rank losses to log).
  void gathered_losses(mini::Tensor loss, mini::Tensor &sum) {
    auto losses = comm.gather(loss, 0);
    for (int k = 0; k < comm.size(); k++)
      sum += losses[k];
  }
};

// A communication thread serves queued requests: it sums each layer's
// gradients into a buffer of the layer and hands it back. Nothing in this
// unit calls it or reads the sums; the update that applies them, and
// whatever divides them, is in another unit.
struct CommLayer {
  float *local_grads;
  float *global_grads;
  int count;
};

struct CommQueue {
  CommLayer *layers;
  int next_layer;
  int stop;
  MPI_Comm comm;
};

void *communication_thread(void *arg) {
  CommQueue *queue = static_cast<CommQueue *>(arg);
  while (!queue->stop) {
    CommLayer *layer = &queue->layers[queue->next_layer];
    MPI_Allreduce(layer->local_grads, layer->global_grads, layer->count,
                  MPI_FLOAT, MPI_SUM, queue->comm);
    MPI_Bcast(layer->global_grads, layer->count, MPI_FLOAT, 0, queue->comm);
  }
  return nullptr;
}

// The same thread, but this unit applies the sums itself, undivided.
struct StepLayer {
  float *local_grads;
  float *global_grads;
  int count;
};

void *communication_thread_that_steps(void *arg) {
  CommQueue *queue = static_cast<CommQueue *>(arg);
  StepLayer *layers = reinterpret_cast<StepLayer *>(queue->layers);
  float weights[16] = {0};
  while (!queue->stop) {
    StepLayer *layer = &layers[queue->next_layer];
    MPI_Allreduce(layer->local_grads, layer->global_grads, layer->count,
                  MPI_FLOAT, MPI_SUM, queue->comm);
    // CHECK: :[[@LINE-2]]:5: warning: 'MPI_Allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step
    for (int i = 0; i < layer->count && i < 16; ++i)
      weights[i] -= 0.1f * layer->global_grads[i];
  }
  return nullptr;
}

// A gradient step known by its role, whatever its name: what is added to
// the weights. Each rank's step, summed over the ranks, is applied
// undivided: N times the mean step.
std::vector<double> local_step(const std::vector<double> &weight, double lr);

void sgd_on_summed_steps(std::vector<double> &weight, double lr, int iters) {
  for (int it = 0; it < iters; ++it) {
    std::vector<double> update = local_step(weight, lr);
    MPI_Allreduce(MPI_IN_PLACE, update.data(), (int)update.size(), MPI_DOUBLE,
                  MPI_SUM, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-2]]:5: warning: 'MPI_Allreduce' sums the gradients over all ranks and nothing divides them by the world size before the optimizer step
    for (size_t i = 0; i < weight.size(); ++i)
      weight[i] = weight[i] + update[i];
  }
}

// The same steps, averaged before they are applied.
void sgd_on_averaged_steps(std::vector<double> &weight, double lr, int iters) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int it = 0; it < iters; ++it) {
    std::vector<double> update = local_step(weight, lr);
    MPI_Allreduce(MPI_IN_PLACE, update.data(), (int)update.size(), MPI_DOUBLE,
                  MPI_SUM, MPI_COMM_WORLD);
    for (size_t i = 0; i < weight.size(); ++i)
      weight[i] += update[i] / size;
  }
}

// A count named for the parameters holds no parameters: what is added to
// it is no gradient step, and the model averaged after training is
// divided on every rank.
void average_after_training(std::vector<std::vector<double>> &params) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int num_params = 0;
  for (const auto &p : params)
    num_params += (int)p.size();
  for (auto &p : params) {
    MPI_Allreduce(MPI_IN_PLACE, p.data(), (int)p.size(), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    for (double &v : p)
      v /= size;
  }
}

// A parameter server over local SGD: each rank turns its weights into what
// its steps since the epoch's snapshot did (`weights -= weights_copy`), and
// the root applies the sum of every rank's update to the snapshot. The sum
// of updates is the scheme, not gradients summed N times over.
void train_shard(double *weights, int n);
void apply_every_workers_update(double *weights, int n, int rank, int epochs) {
  std::vector<double> weights_copy(n), received(n);
  for (int e = 0; e < epochs; ++e) {
    MPI_Bcast(weights, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    std::memcpy(weights_copy.data(), weights, n * sizeof(double));
    train_shard(weights, n);
    for (int i = 0; i < n; ++i)
      weights[i] -= weights_copy[i];
    MPI_Reduce(weights, received.data(), n, MPI_DOUBLE, MPI_SUM, 0,
               MPI_COMM_WORLD);
    if (rank == 0)
      for (int i = 0; i < n; ++i)
        weights[i] = weights_copy[i] + received[i];
  }
}

// The same update by a buffer copied from another array, not from the
// weights, is a gradient step: its sum is reported.
void grads_into(const double *weights, double *out, int n);
void step_with_copied_buffer(double *weights, int n, double lr) {
  std::vector<double> scratch(n), step(n);
  grads_into(weights, scratch.data(), n);
  std::memcpy(step.data(), scratch.data(), n * sizeof(double));
  MPI_Allreduce(MPI_IN_PLACE, step.data(), n, MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:3: warning: 'MPI_Allreduce' sums the gradients over all ranks{{.*}} [ddp-unaveraged-allreduce]
  for (int i = 0; i < n; ++i)
    weights[i] -= lr * step[i];
}

// A copy of the weights made only to have a buffer of their size, then
// filled with gradients by a function of the project: no snapshot, and its
// sum is reported.
void gradient_into(const std::vector<double> &weights, double *out);
void buffer_sized_like_weights(std::vector<double> &weights, double lr) {
  std::vector<double> grad = weights;
  gradient_into(weights, grad.data());
  MPI_Allreduce(MPI_IN_PLACE, grad.data(), (int)grad.size(), MPI_DOUBLE,
                MPI_SUM, MPI_COMM_WORLD);
  // CHECK: :[[@LINE-2]]:3: warning: 'MPI_Allreduce' sums the gradients over all ranks{{.*}} [ddp-unaveraged-allreduce]
  for (size_t i = 0; i < weights.size(); ++i)
    weights[i] -= lr * grad[i];
}

// OK: on one process the sum is the mean, so leaving early when the world
// size is 1 skips nothing; every other path divides.
class GradientAverager {
public:
  int world_size() const {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
  }
  void allreduce_mean(float *grad, int count) {
    MPI_Allreduce(MPI_IN_PLACE, grad, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    int size = world_size();
    if (size <= 1)
      return;
    for (int i = 0; i < count; ++i)
      grad[i] /= static_cast<float>(size);
  }
  // The same test written the other way round: the division runs only
  // when there is more than one process.
  void allreduce_mean_else(float *grad, int count) {
    MPI_Allreduce(MPI_IN_PLACE, grad, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    if (1 < world_size()) {
      for (int i = 0; i < count; ++i)
        grad[i] /= static_cast<float>(world_size());
    } else {
      return;
    }
  }
  // Leaving early on two processes skips a division that matters.
  void allreduce_unless_pair(float *grad, int count) {
    MPI_Allreduce(MPI_IN_PLACE, grad, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-1]]:5: warning: 'MPI_Allreduce' sums the gradients over all ranks{{.*}} [ddp-unaveraged-allreduce]
    int size = world_size();
    if (size <= 2)
      return;
    for (int i = 0; i < count; ++i)
      grad[i] /= static_cast<float>(size);
  }
};

void sgd_averaged(float *w, float *grad, int n, GradientAverager &avg) {
  avg.allreduce_mean(grad, n);
  for (int i = 0; i < n; ++i)
    w[i] -= 0.1f * grad[i];
}
void sgd_averaged_else(float *w, float *grad, int n, GradientAverager &avg) {
  avg.allreduce_mean_else(grad, n);
  for (int i = 0; i < n; ++i)
    w[i] -= 0.1f * grad[i];
}
void sgd_unless_pair(float *w, float *grad, int n, GradientAverager &avg) {
  avg.allreduce_unless_pair(grad, n);
  for (int i = 0; i < n; ++i)
    w[i] -= 0.1f * grad[i];
}

// OK: a reduction to rank 0 leaves the sum there alone; the root divides
// it before its update, and the other ranks hold no sum to average.
double local_gradient(const std::vector<double> &params, std::vector<double> &grad);
void root_averages(std::vector<double> &params, int epochs) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> grad(params.size()), total(params.size());
  int n = (int)params.size();
  for (int e = 0; e < epochs; ++e) {
    MPI_Bcast(params.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    local_gradient(params, grad);
    MPI_Reduce(grad.data(), total.data(), n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      for (int j = 0; j < n; ++j) {
        total[j] /= size;
        params[j] -= 0.1 * total[j];
      }
  }
}

// The root applies the sum as it is.
void root_sums(std::vector<double> &params, int epochs) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<double> grad(params.size()), total(params.size());
  int n = (int)params.size();
  for (int e = 0; e < epochs; ++e) {
    MPI_Bcast(params.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    local_gradient(params, grad);
    MPI_Reduce(grad.data(), total.data(), n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-1]]:5: warning: 'MPI_Reduce' sums the gradients over all ranks{{.*}} [ddp-unaveraged-allreduce]
    if (rank == 0)
      for (int j = 0; j < n; ++j)
        params[j] -= 0.1 * total[j];
  }
}

// A rank that is not the root divides what it never received; the root
// applies the sum as it is.
void wrong_rank_averages(std::vector<double> &params, int epochs) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> grad(params.size()), total(params.size());
  int n = (int)params.size();
  for (int e = 0; e < epochs; ++e) {
    MPI_Bcast(params.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    local_gradient(params, grad);
    MPI_Reduce(grad.data(), total.data(), n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-1]]:5: warning: 'MPI_Reduce' sums the gradients over all ranks{{.*}} [ddp-unaveraged-allreduce]
    if (rank == 1)
      for (int j = 0; j < n; ++j)
        total[j] /= size;
    if (rank == 0)
      for (int j = 0; j < n; ++j)
        params[j] -= 0.1 * total[j];
  }
}

// The root divides the sum on some epochs only: the others step with it
// undivided.
void root_averages_sometimes(std::vector<double> &params, int epochs) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> grad(params.size()), total(params.size());
  int n = (int)params.size();
  for (int e = 0; e < epochs; ++e) {
    local_gradient(params, grad);
    MPI_Reduce(grad.data(), total.data(), n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    // CHECK: :[[@LINE-1]]:5: warning: 'MPI_Reduce' sums the gradients over all ranks{{.*}} [ddp-unaveraged-allreduce]
    if (rank == 0) {
      if (e % 10 == 0)
        for (int j = 0; j < n; ++j)
          total[j] /= size;
      for (int j = 0; j < n; ++j)
        params[j] -= 0.1 * total[j];
    }
  }
}
