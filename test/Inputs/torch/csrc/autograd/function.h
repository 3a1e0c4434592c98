// ddplint mock of <torch/csrc/autograd/function.h> (+ edge.h) from LibTorch
// 1.13: autograd graph nodes. A leaf's gradient accumulator is a Node, and
// post-hooks on it are how PyTorch's own DDP reducer learns that a
// gradient is ready.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <torch/csrc/autograd/function_hook.h>

namespace torch {
namespace autograd {

struct Node;

struct Edge {
  Edge() noexcept : function(nullptr), input_nr(0) {}
  Edge(std::shared_ptr<Node> function_, uint32_t input_nr_) noexcept
      : function(std::move(function_)), input_nr(input_nr_) {}
  bool is_valid() const noexcept { return function != nullptr; }
  std::shared_ptr<Node> function;
  uint32_t input_nr;
};

using edge_list = std::vector<Edge>;

struct TORCH_API Node : std::enable_shared_from_this<Node> {
 public:
  explicit Node(uint64_t sequence_nr, edge_list&& next_edges = edge_list());
  explicit Node(edge_list&& next_edges = edge_list());
  Node(const Node& other) = delete;
  Node(Node&& other) = delete;
  Node& operator=(const Node& other) = delete;
  Node& operator=(Node&& other) = delete;
  virtual ~Node() = default;

  variable_list operator()(variable_list&& inputs);

  uint32_t num_inputs() const noexcept;
  const Edge& next_edge(size_t index) const noexcept;
  const edge_list& next_edges() const noexcept;
  edge_list& next_edges() noexcept;
  uint32_t num_outputs() const noexcept;
  uint64_t sequence_nr() const noexcept;
  virtual std::string name() const;

  uintptr_t add_post_hook(std::unique_ptr<FunctionPostHook>&& post_hook);
  const std::vector<std::unique_ptr<FunctionPostHook>>& post_hooks() const noexcept;
  bool del_post_hook(const uintptr_t& key);
  std::vector<std::unique_ptr<FunctionPostHook>>& post_hooks() noexcept;
  void add_pre_hook(std::unique_ptr<FunctionPreHook>&& pre_hook);
  const std::vector<std::unique_ptr<FunctionPreHook>>& pre_hooks() const noexcept;
  std::vector<std::unique_ptr<FunctionPreHook>>& pre_hooks() noexcept;

 protected:
  virtual variable_list apply(variable_list&& inputs) = 0;
};

} // namespace autograd
} // namespace torch
