//===--- OutputSupport.cpp - what the output formats share ----------------===//

#include "OutputSupport.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace llvm;

namespace ddplint {

SourceCache::Entry *SourceCache::get(const std::string &File) {
  if (File.empty())
    return nullptr;
  auto It = Files.find(File);
  if (It == Files.end()) {
    Entry E;
    auto Buffer = MemoryBuffer::getFile(File, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
    if (Buffer) {
      E.Buffer = std::move(*Buffer);
      StringRef Text = E.Buffer->getBuffer();
      E.LineStarts.push_back(0);
      for (size_t I = 0; I < Text.size(); ++I)
        if (Text[I] == '\n' && I + 1 < Text.size())
          E.LineStarts.push_back(I + 1);
    }
    It = Files.try_emplace(File, std::move(E)).first;
  }
  return It->second.Buffer ? &It->second : nullptr;
}

std::optional<StringRef> SourceCache::text(const std::string &File) {
  if (Entry *E = get(File))
    return E->Buffer->getBuffer();
  return std::nullopt;
}

std::optional<StringRef> SourceCache::line(const std::string &File,
                                           unsigned N) {
  Entry *E = get(File);
  if (!E || N == 0 || N > E->LineStarts.size())
    return std::nullopt;
  StringRef Text = E->Buffer->getBuffer().drop_front(E->LineStarts[N - 1]);
  return Text.take_until([](char C) { return C == '\n'; }).rtrim('\r');
}

unsigned SourceCache::lineCount(const std::string &File) {
  Entry *E = get(File);
  return E ? E->LineStarts.size() : 0;
}

std::optional<std::pair<unsigned, unsigned>>
SourceCache::position(const std::string &File, unsigned Offset) {
  Entry *E = get(File);
  if (!E || Offset > E->Buffer->getBufferSize())
    return std::nullopt;
  auto It = std::upper_bound(E->LineStarts.begin(), E->LineStarts.end(),
                             Offset);
  unsigned Line = It - E->LineStarts.begin();
  return std::make_pair(Line, Offset - E->LineStarts[Line - 1] + 1);
}

unsigned codePointColumn(StringRef Line, unsigned ByteColumn) {
  if (ByteColumn == 0)
    return 0;
  StringRef Before = Line.take_front(ByteColumn - 1);
  unsigned Points = 0;
  for (char C : Before)
    if ((static_cast<unsigned char>(C) & 0xC0) != 0x80)
      ++Points;
  // A column past the end of the line (clang points after the last
  // character) keeps its distance.
  return Points + 1 + (ByteColumn - 1 - Before.size());
}

std::optional<std::string> relativeTo(StringRef File, StringRef Root) {
  if (File.empty() || Root.empty() || !sys::path::is_absolute(File))
    return std::nullopt;
  SmallString<256> F(File), R(Root);
  sys::path::remove_dots(F, /*remove_dot_dot=*/true);
  sys::path::remove_dots(R, /*remove_dot_dot=*/true);
  sys::path::native(F, sys::path::Style::posix);
  sys::path::native(R, sys::path::Style::posix);
  StringRef Rel = F;
  StringRef RootRef = StringRef(R).rtrim('/');
  if (!Rel.consume_front(RootRef) || !Rel.starts_with("/"))
    return std::nullopt;
  Rel = Rel.drop_front();
  if (Rel.empty())
    return std::nullopt;
  return Rel.str();
}

std::string displayPath(StringRef File, const OutputOptions &Opts) {
  if (auto Rel = relativeTo(File, Opts.SourceRoot))
    return *Rel;
  return File.str();
}

std::string encodeURIPath(StringRef Path) {
  std::string Out;
  for (unsigned char C : Path) {
    if (isAlnum(C) || C == '-' || C == '.' || C == '_' || C == '~' ||
        C == '/') {
      Out += C;
    } else {
      Out += '%';
      Out += hexdigit(C >> 4, /*LowerCase=*/false);
      Out += hexdigit(C & 15, /*LowerCase=*/false);
    }
  }
  return Out;
}

std::string fileURI(StringRef AbsPath, bool Directory) {
  SmallString<256> P(AbsPath);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  sys::path::native(P, sys::path::Style::posix);
  std::string URI = "file://" + encodeURIPath(P);
  if (Directory && !StringRef(URI).ends_with("/"))
    URI += '/';
  return URI;
}

std::string docURL(StringRef Check, const OutputOptions &Opts) {
  std::string Base = Opts.DocUrlBase;
  if (!Base.empty() && Base.back() != '/')
    Base += '/';
  return Base + encodeURIPath(Check) + ".md";
}

std::vector<std::string> fingerprints(ArrayRef<Finding> Findings,
                                      const OutputOptions &Opts,
                                      SourceCache &Sources) {
  std::vector<std::string> Out;
  std::map<std::string, unsigned> Seen;
  for (const Finding &F : Findings) {
    std::string Path = displayPath(F.Where.File, Opts);
    std::optional<StringRef> Line = Sources.line(F.Where.File, F.Where.Line);
    std::string Content;
    for (char C : Line ? *Line : StringRef(F.Message))
      if (!isSpace(C))
        Content += C;
    SHA256 Hash;
    Hash.update(F.Check);
    Hash.update(StringRef("\0", 1));
    Hash.update(Path);
    Hash.update(StringRef("\0", 1));
    Hash.update(Content);
    std::string Hex = toHex(Hash.final(), /*LowerCase=*/true).substr(0, 32);
    unsigned Occurrence = ++Seen[Hex];
    Out.push_back(Hex + ":" + std::to_string(Occurrence));
  }
  return Out;
}

std::string runtimeLine(const RuntimeEvidence &R) {
  std::string Evidence = singleLine(R.Evidence);
  StringRef Rest(Evidence);
  if (Rest.consume_front(R.Verdict + ":"))
    Rest = Rest.ltrim();
  return "at run time: " + R.Verdict +
         (Rest.empty() ? std::string() : ": " + Rest.str());
}

std::string singleLine(StringRef Text) {
  std::string Out;
  bool Space = false;
  for (char C : Text.trim()) {
    if (isSpace(C)) {
      Space = true;
      continue;
    }
    if (Space)
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

} // namespace ddplint
