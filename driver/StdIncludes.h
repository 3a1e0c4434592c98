//===--- StdIncludes.h - standard headers a unit forgot to include -------===//
//
// Code written against an older standard library often names std::function
// or std::unique_ptr without including <functional> or <memory>: the old
// library pulled them in through another header, today's does not. clang
// then drops every declaration that names them, and a trainer class whose
// members are std::function loses the very code the checks read.
//
// From a unit's compile errors ("no template named 'function' in namespace
// 'std'") this finds the standard headers that declare the missing names
// (clang's table of the standard library), so that the unit can be analysed
// again with them force-included (-include <header>), as its author's
// compiler saw it. A unit analysed that way says so (-v, JSON).
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_STDINCLUDES_H
#define DDPLINT_DRIVER_STDINCLUDES_H

#include "Finding.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace ddplint {

/// The standard headers ("functional", "memory"), without brackets, that
/// declare the std names CompileErrors say are missing, in the order first
/// needed; none when no error is about a missing standard name.
std::vector<std::string> missingStandardHeaders(llvm::ArrayRef<Finding> CompileErrors);

/// The compile-command arguments that force-include Headers.
std::vector<std::string> forcedIncludeArguments(llvm::ArrayRef<std::string> Headers);

/// One line for -v: which headers were added, and why.
std::string describeAddedIncludes(llvm::ArrayRef<std::string> Headers);

} // namespace ddplint

#endif // DDPLINT_DRIVER_STDINCLUDES_H
