#include "dist_utils.h"

#include "config.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>
#include <cstdint>
#include <iostream>

namespace dist {

Context init_from_env() {
  Context context;
  context.rank = static_cast<int>(config::env_int("RANK", 0));
  context.world_size = static_cast<int>(config::env_int("WORLD_SIZE", 1));
  const std::string master_addr = config::env_string("MASTER_ADDR", "127.0.0.1");
  const auto master_port =
      static_cast<std::uint16_t>(config::env_int("MASTER_PORT", 29500));
  const std::chrono::seconds timeout(config::env_int("DIST_TIMEOUT_S", 120));

  c10d::TCPStoreOptions store_options;
  store_options.port = master_port;
  store_options.isServer = context.is_main();
  store_options.numWorkers = context.world_size;
  store_options.timeout = timeout;
  auto store = c10::make_intrusive<c10d::TCPStore>(master_addr, store_options);

  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  const std::string interface = config::env_string("GLOO_SOCKET_IFNAME", "");
  options->devices.push_back(
      interface.empty()
          ? c10d::ProcessGroupGloo::createDefaultDevice()
          : c10d::ProcessGroupGloo::createDeviceForInterface(interface));

  context.process_group = c10::make_intrusive<c10d::ProcessGroupGloo>(
      store, context.rank, context.world_size, options);
  return context;
}

void allreduce_gradients(
    c10d::ProcessGroup& process_group,
    const std::vector<torch::Tensor>& parameters) {
  for (const auto& parameter : parameters) {
    auto grad = parameter.grad();
    if (!grad.defined()) {
      // Frozen, or not used in this step.
      continue;
    }
    std::vector<at::Tensor> tensors{grad};
    process_group.allreduce(tensors)->wait();
  }
}

torch::Tensor all_reduce_sum(
    c10d::ProcessGroup& process_group,
    const torch::Tensor& values) {
  std::vector<at::Tensor> tensors{values.detach().clone()};
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::SUM;
  process_group.allreduce(tensors, options)->wait();
  return tensors.front();
}

double all_reduce_mean(c10d::ProcessGroup& process_group, double value) {
  const auto total =
      all_reduce_sum(process_group, torch::tensor({value}, torch::kDouble));
  return total.item<double>() / process_group.getSize();
}

void save_checkpoint(
    const std::shared_ptr<torch::nn::Module>& module,
    const std::string& path,
    int rank) {
  if (rank != 0 || path.empty()) {
    return;
  }
  torch::save(module, path);
  std::cout << "saved checkpoint to " << path << std::endl;
}

} // namespace dist
