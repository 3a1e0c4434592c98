// Like the RUN lines of a checker test: a line comment that ends in a \
// backslash goes on on the next line, and the includes follow it.
#include <torch/torch.h>

struct Points : torch::data::datasets::Dataset<Points> {
  torch::data::Example<> get(size_t) override { return {torch::zeros({4}), torch::zeros({1})}; }
  torch::optional<size_t> size() const override { return 64; }
};

void train(size_t rank, size_t world) {
  torch::data::samplers::DistributedRandomSampler sampler(64, world, rank);
  auto loader = torch::data::make_data_loader(
      Points().map(torch::data::transforms::Stack<>()), sampler,
      torch::data::DataLoaderOptions(8));
  for (size_t epoch = 0; epoch < 3; ++epoch) {
    sampler.set_epoch(epoch);
    for (auto &batch : *loader)
      (void)batch;
  }
}
