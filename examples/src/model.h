#pragma once

#include <torch/torch.h>

struct ConvNetOptions {
  TORCH_ARG(int64_t, in_channels) = 1;
  TORCH_ARG(int64_t, image_size) = 8;
  TORCH_ARG(int64_t, num_classes) = 10;
  TORCH_ARG(int64_t, width) = 16;
  TORCH_ARG(int64_t, embedding_dim) = 32;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(bool, aux_classifier) = false;
};

// Two conv blocks, a bottleneck embedding, a linear classification head and,
// optionally, an auxiliary classifier.
// embed() and classify() are exposed separately for feature regularisers and
// linear probing.
class ConvNetImpl : public torch::nn::Module {
 public:
  explicit ConvNetImpl(const ConvNetOptions& options = {})
      : options_(options),
        conv1(register_module(
            "conv1",
            torch::nn::Conv2d(
                torch::nn::Conv2dOptions(options.in_channels(), options.width(), 3)
                    .padding(1)))),
        conv2(register_module(
            "conv2",
            torch::nn::Conv2d(
                torch::nn::Conv2dOptions(options.width(), 2 * options.width(), 3)
                    .padding(1)))),
        fc(register_module(
            "fc",
            torch::nn::Linear(flattened_features(options), options.embedding_dim()))),
        dropout(register_module("dropout", torch::nn::Dropout(options.dropout()))),
        head(register_module(
            "head",
            torch::nn::Linear(options.embedding_dim(), options.num_classes()))) {
    if (options.aux_classifier()) {
      aux_head = register_module(
          "aux_head",
          torch::nn::Linear(options.embedding_dim(), options.num_classes()));
    }
  }

  torch::Tensor embed(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(conv1->forward(x)), 2);
    x = torch::max_pool2d(torch::relu(conv2->forward(x)), 2);
    x = torch::relu(fc->forward(x.flatten(1)));
    return dropout->forward(x);
  }

  torch::Tensor classify(const torch::Tensor& embedding) {
    return head->forward(embedding);
  }

  torch::Tensor forward(torch::Tensor x) {
    return classify(embed(std::move(x)));
  }

  const ConvNetOptions& options() const {
    return options_;
  }

 private:
  static int64_t flattened_features(const ConvNetOptions& options) {
    const int64_t spatial = options.image_size() / 4;
    return 2 * options.width() * spatial * spatial;
  }

  ConvNetOptions options_;

 public:
  torch::nn::Conv2d conv1{nullptr};
  torch::nn::Conv2d conv2{nullptr};
  torch::nn::Linear fc{nullptr};
  torch::nn::Dropout dropout{nullptr};
  torch::nn::Linear head{nullptr};
  // Auxiliary classifier on the embedding, for deep supervision.
  torch::nn::Linear aux_head{nullptr};
};
TORCH_MODULE(ConvNet);
