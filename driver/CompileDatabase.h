//===--- CompileDatabase.h - where compile commands come from -----*- C++ -*-===//
//
// The compile commands the way clang-tidy users expect them: '--' wins, then
// -p, then a database found above the first source file, then none (the
// files are parsed with no flags, as clang-tidy does, with a warning).
//
// A compile_commands.json must be JSON. clang's reader goes through LLVM's
// YAML parser, which prints a syntax error and keeps the entries before it:
// a truncated or hand-edited database would silently lose units, and the
// run would pass. ddplint checks the file first, and a database it cannot
// use is a tool error (exit 2); the source files named on the command line
// are still analysed, with no flags.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_COMPILEDATABASE_H
#define DDPLINT_DRIVER_COMPILEDATABASE_H

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace ddplint {

/// Loads the compile commands for SourcePaths from the command line after
/// '--' (Argc and Argv lose it), from BuildPath (-p) or from a database
/// above the first source file. Why a database could not be used goes to
/// Error; the result is then a database without flags when there are
/// source files to analyse with it, else null.
/// Found, when not null, says which database was used ("" for none).
std::unique_ptr<clang::tooling::CompilationDatabase>
loadCompilations(int &Argc, const char **Argv, llvm::StringRef BuildPath,
                 llvm::ArrayRef<std::string> SourcePaths,
                 llvm::function_ref<void(const std::string &)> Error,
                 std::string *Found = nullptr);

/// The folder of the compile database that describes File, found as clangd
/// finds it: in File's folder and each folder above, the first that holds
/// compile_commands.json or compile_flags.txt, itself or in a build/
/// folder inside it. "" when there is none.
std::string compileDatabaseFolder(llvm::StringRef File);

/// Whether clang knows Path's extension as a C-family source or header
/// (a Python script given by mistake is not).
bool isSourceFile(llvm::StringRef Path);

/// An arguments adjuster: a header analysed alone is C++ (clang would take a
/// .h for C, and a .cuh or .inl for a linker input); ddplint's code is C++,
/// and so is every header it is meant for (a CUDA header's host code).
clang::tooling::CommandLineArguments
headersAsCpp(const clang::tooling::CommandLineArguments &Args,
             llvm::StringRef File);

} // namespace ddplint

#endif // DDPLINT_DRIVER_COMPILEDATABASE_H
