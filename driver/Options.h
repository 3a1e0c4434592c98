//===--- Options.h - the driver's command-line category -----------*- C++ -*-===//
//
// Every ddplint option belongs to this category, so --help lists only them.
// Options that serve one part of the driver are declared next to that part.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_OPTIONS_H
#define DDPLINT_DRIVER_OPTIONS_H

#include "llvm/Support/CommandLine.h"

namespace ddplint {

llvm::cl::OptionCategory &optionCategory();

/// Exit codes: 0 nothing found, 1 findings, 2 usage or tool error, 3 a
/// unit's analysis was vacuous (Vacuity.h). When several apply, the first
/// of 2, 3, 1 wins (RunStatus.h).
enum ExitCode {
  ExitClean = 0,
  ExitFindings = 1,
  ExitToolError = 2,
  ExitVacuous = 3
};

} // namespace ddplint

#endif // DDPLINT_DRIVER_OPTIONS_H
