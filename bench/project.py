#!/usr/bin/env python3
"""Writes a LibTorch data-parallel project of N translation units.

The benchmark project for bench/whole_project.py: a small trainer split the
way real projects split one (a model, a data pipeline, gradient sync
helpers, several training entry points), each unit including LibTorch and
c10d the way such code does. Most units start with the same heavy includes
(so they can share a precompiled preamble); every fourth one includes its
own header first, as projects following the "related header first" rule do.
Some units carry the bugs ddplint finds, so the run does real reporting.

Usage: bench/project.py DIR [--units N]   (default 12)
Writes DIR/src/*.cpp, DIR/include/*.h and DIR/build/compile_commands.json.
"""

import argparse
import json
import os

HEADER = """#pragma once
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <cstdint>
#include <string>

namespace bench {{

struct Options{index} {{
  int64_t epochs = 3;
  int64_t batch = 32;
  double lr = 0.01;
  std::string name = "unit{index}";
}};

struct Net{index}Impl : torch::nn::Module {{
  Net{index}Impl()
      : fc1(register_module("fc1", torch::nn::Linear(16, 32))),
        fc2(register_module("fc2", torch::nn::Linear(32, 4))) {{}}
  torch::Tensor forward(torch::Tensor x) {{
    return fc2->forward(torch::relu(fc1->forward(x)));
  }}
  torch::nn::Linear fc1, fc2;
}};
TORCH_MODULE(Net{index});

void train{index}(const Options{index} &options, int64_t rank, int64_t world);

inline c10::intrusive_ptr<c10d::ProcessGroupGloo> connect(int64_t rank,
                                                          int64_t world) {{
  auto store = c10::make_intrusive<c10d::TCPStore>(
      "127.0.0.1",
      c10d::TCPStoreOptions{{29500, rank == 0, static_cast<size_t>(world)}});
  return c10::make_intrusive<c10d::ProcessGroupGloo>(
      store, static_cast<int>(rank), static_cast<int>(world),
      c10::make_intrusive<c10d::ProcessGroupGloo::Options>());
}}

}} // namespace bench
"""

SHARED_INCLUDES = """#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
"""

DATASET = """
namespace {{

struct Points{index} : torch::data::datasets::Dataset<Points{index}> {{
  torch::data::Example<> get(size_t i) override {{
    return {{torch::full({{16}}, static_cast<double>(i)), torch::zeros({{4}})}};
  }}
  torch::optional<size_t> size() const override {{ return 256; }}
}};

}} // namespace
"""

# What each unit's training function does; {index} is the unit number.
BODIES = [
    # The sampler copied into its loader, then set_epoch on the original.
    """
void bench::train{index}(const Options{index} &options, int64_t rank, int64_t world) {{
  Net{index} model;
  torch::optim::SGD optimizer(model->parameters(), options.lr);
  torch::data::samplers::DistributedRandomSampler sampler(256, world, rank);
  auto loader = torch::data::make_data_loader(
      Points{index}().map(torch::data::transforms::Stack<>()), sampler,
      torch::data::DataLoaderOptions(options.batch));
  for (int64_t epoch = 0; epoch < options.epochs; ++epoch) {{
    sampler.set_epoch(static_cast<size_t>(epoch));
    for (auto &batch : *loader) {{
      optimizer.zero_grad();
      auto loss = torch::mse_loss(model->forward(batch.data), batch.target);
      loss.backward();
      optimizer.step();
    }}
  }}
}}
""",
    # Correct: hand-written averaged gradient sync after backward.
    """
void bench::train{index}(const Options{index} &options, int64_t rank, int64_t world) {{
  auto group = bench::connect(rank, world);
  torch::manual_seed(1234);
  Net{index} model;
  torch::optim::SGD optimizer(model->parameters(), options.lr);
  for (int64_t epoch = 0; epoch < options.epochs; ++epoch) {{
    torch::data::samplers::DistributedRandomSampler sampler(256, world, rank);
    sampler.set_epoch(static_cast<size_t>(epoch));
    auto loader = torch::data::make_data_loader(
        Points{index}().map(torch::data::transforms::Stack<>()), sampler,
        torch::data::DataLoaderOptions(options.batch));
    for (auto &batch : *loader) {{
      optimizer.zero_grad();
      auto loss = torch::mse_loss(model->forward(batch.data), batch.target);
      loss.backward();
      std::vector<at::Tensor> grads;
      for (auto &p : model->parameters())
        grads.push_back(p.grad());
      group->allreduce(grads)->wait();
      for (auto &g : grads)
        g.div_(group->getSize());
      optimizer.step();
    }}
  }}
}}
""",
    # A collective only rank 0 reaches.
    """
void bench::train{index}(const Options{index} &options, int64_t rank, int64_t world) {{
  auto group = bench::connect(rank, world);
  torch::manual_seed(7);
  Net{index} model;
  auto metric = torch::zeros({{1}});
  if (rank == 0) {{
    std::vector<at::Tensor> tensors{{metric}};
    group->allreduce(tensors)->wait();
  }}
  (void)options;
}}
""",
]


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def generate(root, units):
    root = os.path.abspath(root)
    commands = []
    for i in range(units):
        header = f"unit{i}.h"
        write(os.path.join(root, "include", header), HEADER.format(index=i))
        body = BODIES[i % len(BODIES)].format(index=i)
        if i % 4 == 3:
            # The related header first: this unit's preamble is its own.
            includes = f'#include "{header}"\n\n' + SHARED_INCLUDES
        else:
            includes = SHARED_INCLUDES + f'\n#include "{header}"\n'
        text = (f"// Unit {i} of the benchmark project.\n" + includes +
                "\n#include <vector>\n" + DATASET.format(index=i) + body)
        src = os.path.join(root, "src", f"unit{i}.cpp")
        write(src, text)
        commands.append({
            "directory": os.path.join(root, "build"),
            "file": src,
            "arguments": [
                "clang++", "-std=c++17", "-DUSE_C10D_GLOO",
                "-isystem", "/usr/include/torch/csrc/api/include",
                "-I", os.path.join(root, "include"),
                "-c", src, "-o", f"unit{i}.o",
            ],
        })
    write(os.path.join(root, "build", "compile_commands.json"),
          json.dumps(commands, indent=2) + "\n")
    return [c["file"] for c in commands]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--units", type=int, default=12)
    args = parser.parse_args()
    for f in generate(args.dir, args.units):
        print(f)


if __name__ == "__main__":
    main()
