// ddplint mock of <torch/csrc/distributed/c10d/HashStore.hpp> (LibTorch 1.13):
// an in-process store.
#pragma once
#include <string>
#include <vector>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace c10d {

class TORCH_API HashStore : public Store {
 public:
  ~HashStore() override {}
  void set(const std::string& key, const std::vector<uint8_t>& data) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expectedValue,
                                  const std::vector<uint8_t>& desiredValue) override;
  std::vector<uint8_t> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;
  int64_t add(const std::string& key, int64_t value) override;
  int64_t getNumKeys() override;
  bool check(const std::vector<std::string>& keys) override;
  bool deleteKey(const std::string& key) override;
};

} // namespace c10d
