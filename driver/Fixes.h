//===--- Fixes.h - applying and exporting fix-its -----------------*- C++ -*-===//
//
// --fix, --fix-unsafe and --export-fixes. A check marks a fix-it safe by
// attaching it to its warning, and offers an unsafe one (a suggestion that
// changes behaviour a reviewer should weigh) by attaching it to a note: the
// same split as clang-tidy's -fix and -fix-notes, so both entry points agree.
// docs/fixes.md describes the behaviour.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_FIXES_H
#define DDPLINT_DRIVER_FIXES_H

#include "Finding.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <vector>

namespace ddplint {

/// The edits a finding offers: its warning's fix-it, and with Unsafe also
/// its notes' fix-its.
std::vector<Replacement> fixesOf(const Finding &F, bool Unsafe);

/// Whether the command line asks to apply fix-its (--fix or --fix-unsafe).
bool fixesRequested();

/// With --export-fixes FILE, writes the fix-its --fix (or, with
/// --fix-unsafe, --fix-unsafe) would apply as clang-apply-replacements YAML,
/// atomically. Returns false, after an error on stderr, when FILE could not
/// be written.
bool exportFixesIfRequested(llvm::ArrayRef<Finding> Findings);

/// Re-analyses a translation unit after its files were edited: its number of
/// compile errors, or None when it could not be analysed at all.
using CompileErrorCounter =
    llvm::function_ref<std::optional<size_t>(llvm::StringRef MainFile)>;

/// With --fix or --fix-unsafe, applies the fix-its of each unit's findings
/// and writes every changed file atomically. A unit that then has more
/// compile errors than before gets the files its fix-its changed back.
/// Returns false, after an error on stderr, when a file could not be written.
bool applyFixesIfRequested(llvm::ArrayRef<UnitResult> Units,
                           CompileErrorCounter CountErrors);

} // namespace ddplint

#endif // DDPLINT_DRIVER_FIXES_H
