//===--- OutputSupport.h - what the output formats share ----------*- C++ -*-===//
//
// Source text, paths relative to the source root, file URIs, documentation
// links and result fingerprints, shared by the printers in Output.cpp,
// Sarif.cpp, CIFormats.cpp and Html.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef DDPLINT_DRIVER_OUTPUTSUPPORT_H
#define DDPLINT_DRIVER_OUTPUTSUPPORT_H

#include "Finding.h"
#include "Output.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ddplint {

/// The files findings point into, each read once. Files that cannot be read
/// (a findings file rendered on another machine) have no text; every printer
/// copes with that.
class SourceCache {
public:
  /// The whole file, or None.
  std::optional<llvm::StringRef> text(const std::string &File);
  /// Line N (1-based) without its line break, or None past the end.
  std::optional<llvm::StringRef> line(const std::string &File, unsigned N);
  /// The number of lines, 0 when unreadable.
  unsigned lineCount(const std::string &File);
  /// The line and byte column (both 1-based) of a byte offset, or None.
  std::optional<std::pair<unsigned, unsigned>>
  position(const std::string &File, unsigned Offset);

private:
  struct Entry {
    std::unique_ptr<llvm::MemoryBuffer> Buffer;
    std::vector<unsigned> LineStarts;
  };
  Entry *get(const std::string &File);
  llvm::StringMap<Entry> Files;
};

/// Counts Unicode code points in the first Column-1 bytes of Line: SARIF
/// columns count characters where clang counts bytes.
unsigned codePointColumn(llvm::StringRef Line, unsigned ByteColumn);

/// File relative to Root with '/' separators when it lies under Root, else
/// None. Both are absolute.
std::optional<std::string> relativeTo(llvm::StringRef File,
                                      llvm::StringRef Root);

/// File relative to the source root when under it, else the path as given:
/// what the text-based CI formats print.
std::string displayPath(llvm::StringRef File, const OutputOptions &Opts);

/// Percent-encodes a path for a URI, keeping '/' and RFC 3986's unreserved
/// characters.
std::string encodeURIPath(llvm::StringRef Path);

/// "file:///abs/path" for an absolute path; a directory gets a trailing '/'.
std::string fileURI(llvm::StringRef AbsPath, bool Directory = false);

/// The page that documents Check, under --doc-url-base.
std::string docURL(llvm::StringRef Check, const OutputOptions &Opts);

/// One fingerprint per finding, stable across line shifts: a hash of the
/// check, the file's path under the source root and the flagged line's text
/// with all white space removed, then ':' and the occurrence of that triple
/// in the file (1 for the first). When the source cannot be read the message
/// stands in for the line.
std::vector<std::string> fingerprints(llvm::ArrayRef<Finding> Findings,
                                      const OutputOptions &Opts,
                                      SourceCache &Sources);

/// Collapses white space runs into one space and trims: for one-line
/// messages.
std::string singleLine(llvm::StringRef Text);

/// The one line a run-time verdict adds to a finding: "at run time:
/// hang: rank 1 never reached it". Evidence that opens with the verdict
/// (`ddp-harness confirm` writes "confirmed: ...") does not repeat it.
std::string runtimeLine(const RuntimeEvidence &R);

} // namespace ddplint

#endif // DDPLINT_DRIVER_OUTPUTSUPPORT_H
