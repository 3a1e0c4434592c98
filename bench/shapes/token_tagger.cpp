// Token tagger on padded sequences of uneven length. Losses are summed over
// tokens, so gradients are normalised by the token count of the whole step;
// a final L-BFGS pass polishes the output layer.

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

namespace {

double all_sum(c10d::ProcessGroup& pg, double local) {
  std::vector<at::Tensor> value{torch::tensor({local}, torch::kDouble)};
  pg.allreduce(value)->wait();
  return value[0].item<double>();
}

void normalise_gradients(c10d::ProcessGroup& pg, const std::vector<torch::Tensor>& params,
                         double local_tokens) {
  std::vector<at::Tensor> grads;
  for (const auto& p : params) grads.push_back(p.grad());
  pg.allreduce_coalesced(grads)->wait();
  const double tokens = all_sum(pg, local_tokens);
  for (auto& g : grads) g.div_(tokens);
}

void report(int rank, int epoch, torch::Tensor& totals) {
  if (rank == 0) {
    std::printf("epoch %d: %.4f per token over %.0f tokens\n", epoch,
                (totals[0] / totals[1]).item<double>(), totals[1].item<double>());
  }
}

}  // namespace

int main() {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  c10d::TCPStoreOptions options;
  options.isServer = rank == 0;
  options.numWorkers = static_cast<size_t>(world);
  auto store = c10::make_intrusive<c10d::TCPStore>(std::getenv("MASTER_ADDR"), options);
  auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  torch::manual_seed(2718);
  torch::nn::Embedding embed(5000, 64);
  torch::nn::Linear tagger(64, 9);
  std::vector<torch::Tensor> params = embed->parameters();
  for (auto& p : tagger->parameters()) params.push_back(p);
  torch::optim::Adam adam(params, torch::optim::AdamOptions(1e-3));

  torch::manual_seed(rank);
  const auto tokens = torch::randint(5000, {400, 48});
  const auto tags = torch::randint(9, {400, 48});
  const auto lengths = torch::randint(8, 49, {400});
  const auto mask = torch::arange(48).unsqueeze(0) < lengths.unsqueeze(1);

  double best = std::numeric_limits<double>::infinity();
  int stale_epochs = 0;
  for (int epoch = 0; epoch < 50; ++epoch) {
    double loss_sum = 0.0;
    double token_count = 0.0;
    for (int64_t start = 0; start < 400; start += 20) {
      adam.zero_grad();
      auto m = mask.slice(0, start, start + 20);
      auto logits = tagger->forward(embed->forward(tokens.slice(0, start, start + 20)));
      auto per_token = torch::nn::functional::cross_entropy(
          logits.reshape({-1, 9}), tags.slice(0, start, start + 20).reshape({-1}),
          torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
      auto loss = (per_token * m.reshape({-1}).to(torch::kFloat)).sum();
      loss.backward();
      const double batch_tokens = m.sum().item<double>();
      normalise_gradients(*pg, params, batch_tokens);
      adam.step();
      loss_sum += loss.item<double>();
      token_count += batch_tokens;
    }
    torch::Tensor totals = torch::tensor({loss_sum, token_count}, torch::kDouble);
    std::vector<at::Tensor> reduced{totals};
    pg->allreduce(reduced)->wait();
    report(rank, epoch, totals);
    const double per_token = (totals[0] / totals[1]).item<double>();
    if (per_token < best - 1e-4) {
      best = per_token;
      stale_epochs = 0;
      if (rank == 0) torch::save(tagger, "tagger.pt");
    } else if (++stale_epochs >= 3) {
      break;
    }
  }

  torch::optim::LBFGS lbfgs(tagger->parameters(), torch::optim::LBFGSOptions(0.5).max_iter(10));
  const auto features = embed->forward(tokens).detach();
  for (int round = 0; round < 5; ++round) {
    lbfgs.step([&] {
      lbfgs.zero_grad();
      auto logits = tagger->forward(features).reshape({-1, 9});
      auto loss = torch::nn::functional::cross_entropy(logits, tags.reshape({-1}));
      loss.backward();
      std::vector<at::Tensor> grads;
      for (auto& p : tagger->parameters()) grads.push_back(p.grad());
      grads.push_back(loss.detach().reshape({1}));
      pg->allreduce_coalesced(grads)->wait();
      for (auto& g : grads) g.div_(world);
      return grads.back().squeeze();
    });
  }
  return 0;
}
