#pragma once

constexpr int kWeights = 32;

struct Mlp {
  float w[kWeights];
};

// Fills the weights from an engine seeded with what it is handed.
void init_weights(Mlp *m, unsigned seed);
