//===--- Protocol.cpp - findings in the Language Server Protocol ----------===//

#include "lsp/Protocol.h"

#include "OutputSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ddplint::lsp {

std::optional<std::string> pathFromURI(StringRef URI) {
  if (!URI.consume_front("file://"))
    return std::nullopt;
  URI.consume_front("localhost");
  std::string Path;
  for (size_t I = 0; I < URI.size(); ++I) {
    unsigned Byte = 0;
    if (URI[I] == '%' && I + 2 < URI.size() &&
        !URI.substr(I + 1, 2).getAsInteger(16, Byte)) {
      Path += char(Byte);
      I += 2;
      continue;
    }
    Path += URI[I];
  }
  if (!sys::path::is_absolute(Path))
    return std::nullopt;
  return Path;
}

namespace {

/// UTF-16 code units of a line's prefix: one per byte that starts a code
/// point below U+10000, two for one above; continuation bytes count none.
unsigned utf16Length(StringRef Prefix) {
  unsigned Units = 0;
  for (unsigned char C : Prefix) {
    if ((C & 0xC0) == 0x80)
      continue;
    Units += C >= 0xF0 ? 2 : 1;
  }
  return Units;
}

/// The end of the token at Offset: an identifier, else one character.
unsigned tokenEnd(StringRef Text, unsigned Offset) {
  unsigned End = Offset;
  while (End < Text.size() && (isAlnum(Text[End]) || Text[End] == '_'))
    ++End;
  if (End == Offset && End < Text.size() && Text[End] != '\n')
    ++End;
  return End;
}

/// The range of the token at Offset.
json::Object tokenRange(StringRef Text, unsigned Offset) {
  Offset = std::min<size_t>(Offset, Text.size());
  return json::Object{{"start", positionAt(Text, Offset)},
                      {"end", positionAt(Text, tokenEnd(Text, Offset))}};
}

/// A range in a file the editor may not hold: the line and column clang
/// reported, one character wide.
json::Object pointRange(const Location &L) {
  json::Object P{{"line", L.Line ? L.Line - 1 : 0},
                 {"character", L.Column ? L.Column - 1 : 0}};
  json::Object End = P;
  End["character"] = (L.Column ? L.Column - 1 : 0) + 1;
  return json::Object{{"start", std::move(P)}, {"end", std::move(End)}};
}

bool sameFile(StringRef A, StringRef B) {
  SmallString<256> X(A), Y(B);
  sys::path::remove_dots(X, /*remove_dot_dot=*/true);
  sys::path::remove_dots(Y, /*remove_dot_dot=*/true);
  return X == Y;
}

/// The LSP location of L: in Doc's text when it is Doc's file.
json::Object locationOf(const Location &L, const Document &Doc) {
  if (sameFile(L.File, Doc.Path))
    return json::Object{{"uri", Doc.URI},
                        {"range", tokenRange(Doc.Text, L.Offset)}};
  return json::Object{{"uri", fileURI(L.File)}, {"range", pointRange(L)}};
}

/// The text edits of a fix-it in Doc's file; None when one edits another
/// file (the editor would be asked to change a file it may not hold).
std::optional<json::Array> editsOf(const std::vector<Replacement> &Fixes,
                                   const Document &Doc) {
  json::Array Edits;
  for (const Replacement &R : Fixes) {
    if (!sameFile(R.Begin.File, Doc.Path))
      return std::nullopt;
    Edits.push_back(json::Object{
        {"range", json::Object{{"start", positionAt(Doc.Text, R.Begin.Offset)},
                               {"end", positionAt(Doc.Text, R.Begin.Offset +
                                                                R.Length)}}},
        {"newText", R.Text}});
  }
  return Edits;
}

json::Object quickFix(std::string Title, json::Array Edits,
                      json::Object Diagnostic, const Document &Doc,
                      bool Preferred) {
  json::Object Changes;
  Changes[Doc.URI] = std::move(Edits);
  return json::Object{
      {"title", std::move(Title)},
      {"kind", "quickfix"},
      {"isPreferred", Preferred},
      {"diagnostics", json::Array{std::move(Diagnostic)}},
      {"edit", json::Object{{"changes", std::move(Changes)}}}};
}

} // namespace

json::Object positionAt(StringRef Text, unsigned Offset) {
  Offset = std::min<size_t>(Offset, Text.size());
  StringRef Before = Text.take_front(Offset);
  size_t LineStart = Before.rfind('\n');
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  return json::Object{{"line", int64_t(Before.count('\n'))},
                      {"character", utf16Length(Before.drop_front(LineStart))}};
}

unsigned offsetAt(StringRef Text, const json::Value &Position) {
  const json::Object *P = Position.getAsObject();
  int64_t Line = P ? P->getInteger("line").value_or(0) : 0;
  int64_t Character = P ? P->getInteger("character").value_or(0) : 0;
  size_t Offset = 0;
  for (; Line > 0 && Offset < Text.size(); --Line) {
    size_t Break = Text.find('\n', Offset);
    if (Break == StringRef::npos)
      return Text.size();
    Offset = Break + 1;
  }
  // Walk the line in UTF-16 units, stopping at its end.
  while (Character > 0 && Offset < Text.size() && Text[Offset] != '\n') {
    unsigned char C = Text[Offset];
    Character -= C >= 0xF0 ? 2 : 1;
    ++Offset;
    while (Offset < Text.size() && (Text[Offset] & 0xC0) == 0x80)
      ++Offset;
  }
  return Offset;
}

json::Object diagnostic(const Finding &F, const Document &Doc,
                        const OutputOptions &Opts) {
  json::Array Related;
  for (const Note &N : F.Notes)
    Related.push_back(json::Object{{"location", locationOf(N.Where, Doc)},
                                   {"message", N.Message}});
  json::Object D{{"range", locationOf(F.Where, Doc)["range"]},
                 {"severity", F.Level == "error" ? 1 : 2},
                 {"source", "ddplint"},
                 {"code", F.Check},
                 {"message", F.Message}};
  if (StringRef(F.Check).starts_with("ddp-"))
    D["codeDescription"] = json::Object{{"href", docURL(F.Check, Opts)}};
  if (!Related.empty())
    D["relatedInformation"] = std::move(Related);
  return D;
}

json::Object notice(StringRef Message) {
  auto Start = [] { return json::Object{{"line", 0}, {"character", 0}}; };
  return json::Object{
      {"range", json::Object{{"start", Start()}, {"end", Start()}}},
      {"severity", 3},
      {"source", "ddplint"},
      {"message", Message.str()}};
}

json::Array codeActions(const std::vector<Finding> &Findings,
                        const Document &Doc, unsigned Begin, unsigned End,
                        const OutputOptions &Opts) {
  json::Array Actions;
  for (const Finding &F : Findings) {
    if (!sameFile(F.Where.File, Doc.Path))
      continue;
    // The diagnostic's own range, as the editor shows it, meets the one
    // asked about.
    if (F.Where.Offset > End || tokenEnd(Doc.Text, F.Where.Offset) < Begin)
      continue;
    if (!F.Fixes.empty())
      if (std::optional<json::Array> Edits = editsOf(F.Fixes, Doc))
        Actions.push_back(quickFix("Fix: " + F.Message, std::move(*Edits),
                                   diagnostic(F, Doc, Opts), Doc, true));
    for (const Note &N : F.Notes)
      if (!N.Fixes.empty())
        if (std::optional<json::Array> Edits = editsOf(N.Fixes, Doc))
          Actions.push_back(quickFix("Suggestion: " + N.Message,
                                     std::move(*Edits),
                                     diagnostic(F, Doc, Opts), Doc, false));
  }
  return Actions;
}

} // namespace ddplint::lsp
