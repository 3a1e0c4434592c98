// Data-parallel training of ConvNet on the synthetic image task.
//
// Launch one process per rank with RANK, WORLD_SIZE, MASTER_ADDR and
// MASTER_PORT set; see examples/README.md.

#include "config.h"
#include "data.h"
#include "ddp.h"
#include "dist_utils.h"
#include "model.h"

#include <torch/torch.h>

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

namespace F = torch::nn::functional;

using DataParallelConvNet = ddp::DistributedDataParallel<ConvNet>;

struct TrainOptions {
  int64_t epochs = 10;
  int64_t batch_size = 64;
  int64_t train_size = 8192;
  int64_t val_size = 1024;
  int64_t num_classes = 10;
  uint64_t seed = 42;
  uint64_t data_seed = 1234;
  double lr = 0.05;
  double momentum = 0.9;
  double max_grad_norm = 5.0;
  double embedding_penalty = 0.0;
  bool learn_temperature = false;
  double target_loss = 0.0;
  std::string resume;
  std::string checkpoint = "convnet.pt";

  static TrainOptions from_env() {
    TrainOptions options;
    options.epochs = config::env_int("EPOCHS", options.epochs);
    options.batch_size = config::env_int("BATCH_SIZE", options.batch_size);
    options.train_size = config::env_int("TRAIN_SIZE", options.train_size);
    options.val_size = config::env_int("VAL_SIZE", options.val_size);
    options.lr = config::env_double("LR", options.lr);
    options.embedding_penalty =
        config::env_double("EMBEDDING_PENALTY", options.embedding_penalty);
    options.learn_temperature =
        config::env_flag("LEARN_TEMPERATURE", options.learn_temperature);
    options.target_loss = config::env_double("TARGET_LOSS", options.target_loss);
    options.resume = config::env_string("RESUME", options.resume);
    options.checkpoint = config::env_string("CHECKPOINT", options.checkpoint);
    return options;
  }
};

struct EvalResult {
  double loss = 0.0;
  double accuracy = 0.0;
};

template <typename Loader>
double train_epoch(
    DataParallelConvNet& ddp,
    Loader& loader,
    torch::optim::Optimizer& optimizer,
    const torch::Tensor& log_temperature,
    const TrainOptions& options,
    const torch::Device& device) {
  ddp.train();
  auto& process_group = ddp.process_group();
  double loss_sum = 0.0;
  int64_t batches = 0;

  for (auto& batch : loader) {
    const torch::Tensor data = batch.data.to(device);
    const torch::Tensor target = batch.target.to(device);
    optimizer.zero_grad();

    torch::Tensor logits;
    torch::Tensor penalty = torch::zeros({}, data.options());
    if (options.embedding_penalty > 0.0) {
      // forward() only returns logits; the penalty needs the embedding too.
      auto embedding = ddp.module()->embed(data);
      logits = ddp.module()->classify(embedding);
      penalty = options.embedding_penalty * embedding.pow(2).sum(1).mean();
    } else {
      logits = ddp.forward(data);
    }
    if (options.learn_temperature) {
      logits = logits / log_temperature.exp();
    }

    torch::Tensor loss = F::cross_entropy(logits, target) + penalty;
    loss.backward();
    ddp.synchronize_gradients();

    c10::intrusive_ptr<c10d::Work> temperature_sync;
    if (options.learn_temperature) {
      std::vector<at::Tensor> grads{
          log_temperature.mutable_grad().div_(process_group.getSize())};
      temperature_sync = process_group.allreduce(grads);
    }

    torch::nn::utils::clip_grad_norm_(ddp.parameters(), options.max_grad_norm);
    optimizer.step();

    loss_sum += loss.item<double>();
    ++batches;
  }
  return batches > 0 ? loss_sum / static_cast<double>(batches) : 0.0;
}

EvalResult evaluate(
    ConvNet& model,
    const synth::Dataset& val_set,
    const dist::Context& context,
    const TrainOptions& options,
    const torch::Device& device) {
  torch::NoGradGuard no_grad;
  model->eval();

  auto loader = synth::make_eval_loader(
      val_set, context.rank, context.world_size, options.batch_size);
  double loss_sum = 0.0;
  double correct = 0.0;
  double count = 0.0;
  for (auto& batch : *loader) {
    const auto data = batch.data.to(device);
    const auto target = batch.target.to(device);
    const auto logits = model->forward(data);
    loss_sum += F::cross_entropy(
                    logits,
                    target,
                    F::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .item<double>();
    correct += logits.argmax(1).eq(target).sum().item<double>();
    count += static_cast<double>(target.size(0));
  }

  const auto totals = dist::all_reduce_sum(
      *context.process_group,
      torch::tensor({loss_sum, correct, count}, torch::kDouble));
  const double total_count = totals[2].item<double>();
  return {totals[0].item<double>() / total_count,
          totals[1].item<double>() / total_count};
}

} // namespace

int main() {
  const auto options = TrainOptions::from_env();
  auto context = dist::init_from_env();
  torch::manual_seed(options.seed);

  const torch::Device device = torch::cuda::is_available()
      ? torch::Device(
            torch::kCUDA,
            static_cast<c10::DeviceIndex>(
                context.rank % static_cast<int>(torch::cuda::device_count())))
      : torch::Device(torch::kCPU);

  ConvNet model(ConvNetOptions().num_classes(options.num_classes).aux_classifier(config::env_flag("AUX_CLASSIFIER", false)));
  auto ddp = std::make_shared<DataParallelConvNet>(model, context.process_group);
  ddp->to(device);

  if (context.is_main() && !options.resume.empty()) {
    torch::load(model, options.resume);
    std::cout << "resumed from " << options.resume << std::endl;
  }

  torch::Tensor log_temperature;
  if (options.learn_temperature) {
    log_temperature = model->register_parameter(
        "log_temperature", torch::zeros({1}, torch::TensorOptions().device(device)));
  }

  torch::optim::SGD optimizer(
      ddp->parameters(),
      torch::optim::SGDOptions(options.lr).momentum(options.momentum));

  auto train_set = synth::make_dataset(
      options.train_size, options.num_classes, options.data_seed);
  auto val_set = synth::make_dataset(
      options.val_size, options.num_classes, options.data_seed + 1);

  torch::data::samplers::DistributedRandomSampler sampler(
      train_set.size().value(),
      static_cast<size_t>(context.world_size),
      static_cast<size_t>(context.rank));
  auto train_loader = torch::data::make_data_loader(
      train_set,
      sampler,
      torch::data::DataLoaderOptions().batch_size(options.batch_size));

  for (int64_t epoch = 0; epoch < options.epochs; ++epoch) {
    sampler.set_epoch(static_cast<size_t>(epoch));
    const double local_loss = train_epoch(
        *ddp, *train_loader, optimizer, log_temperature, options, device);
    const double train_loss =
        dist::all_reduce_mean(*context.process_group, local_loss);
    const auto val = evaluate(model, val_set, context, options, device);

    if (context.is_main()) {
      std::cout << std::fixed << std::setprecision(4) << "epoch " << epoch
                << " train_loss " << train_loss << " val_loss " << val.loss
                << " val_acc " << val.accuracy << std::endl;
    }
    if (val.loss < options.target_loss) {
      if (context.is_main()) {
        std::cout << "target loss reached, stopping" << std::endl;
      }
      break;
    }
  }

  dist::save_checkpoint(model.ptr(), options.checkpoint, context.rank);
  // The optimizer's momentum next to the model, to resume from both.
  torch::save(optimizer, options.checkpoint + ".optim");
  return 0;
}
