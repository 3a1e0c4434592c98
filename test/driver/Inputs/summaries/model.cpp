#include "transport.h"

#include <cstddef>

void train(std::vector<float> &weights, std::vector<float> &grad, float lr) {
  int me = process_index();
  for (int step = 0; step < 10; ++step) {
    if (me == 0)
      all_reduce(grad);
    for (std::size_t i = 0; i < weights.size(); ++i)
      weights[i] -= lr * grad[i];
  }
}

void log_sizes(std::vector<int> &sizes) {
  if (process_index() == 0)
    exchange_metadata(sizes);
}
