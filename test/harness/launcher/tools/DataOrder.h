//===- DataOrder.h - A toy sampler for the data-order tests ---------------===//
//
// Each epoch shuffles indices 0..N-1 with a seed (the epoch, or always 0 when
// the order is replayed as with a sampler whose set_epoch never reaches the
// loader), gives rank r every WORLD_SIZE-th index starting at r (or, with
// overlap, all of them, as an unsharded sampler does), and records each
// batch's indices with the probe.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_TEST_DATAORDER_H
#define DDPHARNESS_TEST_DATAORDER_H

#include "Probe.h"
#include "RankEnv.h"

#include <utility>

struct DataOrderOptions {
  int Epochs = 3;
  int DatasetSize = 16;
  int BatchSize = 2;
  bool SameOrder = false;
  bool Overlap = false;
};

inline std::vector<int64_t> shuffled(int64_t N, uint64_t Seed) {
  std::vector<int64_t> Order(N);
  for (int64_t I = 0; I < N; ++I)
    Order[I] = I;
  uint64_t State = Seed * 0x9e3779b97f4a7c15ULL + 1;
  for (int64_t I = N - 1; I > 0; --I) {
    // splitmix64
    State += 0x9e3779b97f4a7c15ULL;
    uint64_t Z = State;
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    Z ^= Z >> 31;
    std::swap(Order[I], Order[Z % static_cast<uint64_t>(I + 1)]);
  }
  return Order;
}

inline int runDataOrder(const RankEnv &Env, const DataOrderOptions &O) {
  ProbeWriter Probe(Env);
  std::vector<float> Weight{1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<float> Grad{0.5f, 0.5f, 0.5f, 0.5f};
  int64_t Step = 0;
  for (int Epoch = 0; Epoch < O.Epochs; ++Epoch) {
    std::vector<int64_t> Order =
        shuffled(O.DatasetSize, O.SameOrder ? 0 : Epoch + 1);
    std::vector<int64_t> Mine;
    for (size_t I = 0; I < Order.size(); ++I)
      if (O.Overlap || static_cast<int>(I % Env.WorldSize) == Env.Rank)
        Mine.push_back(Order[I]);
    for (size_t Start = 0; Start < Mine.size(); Start += O.BatchSize) {
      std::vector<int64_t> Batch(
          Mine.begin() + Start,
          Mine.begin() + std::min(Mine.size(), Start + O.BatchSize));
      for (float &W : Weight)
        W -= 0.25f;
      Probe.step(Step++, Epoch, {{"fc.weight", &Weight, &Grad}}, &Batch);
    }
    std::printf("rank %d epoch %d: first index %lld\n", Env.Rank, Epoch,
                static_cast<long long>(Mine.empty() ? -1 : Mine[0]));
  }
  return 0;
}

#endif
