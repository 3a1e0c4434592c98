//===- Fingerprint.cpp - A tensor's hash, norm and sample, where it lives -===//

#include "Fingerprint.h"

#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>

using namespace ddpharness;
using namespace ddpharness::detail;

// The two passes over the values are compiled again for AVX2 and AVX-512,
// picked at load time by the processor: the hash's 64-bit multiplications
// vectorize only with AVX-512DQ (about four times as fast as the baseline
// x86-64 build, which the library otherwise targets). GCC names that level
// by architecture, and Clang 16 by feature.
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && defined(__clang__)
#define DDPHARNESS_VECTOR_CLONES                                               \
  __attribute__((target_clones("avx512dq", "avx2", "default")))
#elif __has_attribute(target_clones)
#define DDPHARNESS_VECTOR_CLONES                                               \
  __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
#endif
#ifndef DDPHARNESS_VECTOR_CLONES
#define DDPHARNESS_VECTOR_CLONES
#endif

/// The hash's sum: integer additions in any order, which the compiler
/// vectorizes.
DDPHARNESS_VECTOR_CLONES static uint64_t hashValues(const float *Values,
                                                    int64_t Numel) {
  return probe_hash(Values, Numel);
}

/// The sum of squares in double, with eight partial sums: one chain of
/// dependent additions would set the pace.
DDPHARNESS_VECTOR_CLONES static double sumOfSquares(const float *Values,
                                                    int64_t Numel) {
  double Partial[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t I = 0;
  for (; I + 8 <= Numel; I += 8)
    for (int K = 0; K < 8; ++K)
      Partial[K] += static_cast<double>(Values[I + K]) * Values[I + K];
  for (; I < Numel; ++I)
    Partial[0] += static_cast<double>(Values[I]) * Values[I];
  double Sum = 0;
  for (double P : Partial)
    Sum += P;
  return Sum;
}

Fingerprint ddpharness::detail::fingerprintValues(const float *Values,
                                                  int64_t Numel) {
  Fingerprint F;
  F.Hash = hashValues(Values, Numel);
  F.Norm = std::sqrt(sumOfSquares(Values, Numel));
  int64_t Stored = probe_stored_count(Numel);
  F.Sample.resize(Stored);
  for (int64_t J = 0; J < Stored; ++J)
    F.Sample[J] = Values[probe_sample_index(J, Numel, Stored)];
  return F;
}

namespace {

/// The values as the format defines them: contiguous float32, flat, on the
/// tensor's own device.
torch::Tensor flatFloat32(const torch::Tensor &T) {
  return T.detach().to(torch::kFloat32).contiguous().view(-1);
}

/// \p Z >> \p S as on uint64_t: int64 tensors shift arithmetically.
torch::Tensor shiftRight(const torch::Tensor &Z, int S) {
  return Z.__rshift__(S).bitwise_and((int64_t(1) << (64 - S)) - 1);
}

/// probe_mix64 on every element of an int64 tensor (multiplication wraps).
torch::Tensor mixTensor(torch::Tensor Z) {
  Z = Z.bitwise_xor(shiftRight(Z, 30))
          .mul(static_cast<int64_t>(0xbf58476d1ce4e5b9ULL));
  Z = Z.bitwise_xor(shiftRight(Z, 27))
          .mul(static_cast<int64_t>(0x94d049bb133111ebULL));
  return Z.bitwise_xor(shiftRight(Z, 31));
}

/// The hash of \p Flat by tensor ops, as a one-element int64 tensor on its
/// device. In chunks, so the temporaries stay small beside a large tensor.
torch::Tensor tensorHash(const torch::Tensor &Flat) {
  constexpr int64_t Chunk = int64_t(1) << 22;
  auto Long = torch::TensorOptions().dtype(torch::kInt64).device(Flat.device());
  torch::Tensor Sum = torch::zeros({1}, Long);
  for (int64_t Start = 0; Start < Flat.numel(); Start += Chunk) {
    int64_t Len = std::min(Chunk, Flat.numel() - Start);
    torch::Tensor Bits = Flat.narrow(0, Start, Len)
                             .view(torch::kInt32)
                             .to(torch::kInt64)
                             .bitwise_and(int64_t(0xffffffff));
    torch::Tensor Z =
        torch::arange(Start, Start + Len, Long).mul(int64_t(1) << 32).add(Bits);
    Sum.add_(mixTensor(Z).sum());
  }
  return Sum;
}

/// Hash, sum of squares and sample of one tensor, on its device, as one
/// int64 tensor: [hash, bits of the sum of squares, bits of each sampled
/// value as a double].
torch::Tensor tensorFingerprint(const torch::Tensor &T) {
  torch::Tensor Flat = flatFloat32(T);
  int64_t Numel = Flat.numel(), Stored = probe_stored_count(Numel);
  std::vector<int64_t> Picks(Stored);
  for (int64_t J = 0; J < Stored; ++J)
    Picks[J] = probe_sample_index(J, Numel, Stored);
  torch::Tensor Index = torch::tensor(Picks, torch::kInt64).to(Flat.device());
  torch::Tensor Squares = Flat.to(torch::kFloat64).square().sum().reshape({1});
  torch::Tensor Sample = Flat.index_select(0, Index).to(torch::kFloat64);
  return torch::cat({tensorHash(Flat), Squares.view(torch::kInt64),
                     Sample.view(torch::kInt64)});
}

/// Decodes what tensorFingerprint() packed, from host memory.
Fingerprint unpack(const int64_t *Packed, int64_t Numel) {
  Fingerprint F;
  F.Hash = static_cast<uint64_t>(Packed[0]);
  double Squares;
  std::memcpy(&Squares, Packed + 1, sizeof(Squares));
  F.Norm = std::sqrt(Squares);
  F.Sample.resize(probe_stored_count(Numel));
  for (size_t J = 0; J < F.Sample.size(); ++J) {
    double V;
    std::memcpy(&V, Packed + 2 + J, sizeof(V));
    F.Sample[J] = static_cast<float>(V);
  }
  return F;
}

} // namespace

std::vector<Fingerprint>
ddpharness::detail::fingerprintAll(const std::vector<torch::Tensor> &All,
                                   bool TensorOps) {
  std::vector<Fingerprint> Out(All.size());
  // Tensors fingerprinted on a device, by device: their packed results are
  // concatenated and copied to the host in one transfer.
  std::map<std::string, std::vector<size_t>> OnDevice;
  for (size_t I = 0; I < All.size(); ++I) {
    const torch::Tensor &T = All[I];
    if (!TensorOps && T.device().is_cpu()) {
      // Float32 and contiguous, as most parameters are: read in place.
      torch::Tensor Flat =
          T.scalar_type() == torch::kFloat32 && T.is_contiguous()
              ? T
              : flatFloat32(T);
      Out[I] = fingerprintValues(Flat.data_ptr<float>(), Flat.numel());
    } else {
      OnDevice[All[I].device().str()].push_back(I);
    }
  }
  for (const auto &[Device, Indices] : OnDevice) {
    std::vector<torch::Tensor> Packed;
    for (size_t I : Indices)
      Packed.push_back(tensorFingerprint(All[I]));
    torch::Tensor Host = torch::cat(Packed).to(torch::kCPU).contiguous();
    const int64_t *At = Host.data_ptr<int64_t>();
    for (size_t K = 0; K < Indices.size(); ++K) {
      Out[Indices[K]] = unpack(At, All[Indices[K]].numel());
      At += Packed[K].numel();
    }
  }
  return Out;
}
