// Both entry points, the clang-tidy plugin and the driver, on the mock headers:
// RUN: %clang_tidy %s -checks='-*,ddp-sampler-epoch' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-sampler-epoch' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err
//
// A sampler class named in ShufflingSamplers is treated like
// DistributedRandomSampler:
// RUN: %clang_tidy %s -checks='-*,ddp-sampler-epoch' \
// RUN:   -config="{CheckOptions: {ddp-sampler-epoch.ShufflingSamplers: '::torch::data::samplers::DistributedRandomSampler;::app::BlockShuffleSampler'}}" \
// RUN:   -- %mock_flags -DWITH_CUSTOM_SHUFFLER 2>/dev/null \
// RUN:   | FileCheck %s -check-prefixes=CHECK-MESSAGES,CHECK-CUSTOM -implicit-check-not='{{warning|error|note}}:'
//
// test/integration runs this same file against the real LibTorch headers.

#include <torch/torch.h>

#include <cstddef>
#include <memory>
#include <vector>

using torch::data::DataLoaderOptions;
using torch::data::make_data_loader;
using torch::data::samplers::DistributedRandomSampler;
using torch::data::samplers::DistributedSequentialSampler;
namespace samplers = torch::data::samplers;
namespace transforms = torch::data::transforms;

struct Points : torch::data::datasets::Dataset<Points> {
  torch::data::Example<> get(size_t index) override {
    return {torch::zeros({4}), torch::zeros({1})};
  }
  torch::optional<size_t> size() const override { return 64; }
};

template <typename Loader> void train_one_epoch(Loader &loader) {
  for (auto &batch : loader)
    (void)batch;
}

//===----------------------------------------------------------------------===//
// Replayed order: set_epoch / reset on the local sampler after the copy
//===----------------------------------------------------------------------===//

void set_epoch_after_copy(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  DistributedRandomSampler sampler(dataset.size().value(), world, rank);
  auto loader = make_data_loader(dataset, sampler, DataLoaderOptions(8));
  for (size_t epoch = 0; epoch < 10; ++epoch) {
    sampler.set_epoch(epoch);
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'set_epoch' on 'sampler' does not reach data loader 'loader': make_data_loader took the sampler by value, so the loader keeps its own copy and replays the same sample order every epoch; build the sampler and the loader inside the epoch loop, calling set_epoch(epoch) before make_data_loader [ddp-sampler-epoch]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: 'loader' copies 'sampler' here
    for (auto &batch : *loader)
      (void)batch;
  }
}

void reset_after_copy(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  DistributedRandomSampler sampler(64, world, rank);
  auto loader = make_data_loader(dataset, std::move(sampler), DataLoaderOptions(8));
  for (int epoch = 0; epoch < 3; ++epoch) {
    sampler.reset();
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'reset' on 'sampler' does not reach data loader 'loader'
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: 'loader' copies 'sampler' here
    train_one_epoch(*loader);
  }
}

//===----------------------------------------------------------------------===//
// Replayed order: one loader iterated every epoch
//===----------------------------------------------------------------------===//

void loader_outside_epoch_loop(size_t rank, size_t world) {
  auto loader = make_data_loader(Points().map(transforms::Stack<>()),
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: data loader 'loader' replays the same sample order every epoch: its distributed random sampler is seeded with its epoch, which stays 0 in the loader's own copy of the sampler; build the sampler and the loader inside the epoch loop, calling set_epoch(epoch) before make_data_loader [ddp-sampler-epoch]
                                 DistributedRandomSampler(64, world, rank),
                                 DataLoaderOptions(8));
  for (int epoch = 0; epoch < 3; ++epoch)
    for (auto &batch : *loader)
      // CHECK-MESSAGES: :[[@LINE-1]]:24: note: 'loader' is iterated again each epoch here
      (void)batch;
}

void loader_handed_to_a_function_each_epoch(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  DistributedRandomSampler sampler(64, world, rank);
  sampler.set_epoch(0); // before the copy: fine, but only once
  auto loader = make_data_loader(dataset, sampler, DataLoaderOptions(8));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: data loader 'loader' replays the same sample order every epoch
  int epoch = 0;
  while (epoch++ < 3)
    train_one_epoch(*loader);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: 'loader' is iterated again each epoch here
}

void manual_iteration_each_epoch(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  std::unique_ptr<torch::data::StatelessDataLoader<decltype(dataset), DistributedRandomSampler>> loader;
  loader = make_data_loader(dataset, DistributedRandomSampler(64, world, rank), DataLoaderOptions(8));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: data loader 'loader' replays the same sample order every epoch
  for (int epoch = 0; epoch < 3; ++epoch)
    for (auto it = loader->begin(); it != loader->end(); ++it)
      // CHECK-MESSAGES: :[[@LINE-1]]:20: note: 'loader' is iterated again each epoch here
      (void)*it;
}

//===----------------------------------------------------------------------===//
// Replayed order: a loader rebuilt every epoch from an unchanged sampler
//===----------------------------------------------------------------------===//

void rebuilt_without_set_epoch(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  DistributedRandomSampler sampler(64, world, rank);
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto loader = make_data_loader(dataset, sampler, DataLoaderOptions(8));
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: data loader 'loader' is rebuilt every epoch from 'sampler', whose epoch never changes, so every epoch replays the same sample order; call set_epoch(epoch) on 'sampler' before make_data_loader [ddp-sampler-epoch]
    train_one_epoch(*loader);
  }
}

void rebuilt_from_a_fresh_sampler(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto loader = make_data_loader(
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: data loader 'loader' is rebuilt every epoch from a new distributed random sampler, whose epoch is always 0, so every epoch replays the same sample order; construct the sampler before the call, call set_epoch(epoch) on it, then pass it to make_data_loader [ddp-sampler-epoch]
        dataset, DistributedRandomSampler(64, world, rank), DataLoaderOptions(8));
    train_one_epoch(*loader);
  }
}

//===----------------------------------------------------------------------===//
// No sharding: the factory default-constructs the sampler
//===----------------------------------------------------------------------===//

void default_constructed_sampler() {
  auto loader = make_data_loader<DistributedRandomSampler>(
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: make_data_loader default-constructs 'DistributedRandomSampler' from the dataset size alone, with num_replicas=1 and rank=0: every rank iterates the whole dataset instead of its shard; construct the sampler with the world size and this rank and pass it to make_data_loader [ddp-sampler-epoch]
      Points().map(transforms::Stack<>()), DataLoaderOptions(8));
  train_one_epoch(*loader);
}

void default_constructed_sequential_sampler() {
  auto loader = make_data_loader<samplers::DistributedSequentialSampler>(
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: make_data_loader default-constructs 'DistributedSequentialSampler' from the dataset size alone
      Points().map(transforms::Stack<>()));
  train_one_epoch(*loader);
}

//===----------------------------------------------------------------------===//
// Subclasses and samplers kept in a trainer's fields
//===----------------------------------------------------------------------===//

class TaggedSampler : public DistributedRandomSampler {
public:
  using DistributedRandomSampler::DistributedRandomSampler;
};

void subclass_of_random_sampler(size_t rank, size_t world) {
  TaggedSampler sampler(64, world, rank);
  auto loader = make_data_loader(Points().map(transforms::Stack<>()), sampler, DataLoaderOptions(8));
  for (int epoch = 0; epoch < 3; ++epoch) {
    sampler.set_epoch(epoch);
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'set_epoch' on 'sampler' does not reach data loader 'loader'
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: 'loader' copies 'sampler' here
    train_one_epoch(*loader);
  }
}

using StackedPoints = torch::data::datasets::MapDataset<Points, transforms::Stack<>>;

class Trainer {
public:
  Trainer(size_t rank, size_t world)
      : sampler_(64, world, rank),
        loader_(make_data_loader(Points().map(transforms::Stack<>()), sampler_,
                                 DataLoaderOptions(8))) {}

  void run_epoch(size_t epoch) {
    sampler_.set_epoch(epoch);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'set_epoch' on 'sampler_' does not reach data loader 'loader_'
    // CHECK-MESSAGES: :[[@LINE-6]]:17: note: 'loader_' copies 'sampler_' here
    for (auto &batch : *loader_)
      (void)batch;
  }

private:
  DistributedRandomSampler sampler_;
  std::unique_ptr<torch::data::StatelessDataLoader<StackedPoints, DistributedRandomSampler>> loader_;
};

#ifdef WITH_CUSTOM_SHUFFLER
namespace app {
class BlockShuffleSampler : public torch::data::samplers::DistributedSampler<> {
public:
  using DistributedSampler::DistributedSampler;
  void reset(torch::optional<size_t> new_size = torch::nullopt) override {}
  torch::optional<std::vector<size_t>> next(size_t batch_size) override { return {}; }
  void save(torch::serialize::OutputArchive &archive) const override {}
  void load(torch::serialize::InputArchive &archive) override {}
};
} // namespace app

void configured_shuffling_sampler(size_t rank, size_t world) {
  auto loader = make_data_loader(Points().map(transforms::Stack<>()),
  // CHECK-CUSTOM: :[[@LINE-1]]:3: warning: data loader 'loader' replays the same sample order every epoch
                                 app::BlockShuffleSampler(64, world, rank), DataLoaderOptions(8));
  for (int epoch = 0; epoch < 3; ++epoch)
    train_one_epoch(*loader);
  // CHECK-CUSTOM: :[[@LINE-1]]:5: note: 'loader' is iterated again each epoch here
}
#endif

//===----------------------------------------------------------------------===//
// Correct patterns: no diagnostics
//===----------------------------------------------------------------------===//

// The fix: a sampler per epoch, told its epoch, then its loader.
void negative_sampler_per_epoch(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  for (size_t epoch = 0; epoch < 10; ++epoch) {
    DistributedRandomSampler sampler(64, world, rank);
    sampler.set_epoch(epoch);
    auto loader = make_data_loader(dataset, sampler, DataLoaderOptions(8));
    for (auto &batch : *loader)
      (void)batch;
  }
}

// One sampler, told each new epoch before the loader copies it.
void negative_set_epoch_before_each_copy(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  DistributedRandomSampler sampler(64, world, rank);
  std::unique_ptr<torch::data::StatelessDataLoader<decltype(dataset), DistributedRandomSampler>> loader;
  for (size_t epoch = 0; epoch < 10; ++epoch) {
    sampler.set_epoch(epoch);
    loader = make_data_loader(dataset, sampler, DataLoaderOptions(8));
    train_one_epoch(*loader);
  }
}

// A single pass: there is no next epoch to replay.
void negative_single_pass(size_t rank, size_t world) {
  DistributedRandomSampler sampler(64, world, rank);
  sampler.set_epoch(3);
  auto loader = make_data_loader(Points().map(transforms::Stack<>()), sampler, DataLoaderOptions(8));
  for (auto &batch : *loader)
    (void)batch;
}

// Nothing to shuffle: a sequential sampler's order does not depend on epochs.
void negative_sequential_sampler(size_t rank, size_t world) {
  auto loader = make_data_loader(Points().map(transforms::Stack<>()),
                                 DistributedSequentialSampler(64, world, rank),
                                 DataLoaderOptions(8));
  for (int epoch = 0; epoch < 3; ++epoch)
    train_one_epoch(*loader);
}

// A loop over different datasets, one pass each: not an epoch loop.
void negative_loop_over_datasets(size_t rank, size_t world) {
  for (int shard = 0; shard < 3; ++shard) {
    auto dataset = Points().map(transforms::Stack<>());
    auto loader = make_data_loader(dataset, DistributedRandomSampler(64, world, rank), DataLoaderOptions(8));
    train_one_epoch(*loader);
  }
}

// Full-batch training: each rank's one batch is its whole shard, so the order
// within it does not matter (and the ranks' shards together are the dataset
// whatever the epoch), given as a count or through the options.
void negative_full_batch(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  DistributedRandomSampler sampler(dataset.size().value(), world, rank);
  auto per_rank = dataset.size().value() / world;
  auto batch_size = per_rank;
  auto loader = make_data_loader(std::move(dataset), sampler, batch_size);
  for (int epoch = 0; epoch < 3; ++epoch)
    train_one_epoch(*loader);
}

void negative_full_batch_options(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  DistributedRandomSampler sampler(dataset.size().value(), world, rank);
  auto loader = make_data_loader(
      dataset, sampler, DataLoaderOptions().batch_size(dataset.size().value() / world));
  for (int epoch = 0; epoch < 3; ++epoch)
    train_one_epoch(*loader);
}

// The whole shard kept in a floating-point local, and in a field the
// function sets first.
void negative_full_batch_double(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  auto sampler = DistributedRandomSampler(dataset.size().value(), world, rank);
  double shard = dataset.size().value() / world;
  auto loader = make_data_loader(std::move(dataset), sampler, shard);
  for (int epoch = 0; epoch < 3; ++epoch)
    train_one_epoch(*loader);
}

struct FullBatchTrainer {
  size_t world = 1, rank = 0, batch_size = 0;
  void train() {
    auto dataset = Points().map(transforms::Stack<>());
    batch_size = dataset.size().value() / world;
    auto sampler = DistributedRandomSampler(dataset.size().value(), world, rank);
    auto loader = make_data_loader(std::move(dataset), sampler, batch_size);
    for (int epoch = 0; epoch < 3; ++epoch)
      train_one_epoch(*loader);
  }
};

// A batch of a hundredth of the data is no full batch.
void batches_of_a_fraction(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  DistributedRandomSampler sampler(dataset.size().value(), world, rank);
  auto loader = make_data_loader(dataset, sampler, dataset.size().value() / 100);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: data loader 'loader' replays the same sample order every epoch{{.*}} [ddp-sampler-epoch]
  for (int epoch = 0; epoch < 3; ++epoch)
    train_one_epoch(*loader);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: note: 'loader' is iterated again each epoch here
}

// Non-distributed samplers are out of scope.
void negative_random_sampler() {
  auto loader = make_data_loader(Points().map(transforms::Stack<>()), DataLoaderOptions(8));
  for (int epoch = 0; epoch < 3; ++epoch)
    train_one_epoch(*loader);
}

// A loader received from the caller: the caller decides how it was built.
template <typename Loader>
void negative_loader_parameter(Loader &loader, int epochs) {
  for (int epoch = 0; epoch < epochs; ++epoch)
    for (auto &batch : loader)
      (void)batch;
}

// Suppressed with NOLINT: the replay is intended (e.g. a reproducibility test).
void negative_suppressed(size_t rank, size_t world) {
  auto loader = make_data_loader(Points().map(transforms::Stack<>()), // NOLINT(ddp-sampler-epoch)
                                 DistributedRandomSampler(64, world, rank), DataLoaderOptions(8));
  for (int epoch = 0; epoch < 3; ++epoch)
    train_one_epoch(*loader);
}

// A trainer whose dataset type is a template parameter nothing instantiates:
// clang leaves make_data_loader unresolved; its sampler argument still says
// which loader copies which sampler.
template <typename Dataset> struct TemplateTrainer {
  std::shared_ptr<Dataset> dataset_;
  void fit(size_t rank, size_t world, int epochs) {
    DistributedRandomSampler sampler(64, world, rank);
    auto loader = make_data_loader(*dataset_, sampler, DataLoaderOptions(8));
    for (int epoch = 0; epoch < epochs; ++epoch) {
      sampler.set_epoch(epoch);
      // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'set_epoch' on 'sampler' does not reach data loader 'loader'{{.*}} [ddp-sampler-epoch]
      // CHECK-MESSAGES: :[[@LINE-4]]:5: note: 'loader' copies 'sampler' here
      for (auto &batch : *loader)
        (void)batch;
    }
  }
  // Rebuilt after set_epoch every epoch: each pass has the new order.
  void fit_rebuilt(size_t rank, size_t world, int epochs) {
    DistributedRandomSampler sampler(64, world, rank);
    for (int epoch = 0; epoch < epochs; ++epoch) {
      sampler.set_epoch(epoch);
      auto loader = make_data_loader(*dataset_, sampler, DataLoaderOptions(8));
      for (auto &batch : *loader)
        (void)batch;
    }
  }
};

//===----------------------------------------------------------------------===//
// Known false negatives (see docs/checks/ddp-sampler-epoch.md)
//===----------------------------------------------------------------------===//

template <typename Dataset>
auto build_loader(Dataset dataset, DistributedRandomSampler sampler) {
  return make_data_loader(std::move(dataset), std::move(sampler), DataLoaderOptions(8));
}

// The loader is rebuilt by a helper each epoch from an unchanged sampler: the
// copy happens inside the helper, out of this function's sight.
void false_negative_rebuilt_by_helper(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  DistributedRandomSampler sampler(64, world, rank);
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto loader = build_loader(dataset, sampler);
    train_one_epoch(*loader);
  }
}

// set_epoch with a value that does not change between epochs.
void false_negative_constant_epoch(size_t rank, size_t world) {
  auto dataset = Points().map(transforms::Stack<>());
  for (int epoch = 0; epoch < 3; ++epoch) {
    DistributedRandomSampler sampler(64, world, rank);
    sampler.set_epoch(0);
    auto loader = make_data_loader(dataset, sampler, DataLoaderOptions(8));
    train_one_epoch(*loader);
  }
}

void instantiate(size_t rank, size_t world) {
  auto loader = make_data_loader(Points().map(transforms::Stack<>()), DistributedSequentialSampler(64, world, rank), DataLoaderOptions(8));
  negative_loader_parameter(*loader, 3);
}
