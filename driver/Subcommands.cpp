//===--- Subcommands.cpp - ddplint's subcommands --------------------------===//

#include "Subcommands.h"

namespace ddplint {

std::optional<int> runSubcommand(const char *Argv0) {
  if (std::optional<int> Code = runReportCommand())
    return Code;
  if (std::optional<int> Code = runMergeCommand())
    return Code;
  if (std::optional<int> Code = runLspCommand(Argv0))
    return Code;
  return std::nullopt;
}

} // namespace ddplint
