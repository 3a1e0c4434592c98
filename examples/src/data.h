#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>

namespace synth {

// In-memory image classification data: every class has a random prototype
// image and samples are noisy copies of it. The tensors are generated from
// fixed seeds, so every rank holds the same dataset without any download or
// shared file system; `seed` selects the samples (use different seeds for the
// training and validation splits).
class SyntheticImageDataset
    : public torch::data::datasets::Dataset<SyntheticImageDataset> {
 public:
  SyntheticImageDataset(
      int64_t size,
      int64_t num_classes,
      int64_t image_size,
      uint64_t seed);

  torch::data::Example<> get(size_t index) override;
  torch::optional<size_t> size() const override;

  int64_t num_classes() const {
    return num_classes_;
  }

 private:
  torch::Tensor images_;
  torch::Tensor labels_;
  int64_t num_classes_;
};

using Dataset = torch::data::datasets::
    MapDataset<SyntheticImageDataset, torch::data::transforms::Stack<>>;

using EvalLoader = torch::data::StatelessDataLoader<
    Dataset,
    torch::data::samplers::DistributedSequentialSampler>;

Dataset make_dataset(
    int64_t size,
    int64_t num_classes,
    uint64_t seed,
    int64_t image_size = 8);

// Sharded, deterministic loader for validation: each rank sees a disjoint
// slice of the data, in order.
std::unique_ptr<EvalLoader> make_eval_loader(
    Dataset dataset,
    size_t rank,
    size_t world_size,
    size_t batch_size);

} // namespace synth
