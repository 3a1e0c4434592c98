// ddp-missing-initial-broadcast on models written from scratch: weights in
// plain arrays or a class of the project's own, drawn from C's, the
// standard library's or a helper's generator rather than LibTorch's. When
// that generator is seeded with the rank or per process, and nothing gives
// every rank the same weights before their replicas are combined, the
// replicas start apart.
// Functions marked "Bad" must be reported, the others must stay silent.
// RUN: %clang_tidy %s -checks='-*,ddp-missing-initial-broadcast' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-missing-initial-broadcast' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>
#include <nccl.h>

#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

constexpr int kWeights = 64;

struct Mlp {
  float w[kWeights];
};

// Draws the weights from an engine seeded with what it is handed.
void initMlp(Mlp *m, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 0.1f);
  for (int i = 0; i < kWeights; ++i)
    m->w[i] = dist(gen);
}

// Draws the weights from the engine it is handed.
void initFrom(Mlp &m, std::mt19937 &gen) {
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  for (int i = 0; i < kWeights; ++i)
    m.w[i] = dist(gen);
}

void gradients(const Mlp &m, const float *batch, float *grad) {
  for (int i = 0; i < kWeights; ++i)
    grad[i] = m.w[i] * batch[i];
}

void applyUpdate(Mlp *m, const float *grad, float lr) {
  for (int i = 0; i < kWeights; ++i)
    m->w[i] -= lr * grad[i];
}

void trainSteps(Mlp &m, const float *batch, int steps, int world) {
  float local[kWeights], global[kWeights];
  for (int s = 0; s < steps; ++s) {
    gradients(m, batch, local);
    MPI_Allreduce(local, global, kWeights, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (float &g : global)
      g /= world;
    applyUpdate(&m, global, 0.1f);
  }
}

// Bad: seeded with the rank; the averaged gradients keep the replicas apart.
void rankSeeded(const float *batch, int steps) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  Mlp m;
  initMlp(&m, 42u + rank);
  // CHECK: :[[@LINE-1]]:3: warning: 'm' starts from different random values on each rank: its weights are drawn from a generator seeded with the rank and nothing gives every rank the same values before its replicas are combined
  // CHECK: :[[@LINE-2]]:15: note: the seed depends on the rank here
  trainSteps(m, batch, steps, world);
  // CHECK: :[[@LINE-1]]:3: note: the replicas are combined here
}

// Good: the same seed everywhere.
void commonSeed(const float *batch, int steps) {
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  Mlp m;
  initMlp(&m, 42u);
  trainSteps(m, batch, steps, world);
}

// Good: seeded apart, then rank 0's weights broadcast to every rank.
void broadcastAfter(const float *batch, int steps) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  Mlp m;
  initMlp(&m, 42u + rank);
  MPI_Bcast(m.w, kWeights, MPI_FLOAT, 0, MPI_COMM_WORLD);
  trainSteps(m, batch, steps, world);
}

// Bad: an engine seeded from std::random_device, handed to the helper.
void deviceSeeded(const float *batch, int steps) {
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  std::mt19937 gen(std::random_device{}());
  Mlp m;
  initFrom(m, gen);
  // CHECK: :[[@LINE-1]]:3: warning: 'm' starts from different random values on each rank: its weights are drawn from a generator seeded differently in each process
  // CHECK: :[[@LINE-2]]:15: note: the seed differs from process to process here
  trainSteps(m, batch, steps, world);
  // CHECK: :[[@LINE-1]]:3: note: the replicas are combined here
}

// Good: an engine with a fixed seed, handed to the helper.
void fixedEngine(const float *batch, int steps) {
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  std::mt19937 gen(1234);
  Mlp m;
  initFrom(m, gen);
  trainSteps(m, batch, steps, world);
}

// A network of the project's own: the constructor draws every weight from
// C's generator, which main seeds with the clock.
class Layer {
public:
  explicit Layer(int n) : w_(n) {
    for (float &v : w_)
      v = rand() / (float)RAND_MAX - 0.5f;
  }
  void averageWeights(int world) {
    MPI_Allreduce(MPI_IN_PLACE, w_.data(), (int)w_.size(), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
    for (float &v : w_)
      v /= world;
  }
  float *data() { return w_.data(); }

private:
  std::vector<float> w_;
};

// Bad: every process seeds C's generator with its own clock.
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  srand(time(nullptr));
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  Layer layer(kWeights);
  // CHECK: :[[@LINE-1]]:9: warning: 'layer' starts from different random values on each rank: its weights are drawn from a generator seeded differently in each process
  for (int epoch = 0; epoch < 10; ++epoch)
    layer.averageWeights(world);
  // CHECK: :[[@LINE-1]]:11: note: the replicas are combined here
  MPI_Finalize();
  return 0;
}

// Good: synthetic data drawn on each rank from its own seed is meant to
// differ; only the model's replicas are combined, and they start alike.
void syntheticData(int steps) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  Mlp data;
  initMlp(&data, 7u + rank);
  Mlp m;
  initMlp(&m, 42u);
  trainSteps(m, data.w, steps, world);
}

// Good: a coin per sample from a per-process engine picks, it draws no
// weights.
void dropoutMask(Mlp &m, int steps) {
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> coin(0.0f, 1.0f);
  float grad[kWeights], global[kWeights];
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < kWeights; ++i)
      grad[i] = coin(gen) < 0.5f ? 0.0f : m.w[i];
    MPI_Allreduce(grad, global, kWeights, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    applyUpdate(&m, global, 0.1f);
  }
}

// cuRAND's host generator, declared as its header does.
typedef struct curandGenerator_st *curandGenerator_t;
extern "C" int curandCreateGenerator(curandGenerator_t *generator, int kind);
extern "C" int curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator,
                                                  unsigned long long seed);
extern "C" int curandGenerateNormal(curandGenerator_t generator, float *out,
                                    unsigned long n, float mean, float stddev);

struct DeviceNet {
  float *weights;
  float *grads;
};

void averageGradients(DeviceNet &net, int n, ncclComm_t comm) {
  ncclAllReduce(net.grads, net.grads, n, ncclFloat, ncclAvg, comm, nullptr);
}

// Bad: cuRAND seeded with the clock fills the weights on each GPU.
void clockSeededDevice(ncclComm_t comm, int n, int steps) {
  DeviceNet net{};
  curandGenerator_t gen;
  curandCreateGenerator(&gen, 100);
  curandSetPseudoRandomGeneratorSeed(gen, time(nullptr));
  curandGenerateNormal(gen, net.weights, n, 0.0f, 0.02f);
  // CHECK: :[[@LINE-1]]:3: warning: 'net' starts from different random values on each rank: its weights are drawn from a generator seeded differently in each process
  for (int s = 0; s < steps; ++s)
    averageGradients(net, n, comm);
  // CHECK: :[[@LINE-1]]:5: note: the replicas are combined here
}

// Good: the same fixed seed on every GPU.
void fixedSeedDevice(ncclComm_t comm, int n, int steps) {
  DeviceNet net{};
  curandGenerator_t gen;
  curandCreateGenerator(&gen, 100);
  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  curandGenerateNormal(gen, net.weights, n, 0.0f, 0.02f);
  for (int s = 0; s < steps; ++s)
    averageGradients(net, n, comm);
}

// Good: seeded apart, then a list of pointers into the model, collected by
// a helper, is broadcast parameter by parameter.
struct ParamList {
  float *data[4];
  int count;
};

void collectParams(Mlp *m, ParamList *list) {
  list->data[0] = m->w;
  list->count = 1;
}

void broadcastCollected(const float *batch, int steps) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  Mlp m;
  initMlp(&m, 42u + rank);
  ParamList params;
  collectParams(&m, &params);
  for (int i = 0; i < params.count; ++i)
    MPI_Bcast(params.data[i], kWeights, MPI_FLOAT, 0, MPI_COMM_WORLD);
  trainSteps(m, batch, steps, world);
}

// Bad: the weights drawn in place, element by element, with the rank's seed.
void drawnInPlace(const float *batch, int steps) {
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  std::mt19937 gen(100 + rank);
  std::normal_distribution<float> dist(0.0f, 0.1f);
  Mlp m;
  for (float &v : m.w)
    v = dist(gen);
  // CHECK: :[[@LINE-1]]:9: warning: 'm' starts from different random values on each rank: its weights are drawn from a generator seeded with the rank
  trainSteps(m, batch, steps, world);
  // CHECK: :[[@LINE-1]]:3: note: the replicas are combined here
}

// A network whose constructor draws with the clock and then broadcasts
// rank 0's weights itself.
class SelfSyncing {
public:
  SelfSyncing() {
    std::mt19937 gen(time(nullptr));
    std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
    for (float &v : w_)
      v = dist(gen);
    MPI_Bcast(w_, kWeights, MPI_FLOAT, 0, MPI_COMM_WORLD);
  }
  void step(float lr) {
    float g[kWeights];
    MPI_Allreduce(w_, g, kWeights, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < kWeights; ++i)
      w_[i] -= lr * g[i];
  }

private:
  float w_[kWeights];
};

// Good: the constructor broadcasts what it drew.
void selfSyncing(int steps) {
  SelfSyncing net;
  for (int s = 0; s < steps; ++s)
    net.step(0.1f);
}

// Good: a Monte Carlo estimate; each rank's samples are meant to differ
// and are only sent into a sum.
double monteCarlo(int n) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::mt19937 gen(99 + rank);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> xs(n);
  for (double &x : xs)
    x = unit(gen);
  double local = 0, total = 0;
  for (double x : xs)
    local += x;
  MPI_Reduce(xs.data(), &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  return total;
}

// Noise added to the activations every step, drawn with the rank's seed.
void noisyForward(Mlp *m, float *act, std::mt19937 &gen) {
  std::normal_distribution<float> noise(0.0f, 0.01f);
  for (int i = 0; i < kWeights; ++i)
    act[i] = m->w[i] + noise(gen);
}

// Good: the model starts alike; the noise drawn in the loop is training's.
void noisyTraining(int steps) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::mt19937 gen(5 + rank);
  Mlp m;
  initMlp(&m, 42u);
  float act[kWeights], global[kWeights];
  for (int s = 0; s < steps; ++s) {
    noisyForward(&m, act, gen);
    MPI_Allreduce(act, global, kWeights, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    applyUpdate(&m, global, 0.1f);
  }
}
