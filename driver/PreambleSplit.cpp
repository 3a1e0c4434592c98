//===--- PreambleSplit.cpp - the include lines units share ----------------===//
//
// Which leading include lines of a main file a shared preamble stands in for
// (Preamble.h): the scan of the directives a file starts with, and the split
// of a main file into the shared header and the rest.
//
//===----------------------------------------------------------------------===//

#include "Preamble.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace ddplint {
namespace {

struct LeadingInclude {
  size_t Begin, End;  ///< The directive's line in the scanned text.
  std::string Line;   ///< As the shared header spells it.
  std::string Quoted; ///< For a quoted include, the file it names, if found.
  bool Heavy = false;
};

/// Headers whose parse dominates a LibTorch unit.
bool isHeavyInclude(StringRef Name) {
  return Name.starts_with("torch/") || Name.starts_with("ATen/") ||
         Name.starts_with("c10/") || Name.starts_with("c10d/");
}

/// Whether Line (without its line break) ends in a backslash that splices
/// the next line onto it (translation phase 2; clang also accepts blanks
/// between the backslash and the line break).
bool continuesOnNextLine(StringRef Line) {
  return Line.rtrim(" \t\v\f\r").ends_with("\\");
}

/// The end of the line comment that starts at I: the line break after it,
/// past every line a backslash splices onto it; Text.size() when it runs to
/// the end of Text.
size_t lineCommentEnd(StringRef Text, size_t I) {
  for (;;) {
    size_t End = Text.find('\n', I);
    if (End == StringRef::npos)
      return Text.size();
    if (!continuesOnNextLine(Text.slice(I, End)))
      return End;
    I = End + 1;
  }
}

/// The first position from I that is neither blank nor inside a comment;
/// Text.size() when there is none, or when a block comment does not end.
size_t skipBlanksAndComments(StringRef Text, size_t I) {
  while (I < Text.size()) {
    char C = Text[I];
    if (C == ' ' || C == '\t' || C == '\r' || C == '\n') {
      ++I;
    } else if (Text.substr(I).starts_with("//")) {
      I = lineCommentEnd(Text, I);
    } else if (Text.substr(I).starts_with("/*")) {
      size_t End = Text.find("*/", I + 2);
      if (End == StringRef::npos)
        return Text.size();
      I = End + 2;
    } else {
      break;
    }
  }
  return I;
}

/// Whether Directive (a line after its `#`) is one a header may start with
/// before its includes: `pragma once`, or its include guard's `ifndef` and
/// `define` (the `ifndef` sets Guard).
bool isGuardDirective(StringRef Directive, std::string &Guard) {
  SmallVector<StringRef, 3> Words;
  Directive.split(Words, ' ', -1, /*KeepEmpty=*/false);
  if (Words.size() != 2)
    return false;
  if (Words[0] == "pragma" && Words[1] == "once")
    return true;
  if (Words[0] == "ifndef" && Guard.empty()) {
    Guard = Words[1].str();
    return true;
  }
  return Words[0] == "define" && Words[1] == Guard;
}

/// Finds the file a quoted include names: beside the including file, then
/// in the quote and user search directories, as the preprocessor would.
std::string resolveQuoted(StringRef Name, StringRef IncluderDirectory,
                          ArrayRef<std::string> SearchDirectories) {
  SmallString<256> Candidate(IncluderDirectory);
  sys::path::append(Candidate, Name);
  if (sys::fs::exists(Candidate))
    return std::string(Candidate);
  for (const std::string &Dir : SearchDirectories) {
    Candidate = Dir;
    sys::path::append(Candidate, Name);
    if (sys::fs::exists(Candidate))
      return std::string(Candidate);
  }
  return "";
}

/// The include that Directive (the line [Begin, End) after its `#`) is, or
/// None when it is anything else, or is followed by more than a comment.
std::optional<LeadingInclude>
parseInclude(StringRef Directive, size_t Begin, size_t End,
             StringRef Directory, ArrayRef<std::string> SearchDirectories) {
  if (!Directive.consume_front("include"))
    return std::nullopt;
  Directive = Directive.ltrim(" \t");
  if (Directive.empty() || (Directive[0] != '<' && Directive[0] != '"'))
    return std::nullopt;
  char Closer = Directive[0] == '<' ? '>' : '"';
  size_t Close = Directive.find(Closer, 1);
  if (Close == StringRef::npos)
    return std::nullopt;
  StringRef Rest = Directive.drop_front(Close + 1).trim();
  if (!Rest.empty() && !Rest.starts_with("//"))
    return std::nullopt;
  StringRef Name = Directive.slice(1, Close);
  LeadingInclude Inc{
      Begin, End, "#include " + Directive.take_front(Close + 1).str(), "",
      false};
  if (Closer == '"') {
    // The shared header lives elsewhere, so it names the file by its
    // absolute path (and the key of the preamble follows).
    Inc.Quoted = resolveQuoted(Name, Directory, SearchDirectories);
    if (!Inc.Quoted.empty())
      Inc.Line = "#include \"" + Inc.Quoted + "\"";
  } else {
    Inc.Heavy = isHeavyInclude(Name);
  }
  return Inc;
}

/// The include directives a file starts with. Comments and blank lines may
/// sit between them; in a header, so may `#pragma once` and an include
/// guard's `#ifndef`/`#define` pair at the top. Anything else ends the run,
/// and so does a directive a backslash continues.
std::vector<LeadingInclude>
leadingIncludes(StringRef Text, StringRef Directory,
                ArrayRef<std::string> SearchDirectories, bool IsHeader) {
  std::vector<LeadingInclude> Includes;
  std::string Guard; // The macro an #ifndef at the top tests.
  for (size_t I = skipBlanksAndComments(Text, 0);
       I < Text.size() && Text[I] == '#';
       I = skipBlanksAndComments(Text, I)) {
    size_t LineEnd = std::min(Text.find('\n', I), Text.size());
    StringRef Line = Text.slice(I, LineEnd).rtrim("\r");
    if (continuesOnNextLine(Line))
      break;
    StringRef Directive = Line.drop_front().ltrim(" \t");
    if (IsHeader && Includes.empty()) {
      if (isGuardDirective(Directive, Guard)) {
        I = LineEnd;
        continue;
      }
      if (!Guard.empty() && Directive.split(' ').first != "include")
        break;
    }
    std::optional<LeadingInclude> Inc =
        parseInclude(Directive, I, LineEnd, Directory, SearchDirectories);
    if (!Inc)
      break;
    Includes.push_back(std::move(*Inc));
    I = LineEnd;
  }
  return Includes;
}

/// 1 + the index of the last heavy include of Includes; 0 when none is.
size_t heavyRunLength(ArrayRef<LeadingInclude> Includes) {
  size_t Length = 0;
  for (size_t K = 0; K < Includes.size(); ++K)
    if (Includes[K].Heavy)
      Length = K + 1;
  return Length;
}

/// "Related header first": the file starts with a project header that
/// itself starts with the heavy includes (after its include guard). Those
/// are then the first thing the unit preprocesses, so a PCH of just them
/// may stand in for them, shared with every unit that does the same; the
/// main file keeps its text, and the header's own includes find them
/// already included. Returns the shared header's text, or "".
std::string relatedHeaderRun(std::vector<LeadingInclude> Chain,
                             ArrayRef<std::string> SearchDirectories) {
  for (unsigned Depth = 0;
       Depth < 8 && !Chain.empty() && !Chain.front().Quoted.empty();
       ++Depth) {
    std::string Header = Chain.front().Quoted;
    auto Buffer = MemoryBuffer::getFile(Header);
    if (!Buffer)
      break;
    Chain = leadingIncludes((*Buffer)->getBuffer(),
                            sys::path::parent_path(Header), SearchDirectories,
                            /*IsHeader=*/true);
    std::string Shared;
    for (size_t K = 0, N = heavyRunLength(Chain); K < N; ++K)
      Shared += Chain[K].Line + "\n";
    if (!Shared.empty())
      return Shared;
  }
  return "";
}

} // namespace

std::optional<PreambleSplit>
splitPreamble(StringRef Text, StringRef MainDirectory,
              ArrayRef<std::string> SearchDirectories) {
  std::vector<LeadingInclude> Includes =
      leadingIncludes(Text, MainDirectory, SearchDirectories, false);
  PreambleSplit Split;
  Split.BlankedMain = Text.str();
  Split.Header = relatedHeaderRun(Includes, SearchDirectories);
  if (!Split.Header.empty())
    return Split;

  // The main file's own run, up to its last heavy include.
  size_t LastHeavy = heavyRunLength(Includes);
  if (!LastHeavy)
    return std::nullopt;
  for (size_t K = 0; K < LastHeavy; ++K) {
    const LeadingInclude &Inc = Includes[K];
    Split.Header += Inc.Line + "\n";
    for (size_t P = Inc.Begin; P < Inc.End; ++P)
      if (Split.BlankedMain[P] != '\r')
        Split.BlankedMain[P] = ' ';
  }
  return Split;
}

} // namespace ddplint
