//===--- Units.h - which translation units a run analyses --------*- C++ -*-===//
//
// The files named on the command line, or, with a compile database, its
// units: all of them when none is named, those matching a glob
// ('src/*.cpp', matched against the absolute path and the path relative to
// the working directory; '*' also matches '/'). --shard I/N then keeps a
// deterministic share, so N CI jobs together analyse every unit once.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_UNITS_H
#define DDPLINT_DRIVER_UNITS_H

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ddplint {

/// True when Path holds a glob metacharacter.
bool isGlob(llvm::StringRef Path);

struct Unit {
  std::string Path;  ///< Absolute.
  std::string Named; ///< As the command line or the database names it.
};

/// Expands Paths against Database (which may be null when none was given).
/// Units come back without duplicates, in the order named (or the
/// database's order). A glob that matches nothing, or a glob without a
/// database, adds a message to Errors.
std::vector<Unit>
selectUnits(llvm::ArrayRef<std::string> Paths,
            const clang::tooling::CompilationDatabase *Database,
            std::vector<std::string> &Errors);

/// Parses "I/N" with 1 <= I <= N. Returns false on anything else.
bool parseShard(llvm::StringRef Spec, unsigned &Index, unsigned &Count);

/// The units of shard Index (1-based) of Count: every Count-th unit of the
/// sorted list, starting at the Index-th. The same list gives the same
/// shards on every machine.
std::vector<Unit> shardUnits(std::vector<Unit> Units,
                                    unsigned Index, unsigned Count);

} // namespace ddplint

#endif // DDPLINT_DRIVER_UNITS_H
