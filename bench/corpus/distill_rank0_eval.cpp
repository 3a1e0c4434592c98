// Knowledge distillation of a small student from a frozen teacher, with a
// flattened gradient all-reduce per step and a held-out evaluation every few
// epochs.

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/utils/tensor_flatten.h>
#include <torch/torch.h>

#include <cstdio>
#include <string>
#include <vector>

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

static void allreduce_mean_(const Group& pg, std::vector<torch::Tensor> grads) {
  std::vector<at::Tensor> flat{torch::utils::flatten_dense_tensors(grads)};
  pg->allreduce(flat)->wait();
  flat[0].div_(pg->getSize());
  auto views = torch::utils::unflatten_dense_tensors(flat[0], grads);
  for (size_t i = 0; i < grads.size(); ++i) grads[i].copy_(views[i]);
}

static std::vector<torch::Tensor> gradients_of(torch::nn::Module& module) {
  std::vector<torch::Tensor> grads;
  for (auto& p : module.parameters()) grads.push_back(p.grad());
  return grads;
}

static double evaluate(const Group& pg, torch::nn::Sequential& net, const torch::Tensor& x,
                       const torch::Tensor& y) {
  torch::NoGradGuard no_grad;
  auto correct = net->forward(x).argmax(1).eq(y).sum().to(torch::kDouble);
  std::vector<at::Tensor> totals{torch::stack({correct, torch::scalar_tensor(static_cast<double>(x.size(0)), torch::kDouble)})};
  pg->allreduce(totals)->wait();
  return (totals[0][0] / totals[0][1]).item<double>();
}

int main(int argc, char** argv) {
  const int rank = std::stoi(argv[1]);
  const int world = std::stoi(argv[2]);
  c10d::TCPStoreOptions store_options;
  store_options.isServer = rank == 0;
  store_options.numWorkers = world;
  auto store = c10::make_intrusive<c10d::TCPStore>("10.0.0.1", store_options);
  Group pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world);

  torch::nn::Sequential teacher(torch::nn::Linear(784, 1024), torch::nn::ReLU(), torch::nn::Linear(1024, 10));
  torch::load(teacher, "teacher.pt");
  teacher->eval();
  torch::manual_seed(404);
  torch::nn::Sequential student(torch::nn::Linear(784, 128), torch::nn::ReLU(), torch::nn::Linear(128, 10));
  torch::optim::SGD optimizer(student->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));

  std::vector<torch::Tensor> data;
  torch::load(data, "digits_" + std::to_string(rank) + ".pt");
  const auto images = data.at(0);
  const auto labels = data.at(1);
  std::vector<torch::Tensor> held_out;
  torch::load(held_out, "digits_heldout.pt");
  const int64_t batch = 100;
  const int64_t windows = images.size(0) / batch;
  const double temperature = 4.0;

  for (int epoch = 0; epoch < 20; ++epoch) {
    student->train();
    for (int64_t step = 0; step < 300; ++step) {
      const int64_t start = (step % windows) * batch;
      auto x = images.narrow(0, start, batch);
      torch::Tensor soft;
      {
        torch::NoGradGuard no_grad;
        soft = torch::softmax(teacher->forward(x) / temperature, 1);
      }
      optimizer.zero_grad();
      auto log_p = torch::log_softmax(student->forward(x) / temperature, 1);
      auto loss = -(soft * log_p).sum(1).mean() * (temperature * temperature) +
                  torch::nn::functional::cross_entropy(student->forward(x), labels.narrow(0, start, batch));
      loss.backward();
      allreduce_mean_(pg, gradients_of(*student));
      optimizer.step();
    }
    if (rank == 0 && epoch % 5 == 4) {
      const double acc = evaluate(pg, student, held_out.at(0), held_out.at(1));
      std::printf("epoch %d held-out accuracy %.4f\n", epoch, acc);
      torch::save(student, "student.pt");
    }
  }
  return 0;
}
