// ddplint mock of <torch/serialize/archive.h> (input-archive.h,
// output-archive.h, tensor.h) from LibTorch 1.13.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>
#include <ATen/core/ivalue.h>
#include <c10/util/Optional.h>

namespace torch {
namespace serialize {

class TORCH_API OutputArchive final {
 public:
  explicit OutputArchive();
  OutputArchive(OutputArchive&&) = default;
  OutputArchive& operator=(OutputArchive&&) = default;
  OutputArchive(OutputArchive&) = delete;
  OutputArchive& operator=(OutputArchive&) = delete;

  void write(const std::string& key, const c10::IValue& ivalue);
  void write(const std::string& key, const at::Tensor& tensor, bool is_buffer = false);
  void write(const std::string& key, OutputArchive& nested_archive);
  void save_to(const std::string& filename);
  void save_to(std::ostream& stream);
  void save_to(const std::function<size_t(const void*, size_t)>& func);
  template <typename... Ts>
  void operator()(Ts&&... ts) {
    write(std::forward<Ts>(ts)...);
  }
};

class TORCH_API InputArchive final {
 public:
  InputArchive();
  InputArchive(InputArchive&&) = default;
  InputArchive& operator=(InputArchive&&) = default;
  InputArchive(InputArchive&) = delete;
  InputArchive& operator=(InputArchive&) = delete;
  ~InputArchive() = default;

  void read(const std::string& key, c10::IValue& ivalue);
  bool try_read(const std::string& key, c10::IValue& ivalue);
  bool try_read(const std::string& key, at::Tensor& tensor, bool is_buffer = false);
  void read(const std::string& key, at::Tensor& tensor, bool is_buffer = false);
  bool try_read(const std::string& key, InputArchive& archive);
  void read(const std::string& key, InputArchive& archive);
  void load_from(const std::string& filename, c10::optional<c10::Device> device = c10::nullopt);
  void load_from(std::istream& stream, c10::optional<c10::Device> device = c10::nullopt);
  void load_from(const char* data, size_t size, c10::optional<c10::Device> device = c10::nullopt);
  std::vector<std::string> keys();
  template <typename... Ts>
  void operator()(Ts&&... ts) {
    read(std::forward<Ts>(ts)...);
  }
};

} // namespace serialize

inline serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const at::Tensor& tensor) {
  archive.write("0", tensor);
  return archive;
}
inline serialize::InputArchive& operator>>(serialize::InputArchive& archive, at::Tensor& tensor) {
  archive.read("0", tensor);
  return archive;
}

} // namespace torch
