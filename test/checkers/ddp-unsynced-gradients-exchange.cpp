// ddp-unsynced-gradients: replicas that meet through their parameters,
// exchanged with another rank one send or receive per parameter (elastic
// averaging, gossip), step with local gradients by design. Every function
// but those marked "Bad" is correct and must stay silent.
//
// RUN: %clang_tidy %s -checks='-*,ddp-unsynced-gradients' -- %mock_flags 2>/dev/null \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: %expect_exit 1 %ddplint %s --checks='-*,ddp-unsynced-gradients' -- %mock_flags 2> %t.err \
// RUN:   | FileCheck %s -check-prefix=CHECK-MESSAGES -implicit-check-not='{{warning|error|note}}:'
// RUN: FileCheck /dev/null --allow-empty --implicit-check-not='{{warning|error|note}}:' < %t.err

#include <mpi.h>
#include <torch/torch.h>

#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// Elastic averaging: every few steps a worker swaps each parameter with the
// centre (rank 0) and moves toward what it received, then steps locally.
void elastic_worker(Net &model, torch::Tensor x, int tau, float alpha) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  x = x * (rank + 1);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  auto params = model->parameters();
  std::vector<float> theirs(64);
  for (int t = 0; t < 100; ++t) {
    optimizer.zero_grad();
    model->forward(x).sum().backward();
    if (t % tau == 0) {
      for (size_t i = 0; i < params.size(); ++i) {
        auto mine = params[i].flatten().contiguous();
        MPI_Request requests[2];
        MPI_Irecv(theirs.data(), (int)mine.numel(), MPI_FLOAT, 0, 0,
                  MPI_COMM_WORLD, &requests[0]);
        MPI_Isend(mine.data_ptr<float>(), (int)mine.numel(), MPI_FLOAT, 0, 0,
                  MPI_COMM_WORLD, &requests[1]);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        auto centre = torch::from_blob(theirs.data(), mine.sizes()).clone();
        params[i].data().add_((centre - params[i].data()) * alpha);
      }
    }
    optimizer.step();
  }
}

// The same over named_parameters(), its size kept in a local first.
void elastic_worker_named(Net &model, torch::Tensor x, int tau, float alpha) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  x = x * (rank + 1);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  auto count = model->named_parameters().size();
  auto named = model->named_parameters();
  std::vector<float> theirs(64);
  for (int t = 0; t < 100; ++t) {
    optimizer.zero_grad();
    model->forward(x).sum().backward();
    if (t % tau == 0) {
      for (int i = 0; i < count; i++) {
        auto mine = named[i].value().flatten().contiguous();
        MPI_Sendrecv(mine.data_ptr<float>(), (int)mine.numel(), MPI_FLOAT, 0,
                     0, theirs.data(), (int)mine.numel(), MPI_FLOAT, 0, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        auto centre = torch::from_blob(theirs.data(), mine.sizes()).clone();
        named[i].value().data().add_((centre - named[i].value().data()) *
                                     alpha);
      }
    }
    optimizer.step();
  }
}

// Bad: the same worker without the exchange: each rank steps alone.
void worker_without_exchange(Net &model, torch::Tensor x) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int t = 0; t < 100; ++t) {
    optimizer.zero_grad();
    model->forward(x * rank).sum().backward();
    optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: the optimizer steps with gradients no rank shares
    // CHECK-MESSAGES: :[[@LINE-3]]:36: note: gradients computed by backward() here
  }
}

// Bad: a send that is no parameter exchange (a loss sent to rank 0 for a
// log line) pulls nothing together.
void loss_sent_for_logging(Net &model, torch::Tensor x) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  x = x * (rank + 1);
  torch::optim::SGD optimizer(model->parameters(), 0.1);
  for (int t = 0; t < 100; ++t) {
    optimizer.zero_grad();
    auto loss = model->forward(x).sum();
    loss.backward();
    float value = loss.item<float>();
    MPI_Send(&value, 1, MPI_FLOAT, 0, 0, MPI_COMM_WORLD);
    optimizer.step();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: the optimizer steps with gradients no rank shares
    // CHECK-MESSAGES: :[[@LINE-5]]:10: note: gradients computed by backward() here
  }
}
