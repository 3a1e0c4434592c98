#include "weights.h"

#include <random>

void init_weights(Mlp *m, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, 0.1f);
  for (float &v : m->w)
    v = dist(gen);
}
