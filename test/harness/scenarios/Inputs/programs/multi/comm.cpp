#include "comm.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/version.h> // TORCH_VERSION_MAJOR, for the 2.x store option below

#include <cstdlib>

Comm connect_from_env() {
  Comm comm;
  comm.rank = std::atoi(std::getenv("RANK"));
  comm.world = std::atoi(std::getenv("WORLD_SIZE"));
  c10d::TCPStoreOptions store_options;
  store_options.port = std::atoi(std::getenv("MASTER_PORT"));
  store_options.isServer = comm.rank == 0;
  store_options.numWorkers = comm.world;
#if TORCH_VERSION_MAJOR >= 2
  store_options.useLibUV = false;
#endif
  auto store = c10::make_intrusive<c10d::TCPStore>(std::getenv("MASTER_ADDR"),
                                                   store_options);
  auto options = c10d::ProcessGroupGloo::Options::create();
  options->devices.push_back(
      c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  comm.group = c10::make_intrusive<c10d::ProcessGroupGloo>(
      store, comm.rank, comm.world, options);
  return comm;
}

void average_gradients(Comm &comm, const std::vector<torch::Tensor> &params) {
  for (const auto &p : params) {
    std::vector<torch::Tensor> grads{p.grad()};
    comm.group->allreduce(grads)->wait();
    p.grad().div_(comm.world);
  }
}
