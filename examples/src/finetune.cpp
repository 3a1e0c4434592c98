// Fine-tunes ConvNet on the synthetic task in two stages: a short linear probe
// of the classification head with the backbone frozen, then full fine-tuning.
// Gradients are synchronised by hand with dist::allreduce_gradients; this
// entry point does not use the DistributedDataParallel wrapper.

#include "config.h"
#include "data.h"
#include "dist_utils.h"
#include "model.h"

#include <torch/torch.h>

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <string>

namespace {

namespace F = torch::nn::functional;

struct FinetuneOptions {
  int64_t epochs = 5;
  int64_t probe_steps = 50;
  int64_t batch_size = 64;
  int64_t train_size = 8192;
  int64_t num_classes = 10;
  uint64_t seed = 7;
  uint64_t data_seed = 4321;
  double probe_lr = 0.1;
  double lr = 0.01;
  double target_loss = 0.0;
  std::string init_checkpoint;
  std::string output = "convnet_finetuned.pt";

  static FinetuneOptions from_env() {
    FinetuneOptions options;
    options.epochs = config::env_int("EPOCHS", options.epochs);
    options.probe_steps = config::env_int("PROBE_STEPS", options.probe_steps);
    options.batch_size = config::env_int("BATCH_SIZE", options.batch_size);
    options.train_size = config::env_int("TRAIN_SIZE", options.train_size);
    options.lr = config::env_double("LR", options.lr);
    options.target_loss = config::env_double("TARGET_LOSS", options.target_loss);
    options.init_checkpoint =
        config::env_string("INIT_CHECKPOINT", options.init_checkpoint);
    options.output = config::env_string("OUTPUT", options.output);
    return options;
  }
};

void set_backbone_trainable(ConvNet& model, bool trainable) {
  for (auto& item : model->named_parameters()) {
    if (item.key().rfind("head.", 0) != 0) {
      item.value().set_requires_grad(trainable);
    }
  }
}

} // namespace

int main() {
  const auto options = FinetuneOptions::from_env();
  auto context = dist::init_from_env();
  auto& process_group = *context.process_group;

  // Per-rank seed: dropout masks should differ between replicas.
  torch::manual_seed(options.seed + static_cast<uint64_t>(context.rank));
  ConvNet model(ConvNetOptions().num_classes(options.num_classes));
  if (!options.init_checkpoint.empty()) {
    torch::load(model, options.init_checkpoint);
  }

  auto train_set = synth::make_dataset(
      options.train_size, options.num_classes, options.data_seed);
  const auto loader_options =
      torch::data::DataLoaderOptions().batch_size(options.batch_size);

  // Stage 1: linear probe.
  set_backbone_trainable(model, false);
  torch::optim::SGD probe_optimizer(
      model->head->parameters(),
      torch::optim::SGDOptions(options.probe_lr).momentum(0.9));
  auto probe_loader = torch::data::make_data_loader<
      torch::data::samplers::DistributedRandomSampler>(train_set, loader_options);
  model->train();
  int64_t step = 0;
  for (auto& batch : *probe_loader) {
    if (step++ >= options.probe_steps) {
      break;
    }
    probe_optimizer.zero_grad();
    auto loss = F::cross_entropy(model->forward(batch.data), batch.target);
    loss.backward();
    probe_optimizer.step();
  }

  // Stage 2: full fine-tuning.
  set_backbone_trainable(model, true);
  torch::optim::SGD optimizer(
      model->parameters(), torch::optim::SGDOptions(options.lr).momentum(0.9));
  if (!options.init_checkpoint.empty()) {
    // Full fine-tuning starts again from the initial weights, not the probe's.
    model = ConvNet(ConvNetOptions().num_classes(options.num_classes));
    torch::load(model, options.init_checkpoint);
  }
  for (int64_t epoch = 0; epoch < options.epochs; ++epoch) {
    model->train();
    torch::data::samplers::DistributedRandomSampler sampler(
        train_set.size().value(),
        static_cast<size_t>(context.world_size),
        static_cast<size_t>(context.rank));
    sampler.set_epoch(static_cast<size_t>(epoch));
    auto loader =
        torch::data::make_data_loader(train_set, sampler, loader_options);

    double loss_sum = 0.0;
    int64_t batches = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto loss = F::cross_entropy(model->forward(batch.data), batch.target);
      loss.backward();
      dist::allreduce_gradients(process_group, model->parameters());
      optimizer.step();
      loss_sum += loss.item<double>();
      ++batches;
    }

    const double epoch_loss = loss_sum / static_cast<double>(batches);
    const double mean_loss = dist::all_reduce_mean(process_group, epoch_loss);
    if (context.is_main()) {
      std::cout << std::fixed << std::setprecision(4) << "finetune epoch "
                << epoch << " loss " << mean_loss << std::endl;
    }
    if (epoch_loss < options.target_loss) {
      break;
    }
  }

  dist::save_checkpoint(model.ptr(), options.output, context.rank);
  return 0;
}
