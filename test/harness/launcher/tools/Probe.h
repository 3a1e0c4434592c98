//===- Probe.h - Writes the run directory's probe files for test ranks ----===//
//
// The same files the LibTorch probe writes (docs/harness.md, "Run directory
// format"), from plain float vectors: one JSON line per step in
// probe-rank<R>.jsonl, the raw float32 values in probe-rank<R>.bin (all of
// them: the vectors are small), and result-rank<R>.json.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_TEST_PROBE_H
#define DDPHARNESS_TEST_PROBE_H

#include "RankEnv.h"

#include "ddpharness/ProbeHash.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

struct ProbedParam {
  std::string Name;
  const std::vector<float> *Value;
  /// Null when the parameter has no gradient.
  const std::vector<float> *Grad;
  /// When set, the hash is computed from these values instead (to test that
  /// the harness checks hashes against the .bin).
  const std::vector<float> *HashOf = nullptr;
};

/// The probe's hash (ddpharness/ProbeHash.h) as 16 lowercase hex digits.
inline std::string probeHash(const std::vector<float> &Values) {
  char Buf[17];
  std::snprintf(Buf, sizeof(Buf), "%016llx",
                static_cast<unsigned long long>(
                    ddpharness::probe_hash(Values.data(), Values.size())));
  return Buf;
}

inline double l2(const std::vector<float> &V) {
  double S = 0;
  for (float F : V)
    S += static_cast<double>(F) * F;
  return std::sqrt(S);
}

class ProbeWriter {
public:
  explicit ProbeWriter(const RankEnv &Env) : Env(Env) {
    if (Env.RunDir.empty())
      return;
    std::string Base = Env.RunDir + "/probe-rank" + std::to_string(Env.Rank);
    Jsonl = std::fopen((Base + ".jsonl").c_str(), "w");
    Bin = std::fopen((Base + ".bin").c_str(), "wb");
  }
  ~ProbeWriter() {
    if (Jsonl)
      std::fclose(Jsonl);
    if (Bin)
      std::fclose(Bin);
  }

  void step(int64_t Step, int64_t Epoch, const std::vector<ProbedParam> &Params,
            const std::vector<int64_t> *Indices = nullptr) {
    if (!Jsonl || !Bin)
      return;
    std::string Line = "{\"step\": " + std::to_string(Step) +
                       ", \"epoch\": " + std::to_string(Epoch) +
                       ", \"rank\": " + std::to_string(Env.Rank) +
                       ", \"world_size\": " + std::to_string(Env.WorldSize) +
                       ", \"params\": [";
    for (size_t I = 0; I < Params.size(); ++I) {
      const ProbedParam &P = Params[I];
      Line += (I ? ", " : "") + std::string("{\"name\": \"") + P.Name +
              "\", \"numel\": " + std::to_string(P.Value->size()) +
              ", \"stored\": " + std::to_string(P.Value->size()) +
              ", \"hash\": \"" + probeHash(P.HashOf ? *P.HashOf : *P.Value) +
              "\", \"norm\": " + number(l2(*P.Value)) +
              ", \"offset\": " + std::to_string(append(*P.Value)) +
              ", \"grad\": ";
      if (P.Grad)
        Line += "{\"hash\": \"" + probeHash(*P.Grad) +
                "\", \"norm\": " + number(l2(*P.Grad)) +
                ", \"offset\": " + std::to_string(append(*P.Grad)) + "}}";
      else
        Line += "null}";
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

  void result(const std::map<std::string, double> &Metrics) {
    if (Env.RunDir.empty())
      return;
    std::string Path =
        Env.RunDir + "/result-rank" + std::to_string(Env.Rank) + ".json";
    FILE *F = std::fopen(Path.c_str(), "w");
    if (!F)
      return;
    std::fputs("{\"metrics\": {", F);
    bool First = true;
    for (const auto &[Name, Value] : Metrics) {
      std::fprintf(F, "%s\"%s\": %s", First ? "" : ", ", Name.c_str(),
                   number(Value).c_str());
      First = false;
    }
    std::fputs("}}\n", F);
    std::fclose(F);
  }

private:
  static std::string number(double V) {
    char Buf[40];
    std::snprintf(Buf, sizeof(Buf), "%.17g", V);
    return Buf;
  }

  int64_t append(const std::vector<float> &Values) {
    int64_t At = Offset;
    std::fwrite(Values.data(), sizeof(float), Values.size(), Bin);
    Offset += static_cast<int64_t>(Values.size() * sizeof(float));
    return At;
  }

  const RankEnv &Env;
  FILE *Jsonl = nullptr;
  FILE *Bin = nullptr;
  int64_t Offset = 0;
};

#endif
