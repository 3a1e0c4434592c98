// Image classifier on raw NCCL, one process per GPU. The NCCL unique id is
// exchanged through a TCPStore; pretraining reduces one flattened bucket,
// fine-tuning each gradient tensor inside an NCCL group.

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDACHECK(cmd)                                                                    \
  do {                                                                                    \
    cudaError_t err = cmd;                                                                \
    if (err != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d CUDA: %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
      std::exit(EXIT_FAILURE);                                                            \
    }                                                                                     \
  } while (0)

#define NCCLCHECK(cmd)                                                                    \
  do {                                                                                    \
    ncclResult_t res = cmd;                                                               \
    if (res != ncclSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d NCCL: %s\n", __FILE__, __LINE__, ncclGetErrorString(res)); \
      std::exit(EXIT_FAILURE);                                                            \
    }                                                                                     \
  } while (0)

struct NcclContext {
  ncclComm_t comm;
  cudaStream_t stream;
  int rank = 0;
  int nranks = 1;
};

NcclContext init_nccl(c10d::Store& store, int rank, int world) {
  NcclContext ctx;
  ctx.rank = rank;
  ncclUniqueId id;
  if (rank == 0) {
    NCCLCHECK(ncclGetUniqueId(&id));
    std::vector<uint8_t> bytes(sizeof(id));
    std::memcpy(bytes.data(), &id, sizeof(id));
    store.set("nccl_unique_id", bytes);
  } else {
    std::vector<uint8_t> bytes = store.get("nccl_unique_id");
    std::memcpy(&id, bytes.data(), sizeof(id));
  }
  int devices = 0;
  CUDACHECK(cudaGetDeviceCount(&devices));
  CUDACHECK(cudaSetDevice(rank % devices));
  CUDACHECK(cudaStreamCreate(&ctx.stream));
  NCCLCHECK(ncclCommInitRank(&ctx.comm, world, id, rank));
  NCCLCHECK(ncclCommCount(ctx.comm, &ctx.nranks));
  return ctx;
}

void allreduce_gradients(ncclComm_t comm, cudaStream_t stream, std::vector<torch::Tensor>& grads) {
  NCCLCHECK(ncclGroupStart());
  for (auto& g : grads) {
    NCCLCHECK(ncclAllReduce(g.data_ptr(), g.data_ptr(), g.numel(), ncclFloat, ncclSum, comm, stream));
  }
  NCCLCHECK(ncclGroupEnd());
  CUDACHECK(cudaStreamSynchronize(stream));
}

void average_flat(const NcclContext& ctx, torch::Tensor& flat) {
  NCCLCHECK(ncclAllReduce(flat.data_ptr(), flat.data_ptr(), flat.numel(), ncclFloat, ncclAvg,
                          ctx.comm, ctx.stream));
  CUDACHECK(cudaStreamSynchronize(ctx.stream));
}

double global_accuracy(const NcclContext& ctx, double correct, double seen) {
  auto counts = torch::tensor({correct, seen}, torch::dtype(torch::kFloat64).device(torch::kCUDA));
  NCCLCHECK(ncclAllReduce(counts.data_ptr(), counts.data_ptr(), 2, ncclDouble, ncclSum, ctx.comm,
                          ctx.stream));
  CUDACHECK(cudaStreamSynchronize(ctx.stream));
  auto host = counts.cpu();
  return host[0].item<double>() / host[1].item<double>();
}

torch::nn::Sequential make_model() {
  return torch::nn::Sequential(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 32, 3).padding(1)), torch::nn::ReLU(),
      torch::nn::AdaptiveAvgPool2d(1), torch::nn::Flatten(), torch::nn::Linear(32, 10));
}

void pretrain(const NcclContext& ctx, torch::nn::Sequential& model, const torch::Tensor& images,
              const torch::Tensor& labels) {
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  for (int step = 0; step < 500; ++step) {
    optimizer.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(model->forward(images), labels);
    loss.backward();
    std::vector<torch::Tensor> pieces;
    for (auto& p : model->parameters()) pieces.push_back(p.grad().reshape({-1}));
    torch::Tensor flat = torch::cat(pieces);
    average_flat(ctx, flat);
    int64_t offset = 0;
    for (auto& p : model->parameters()) {
      p.mutable_grad().copy_(flat.slice(0, offset, offset + p.numel()).view_as(p));
      offset += p.numel();
    }
    optimizer.step();
  }
}

void finetune(const NcclContext& ctx, torch::nn::Sequential& model, const torch::Tensor& images,
              const torch::Tensor& labels) {
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01));
  for (int step = 0; step < 100; ++step) {
    optimizer.zero_grad();
    auto logits = model->forward(images);
    auto loss = torch::nn::functional::cross_entropy(logits, labels);
    loss.backward();
    std::vector<torch::Tensor> grads;
    for (auto& p : model->parameters()) grads.push_back(p.grad());
    allreduce_gradients(ctx.comm, ctx.stream, grads);
    optimizer.step();
    const double correct = logits.argmax(1).eq(labels).sum().item<double>();
    const double acc = global_accuracy(ctx, correct, static_cast<double>(labels.size(0)));
    if (ctx.rank == 0 && step % 10 == 0) std::printf("step %d accuracy %.3f\n", step, acc);
  }
}

int main() {
  const int rank = std::atoi(std::getenv("RANK"));
  const int world = std::atoi(std::getenv("WORLD_SIZE"));
  c10d::TCPStoreOptions options;
  options.isServer = rank == 0;
  options.numWorkers = static_cast<size_t>(world);
  c10d::TCPStore store(std::getenv("MASTER_ADDR"), options);
  NcclContext ctx = init_nccl(store, rank, world);

  torch::manual_seed(1);
  auto model = make_model();
  model->to(torch::kCUDA);
  torch::manual_seed(1000 + rank);
  auto images = torch::randn({128, 3, 32, 32}, torch::kCUDA);
  auto labels = torch::randint(10, {128}, torch::dtype(torch::kLong).device(torch::kCUDA));
  pretrain(ctx, model, images, labels);
  finetune(ctx, model, images, labels);
  NCCLCHECK(ncclCommDestroy(ctx.comm));
  return 0;
}
