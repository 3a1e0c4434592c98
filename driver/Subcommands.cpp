//===--- Subcommands.cpp - ddplint's subcommands --------------------------===//

#include "Subcommands.h"

namespace ddplint {

std::optional<int> runSubcommand() {
  if (std::optional<int> Code = runReportCommand())
    return Code;
  if (std::optional<int> Code = runMergeCommand())
    return Code;
  return std::nullopt;
}

} // namespace ddplint
