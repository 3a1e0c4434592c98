// Multi-node MLP training with NCCL for the gradients and MPI only for the
// bootstrap (communicator id) and for scalar metrics.

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define NCCL_OK(expr)                                                              \
  do {                                                                             \
    const ncclResult_t status_ = (expr);                                           \
    if (status_ != ncclSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(status_)); \
      std::abort();                                                                \
    }                                                                              \
  } while (0)

struct Peers {
  int rank = 0;
  int size = 1;
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

static Peers connect_peers(int devices_per_node) {
  Peers peers;
  MPI_Comm_rank(MPI_COMM_WORLD, &peers.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &peers.size);
  peers.device = peers.rank % devices_per_node;
  cudaSetDevice(peers.device);

  ncclUniqueId id;
  if (peers.rank == 0) {
    NCCL_OK(ncclGetUniqueId(&id));
  }
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  NCCL_OK(ncclCommInitRank(&peers.comm, peers.size, id, peers.rank));
  cudaStreamCreate(&peers.stream);
  return peers;
}

static torch::Tensor flat_grads(torch::nn::Module& net) {
  std::vector<torch::Tensor> parts;
  for (const auto& p : net.parameters()) {
    parts.push_back(p.grad().reshape({-1}));
  }
  return torch::cat(parts);
}

static void scatter_flat(const torch::Tensor& flat, torch::nn::Module& net) {
  int64_t offset = 0;
  for (auto& p : net.parameters()) {
    auto g = p.mutable_grad();
    g.copy_(flat.slice(0, offset, offset + g.numel()).view_as(g));
    offset += g.numel();
  }
}

static void sync_gradients(Peers& peers, torch::nn::Module& net) {
  auto flat = flat_grads(net);
  NCCL_OK(ncclAllReduce(flat.data_ptr(), flat.data_ptr(), flat.numel(), ncclFloat, ncclSum,
                        peers.comm, peers.stream));
  cudaStreamSynchronize(peers.stream);
  flat.mul_(1.0 / peers.size);
  scatter_flat(flat, net);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Peers peers = connect_peers(8);
  const torch::Device device(torch::kCUDA, peers.device);

  torch::manual_seed(4321);
  torch::nn::Sequential net(torch::nn::Linear(784, 512), torch::nn::ReLU(),
                            torch::nn::Linear(512, 10));
  net->to(device);
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));

  auto train_set = torch::data::datasets::MNIST("./mnist").map(torch::data::transforms::Stack<>());
  const size_t train_size = train_set.size().value();

  for (size_t epoch = 0; epoch < 8; ++epoch) {
    torch::data::samplers::DistributedRandomSampler sampler(train_size, peers.size, peers.rank);
    sampler.set_epoch(epoch);
    auto loader = torch::data::make_data_loader(train_set, std::move(sampler),
                                                torch::data::DataLoaderOptions(128));
    double local_loss = 0.0;
    for (auto& batch : *loader) {
      auto x = batch.data.view({-1, 784}).to(device);
      auto y = batch.target.to(device);
      optimizer.zero_grad();
      auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
      loss.backward();
      if (peers.size > 1) {
        sync_gradients(peers, *net);
      }
      optimizer.step();
      local_loss += loss.item<double>();
    }

    double global_loss = 0.0;
    MPI_Request request;
    MPI_Iallreduce(&local_loss, &global_loss, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (peers.rank == 0) {
      std::printf("epoch %zu loss %.4f\n", epoch, global_loss / peers.size);
    }
  }

  ncclCommDestroy(peers.comm);
  MPI_Finalize();
  return 0;
}
