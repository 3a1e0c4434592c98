// Multi-label tagger with a per-class confusion report assembled on rank 0.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>

#include <cstdio>
#include <vector>

struct Dist {
  c10::intrusive_ptr<c10d::ProcessGroup> pg;
  int rank = 0;
  int world = 1;
};

struct Config {
  int64_t classes = 8;
  int64_t max_epochs = 40;
  double target_val_loss = 0.08;
  bool average_buffers = true;
  bool report_confusion = true;
};

struct TaggerImpl : torch::nn::Module {
  torch::nn::Linear fc{nullptr};
  torch::nn::BatchNorm1d norm{nullptr};
  torch::Tensor prior_bias;
  explicit TaggerImpl(int64_t classes) {
    norm = register_module("norm", torch::nn::BatchNorm1d(64));
    fc = register_module("fc", torch::nn::Linear(64, classes));
    prior_bias = register_parameter("prior_bias", torch::zeros({classes}));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc->forward(norm->forward(x)) + prior_bias; }
};
TORCH_MODULE(Tagger);

static void allreduce_gradients(const Dist& dist, Tagger& model, int64_t step) {
  std::vector<at::Tensor> grads;
  for (auto& p : model->parameters()) grads.push_back(p.grad());
  // The prior is estimated from rank 0's label counts only during the first steps.
  if (dist.rank == 0 && step < 100) {
    model->prior_bias.mutable_grad().zero_();
  }
  dist.pg->allreduce_coalesced(grads)->wait();
  at::_foreach_mul_(grads, 1.0 / dist.world);
}

static void average_buffers(const Dist& dist, Tagger& model) {
  std::vector<at::Tensor> stats{model->norm->running_mean, model->norm->running_var};
  dist.pg->allreduce_coalesced(stats)->wait();
  at::_foreach_div_(stats, static_cast<double>(dist.world));
}

static double validation_loss(const Dist& dist, Tagger& model, const torch::Tensor& x,
                              const torch::Tensor& y) {
  torch::NoGradGuard no_grad;
  model->eval();
  auto shard = torch::chunk(x, dist.world)[dist.rank];
  auto labels = torch::chunk(y, dist.world)[dist.rank];
  auto loss = torch::binary_cross_entropy(torch::sigmoid(model->forward(shard)), labels);
  std::vector<at::Tensor> buf{loss.detach().reshape({1})};
  dist.pg->allreduce(buf)->wait();
  model->train();
  return buf[0].item<double>() / dist.world;
}

static void report_confusion(const Dist& dist, const torch::Tensor& local_counts) {
  std::vector<at::Tensor> input{local_counts};
  c10d::GatherOptions options;
  options.rootRank = 0;
  if (dist.rank == 0) {
    std::vector<std::vector<at::Tensor>> output(1);
    for (int r = 0; r < dist.world; ++r) output[0].push_back(torch::empty_like(local_counts));
    dist.pg->gather(output, input, options)->wait();
    auto total = torch::stack(output[0]).sum(c10::IntArrayRef{0});
    for (int64_t c = 0; c < total.size(0); ++c) {
      std::printf("class %lld: tp %lld fp %lld\n", static_cast<long long>(c),
                  static_cast<long long>(total[c][0].item<int64_t>()),
                  static_cast<long long>(total[c][1].item<int64_t>()));
    }
  } else {
    std::vector<std::vector<at::Tensor>> no_output;
    dist.pg->gather(no_output, input, options)->wait();
  }
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  Dist dist;
  dist.rank = std::atoi(argv[1]);
  dist.world = std::atoi(argv[2]);
  c10d::TCPStoreOptions store_options;
  store_options.isServer = dist.rank == 0;
  store_options.numWorkers = dist.world;
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", store_options);
  dist.pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, dist.rank, dist.world);

  const Config config;
  torch::manual_seed(11);
  Tagger model(config.classes);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  const auto train_x = torch::randn({16384, 64});
  const auto train_y = (torch::rand({16384, config.classes}) > 0.8).to(torch::kFloat);
  const auto val_x = torch::randn({2048, 64});
  const auto val_y = (torch::rand({2048, config.classes}) > 0.8).to(torch::kFloat);

  int64_t step = 0;
  for (int64_t epoch = 0; epoch < config.max_epochs; ++epoch) {
    const int64_t per_rank = train_x.size(0) / dist.world;
    auto mine = torch::randperm(train_x.size(0)).narrow(0, dist.rank * per_rank, per_rank);
    for (int64_t start = 0; start + 128 <= mine.size(0); start += 128, ++step) {
      auto idx = mine.narrow(0, start, 128);
      optimizer.zero_grad();
      auto probs = torch::sigmoid(model->forward(train_x.index_select(0, idx)));
      auto loss = torch::binary_cross_entropy(probs, train_y.index_select(0, idx));
      loss.backward();
      if (dist.world > 1) allreduce_gradients(dist, model, step);
      optimizer.step();
    }
    if (config.average_buffers) average_buffers(dist, model);

    const double val = validation_loss(dist, model, val_x, val_y);
    if (dist.rank == 0) std::printf("epoch %lld val %.4f\n", static_cast<long long>(epoch), val);
    if (val < config.target_val_loss) break;
  }

  if (config.report_confusion) {
    torch::NoGradGuard no_grad;
    model->eval();
    auto x = torch::chunk(val_x, dist.world)[dist.rank];
    auto y = torch::chunk(val_y, dist.world)[dist.rank];
    auto predicted = torch::sigmoid(model->forward(x)) > 0.5;
    auto tp = (predicted & (y > 0.5)).sum(c10::IntArrayRef{0});
    auto fp = (predicted & (y < 0.5)).sum(c10::IntArrayRef{0});
    report_confusion(dist, torch::stack({tp, fp}, 1));
  }
  return 0;
}
