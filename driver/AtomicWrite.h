//===--- AtomicWrite.h - files that are complete or absent -------*- C++ -*-===//
//
// Every file ddplint writes (reports, cache entries, baselines, the sources
// --fix edits) goes through a temporary file next to the target, renamed over
// it once complete: readers never see half a file, concurrent writers never
// interleave, and a failed write leaves the old file as it was. A file
// replaced keeps its permissions, and a symbolic link stays a link whose
// target is replaced.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_ATOMICWRITE_H
#define DDPLINT_DRIVER_ATOMICWRITE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ddplint {

/// Writes what Write prints to Path, atomically. Returns "" on success, else
/// why it failed.
std::string writeAtomically(llvm::StringRef Path,
                            llvm::function_ref<void(llvm::raw_ostream &)> Write);

/// Why writeAtomically(Path) would fail before anything is written (its
/// folder is missing or not writable, Path is a folder), or "" when
/// nothing says so: asked before a long run whose result goes there.
std::string unwritable(llvm::StringRef Path);

} // namespace ddplint

#endif // DDPLINT_DRIVER_ATOMICWRITE_H
