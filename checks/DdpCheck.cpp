//===--- DdpCheck.cpp -----------------------------------------------------===//

#include "DdpCheck.h"

#include "clang/Basic/DiagnosticLex.h"
#include "clang/Lex/Preprocessor.h"

namespace clang::tidy::ddp {

void DdpCheck::registerPPCallbacks(const SourceManager &, Preprocessor *PP,
                                   Preprocessor *) {
  DiagnosticsEngine &Diags = PP->getDiagnostics();
  Diags.setSeverity(diag::err_pp_file_not_found, diag::Severity::Error,
                    SourceLocation());
  // Likewise a header that exists but cannot be opened (a symbolic link
  // loop, no permission).
  Diags.setSeverity(diag::err_cannot_open_file, diag::Severity::Error,
                    SourceLocation());
  Diags.setErrorLimit(0);
}

} // namespace clang::tidy::ddp
