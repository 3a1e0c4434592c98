// Small causal language model. Each rank reads its own shard of tokenized
// documents. Pre-training accumulates gradients until a token budget is met;
// the adapter stage trains only the long-context adapter and the head.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/utils/tensor_flatten.h>
#include <torch/torch.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

namespace F = torch::nn::functional;

constexpr int64_t kVocab = 512;
constexpr int64_t kPad = -100;

struct TinyLMImpl : torch::nn::Module {
  TinyLMImpl(int64_t width, int64_t long_context) : long_context(long_context) {
    embedding = register_parameter("embedding", torch::randn({kVocab, width}) * 0.02);
    mix = register_module("mix", torch::nn::Linear(width, width));
    adapter = register_module("adapter", torch::nn::Linear(width, width));
    head = register_module("head", torch::nn::Linear(width, kVocab));
  }
  // ids: [batch, time] token ids.
  torch::Tensor forward(const torch::Tensor& ids) {
    auto h = embedding.index_select(0, ids.flatten()).view({ids.size(0), ids.size(1), -1});
    h = torch::tanh(mix->forward(h));
    if (ids.size(1) > long_context) {
      h = h + adapter->forward(h);
    }
    return head->forward(h);
  }
  int64_t long_context;
  torch::Tensor embedding;
  torch::nn::Linear mix{nullptr}, adapter{nullptr}, head{nullptr};
};
TORCH_MODULE(TinyLM);

struct Batch {
  torch::Tensor inputs;   // [B, T]
  torch::Tensor targets;  // [B, T], kPad after the end of each document
};

std::vector<Batch> make_batches(const std::vector<torch::Tensor>& docs, size_t per_batch) {
  std::vector<Batch> batches;
  for (size_t i = 0; i + per_batch <= docs.size(); i += per_batch) {
    int64_t longest = 0;
    for (size_t j = i; j < i + per_batch; ++j) longest = std::max(longest, docs[j].size(0) - 1);
    auto ids = torch::full({static_cast<int64_t>(per_batch), longest + 1}, kPad, torch::kLong);
    for (size_t j = i; j < i + per_batch; ++j) {
      ids[static_cast<int64_t>(j - i)].narrow(0, 0, docs[j].size(0)).copy_(docs[j]);
    }
    batches.push_back({ids.narrow(1, 0, longest).clamp(0), ids.narrow(1, 1, longest)});
  }
  return batches;
}

void pretrain(c10d::ProcessGroup& pg, TinyLM& model, const std::vector<Batch>& batches,
              size_t micro_steps, int64_t token_budget) {
  auto params = model->parameters();
  torch::optim::AdamW optimizer(params, torch::optim::AdamWOptions(6e-4));
  // Gradients exist from the start, so short batches leave zeros in the adapter.
  for (auto& p : params) p.mutable_grad() = torch::zeros_like(p);
  int64_t tokens_since_update = 0;
  for (size_t step = 0; step < micro_steps; ++step) {
    const Batch& batch = batches[step % batches.size()];
    auto logits = model->forward(batch.inputs);
    auto loss = F::cross_entropy(logits.flatten(0, 1), batch.targets.flatten(),
                                 F::CrossEntropyFuncOptions().ignore_index(kPad));
    loss.backward();
    tokens_since_update += batch.targets.ne(kPad).sum().item<int64_t>();
    if (tokens_since_update >= token_budget) {
      std::vector<torch::Tensor> grads;
      for (const auto& p : params) grads.push_back(p.grad());
      std::vector<at::Tensor> flat{torch::utils::flatten_dense_tensors(grads)};
      pg.allreduce(flat)->wait();
      flat[0].div_(pg.getSize());
      const auto views = torch::utils::unflatten_dense_tensors(flat[0], grads);
      for (size_t i = 0; i < grads.size(); ++i) grads[i].copy_(views[i]);
      optimizer.step();
      optimizer.zero_grad();
      tokens_since_update = 0;
    }
  }
}

void sync_trainable(c10d::ProcessGroup& pg, TinyLM& model) {
  for (auto& named : model->named_parameters()) {
    auto& grad = named.value().mutable_grad();
    if (!grad.defined()) continue;
    std::vector<at::Tensor> one{grad};
    pg.allreduce(one)->wait();
    grad.div_(pg.getSize());
  }
}

void train_adapter(c10d::ProcessGroup& pg, TinyLM& model, const std::vector<Batch>& batches,
                   size_t steps) {
  model->embedding.set_requires_grad(false);
  model->mix->weight.set_requires_grad(false);
  model->mix->bias.set_requires_grad(false);
  std::vector<torch::Tensor> trainable = model->adapter->parameters();
  for (const auto& p : model->head->parameters()) trainable.push_back(p);
  torch::optim::SGD optimizer(trainable, torch::optim::SGDOptions(0.05));
  for (size_t step = 0; step < steps; ++step) {
    const Batch& batch = batches[step % batches.size()];
    optimizer.zero_grad();
    auto loss = F::cross_entropy(model->forward(batch.inputs).flatten(0, 1), batch.targets.flatten(),
                                 F::CrossEntropyFuncOptions().ignore_index(kPad));
    loss.backward();
    sync_trainable(pg, model);
    optimizer.step();
  }
}

int main(int argc, char** argv) {
  const int rank = std::stoi(argv[1]);
  const int world = std::stoi(argv[2]);
  const std::string stage = argc > 3 ? argv[3] : "pretrain";
  c10d::TCPStoreOptions store_options;
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  torch::manual_seed(1);
  TinyLM model(256, 96);
  if (stage == "adapter") torch::load(model, "tiny_lm.pt");

  std::vector<torch::Tensor> docs;
  torch::load(docs, "tokens-" + std::to_string(rank) + ".pt");
  const auto batches = make_batches(docs, 16);
  if (stage == "adapter") {
    train_adapter(*pg, model, batches, 2000);
  } else {
    pretrain(*pg, model, batches, 20000, 32768);
  }
  if (rank == 0) torch::save(model, stage == "adapter" ? "tiny_lm_adapter.pt" : "tiny_lm.pt");
  return 0;
}
