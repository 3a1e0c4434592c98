//===- Probe.cpp - Per-rank fingerprints of a module, step by step --------===//

#include "ddpharness/Probe.h"

#include "ddpharness/LauncherEnv.h"

#include "Fingerprint.h"
#include "ProbeWriter.h"

#include <torch/torch.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

using namespace ddpharness;

namespace {

/// JSON has no NaN or infinity: a norm that is not finite is null.
std::string number(double V) {
  if (!std::isfinite(V))
    return "null";
  char Buf[40];
  std::snprintf(Buf, sizeof(Buf), "%.17g", V);
  return Buf;
}

std::string quoted(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\') {
      Out += '\\';
      Out += C;
    } else if (static_cast<unsigned char>(C) < 0x20) {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\u%04x", C);
      Out += Buf;
    } else {
      Out += C;
    }
  }
  return Out + "\"";
}

std::string hex(uint64_t H) {
  char Buf[17];
  std::snprintf(Buf, sizeof(Buf), "%016llx", static_cast<unsigned long long>(H));
  return Buf;
}

/// The fields of one value or gradient; its sample goes to \p Values.
std::string fields(ddpharness::detail::Fingerprint &F, int64_t &Offset,
                   std::vector<float> &Values) {
  std::string Text = "\"hash\": \"" + hex(F.Hash) +
                     "\", \"norm\": " + number(F.Norm) +
                     ", \"offset\": " + std::to_string(Offset);
  Offset += static_cast<int64_t>(F.Sample.size() * sizeof(float));
  Values.insert(Values.end(), F.Sample.begin(), F.Sample.end());
  return Text;
}

std::string indexList(const std::vector<int64_t> &Indices) {
  std::string Text = ", \"indices\": [";
  for (size_t I = 0; I < Indices.size(); ++I)
    Text += (I ? ", " : "") + std::to_string(Indices[I]);
  return Text + "]";
}

} // namespace

Probe::Probe(ProbeOptions Options)
    : Interval(Options.interval), TensorOps(Options.hash_with_tensor_ops) {
  const char *Dir = std::getenv("DDP_HARNESS_RUN_DIR");
  RunDir = Dir ? Dir : "";
  LauncherRanks Ranks = launcher_ranks_or_single();
  Rank = Ranks.rank;
  WorldSize = Ranks.world_size;
  if (const char *V = std::getenv("DDP_HARNESS_PROBE_INTERVAL"); V && *V)
    Interval = std::atoll(V);
  if (Interval < 1)
    throw std::invalid_argument("probe interval must be at least 1, not " +
                                std::to_string(Interval));
}

Probe::~Probe() = default;

void Probe::step(const torch::nn::Module &Module, int64_t Step, int64_t Epoch,
                 const torch::Tensor &Indices) {
  if (!records(Step))
    return;
  torch::Tensor Flat = Indices.detach().to(torch::kCPU, torch::kInt64)
                           .contiguous().view(-1);
  std::vector<int64_t> List(Flat.data_ptr<int64_t>(),
                            Flat.data_ptr<int64_t>() + Flat.numel());
  step(Module, Step, Epoch, &List);
}

void Probe::step(const torch::nn::Module &Module, int64_t Step, int64_t Epoch,
                 const std::vector<int64_t> *Indices) {
  if (!records(Step))
    return;
  std::vector<std::pair<std::string, torch::Tensor>> Named;
  for (const auto &Item : Module.named_parameters(/*recurse=*/true))
    Named.emplace_back(Item.key(), Item.value());
  step(Named, Step, Epoch, Indices);
}

void Probe::step(
    const std::vector<std::pair<std::string, torch::Tensor>> &Named,
    int64_t Step, int64_t Epoch, const std::vector<int64_t> *Indices) {
  if (!records(Step))
    return;
  if (!Writer)
    Writer = std::make_unique<ddpharness::detail::ProbeWriter>(
        RunDir + "/probe-rank" + std::to_string(Rank));
  // Every value and gradient fingerprinted at once, each on its device.
  std::vector<torch::Tensor> Tensors;
  for (const auto &Item : Named) {
    Tensors.push_back(Item.second);
    if (Item.second.grad().defined())
      Tensors.push_back(Item.second.grad());
  }
  std::vector<ddpharness::detail::Fingerprint> Prints =
      ddpharness::detail::fingerprintAll(Tensors, TensorOps);

  std::vector<float> Values;
  std::string Line = "{\"step\": " + std::to_string(Step) +
                     ", \"epoch\": " + std::to_string(Epoch) +
                     ", \"rank\": " + std::to_string(Rank) +
                     ", \"world_size\": " + std::to_string(WorldSize) +
                     ", \"params\": [";
  size_t Next = 0;
  for (const auto &[Name, P] : Named) {
    Line += Next ? ", " : "";
    Line += "{\"name\": " + quoted(Name) +
            ", \"numel\": " + std::to_string(P.numel()) +
            ", \"stored\": " + std::to_string(probe_stored_count(P.numel())) +
            ", " + fields(Prints[Next++], Offset, Values) + ", \"grad\": ";
    Line += P.grad().defined()
                ? "{" + fields(Prints[Next++], Offset, Values) + "}}"
                : "null}";
  }
  Line += "]" + (Indices ? indexList(*Indices) : "") + "}\n";
  Writer->push(std::move(Values), std::move(Line));
}

void Probe::result(const std::map<std::string, double> &Metrics) {
  if (!enabled())
    return;
  // Whole or not at all: through a temporary name and a rename.
  std::string Path = RunDir + "/result-rank" + std::to_string(Rank) + ".json";
  std::string Tmp = Path + ".tmp";
  FILE *F = std::fopen(Tmp.c_str(), "w");
  if (!F)
    throw std::runtime_error("probe: cannot write " + Tmp + ": " +
                             std::strerror(errno));
  std::string Text = "{\"metrics\": {";
  bool First = true;
  for (const auto &[Name, Value] : Metrics) {
    Text += (First ? "" : ", ") + quoted(Name) + ": " + number(Value);
    First = false;
  }
  Text += "}}\n";
  std::fputs(Text.c_str(), F);
  if (std::fclose(F) != 0 || std::rename(Tmp.c_str(), Path.c_str()) != 0)
    throw std::runtime_error("probe: cannot write " + Path + ": " +
                             std::strerror(errno));
}
