// Tabular regression with raw MPI. Rank 0 keeps the checkpoint and the log;
// every rank evaluates its validation shard and the losses are averaged.

#include <mpi.h>
#include <torch/torch.h>

#include <cstdio>
#include <string>
#include <vector>

struct Options {
  int64_t epochs = 200;
  int64_t batch = 256;
  int64_t steps_per_epoch = 100;
  int patience = 5;
  double lr = 1e-3;
  std::string checkpoint = "regressor.pt";
};

class Trainer {
 public:
  Trainer(const Options& options, int rank, int size)
      : options_(options), rank_(rank), size_(size),
        model_(torch::nn::Linear(32, 128), torch::nn::ReLU(), torch::nn::Linear(128, 128),
               torch::nn::ReLU(), torch::nn::Linear(128, 1)),
        optimizer_(model_->parameters(), torch::optim::AdamOptions(options.lr)) {}

  void fit(const torch::Tensor& x, const torch::Tensor& y, const torch::Tensor& vx,
           const torch::Tensor& vy) {
    double best = 1e30;
    int stale = 0;
    for (int64_t epoch = 0; epoch < options_.epochs; ++epoch) {
      train_epoch(x, y);
      const double val = validation_loss(vx, vy);
      int stop = 0;
      if (rank_ == 0) {
        std::printf("epoch %lld val %.5f\n", static_cast<long long>(epoch), val);
        if (val < best) {
          best = val;
          stale = 0;
          torch::save(model_, options_.checkpoint);
        } else if (++stale >= options_.patience) {
          stop = 1;
        }
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      if (stop) break;
    }
  }

 private:
  void train_epoch(const torch::Tensor& x, const torch::Tensor& y) {
    model_->train();
    const int64_t windows = x.size(0) / options_.batch;
    for (int64_t step = 0; step < options_.steps_per_epoch; ++step) {
      const int64_t start = (step % windows) * options_.batch;
      optimizer_.zero_grad();
      auto pred = model_->forward(x.narrow(0, start, options_.batch));
      torch::mse_loss(pred, y.narrow(0, start, options_.batch)).backward();
      std::vector<torch::Tensor> grads;
      for (auto& p : model_->parameters()) grads.push_back(p.grad().reshape({-1}));
      auto flat = torch::cat(grads);
      MPI_Request request;
      MPI_Iallreduce(MPI_IN_PLACE, flat.data_ptr<float>(), static_cast<int>(flat.numel()), MPI_FLOAT,
                     MPI_SUM, MPI_COMM_WORLD, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      flat.div_(size_);
      int64_t offset = 0;
      for (auto& p : model_->parameters()) {
        p.mutable_grad().copy_(flat.narrow(0, offset, p.numel()).view_as(p));
        offset += p.numel();
      }
      optimizer_.step();
    }
  }

  double validation_loss(const torch::Tensor& vx, const torch::Tensor& vy) {
    torch::NoGradGuard no_grad;
    model_->eval();
    double local[2] = {torch::mse_loss(model_->forward(vx), vy).item<double>() * vx.size(0),
                       static_cast<double>(vx.size(0))};
    double global[2] = {0, 0};
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global[0] / global[1];
  }

  Options options_;
  int rank_;
  int size_;
  torch::nn::Sequential model_;
  torch::optim::Adam optimizer_;
};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  Options options;
  torch::manual_seed(12345);
  Trainer trainer(options, rank, size);

  std::vector<torch::Tensor> data;
  torch::load(data, "housing_" + std::to_string(rank) + ".pt");
  trainer.fit(data.at(0), data.at(1), data.at(2), data.at(3));
  MPI_Finalize();
  return 0;
}
