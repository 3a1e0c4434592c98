#include <torch/torch.h>

struct Points : torch::data::datasets::Dataset<Points> {
  torch::data::Example<> get(size_t) override { return {torch::zeros({4}), torch::zeros({1})}; }
  torch::optional<size_t> size() const override { return 64; }
};

template <typename L> void pass(L &loader) { for (auto &b : loader) (void)b; }

void train(size_t rank, size_t world) {
  using torch::data::samplers::DistributedRandomSampler;
  auto stacked = Points().map(torch::data::transforms::Stack<>());
  auto a = torch::data::make_data_loader(stacked, DistributedRandomSampler(64, world, rank), torch::data::DataLoaderOptions(8)); // NOLINT(ddp-sampler-epoch)
  // NOLINTNEXTLINE(ddp-*)
  auto b = torch::data::make_data_loader(stacked, DistributedRandomSampler(64, world, rank), torch::data::DataLoaderOptions(8));
  // NOLINTBEGIN(ddp-sampler-epoch)
  auto c = torch::data::make_data_loader(stacked, DistributedRandomSampler(64, world, rank), torch::data::DataLoaderOptions(8));
  // NOLINTEND(ddp-sampler-epoch)
  auto d = torch::data::make_data_loader(stacked, DistributedRandomSampler(64, world, rank), torch::data::DataLoaderOptions(8)); // NOLINT(bugprone-*)
  for (int epoch = 0; epoch < 3; ++epoch) {
    pass(*a);
    pass(*b);
    pass(*c);
    pass(*d);
  }
}
