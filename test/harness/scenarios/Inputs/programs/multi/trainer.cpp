// A two-file program that knows nothing of the harness: main is here, the
// process-group setup and the gradient averaging are in comm.cpp. Each rank
// seeds differently and never broadcasts, so the replicas start apart.
#include "comm.h"

#include <torch/torch.h>

int main() {
  Comm comm = connect_from_env();
  torch::manual_seed(1234 + comm.rank);
  torch::nn::Linear model(4, 1);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int step = 0; step < 5; ++step) {
    auto x = torch::randn({8, 4});
    optimizer.zero_grad();
    torch::mse_loss(model->forward(x), x.sum(1, true)).backward();
    average_gradients(comm, model->parameters());
    optimizer.step();
  }
}
