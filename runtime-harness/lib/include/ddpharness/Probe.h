//===- Probe.h - Per-rank fingerprints of a module, step by step ----------===//
//
// A program calls the probe once per step, after optimizer.step() and before
// zero_grad(), with the module it trains. Under `ddp-harness run` (which
// sets DDP_HARNESS_RUN_DIR) the probe writes one JSON line per recorded step
// to probe-rank<R>.jsonl, with every parameter's value and gradient
// described by a hash of all its float32 values, its L2 norm and where a
// fixed sample of its values lies in probe-rank<R>.bin: the format
// docs/harness.md specifies and the launcher's analysis reads. Hashes are
// computed on the tensors' own device; the files are written by a thread of
// the probe's own. Without the variable, as under plain torchrun, it records
// nothing.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_PROBE_H
#define DDPHARNESS_PROBE_H

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ddpharness {

namespace detail {
class ProbeWriter;
} // namespace detail

struct ProbeOptions {
  /// Record steps 0, interval, 2*interval, ...; the others cost one integer
  /// comparison. Overridden by DDP_HARNESS_PROBE_INTERVAL when set.
  int64_t interval = 1;
  /// Fingerprint CPU tensors with the tensor ops that fingerprint CUDA
  /// tensors on their device, instead of one pass in C++: the same numbers,
  /// slower; for checking the device path on a machine without one.
  bool hash_with_tensor_ops = false;
};

class Probe {
public:
  /// Reads RANK, WORLD_SIZE and DDP_HARNESS_RUN_DIR. Files are created at the
  /// first recorded step.
  explicit Probe(ProbeOptions Options = {});
  ~Probe();
  Probe(const Probe &) = delete;
  Probe &operator=(const Probe &) = delete;

  /// Whether this probe writes anything at all.
  bool enabled() const { return !RunDir.empty(); }

  /// Whether \p Step is one the probe records.
  bool records(int64_t Step) const {
    return enabled() && Step % Interval == 0;
  }

  /// Records \p Module's parameters (values and gradients) at \p Step of
  /// \p Epoch (-1: the program has no epochs). \p Indices, when given, are
  /// the dataset indices of the batch this rank consumed.
  void step(const torch::nn::Module &Module, int64_t Step, int64_t Epoch = -1,
            const std::vector<int64_t> *Indices = nullptr);

  /// The same, with the batch's indices as an integer tensor.
  void step(const torch::nn::Module &Module, int64_t Step, int64_t Epoch,
            const torch::Tensor &Indices);

  /// The same for parameters that come without a module (an optimizer's
  /// parameter groups): each with the name the ranks agree on.
  void step(const std::vector<std::pair<std::string, torch::Tensor>> &Named,
            int64_t Step, int64_t Epoch = -1,
            const std::vector<int64_t> *Indices = nullptr);

  /// Writes result-rank<R>.json with numbers the program measured itself
  /// (grad_ratio: the gradient the ranks stepped with over the true average).
  void result(const std::map<std::string, double> &Metrics);

private:
  std::string RunDir;
  int Rank = 0;
  int WorldSize = 1;
  int64_t Interval = 1;
  bool TensorOps = false;
  /// Created at the first recorded step.
  std::unique_ptr<detail::ProbeWriter> Writer;
  /// Where the next sample starts in the .bin.
  int64_t Offset = 0;
};

} // namespace ddpharness

#endif
