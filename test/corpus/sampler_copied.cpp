// make_data_loader copies the sampler it is given; set_epoch on the
// original never reaches the loader's copy, so every epoch replays the same
// shuffled order. The probe records each batch's dataset indices.
//
// CORPUS-STATIC: ddp-sampler-epoch
// CORPUS-RUNTIME: data-order same-order
#include <ddpharness/ddpharness.h>
#include <torch/torch.h>

namespace data = torch::data;

struct Points : data::datasets::Dataset<Points> {
  data::Example<> get(size_t index) override {
    auto x = torch::sin(torch::arange(4, torch::kFloat32) * 0.7 +
                        static_cast<double>(index));
    return {x, torch::tensor(static_cast<int64_t>(index))};
  }
  c10::optional<size_t> size() const override { return 16; }
};

int main() {
  auto dist = ddpharness::init_process_group_from_env();
  ddpharness::Probe probe;
  torch::nn::Linear model(4, 1);
  ddpharness::DistributedDataParallel<torch::nn::Linear> ddp(
      model, dist.process_group);
  torch::optim::SGD optimizer(model->parameters(), 0.1);

  data::samplers::DistributedRandomSampler sampler(16, dist.world_size,
                                                   dist.rank);
  auto loader = data::make_data_loader(
      Points().map(data::transforms::Stack<>()), sampler,
      data::DataLoaderOptions().batch_size(2));
  int64_t step = 0;
  for (int epoch = 0; epoch < 3; ++epoch) {
    sampler.set_epoch(epoch);
    for (auto &batch : *loader) {
      auto y = torch::cos(batch.data.sum(1, /*keepdim=*/true));
      optimizer.zero_grad();
      torch::mse_loss(ddp(batch.data), y).backward();
      optimizer.step();
      probe.step(*model, step++, epoch, batch.target);
    }
  }
}
