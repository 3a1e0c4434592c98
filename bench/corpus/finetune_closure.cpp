// Two-stage fine-tuning of a pretrained sentiment model: a learning-rate
// warm-up, then fine-tuning with an optimizer closure.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <iostream>
#include <string>
#include <vector>

using namespace torch;
using torch::data::samplers::DistributedRandomSampler;
using torch::data::samplers::DistributedSequentialSampler;

struct ReviewsDataset : data::datasets::Dataset<ReviewsDataset> {
  Tensor embeddings, labels;
  explicit ReviewsDataset(const std::string& path) {
    std::vector<Tensor> tensors;
    torch::load(tensors, path);
    embeddings = tensors[0];
    labels = tensors[1];
  }
  data::Example<> get(size_t i) override {
    return {embeddings[static_cast<int64_t>(i)], labels[static_cast<int64_t>(i)]};
  }
  optional<size_t> size() const override { return labels.size(0); }
};

struct SentimentImpl : nn::Module {
  nn::Sequential backbone{nullptr};
  nn::Linear classifier{nullptr};
  SentimentImpl() {
    backbone = register_module("backbone", nn::Sequential(nn::Linear(768, 384), nn::ReLU(),
                                                           nn::Linear(384, 384), nn::ReLU()));
    classifier = register_module("classifier", nn::Linear(384, 2));
  }
  Tensor forward(const Tensor& x) { return classifier->forward(backbone->forward(x)); }
};
TORCH_MODULE(Sentiment);

void allreduce_average(c10d::ProcessGroup& pg, const std::vector<Tensor>& params) {
  std::vector<Tensor> grads;
  for (const auto& p : params) grads.push_back(p.grad().flatten());
  std::vector<Tensor> bucket{torch::cat(grads)};
  pg.allreduce(bucket)->wait();
  bucket[0].div_(pg.getSize());
  int64_t at = 0;
  for (const auto& p : params) {
    p.mutable_grad().copy_(bucket[0].narrow(0, at, p.numel()).view_as(p));
    at += p.numel();
  }
}

double accuracy(Sentiment& model, ReviewsDataset data, c10d::ProcessGroup& pg) {
  NoGradGuard no_grad;
  model->eval();
  auto loader = data::make_data_loader(
      data.map(data::transforms::Stack<>()),
      DistributedSequentialSampler(data.size().value(), pg.getSize(), pg.getRank(), false), 512);
  std::vector<Tensor> counts{torch::zeros({2}, kDouble)};
  for (auto& batch : *loader) {
    counts[0][0] += model->forward(batch.data).argmax(1).eq(batch.target).sum().to(kDouble);
    counts[0][1] += static_cast<double>(batch.target.size(0));
  }
  pg.allreduce(counts)->wait();
  return (counts[0][0] / counts[0][1]).item<double>();
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: finetune_closure RANK WORLD_SIZE\n";
    return 2;
  }
  const int rank = std::stoi(argv[1]), world = std::stoi(argv[2]);
  c10d::TCPStoreOptions store_opts;
  store_opts.isServer = rank == 0;
  store_opts.numWorkers = world;
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(
      c10::make_intrusive<c10d::TCPStore>("10.0.0.1", store_opts), rank, world);

  Sentiment model;
  torch::load(model, "sentiment_pretrained.pt");
  auto train_set = ReviewsDataset("reviews_train.pt");
  auto batches = train_set.map(data::transforms::Stack<>());

  // Stage 1: a short warm-up with a linear learning-rate ramp.
  optim::SGD warmup_opt(model->parameters(), optim::SGDOptions(0.0));
  auto warmup_loader = data::make_data_loader<DistributedRandomSampler>(batches, data::DataLoaderOptions(256));
  int64_t warmup_step = 0;
  for (auto& batch : *warmup_loader) {
    if (++warmup_step > 200) break;
    warmup_opt.param_groups()[0].options().set_lr(0.01 * warmup_step / 200.0);
    warmup_opt.zero_grad();
    auto loss = nn::functional::cross_entropy(model->forward(batch.data), batch.target);
    loss.backward();
    warmup_opt.step();
  }
  if (rank == 0) std::cout << "warm-up accuracy " << accuracy(model, train_set, *pg) << "\n";
  else accuracy(model, train_set, *pg);

  // Stage 2: fine-tune with Nesterov momentum.
  auto params = model->parameters();
  optim::SGD opt(params, optim::SGDOptions(0.01).momentum(0.9).nesterov(true));
  for (size_t epoch = 0; epoch < 3; ++epoch) {
    DistributedRandomSampler sampler(train_set.size().value(), world, rank);
    sampler.set_epoch(epoch);
    auto loader = data::make_data_loader(batches, sampler, data::DataLoaderOptions(64));
    model->train();
    for (auto& batch : *loader) {
      auto closure = [&]() -> Tensor {
        opt.zero_grad();
        auto logits = model->forward(batch.data);
        auto loss = nn::functional::cross_entropy(logits, batch.target);
        allreduce_average(*pg, params);
        loss.backward();
        return loss;
      };
      opt.step(closure);
    }
  }
  const double final_accuracy = accuracy(model, train_set, *pg);
  if (rank == 0) {
    std::cout << "final accuracy " << final_accuracy << "\n";
    torch::save(model, "sentiment_finetuned.pt");
  }
  return 0;
}
