//===--- Baseline.h - known findings, hidden ----------------------*- C++ -*-===//
//
// Adopting a linter on a large codebase starts with a wall of old findings.
// --write-baseline FILE records the findings of a run; --baseline FILE then
// hides every finding recorded there, so only new ones are reported. A
// finding is matched by the fingerprint SARIF uses (the check, the file
// under the source root, the flagged line's text without white space, and
// its occurrence), so edits elsewhere in the file that shift its line keep
// it hidden, while a change to the flagged line itself brings it back.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_BASELINE_H
#define DDPLINT_DRIVER_BASELINE_H

#include "Finding.h"
#include "Output.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ddplint {

/// Writes the fingerprints of Findings to Path (JSON), atomically. Returns
/// "" or why it failed.
std::string writeBaseline(llvm::StringRef Path,
                          const std::vector<Finding> &Findings,
                          const OutputOptions &Opts);

/// Removes from Findings those recorded in the baseline at Path and returns
/// how many it removed, or sets Error when the file is unusable.
unsigned applyBaseline(llvm::StringRef Path, std::vector<Finding> &Findings,
                       const OutputOptions &Opts, std::string &Error);

} // namespace ddplint

#endif // DDPLINT_DRIVER_BASELINE_H
