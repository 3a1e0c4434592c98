// A unit clang recovers from: every header is found, one call does not
// type-check. Its functions are analysed; it is not vacuous.
#include <torch/torch.h>

struct Points : torch::data::datasets::Dataset<Points> {
  torch::data::Example<> get(size_t) override { return {torch::zeros({4}), torch::zeros({1})}; }
  torch::optional<size_t> size() const override { return 64; }
};

void log_epoch(size_t epoch) { report_progress(epoch); }

void train(size_t rank, size_t world) {
  for (size_t epoch = 0; epoch < 3; ++epoch) {
    torch::data::samplers::DistributedRandomSampler sampler(64, world, rank);
    sampler.set_epoch(epoch);
    auto loader = torch::data::make_data_loader(
        Points().map(torch::data::transforms::Stack<>()), sampler,
        torch::data::DataLoaderOptions(8));
    log_epoch(epoch);
    for (auto &batch : *loader)
      (void)batch;
  }
}

#ifdef WITH_FINDING
void train_replaying(size_t rank, size_t world) {
  torch::data::samplers::DistributedRandomSampler sampler(64, world, rank);
  auto loader = torch::data::make_data_loader(
      Points().map(torch::data::transforms::Stack<>()), sampler,
      torch::data::DataLoaderOptions(8));
  for (size_t epoch = 0; epoch < 3; ++epoch) {
    sampler.set_epoch(epoch);
    log_epoch(epoch);
    for (auto &batch : *loader)
      (void)batch;
  }
}
#endif
