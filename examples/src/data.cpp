#include "data.h"

#include <ATen/CPUGeneratorImpl.h>

#include <utility>

namespace synth {
namespace {

// Fixes the class prototypes, i.e. the task itself. Training and validation
// splits share it and differ only in the seed of their samples.
constexpr uint64_t kTaskSeed = 20240611;

} // namespace

SyntheticImageDataset::SyntheticImageDataset(
    int64_t size,
    int64_t num_classes,
    int64_t image_size,
    uint64_t seed)
    : num_classes_(num_classes) {
  auto task_generator = at::detail::createCPUGenerator(kTaskSeed);
  const auto prototypes =
      torch::randn({num_classes, 1, image_size, image_size}, task_generator);

  auto generator = at::detail::createCPUGenerator(seed);
  labels_ = torch::randint(num_classes, {size}, generator, torch::kLong);
  const auto noise = torch::randn({size, 1, image_size, image_size}, generator);
  images_ = prototypes.index_select(0, labels_) + 0.8 * noise;
}

torch::data::Example<> SyntheticImageDataset::get(size_t index) {
  const auto i = static_cast<int64_t>(index);
  return {images_[i], labels_[i]};
}

torch::optional<size_t> SyntheticImageDataset::size() const {
  return static_cast<size_t>(labels_.size(0));
}

Dataset make_dataset(
    int64_t size,
    int64_t num_classes,
    uint64_t seed,
    int64_t image_size) {
  return SyntheticImageDataset(size, num_classes, image_size, seed)
      .map(torch::data::transforms::Stack<>());
}

std::unique_ptr<EvalLoader> make_eval_loader(
    Dataset dataset,
    size_t rank,
    size_t world_size,
    size_t batch_size) {
  torch::data::samplers::DistributedSequentialSampler sampler(
      dataset.size().value(), world_size, rank, /*allow_duplicates=*/false);
  return torch::data::make_data_loader(
      std::move(dataset),
      std::move(sampler),
      torch::data::DataLoaderOptions().batch_size(batch_size));
}

} // namespace synth
