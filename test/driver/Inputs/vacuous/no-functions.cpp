// Every definition here fails to compile: nothing is left for the checks.
#include <torch/torch.h>

Trainer make_trainer(Config config) {
  return Trainer(config);
}

Schedule epochs = Schedule::every(Epoch(1));
