//===- SamplerEpoch.cpp - set_epoch on a sampler the loader copied --------===//
//
// torch::data::make_data_loader takes its sampler by value. Calling
// set_epoch on the local sampler every epoch therefore never reaches the
// loader's copy, which reshuffles with epoch 0 each time: every epoch
// replays the first one's order. The fix builds the sampler per epoch, sets
// the epoch, then builds the loader from it.
//
// The probe records the dataset indices of every batch; the launcher reads
// the verdict (same-order or reshuffled) from them.
//
//===----------------------------------------------------------------------===//

#include "Scenario.h"
#include "Training.h"

using namespace ddpscenario;
namespace data = torch::data;

namespace {

constexpr size_t kDatasetSize = 16;
constexpr size_t kBatchSize = 2;
constexpr int kEpochs = 3;

/// Point i of a small regression set, labelled with its own index so the
/// probe can record which examples a batch held.
class IndexedPoints : public data::datasets::Dataset<IndexedPoints> {
public:
  data::Example<> get(size_t Index) override {
    auto X = torch::sin(torch::arange(4, torch::kFloat32) * 0.7 +
                        static_cast<double>(Index));
    return {X, torch::tensor(static_cast<int64_t>(Index))};
  }
  c10::optional<size_t> size() const override { return kDatasetSize; }
};

struct Trainer {
  Context &C;
  Net Model = make_model(C.device);
  ddpharness::DistributedDataParallel<Net> Ddp{Model, C.dist.process_group};
  torch::optim::SGD Optimizer{Model->parameters(), kLearningRate};
  int64_t Step = 0;

  void train(const data::Example<> &Batch, int Epoch) {
    auto X = Batch.data.to(C.device);
    auto Y = torch::cos(X.sum(1, /*keepdim=*/true));
    Optimizer.zero_grad();
    torch::mse_loss(Ddp(X), Y).backward();
    Optimizer.step();
    C.probe.step(*Model, Step++, Epoch, Batch.target);
  }
};

void run(Context &C) {
  Trainer T{C};
  auto Dataset = IndexedPoints().map(data::transforms::Stack<>());
  auto Options = data::DataLoaderOptions().batch_size(kBatchSize);

  if (C.variant == "buggy") {
    data::samplers::DistributedRandomSampler Sampler(
        kDatasetSize, C.dist.world_size, C.dist.rank);
    auto Loader = data::make_data_loader(Dataset, Sampler, Options);
    for (int Epoch = 0; Epoch < kEpochs; ++Epoch) {
      Sampler.set_epoch(Epoch);
      for (auto &Batch : *Loader)
        T.train(Batch, Epoch);
    }
    return;
  }
  for (int Epoch = 0; Epoch < kEpochs; ++Epoch) {
    data::samplers::DistributedRandomSampler Sampler(
        kDatasetSize, C.dist.world_size, C.dist.rank);
    Sampler.set_epoch(Epoch);
    auto Loader = data::make_data_loader(Dataset, Sampler, Options);
    for (auto &Batch : *Loader)
      T.train(Batch, Epoch);
  }
}

} // namespace

namespace ddpscenario {
extern const Scenario SamplerEpoch = {
    "sampler-epoch",
    "ddp-sampler-epoch",
    "data-order",
    {"buggy", "fixed"},
    "set_epoch on a sampler the loader copied: every epoch the same order",
    run};
} // namespace ddpscenario
