// Output-format findings: a forward pass that bypasses the wrapper (two notes,
// a fix-it; the step after it is the same cause), a sampler copied into its
// loader, twice, a step with no sync. The flagged lines hold a tab and a
// non-ASCII comment, the context a '<': every format must carry them intact.
#include "wrapper.h"

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

using DDP = dp::DistributedDataParallel<Net>;

void step(c10::intrusive_ptr<c10d::ProcessGroup> pg, torch::Tensor x,
          torch::Tensor y, torch::optim::SGD &opt) {
  Net model;
  auto ddp = std::make_shared<DDP>(model, pg);
  /* é */	auto out = model->forward(x);
  auto loss = torch::mse_loss(out, y);
  loss.backward();
  opt.step();
}

inline size_t epochs_limit() { return 3; }

struct Points : torch::data::datasets::Dataset<Points> {
  torch::data::Example<> get(size_t) override { return {torch::zeros({4}), torch::zeros({1})}; }
  torch::optional<size_t> size() const override { return 64; }
};

void train(size_t rank, size_t world) {
  torch::data::samplers::DistributedRandomSampler sampler(64, world, rank);
  auto loader = torch::data::make_data_loader(
      Points().map(torch::data::transforms::Stack<>()), sampler,
      torch::data::DataLoaderOptions(8));
  for (size_t epoch = 0; epoch < 3 && epoch<epochs_limit(); ++epoch) {
    sampler.set_epoch(epoch);
    for (auto &batch : *loader)
      (void)batch;
  }
}

// The same mistake again in the same file: same check, same line text, so
// the fingerprints differ only in their occurrence count.
void train_again(size_t rank, size_t world) {
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

// A step with no wrapper and no sync at all: a cause of its own.
void step_alone(c10::intrusive_ptr<c10d::ProcessGroup> pg, Net model,
                torch::Tensor x, torch::Tensor y, torch::optim::SGD &opt) {
  auto loss = torch::mse_loss(model->forward(x), y);
  loss.backward();
  opt.step();
}
