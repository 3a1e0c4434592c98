//===--- Output.cpp - printing findings -----------------------------------===//

#include "Output.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

using namespace llvm;

namespace ddplint {
namespace {

/// The text of line N (1-based) of each file, read once.
class SourceLines {
public:
  StringRef line(const std::string &File, unsigned N) {
    auto It = Files.find(File);
    if (It == Files.end()) {
      auto Buffer = MemoryBuffer::getFile(File, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
      It = Files.try_emplace(File, Buffer ? std::move(*Buffer) : nullptr)
               .first;
    }
    if (!It->second || N == 0)
      return "";
    StringRef Rest = It->second->getBuffer();
    for (unsigned I = 1; I < N && !Rest.empty(); ++I)
      Rest = Rest.split('\n').second;
    return Rest.split('\n').first.rtrim('\r');
  }

private:
  StringMap<std::unique_ptr<MemoryBuffer>> Files;
};

void printHeader(raw_ostream &OS, const Location &Where, StringRef Level,
                 StringRef Message, StringRef Check, bool Color) {
  if (Color)
    OS.changeColor(raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  if (!Where.File.empty()) {
    OS << Where.File;
    if (Where.Line)
      OS << ":" << Where.Line << ":" << Where.Column;
    OS << ": ";
  }
  if (Color)
    OS.changeColor(Level == "error"     ? raw_ostream::RED
                   : Level == "warning" ? raw_ostream::MAGENTA
                                        : raw_ostream::BLACK,
                   /*Bold=*/true);
  OS << Level << ": ";
  if (Color)
    OS.changeColor(raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << Message;
  if (!Check.empty())
    OS << " [" << Check << "]";
  if (Color)
    OS.resetColor();
  OS << "\n";
}

/// The source line, a caret under the column, and the replacement text of
/// fix-its that start on that line.
void printSnippet(raw_ostream &OS, const Location &Where,
                  ArrayRef<Replacement> Fixes, SourceLines &Lines,
                  bool Color) {
  StringRef Line = Lines.line(Where.File, Where.Line);
  if (Line.empty() || Where.Column == 0 || Where.Column > Line.size() + 1)
    return;
  OS << Line << "\n";
  // Keep tabs so the caret lines up under the column in a terminal.
  auto Indent = [&](unsigned Column) {
    std::string Pad;
    for (unsigned I = 0; I + 1 < Column && I < Line.size(); ++I)
      Pad += Line[I] == '\t' ? '\t' : ' ';
    return Pad;
  };
  if (Color)
    OS.changeColor(raw_ostream::GREEN, /*Bold=*/true);
  OS << Indent(Where.Column) << "^\n";
  if (Color)
    OS.resetColor();
  for (const Replacement &R : Fixes)
    if (R.Begin.File == Where.File && R.Begin.Line == Where.Line &&
        !R.Text.empty() && StringRef(R.Text).find('\n') == StringRef::npos) {
      if (Color)
        OS.changeColor(raw_ostream::GREEN);
      OS << Indent(R.Begin.Column) << R.Text << "\n";
      if (Color)
        OS.resetColor();
    }
}

} // namespace

void printText(raw_ostream &OS, ArrayRef<Finding> Findings, bool Color) {
  SourceLines Lines;
  for (const Finding &F : Findings) {
    printHeader(OS, F.Where, F.Level, F.Message, F.Check, Color);
    printSnippet(OS, F.Where, F.Fixes, Lines, Color);
    for (const Note &N : F.Notes) {
      printHeader(OS, N.Where, "note", N.Message, "", Color);
      printSnippet(OS, N.Where, {}, Lines, Color);
    }
  }
}

void printJSON(raw_ostream &OS, ArrayRef<Finding> Findings) {
  json::Array All;
  for (const Finding &F : Findings)
    All.push_back(toJSON(F));
  OS << formatv("{0:2}", json::Value(json::Object{
                             {"version", DDPLINT_VERSION},
                             {"findings", std::move(All)}}))
     << "\n";
}

} // namespace ddplint
