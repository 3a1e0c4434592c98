//===- Scenario.h - One buggy and one fixed program per check -------------===//
//
// ddp-scenario holds one small file per scenario; each fills one Scenario
// (nccl-tests' shape: a table of cases, one shared driver in main.cpp).
// A scenario runs on every rank, written the way users write the code its
// check flags; the verdict is the launcher's, measured from what the probe
// recorded, never decided here.
//
//===----------------------------------------------------------------------===//

#ifndef DDPSCENARIO_SCENARIO_H
#define DDPSCENARIO_SCENARIO_H

#include "ddpharness/ddpharness.h"

#include <string>
#include <vector>

namespace ddpscenario {

struct Context {
  ddpharness::Distributed &dist;
  ddpharness::Probe &probe;
  std::string variant;
  /// Training steps (--steps); scenarios with epochs run their own count.
  int64_t steps;
  torch::Device device;
};

struct Scenario {
  const char *name;
  /// The ddplint check whose finding this scenario demonstrates.
  const char *check;
  /// How the launcher measures the verdict: divergence, hang, data-order
  /// or gradient-scale (docs/harness.md, "Verdicts").
  const char *kind;
  /// "buggy" first, then the fixes ("fixed..."); a variant named
  /// "buggy-..." shows a bug that a tempting partial fix still leaves.
  std::vector<std::string> variants;
  const char *description;
  void (*run)(Context &);
  /// Whether the scenario races CUDA streams and means nothing on a CPU.
  /// `--list` says so, and the launcher runs it only with `--device cuda`.
  bool needs_cuda = false;
};

/// Every scenario, in the order `--list` prints them (Table.cpp).
const std::vector<const Scenario *> &scenarios();

} // namespace ddpscenario

#endif
