//===- Fingerprint.h - A tensor's hash, norm and sample, where it lives ---===//
//
// What the probe records of each value and gradient (docs/harness.md, "What
// the ranks write"): the hash of all its float32 values (ProbeHash.h), its
// L2 norm, and a fixed sample of at most probe_sample_limit values for the
// drift tables. The same numbers come out of one pass in C++ (a CPU tensor)
// and out of tensor ops on the tensor's own device (a CUDA tensor: only a
// few scalars and the sample come back to the host).
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_SRC_FINGERPRINT_H
#define DDPHARNESS_SRC_FINGERPRINT_H

#include "ddpharness/ProbeHash.h"

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace ddpharness {
namespace detail {

struct Fingerprint {
  uint64_t Hash = 0;
  double Norm = 0;
  std::vector<float> Sample;
};

/// One pass over \p Numel contiguous float32 values in host memory.
Fingerprint fingerprintValues(const float *Values, int64_t Numel);

/// The fingerprint of every tensor (its values as float32, whatever its
/// dtype): CPU tensors in one pass each, others by tensor ops on their own
/// device, every device's results copied back at once. \p TensorOps uses
/// the tensor ops for CPU tensors too (the device path, testable without a
/// device).
std::vector<Fingerprint> fingerprintAll(const std::vector<torch::Tensor> &All,
                                        bool TensorOps);

} // namespace detail
} // namespace ddpharness

#endif
