// ddplint mock of <torch/csrc/distributed/c10d/Store.hpp> (LibTorch 1.13;
// a plain class held by std::shared_ptr under DDPLINT_MOCK_C10D_OLD).
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <ATen/core/ivalue.h>
#include <c10/util/Optional.h>
#include <torch/csrc/distributed/c10d/ddplint_mock_config.hpp>

namespace c10d {

using WatchKeyCallback = std::function<void(c10::optional<std::string>, c10::optional<std::string>)>;

class TORCH_API Store DDPLINT_MOCK_C10D_BASE {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::seconds(300);
  static constexpr std::chrono::milliseconds kNoTimeout = std::chrono::milliseconds::zero();

  Store() : timeout_(kDefaultTimeout) {}
  explicit Store(const std::chrono::milliseconds& timeout) : timeout_(timeout) {}
  virtual ~Store();

  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  virtual std::vector<uint8_t> compareSet(const std::string& key, const std::vector<uint8_t>& currentValue,
                                          const std::vector<uint8_t>& newValue);
  virtual std::vector<uint8_t> get(const std::string& key) = 0;
  virtual int64_t add(const std::string& key, int64_t value) = 0;
  virtual bool deleteKey(const std::string& key) = 0;
  virtual bool check(const std::vector<std::string>& keys) = 0;
  virtual int64_t getNumKeys() = 0;
  virtual void wait(const std::vector<std::string>& keys) = 0;
  virtual void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) = 0;
  virtual const std::chrono::milliseconds& getTimeout() const noexcept;
  virtual void setTimeout(const std::chrono::milliseconds& timeout);
  virtual void watchKey(const std::string& key, WatchKeyCallback callback);

 protected:
  std::chrono::milliseconds timeout_;
};

} // namespace c10d
