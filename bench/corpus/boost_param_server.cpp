// Click-through-rate model on hashed impression features, trained
// parameter-server style over Boost.MPI: rank 0 owns the optimizer, the
// workers send it their gradients and receive the updated parameters after
// every step.

#include <boost/mpi.hpp>
#include <torch/torch.h>

#include <cstdio>
#include <functional>
#include <vector>

namespace mpi = boost::mpi;

struct CtrNetImpl : torch::nn::Module {
  torch::nn::Linear hidden{nullptr}, out{nullptr};
  CtrNetImpl() {
    hidden = register_module("hidden", torch::nn::Linear(48, 64));
    out = register_module("out", torch::nn::Linear(64, 1));
  }
  torch::Tensor forward(const torch::Tensor& features) {
    return out->forward(torch::relu(hidden->forward(features))).squeeze(1);
  }
};
TORCH_MODULE(CtrNet);

static std::vector<float> flatten(const std::vector<torch::Tensor>& tensors) {
  std::vector<float> flat;
  for (const auto& t : tensors) {
    auto c = t.contiguous();
    flat.insert(flat.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return flat;
}

static void unflatten(const std::vector<float>& flat, std::vector<torch::Tensor>& tensors) {
  size_t offset = 0;
  for (auto& t : tensors) {
    auto src = torch::from_blob(const_cast<float*>(flat.data()) + offset, t.sizes());
    t.copy_(src);
    offset += t.numel();
  }
}

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const int rank = world.rank();
  const int workers = world.size();

  torch::manual_seed(90210);
  CtrNet net;
  torch::optim::Adam optimizer(net->parameters(), torch::optim::AdamOptions(0.01));

  std::vector<torch::Tensor> table;
  torch::load(table, "impressions.pt");
  const auto ids = table.at(0);
  const auto clicks = table.at(1);
  const auto my_ids = torch::chunk(ids, workers)[rank];
  const auto my_clicks = torch::chunk(clicks, workers)[rank];

  const int64_t steps = ids.size(0) / workers / 512;
  for (int64_t step = 0; step < steps; ++step) {
    auto x = my_ids.narrow(0, step * 512, 512);
    auto y = my_clicks.narrow(0, step * 512, 512);
    optimizer.zero_grad();
    auto loss = torch::binary_cross_entropy(torch::sigmoid(net->forward(x)), y);
    loss.backward();

    std::vector<torch::Tensor> grads;
    for (auto& p : net->parameters()) grads.push_back(p.grad());
    std::vector<float> local = flatten(grads);
    const int n = static_cast<int>(local.size());

    std::vector<float> params_flat;
    if (rank == 0) {
      std::vector<float> all(static_cast<size_t>(n) * workers);
      mpi::gather(world, local.data(), n, all.data(), 0);
      std::vector<float> mean(n, 0.0f);
      for (int w = 0; w < workers; ++w)
        for (int i = 0; i < n; ++i) mean[i] += all[static_cast<size_t>(w) * n + i] / workers;
      unflatten(mean, grads);
      optimizer.step();
      params_flat = flatten(net->parameters());
      if (step % 20 == 0) std::printf("step %lld loss %.4f\n", static_cast<long long>(step), loss.item<float>());
    } else {
      mpi::gather(world, local.data(), n, 0);
      params_flat.resize(n);
    }
    mpi::broadcast(world, params_flat.data(), n, 0);
    if (rank != 0) {
      torch::NoGradGuard no_grad;
      auto params = net->parameters();
      unflatten(params_flat, params);
    }
  }

  torch::NoGradGuard no_grad;
  net->eval();
  auto predicted = torch::sigmoid(net->forward(my_ids)).gt(0.5);
  long local_correct = predicted.eq(my_clicks.gt(0.5)).sum().item<long>();
  long total_correct = 0;
  if (rank == 0) {
    mpi::reduce(world, local_correct, total_correct, std::plus<long>(), 0);
    std::printf("accuracy %.4f\n", static_cast<double>(total_correct) / ids.size(0));
    torch::save(net, "ctr.pt");
  }
  return 0;
}
