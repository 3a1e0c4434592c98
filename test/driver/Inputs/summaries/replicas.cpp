#include "net.h"

void broadcast_parameters(c10d::ProcessGroup &pg, Net &model) {
  std::vector<torch::Tensor> params = model->parameters();
  pg.broadcast(params)->wait();
}

void average_gradients(c10d::ProcessGroup &pg, Net &model) {
  for (auto &p : model->parameters()) {
    std::vector<torch::Tensor> g{p.grad()};
    pg.allreduce(g)->wait();
    p.grad().div_(pg.getSize());
  }
}
