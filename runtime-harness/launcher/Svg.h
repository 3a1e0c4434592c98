//===- Svg.h - A plot of cross-rank drift over steps ----------------------===//
//
// Hand-written SVG, one line per run or variant: drift (max|W_rank0 -
// W_rankK|) against the step. The y axis is logarithmic when the values span
// more than two decades (exact zeros then sit on a separate "0" line below
// the lowest decade), linear otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_SVG_H
#define DDPHARNESS_LAUNCHER_SVG_H

#include "Analysis.h"

#include <string>
#include <vector>

namespace ddpharness {

struct DriftSeries {
  std::string Label;
  /// (step, drift); steps without a known drift are left out.
  std::vector<std::pair<double, double>> Points;
};

/// The series of one run: x is the step number, or the probe's position
/// when step numbers restart every epoch.
DriftSeries driftSeries(const std::string &Label, const RunAnalysis &A);

std::string driftSvg(const std::string &Title,
                     const std::vector<DriftSeries> &Series);

} // namespace ddpharness

#endif
