//===- Probe.cpp - Per-rank fingerprints of a module, step by step --------===//

#include "ddpharness/Probe.h"

#include "ddpharness/LauncherEnv.h"

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

/// The values as the format defines them: contiguous float32 on the CPU,
/// whatever the tensor's own dtype or device.
torch::Tensor asFloat32(const torch::Tensor &T) {
  return T.detach().to(torch::kCPU, torch::kFloat32).contiguous();
}

} // namespace

uint64_t ddpharness::fnv1a64(const void *Bytes, size_t Size) {
  uint64_t H = 0xcbf29ce484222325ULL;
  const auto *P = static_cast<const unsigned char *>(Bytes);
  for (size_t I = 0; I < Size; ++I) {
    H ^= P[I];
    H *= 0x100000001b3ULL;
  }
  return H;
}

Probe::Probe(ProbeOptions Options) : Interval(Options.interval) {
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

Probe::~Probe() {
  if (Jsonl)
    std::fclose(Jsonl);
  if (Bin)
    std::fclose(Bin);
}

void Probe::open() {
  std::string Base = RunDir + "/probe-rank" + std::to_string(Rank);
  Jsonl = std::fopen((Base + ".jsonl").c_str(), "w");
  Bin = std::fopen((Base + ".bin").c_str(), "wb");
  if (!Jsonl || !Bin)
    throw std::runtime_error("probe: cannot write " + Base +
                             ".{jsonl,bin}: " + std::strerror(errno));
}

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
  if (!Jsonl)
    open();
  // Append the raw values first and flush them: a reader never sees a JSON
  // line whose offsets point past the end of the .bin.
  auto append = [&](const torch::Tensor &Values) {
    int64_t At = Offset;
    size_t Bytes = Values.numel() * sizeof(float);
    if (std::fwrite(Values.data_ptr<float>(), 1, Bytes, Bin) != Bytes)
      throw std::runtime_error("probe: short write to probe-rank" +
                               std::to_string(Rank) + ".bin");
    Offset += static_cast<int64_t>(Bytes);
    return At;
  };
  auto fingerprint = [&](const torch::Tensor &T) {
    torch::Tensor V = asFloat32(T);
    uint64_t Hash = fnv1a64(V.data_ptr<float>(), V.numel() * sizeof(float));
    double Norm = V.to(torch::kFloat64).norm().item<double>();
    return "\"hash\": \"" + hex(Hash) + "\", \"norm\": " + number(Norm) +
           ", \"offset\": " + std::to_string(append(V));
  };

  std::string Line = "{\"step\": " + std::to_string(Step) +
                     ", \"epoch\": " + std::to_string(Epoch) +
                     ", \"rank\": " + std::to_string(Rank) +
                     ", \"world_size\": " + std::to_string(WorldSize) +
                     ", \"params\": [";
  bool First = true;
  for (const auto &[Name, P] : Named) {
    Line += First ? "" : ", ";
    First = false;
    Line += "{\"name\": " + quoted(Name) +
            ", \"numel\": " + std::to_string(P.numel()) + ", " +
            fingerprint(P) + ", \"grad\": ";
    const torch::Tensor &G = P.grad();
    Line += G.defined() ? "{" + fingerprint(G) + "}}" : "null}";
  }
  Line += "]";
  if (Indices) {
    Line += ", \"indices\": [";
    for (size_t I = 0; I < Indices->size(); ++I)
      Line += (I ? ", " : "") + std::to_string((*Indices)[I]);
    Line += "]";
  }
  Line += "}\n";
  std::fflush(Bin);
  std::fputs(Line.c_str(), Jsonl);
  std::fflush(Jsonl);
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
