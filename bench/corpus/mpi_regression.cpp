// Sparse linear regression with MPI: every rank reads its shard of a
// synthetic design matrix and the ranks exchange gradients with MPI.
//
//   mpirun -np 4 ./mpi_regression

#include <mpi.h>
#include <torch/torch.h>

#include <cstdio>
#include <vector>

namespace {

constexpr int kEpochs = 12;
constexpr int64_t kFeatures = 32;
constexpr size_t kBatch = 256;

class RegressionShard : public torch::data::datasets::Dataset<RegressionShard> {
 public:
  RegressionShard(int64_t rows, uint64_t seed) {
    torch::manual_seed(seed);
    inputs_ = torch::randn({rows, kFeatures});
    const auto truth = torch::randn({kFeatures, 1}) * (torch::rand({kFeatures, 1}) > 0.7);
    targets_ = torch::matmul(inputs_, truth) + 0.1 * torch::randn({rows, 1});
  }
  torch::data::Example<> get(size_t i) override {
    return {inputs_[static_cast<int64_t>(i)], targets_[static_cast<int64_t>(i)]};
  }
  torch::optional<size_t> size() const override { return inputs_.size(0); }

 private:
  torch::Tensor inputs_, targets_;
};

torch::Tensor pack(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> pieces;
  pieces.reserve(tensors.size());
  for (const auto& t : tensors) {
    pieces.push_back(t.reshape({-1}));
  }
  return torch::cat(pieces).contiguous();
}

void unpack(const torch::Tensor& flat, std::vector<torch::Tensor>& tensors) {
  int64_t offset = 0;
  for (auto& t : tensors) {
    const int64_t n = t.numel();
    t.copy_(flat.slice(0, offset, offset + n).view_as(t));
    offset += n;
  }
}

void broadcast_parameters(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  auto params = module.parameters();
  auto flat = pack(params);
  MPI_Bcast(flat.data_ptr<float>(), static_cast<int>(flat.numel()), MPI_FLOAT, 0, MPI_COMM_WORLD);
  unpack(flat, params);
}

void exchange_gradients(torch::nn::Module& module) {
  std::vector<torch::Tensor> grads;
  for (const auto& p : module.parameters()) {
    grads.push_back(p.grad());
  }
  auto flat = pack(grads);
  MPI_Allreduce(MPI_IN_PLACE, flat.data_ptr<float>(), static_cast<int>(flat.numel()), MPI_FLOAT,
                MPI_SUM, MPI_COMM_WORLD);
  unpack(flat, grads);
}

double mean_over_ranks(double local, int world) {
  double total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total / world;
}

} // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);

  auto model = torch::nn::Linear(kFeatures, 1);
  broadcast_parameters(*model);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(3e-3));

  auto data = RegressionShard(1 << 15, 99).map(torch::data::transforms::Stack<>());
  torch::data::samplers::DistributedRandomSampler sampler(data.size().value(), world, rank);
  auto loader = torch::data::make_data_loader(
      data, sampler, torch::data::DataLoaderOptions().batch_size(kBatch).drop_last(true));

  for (int epoch = 0; epoch < kEpochs; ++epoch) {
    sampler.set_epoch(epoch);
    double loss_sum = 0.0;
    int steps = 0;
    for (auto& batch : *loader) {
      optimizer.zero_grad();
      auto loss = torch::mse_loss(model->forward(batch.data), batch.target);
      loss.backward();
      exchange_gradients(*model);
      optimizer.step();
      loss_sum += loss.item<double>();
      ++steps;
    }
    const double mean_loss = mean_over_ranks(steps > 0 ? loss_sum / steps : 0.0, world);
    if (rank == 0) {
      std::printf("epoch %d mse %.5f\n", epoch, mean_loss);
    }
  }

  if (rank == 0) {
    torch::save(model, "regression.pt");
  }
  MPI_Finalize();
  return 0;
}
