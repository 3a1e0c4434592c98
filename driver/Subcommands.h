//===--- Subcommands.h - ddplint's subcommands --------------------*- C++ -*-===//
//
// `ddplint FILES...` analyses; `ddplint <subcommand> ...` does something else
// with findings already made. Each subcommand lives in its own file with its
// llvm::cl::SubCommand and options; runSubcommand() dispatches.
//
//   report  prints findings files (ddplint --format=json, possibly annotated
//           by ddp-harness) in any output format (Report.cpp)
//   merge   joins the JSON or SARIF outputs of --shard runs (Merge.cpp)
//   lsp     serves findings to an editor over the Language Server Protocol
//           (lsp/Server.h)
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_SUBCOMMANDS_H
#define DDPLINT_DRIVER_SUBCOMMANDS_H

#include "Output.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <set>
#include <string>

namespace ddplint {

/// After the command line is parsed: runs the subcommand it named and
/// returns its exit code, or None when it named none (an analysis). Argv0
/// locates the files installed beside the executable.
std::optional<int> runSubcommand(const char *Argv0);

/// Reads one findings file (ddplint --format=json, or a bare array of
/// findings) into R: its findings, compile errors and tool errors, and its
/// checks into Checks. Relative evidence pictures become absolute. Returns
/// an error message, or "".
std::string loadFindingsFile(llvm::StringRef Path, Report &R,
                             std::set<std::string> &Checks);

/// `ddplint report`, when it was named.
std::optional<int> runReportCommand();

/// `ddplint merge`, when it was named.
std::optional<int> runMergeCommand();

/// `ddplint lsp`, when it was named (lsp/LspCommand.cpp).
std::optional<int> runLspCommand(const char *Argv0);

} // namespace ddplint

#endif // DDPLINT_DRIVER_SUBCOMMANDS_H
