//===- ProbeHash.h - The probe's hash and sample, in plain C++ ------------===//
//
// What a probe record's "hash" and "stored" mean (docs/harness.md, "What the
// ranks write"), without LibTorch: the probe computes them, the launcher
// checks the .bin against them, and test ranks write them.
//
// The hash of N float32 values is a sum, modulo 2^64, of one term per
// element: mix64((i << 32) | bits(value[i])), with mix64 the splitmix64
// finalizer. A sum needs no order, so tensor ops on any device compute the
// same number as this loop.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_PROBEHASH_H
#define DDPHARNESS_PROBEHASH_H

#include <cstdint>
#include <cstring>

namespace ddpharness {

/// How many values the .bin keeps of one tensor: all of a smaller one.
constexpr int64_t probe_sample_limit = 256;

/// The values the .bin keeps of a tensor of \p numel.
inline int64_t probe_stored_count(int64_t numel) {
  return numel < probe_sample_limit ? numel : probe_sample_limit;
}

/// The element the \p j-th stored value is, of \p stored out of \p numel.
inline int64_t probe_sample_index(int64_t j, int64_t numel, int64_t stored) {
  return j * numel / stored;
}

/// The splitmix64 finalizer.
inline uint64_t probe_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The hash of \p count float32 values.
inline uint64_t probe_hash(const float *values, int64_t count) {
  uint64_t hash = 0;
  for (int64_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, values + i, sizeof(bits));
    hash += probe_mix64((static_cast<uint64_t>(i) << 32) | bits);
  }
  return hash;
}

} // namespace ddpharness

#endif
