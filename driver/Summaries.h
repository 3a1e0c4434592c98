//===--- Summaries.h - function summaries across units ------------*- C++ -*-===//
//
// Each unit's analysis leaves the summaries of its externally visible
// functions in its result (UnitResult::Summaries) and records which other
// units' summaries it asked for (UnitResult::AskedSummaries). The runner
// publishes the first to the process's ProjectFunctions store, so that the
// units analysed after it see them, and, with the cache on, to
//
//   <cache>/summaries/<hash of the unit's path>.summaries
//
// so that the next run starts with every unit's summaries. A result whose
// answers changed since it was computed (a callee's unit was edited, or
// was analysed after it in a cold run) is stale: the runner analyses it
// again.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_SUMMARIES_H
#define DDPLINT_DRIVER_SUMMARIES_H

#include "Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace ddplint {

class FindingsCache;

/// Loads the summaries the cache holds of the units Units (the project's:
/// a cache shared by several projects holds theirs too, whose functions
/// may have the same names); returns how many functions the store knows
/// afterwards.
size_t loadSummaries(const FindingsCache &Cache,
                     llvm::ArrayRef<std::string> Units);
/// The same for the cache in folder CacheDir (the language server's).
size_t loadSummaries(llvm::StringRef CacheDir,
                     llvm::ArrayRef<std::string> Units);

/// Adds R's summaries to the store and, with a cache, writes them there
/// (only when they changed).
void publishSummaries(const UnitResult &R, const FindingsCache *Cache);

/// Why R is stale because a summary it used changed ("" when none did).
std::string changedSummary(const UnitResult &R);

} // namespace ddplint

#endif // DDPLINT_DRIVER_SUMMARIES_H
