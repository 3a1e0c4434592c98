// ddplint mock of <torch/csrc/distributed/c10d/PrefixStore.hpp> (LibTorch 1.13).
#pragma once
#include <string>
#include <vector>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace c10d {

class TORCH_API PrefixStore : public Store {
 public:
  explicit PrefixStore(std::string prefix, DDPLINT_MOCK_C10D_PTR(Store) store);
  virtual ~PrefixStore() {}

  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& expectedValue,
                                  const std::vector<uint8_t>& desiredValue) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  bool deleteKey(const std::string& key) override;
  int64_t getNumKeys() override;
  bool check(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;
};

} // namespace c10d
