// Tabular regression on CPU nodes over MPI. Rank 0 owns the run's settings
// file and collects per-rank statistics at the end.
//
//   mpirun -n 4 ./tabular settings.txt

#include <torch/torch.h>

#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <vector>

#define MPI_CHECK(call)                                                             \
  do {                                                                              \
    const int mpi_status_ = (call);                                                 \
    if (mpi_status_ != MPI_SUCCESS) {                                               \
      std::fprintf(stderr, "%s:%d: MPI error %d\n", __FILE__, __LINE__, mpi_status_); \
      MPI_Abort(MPI_COMM_WORLD, mpi_status_);                                       \
    }                                                                               \
  } while (0)

namespace {

int world_size() {
  int n = 1;
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &n));
  return n;
}

int world_rank() {
  int r = 0;
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &r));
  return r;
}

void describe_job() {
  char host[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_CHECK(MPI_Get_processor_name(host, &length));
  std::printf("%d ranks; rank %d on %s\n", world_size(), world_rank(), host);
}

void average_gradients(torch::nn::Module& model) {
  std::vector<torch::Tensor> pieces;
  for (auto& p : model.parameters()) pieces.push_back(p.grad().reshape({-1}));
  torch::Tensor flat = torch::cat(pieces);
  MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, flat.data_ptr<float>(), static_cast<int>(flat.numel()),
                          MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
  flat.div_(world_size());
  int64_t offset = 0;
  for (auto& p : model.parameters()) {
    p.mutable_grad().copy_(flat.slice(0, offset, offset + p.numel()).view_as(p));
    offset += p.numel();
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_CHECK(MPI_Init(&argc, &argv));
  const int rank = world_rank();
  const int size = world_size();
  double started = 0.0;
  if (rank == 0) {
    describe_job();
    started = MPI_Wtime();
  }

  double lr = 0.01;
  if (rank == 0) {
    std::ifstream settings(argc > 1 ? argv[1] : "settings.txt");
    if (!settings) {
      std::fprintf(stderr, "cannot read the settings file\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    settings >> lr;
    MPI_CHECK(MPI_Bcast(&lr, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  }

  torch::manual_seed(5);
  torch::nn::Sequential model(torch::nn::Linear(24, 48), torch::nn::ReLU(), torch::nn::Linear(48, 1));
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(lr));
  const auto features = torch::randn({8192, 24});
  const auto targets = features.pow(2).sum(1, true);
  const int64_t shard = features.size(0) / size;
  const auto x = features.narrow(0, rank * shard, shard);
  const auto y = targets.narrow(0, rank * shard, shard);

  double stats[2] = {0.0, 0.0};
  for (int epoch = 0; epoch < 25; ++epoch) {
    double sums[2] = {0.0, 0.0};
    for (int64_t start = 0; start + 128 <= shard; start += 128) {
      optimizer.zero_grad();
      auto loss = torch::mse_loss(model->forward(x.slice(0, start, start + 128)),
                                  y.slice(0, start, start + 128));
      loss.backward();
      average_gradients(*model);
      optimizer.step();
      sums[0] += loss.item<double>();
      sums[1] += 1.0;
    }
    MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    stats[0] = sums[0] / sums[1];
    stats[1] = epoch;
    if (rank == 0) std::printf("epoch %d loss %.5f\n", epoch, stats[0]);
  }

  if (rank == 0) {
    for (int source = 1; source < size; ++source) {
      double remote[2];
      MPI_Status status;
      MPI_CHECK(MPI_Recv(remote, 2, MPI_DOUBLE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &status));
      int received = 0;
      MPI_CHECK(MPI_Get_count(&status, MPI_DOUBLE, &received));
      std::printf("rank %d sent %d values\n", status.MPI_SOURCE, received);
    }
    std::printf("%.1f s\n", MPI_Wtime() - started);
  } else {
    MPI_CHECK(MPI_Send(stats, 2, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD));
  }
  MPI_CHECK(MPI_Finalize());
  return 0;
}
