// Communication backend of the parameter-averaging experiments. It owns the
// process group; Scalar is the element type of the exchanged buffers.
#pragma once

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace pavg {

template <typename Scalar>
class CollectiveBackend {
 public:
  using Handle = c10::intrusive_ptr<c10d::Work>;

  explicit CollectiveBackend(c10::intrusive_ptr<c10d::ProcessGroup> group)
      : group_(std::move(group)) {}

  int rank() const { return group_->getRank(); }
  int size() const { return group_->getSize(); }

  torch::TensorOptions buffer_options() const {
    return torch::TensorOptions().dtype(torch::CppTypeToScalarType<Scalar>::value);
  }

  // The caller decides when to wait.
  Handle allreduce_async(std::vector<at::Tensor>& tensors) {
    return group_->allreduce(tensors);
  }

  void enqueue(std::vector<at::Tensor>& tensors) {
    pending_.push_back(group_->allreduce(tensors));
  }

  void flush() {
    for (auto& work : pending_) {
      work->wait();
    }
    pending_.clear();
  }

  void average(std::vector<at::Tensor>& tensors) {
    group_->allreduce_coalesced(tensors)->wait();
    for (auto& t : tensors) {
      t.div_(size());
    }
  }

  void broadcast_from_root(std::vector<at::Tensor>& tensors) {
    c10d::BroadcastOptions options;
    options.rootRank = 0;
    group_->broadcast(tensors, options);
  }

  at::Tensor gather_all(const at::Tensor& local) {
    std::vector<std::vector<at::Tensor>> outputs(1);
    for (int r = 0; r < size(); ++r) {
      outputs[0].push_back(torch::empty_like(local));
    }
    std::vector<at::Tensor> inputs{local};
    Handle work = group_->allgather(outputs, inputs);
    return torch::stack(outputs[0]);
  }

  Scalar max_over_ranks(Scalar local) {
    std::vector<at::Tensor> value{torch::full({1}, local, buffer_options())};
    c10d::AllreduceOptions options;
    options.reduceOp = c10d::ReduceOp::MAX;
    Handle work = group_->allreduce(value, options);
    work->wait();
    return value[0].template item<Scalar>();
  }

  void barrier() { group_->barrier()->wait(); }

 private:
  c10::intrusive_ptr<c10d::ProcessGroup> group_;
  std::vector<Handle> pending_;
};

// Averages the parameters of replicas that stepped independently.
template <typename Scalar, typename Module>
void average_parameters(CollectiveBackend<Scalar>& backend, Module& module) {
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> params;
  for (auto& p : module->parameters()) {
    params.push_back(p);
  }
  backend.average(params);
}

}  // namespace pavg
