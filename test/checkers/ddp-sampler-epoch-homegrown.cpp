// ddp-sampler-epoch on a framework of the project's own: its sampler shards by
// rank and has an epoch setter (`setEpoch`), its loader is a class that can be
// iterated, built from the sampler. Functions marked "Bad" must be reported,
// the others must stay silent.
// RUN: %clang_tidy %s -checks='-*,ddp-sampler-epoch' -- -std=c++17 2>/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-sampler-epoch' -- -std=c++17 2> %t.err \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <cstddef>
#include <memory>
#include <vector>

namespace mini {

struct Sampler {
  virtual ~Sampler() = default;
  virtual std::vector<size_t> indices() const = 0;
  virtual void setEpoch(size_t epoch) {}
};

struct DistributedSampler : Sampler {
  DistributedSampler(size_t size, size_t replicas, size_t rank);
  std::vector<size_t> indices() const override;
  void setEpoch(size_t epoch) override;
};

struct RandomSampler : Sampler {
  explicit RandomSampler(size_t size);
  std::vector<size_t> indices() const override;
  void setEpoch(size_t epoch) override;
};

struct Dataset {
  size_t size() const;
};

// Copies the sampler's order once, when built.
class DataLoader {
public:
  DataLoader(std::shared_ptr<Dataset> dataset, size_t batch,
             std::shared_ptr<Sampler> sampler = nullptr)
      : indices_(sampler ? sampler->indices() : std::vector<size_t>()) {}
  const size_t *begin() const { return indices_.data(); }
  const size_t *end() const { return indices_.data() + indices_.size(); }

private:
  std::vector<size_t> indices_;
};

} // namespace mini

void train(mini::DataLoader &loader) {
  for (size_t index : loader)
    (void)index;
}

// Bad: the loader is iterated every epoch; the sampler's epoch never moves.
void unset_epoch(size_t rank, size_t world, int epochs) {
  auto dataset = std::make_shared<mini::Dataset>();
  auto sampler = std::make_shared<mini::DistributedSampler>(dataset->size(), world, rank);
  auto loader = mini::DataLoader(dataset, 64, sampler);
  // CHECK: :[[@LINE-1]]:3: warning: data loader 'loader' is iterated again each epoch and nothing sets the epoch of its distributed sampler 'sampler'{{.*}} [ddp-sampler-epoch]
  for (int epoch = 0; epoch < epochs; ++epoch)
    train(loader);
  // CHECK: :[[@LINE-1]]:5: note: 'loader' is iterated again each epoch here
}

// Bad: the same, iterated in place.
void unset_epoch_range_for(size_t rank, size_t world, int epochs) {
  auto dataset = std::make_shared<mini::Dataset>();
  auto sampler = std::make_shared<mini::DistributedSampler>(dataset->size(), world, rank);
  mini::DataLoader loader(dataset, 64, sampler);
  // CHECK: :[[@LINE-1]]:3: warning: data loader 'loader' is iterated again each epoch{{.*}} [ddp-sampler-epoch]
  for (int epoch = 0; epoch < epochs; ++epoch)
    for (size_t index : loader)
      // CHECK: :[[@LINE-1]]:25: note: 'loader' is iterated again each epoch here
      (void)index;
}

// The epoch is set, and the loader rebuilt after it.
void epoch_set_and_rebuilt(size_t rank, size_t world, int epochs) {
  auto dataset = std::make_shared<mini::Dataset>();
  auto sampler = std::make_shared<mini::DistributedSampler>(dataset->size(), world, rank);
  for (int epoch = 0; epoch < epochs; ++epoch) {
    sampler->setEpoch(epoch);
    auto loader = mini::DataLoader(dataset, 64, sampler);
    train(loader);
  }
}

// The epoch is set each epoch (whether this loader sees it is the loader's
// business: not known here).
void epoch_set(size_t rank, size_t world, int epochs) {
  auto dataset = std::make_shared<mini::Dataset>();
  auto sampler = std::make_shared<mini::DistributedSampler>(dataset->size(), world, rank);
  auto loader = mini::DataLoader(dataset, 64, sampler);
  for (int epoch = 0; epoch < epochs; ++epoch) {
    sampler->setEpoch(epoch);
    train(loader);
  }
}

// A sampler that does not shard by rank is out of scope.
void random_sampler(int epochs) {
  auto dataset = std::make_shared<mini::Dataset>();
  auto sampler = std::make_shared<mini::RandomSampler>(dataset->size());
  auto loader = mini::DataLoader(dataset, 64, sampler);
  for (int epoch = 0; epoch < epochs; ++epoch)
    train(loader);
}

// One pass only.
void single_pass(size_t rank, size_t world) {
  auto dataset = std::make_shared<mini::Dataset>();
  auto sampler = std::make_shared<mini::DistributedSampler>(dataset->size(), world, rank);
  auto loader = mini::DataLoader(dataset, 64, sampler);
  train(loader);
}
