//===- ConfirmFindings.h - The findings document confirm reads and writes -===//
//
// `confirm` reads ddplint's JSON document (or a bare array of findings) or a
// SARIF log, and writes the same document back with a `runtime` object on
// every finding whose check it measured (in SARIF, in the result's property
// bag).
//
//===----------------------------------------------------------------------===//

#ifndef DDPHARNESS_LAUNCHER_CONFIRMFINDINGS_H
#define DDPHARNESS_LAUNCHER_CONFIRMFINDINGS_H

#include "ConfirmEvidence.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace ddpharness {

enum class InputFormat { Json, Sarif };

/// A finding's object inside the parsed document and the check it names.
/// The pointers stay valid: the document is not resized while they live.
struct FindingRef {
  std::string Check;
  llvm::json::Object *Object;
  /// The flagged file as the finding names it ("" when it names none).
  std::string File;
  /// The finding's line, then its notes' lines, each with its file.
  std::vector<std::pair<std::string, int>> Lines;
};

/// Finds the findings in \p Doc: ddplint's document (`findings[]`), a bare
/// array of findings, or SARIF (`runs[0].results[]`, check in `ruleId`).
/// \p Format is "auto", "json" or "sarif"; \p Detected says which it was.
llvm::Expected<std::vector<FindingRef>>
collectFindings(llvm::json::Value &Doc, const std::string &Format,
                InputFormat &Detected);

/// Puts the `runtime` object on every finding of \p Refs that a scenario or
/// its own program measured; the program speaks first where it measured
/// something.
void annotateFindings(std::vector<FindingRef> &Refs,
                      const ScenarioResults &Scenarios,
                      const ProgramResults &Programs, InputFormat Format);

} // namespace ddpharness

#endif
