//===--- RunStatus.h - how a run ends -----------------------------*- C++ -*-===//
//
// What a run says apart from its findings: compile errors and vacuous
// analyses on standard error, and the exit code. One exit code tells CI the
// most urgent thing to fix, first of
//
//   2  the tool could not do what it was asked (usage, unreadable file or
//      compile database, unwritable output): fix the invocation;
//   3  a unit's analysis was vacuous (Vacuity.h): fix the compile flags,
//      since that unit's findings, or their absence, mean nothing;
//   1  findings: fix the code;
//   0  every unit analysed, nothing found.
//
// So 0 and 1 always mean that every unit was really analysed.
// --no-vacuous-status keeps to 0, 1 and 2 for those who want them only.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_RUNSTATUS_H
#define DDPLINT_DRIVER_RUNSTATUS_H

#include "Finding.h"
#include "Output.h"

#include "llvm/ADT/ArrayRef.h"

namespace ddplint {

/// The exit code of a run (or of `report` and `merge` over its output).
int exitCode(bool ToolError, bool Vacuous, bool Findings);

/// Whether vacuous analyses have an exit code of their own (not
/// --no-vacuous-status).
bool vacuousStatusEnabled();

/// On standard error, apart from the findings: the first compile errors,
/// with what they mean for the findings.
void printCompileErrors(llvm::ArrayRef<Finding> Errors);

/// On standard error, one line per unit:
/// "ddplint: src/train.cpp: analysis was vacuous: <cause>".
void printVacuousUnits(llvm::ArrayRef<VacuousUnit> Units);

struct RunStats;

/// The one-line summary on standard error: the findings and the files that
/// hold them, the units analysed and taken from the cache, vacuous units,
/// findings the baseline hid.
void printSummary(llvm::ArrayRef<Finding> Findings, size_t Files,
                  const RunStats &Stats, size_t Vacuous, unsigned Hidden);

} // namespace ddplint

#endif // DDPLINT_DRIVER_RUNSTATUS_H
