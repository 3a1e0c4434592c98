// ddplint mock of <torch/serialize.h> (LibTorch 1.13): torch::save /
// torch::load for anything with archive operators (modules, holders,
// optimizers, tensors) and for std::vector<Tensor>.
#pragma once
#include <string>
#include <utility>
#include <vector>
#include <torch/serialize/archive.h>
#include <torch/types.h>

namespace torch {

template <typename Value, typename... SaveToArgs>
void save(const Value& value, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  archive << value;
  archive.save_to(std::forward<SaveToArgs>(args)...);
}

template <typename... SaveToArgs>
void save(const std::vector<torch::Tensor>& tensor_vec, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  for (size_t i = 0; i < tensor_vec.size(); ++i) archive.write(std::to_string(i), tensor_vec[i]);
  archive.save_to(std::forward<SaveToArgs>(args)...);
}

template <typename Value, typename... LoadFromArgs>
void load(Value& value, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  archive >> value;
}

template <typename... LoadFromArgs>
void load(std::vector<torch::Tensor>& tensor_vec, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  torch::Tensor value;
  for (size_t index = 0; archive.try_read(std::to_string(index), value); ++index) {
    tensor_vec.push_back(std::move(value));
    value = torch::Tensor();
  }
}

} // namespace torch
