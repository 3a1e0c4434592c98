//===- Training.h - A toy training loop with closed-form results ----------===//
//
// Gradient descent on fc.weight (16 values), fc.bias (4) and a frozen
// parameter without gradient, with gradients from a formula instead of data,
// so every expected number in the tests follows by hand:
//
//   local gradient on rank r at step t:  fc.weight[j]: (r+1)(j+1)/16 (t+1)
//                                        fc.bias[j]:   (r+1)(j+1)/8  (t+1)
//   synced step: every rank uses the mean of the ranks' local gradients;
//   unsynced step: each rank uses its own; --sum: the sum (never divided).
//   learning rate 1/8.
//
// With 2 ranks unsynced from step K, rank 1's weight[15] moves by
// (t+1)/8 more than rank 0's at each step t >= K, so the drift after step t
// is sum_{u=K..t} (u+1)/8: 0.125, 0.375, 0.75, 1.25, 1.875 for K = 0. All
// values are exact in float32.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_TEST_TRAINING_H
#define DDPHARNESS_TEST_TRAINING_H

#include "Probe.h"
#include "RankEnv.h"
#include "Star.h"

#include <memory>

struct TrainingOptions {
  int Steps = 5;
  /// First step whose gradients are not synced; -1: every step is synced.
  int UnsyncedFrom = -1;
  /// Synced steps sum the gradients without dividing by the world size.
  bool SumWithoutAverage = false;
  /// Meet the other ranks through rank 0's socket every step.
  bool Connect = false;
  /// Record a wrong hash for fc.weight on the last rank.
  bool WrongHash = false;
  /// Steps leave the parameters as they are, as an optimizer holding other
  /// tensors than the trained module's does.
  bool Frozen = false;
};

inline std::vector<float> localGradient(int Rank, size_t Size, int Step,
                                        float Scale) {
  std::vector<float> G(Size);
  for (size_t J = 0; J < Size; ++J)
    G[J] = static_cast<float>(Rank + 1) * static_cast<float>(J + 1) / Scale *
           static_cast<float>(Step + 1);
  return G;
}

/// What the step uses: the local gradient, or the mean (or sum) of all
/// ranks' local gradients, computed identically on every rank.
inline std::vector<float> stepGradient(const RankEnv &Env, size_t Size,
                                       int Step, float Scale, bool Synced,
                                       bool Sum) {
  if (!Synced)
    return localGradient(Env.Rank, Size, Step, Scale);
  std::vector<float> Total(Size, 0.0f);
  for (int R = 0; R < Env.WorldSize; ++R) {
    std::vector<float> G = localGradient(R, Size, Step, Scale);
    for (size_t J = 0; J < Size; ++J)
      Total[J] += G[J];
  }
  if (!Sum)
    for (float &T : Total)
      T /= static_cast<float>(Env.WorldSize);
  return Total;
}

inline int runTraining(const RankEnv &Env, const TrainingOptions &O) {
  std::unique_ptr<Star> Group;
  if (O.Connect)
    Group = std::make_unique<Star>(Env);
  std::vector<float> Weight(16), Bias(4), Frozen{1.0f, 1.0f};
  for (size_t J = 0; J < Weight.size(); ++J)
    Weight[J] = 0.5f - static_cast<float>(J) / 32.0f;
  for (size_t J = 0; J < Bias.size(); ++J)
    Bias[J] = static_cast<float>(J) / 8.0f;
  const float Lr = O.Frozen ? 0.0f : 0.125f;
  ProbeWriter Probe(Env);
  double RatioSum = 0;
  for (int T = 0; T < O.Steps; ++T) {
    bool Synced = O.UnsyncedFrom < 0 || T < O.UnsyncedFrom;
    std::vector<float> GW =
        stepGradient(Env, Weight.size(), T, 16.0f, Synced, O.SumWithoutAverage);
    std::vector<float> GB =
        stepGradient(Env, Bias.size(), T, 8.0f, Synced, O.SumWithoutAverage);
    // The scenario's own measurement: the gradient used against the true
    // average of the ranks' local gradients.
    std::vector<float> Mean = stepGradient(Env, Weight.size(), T, 16.0f,
                                           /*Synced=*/true, /*Sum=*/false);
    RatioSum += l2(GW) / l2(Mean);
    for (size_t J = 0; J < Weight.size(); ++J)
      Weight[J] -= Lr * GW[J];
    for (size_t J = 0; J < Bias.size(); ++J)
      Bias[J] -= Lr * GB[J];
    if (Group)
      Group->barrier();
    std::printf("rank %d step %d: g[0]=%.5f w[15]=%.6f%s\n", Env.Rank, T,
                GW[0], Weight[15], Synced ? "" : " (unsynced)");
    std::fflush(stdout);
    // --wrong-hash: the recorded hash describes other values than the .bin
    // holds, which the harness must notice.
    std::vector<float> Other = Weight;
    Other[0] += 1.0f;
    bool Wrong = O.WrongHash && Env.Rank == Env.WorldSize - 1;
    Probe.step(T, -1,
               {{"fc.weight", &Weight, &GW, Wrong ? &Other : nullptr},
                {"fc.bias", &Bias, &GB},
                {"frozen.scale", &Frozen, nullptr}});
  }
  Probe.result({{"grad_ratio", RatioSum / O.Steps},
                {"steps", static_cast<double>(O.Steps)}});
  return 0;
}

#endif
