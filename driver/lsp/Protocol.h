//===--- Protocol.h - findings in the Language Server Protocol ----*- C++ -*-===//
//
// What the server says about a document: its findings as LSP diagnostics
// (range, severity, check as code, the check's page as codeDescription, notes
// as related information) and their fix-its as quick fixes. Positions are
// LSP's: 0-based lines, characters counted in UTF-16 code units of the
// document's text as the editor holds it.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_LSP_PROTOCOL_H
#define DDPLINT_DRIVER_LSP_PROTOCOL_H

#include "Finding.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace ddplint {
struct OutputOptions;
}

namespace ddplint::lsp {

/// The absolute path a file: URI names; None for another scheme.
std::optional<std::string> pathFromURI(llvm::StringRef URI);

/// An LSP position in Text for a byte offset.
llvm::json::Object positionAt(llvm::StringRef Text, unsigned Offset);

/// The byte offset of an LSP position in Text (clamped to the text).
unsigned offsetAt(llvm::StringRef Text, const llvm::json::Value &Position);

/// A document as the editor holds it.
struct Document {
  std::string URI;
  std::string Path;
  int64_t Version = 0;
  std::string Text;
};

/// The LSP diagnostic of F, a finding in Doc's file.
llvm::json::Object diagnostic(const Finding &F, const Document &Doc,
                              const OutputOptions &Opts);

/// A note to show with no finding: why the analysis saw (next to) nothing.
llvm::json::Object notice(llvm::StringRef Message);

/// The quick fixes for the findings of Doc whose range meets
/// [Begin, End): the warning's own fix-it first (preferred), then the
/// notes' suggestions.
llvm::json::Array codeActions(const std::vector<Finding> &Findings,
                              const Document &Doc, unsigned Begin,
                              unsigned End, const OutputOptions &Opts);

} // namespace ddplint::lsp

#endif // DDPLINT_DRIVER_LSP_PROTOCOL_H
