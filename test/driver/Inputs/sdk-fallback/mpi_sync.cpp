// Hand-written gradient sync over MPI: the findings must not depend on
// whether the machine has an MPI installation.
#include <torch/torch.h>
#include <mpi.h>

struct Net : torch::nn::Module {
  Net() { fc = register_module("fc", torch::nn::Linear(4, 2)); }
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc{nullptr};
};

void train_step(Net &model, torch::optim::SGD &optimizer) {
  optimizer.zero_grad();
  model.forward(torch::ones({8, 4})).sum().backward();
  for (auto &p : model.parameters()) {
    torch::Tensor g = p.grad();
    MPI_Allreduce(MPI_IN_PLACE, g.data_ptr(), g.numel(), MPI_FLOAT, MPI_SUM,
                  MPI_COMM_WORLD);
  }
  optimizer.step();
}

void checkpoint(Net &model) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    MPI_Barrier(MPI_COMM_WORLD);
}

void overlapped_step(Net &model, torch::optim::SGD &optimizer) {
  model.forward(torch::ones({8, 4})).sum().backward();
  torch::Tensor g = model.parameters()[0].grad();
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, g.data_ptr(), g.numel(), MPI_FLOAT, MPI_SUM,
                 MPI_COMM_WORLD, &request);
  optimizer.step();
}
