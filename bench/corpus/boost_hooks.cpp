// Denoising autoencoder on procedurally generated signals, Boost.MPI.
// Gradients are averaged from tensor hooks while backward runs.

#include <boost/mpi.hpp>
#include <torch/torch.h>

#include <functional>
#include <iostream>
#include <vector>

namespace mpi = boost::mpi;

namespace denoise {

struct Settings {
  int steps = 2000;
  int64_t batch = 32;
  int64_t length = 256;
  double noise = 0.3;
  double lr = 1e-3;
  unsigned base_seed = 1000;
};

class AutoencoderImpl : public torch::nn::Module {
 public:
  explicit AutoencoderImpl(int64_t length)
      : encoder_(torch::nn::Linear(length, 64)), decoder_(torch::nn::Linear(64, length)) {
    register_module("encoder", encoder_);
    register_module("decoder", decoder_);
  }

  torch::Tensor forward(torch::Tensor x) {
    return decoder_->forward(torch::tanh(encoder_->forward(x)));
  }

 private:
  torch::nn::Linear encoder_;
  torch::nn::Linear decoder_;
};
TORCH_MODULE(Autoencoder);

// Keeps the hook handles so the hooks can be removed before the module dies.
class GradientAverager {
 public:
  GradientAverager(const mpi::communicator& world, torch::nn::Module& module) : world_(world) {
    for (auto& parameter : module.parameters()) {
      const unsigned handle = parameter.register_hook([this](torch::Tensor grad) {
        auto contiguous = grad.contiguous();
        mpi::all_reduce(world_, mpi::inplace(contiguous.data_ptr<float>()),
                        static_cast<int>(contiguous.numel()), std::plus<float>());
        return contiguous.div(world_.size());
      });
      hooks_.emplace_back(parameter, handle);
    }
  }

  ~GradientAverager() {
    for (auto& entry : hooks_) {
      entry.first.remove_hook(entry.second);
    }
  }

 private:
  const mpi::communicator& world_;
  std::vector<std::pair<torch::Tensor, unsigned>> hooks_;
};

torch::Tensor make_clean_signals(int64_t batch, int64_t length) {
  auto t = torch::arange(length, torch::kFloat).unsqueeze(0) / static_cast<double>(length);
  auto center = torch::rand({batch, 1});
  auto width = torch::rand({batch, 1}) * 200 + 20;
  return torch::exp(-(t - center).pow(2) * width);
}

} // namespace denoise

int main(int argc, char** argv) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  const denoise::Settings settings;

  // Each rank draws its own signals and noise.
  torch::manual_seed(settings.base_seed + static_cast<unsigned>(world.rank()));

  denoise::Autoencoder model(settings.length);
  denoise::GradientAverager averager(world, *model);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(settings.lr));

  double window_loss = 0.0;
  for (int step = 1; step <= settings.steps; ++step) {
    auto clean = denoise::make_clean_signals(settings.batch, settings.length);
    auto noisy = clean + settings.noise * torch::randn(clean.sizes());

    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(noisy), clean);
    loss.backward();
    optimizer.step();
    window_loss += loss.item<double>();

    if (step % 100 == 0) {
      const double total = mpi::all_reduce(world, window_loss, std::plus<double>());
      if (world.rank() == 0) {
        std::cout << "step " << step << " loss " << total / (100.0 * world.size()) << "\n";
      }
      window_loss = 0.0;
    }
  }

  if (world.rank() == 0) {
    torch::save(model, "denoiser.pt");
  }
  return 0;
}
