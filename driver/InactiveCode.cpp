//===--- InactiveCode.cpp - distributed code the preprocessor skipped -----===//

#include "InactiveCode.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <optional>

using namespace clang;
using namespace llvm;

namespace ddplint {
namespace {

/// Words that mark skipped code as distributed: collectives, communicator
/// types and the libraries that provide them. Matched case-insensitively
/// anywhere in the skipped text, so "MPI_Allreduce", "pg->allreduce" and
/// "ncclComm_t" all count. Kept short: a false mention only costs a -v line.
constexpr StringLiteral DistributedWords[] = {
    "allreduce", "all_reduce", "allgather", "all_gather", "reduce_scatter",
    "broadcast", "bcast",      "barrier",   "mpi_",       "mpi::",
    "nccl",      "processgroup", "c10d",
};

/// The directive at the start of Text ("#  ifdef X // why" -> "#ifdef X"):
/// one line, comments dropped, spaces collapsed.
std::string directiveText(StringRef Text) {
  StringRef Line = Text.take_until([](char C) { return C == '\n'; });
  bool Continued = Line.rtrim().ends_with("\\");
  Line = Line.take_front(std::min(Line.find("//"), Line.find("/*")));
  SmallVector<StringRef, 8> Words;
  Line.drop_front().split(Words, ' ', -1, /*KeepEmpty=*/false);
  std::string Out = "#";
  for (StringRef W : Words) {
    W = W.trim(" \t\r\\");
    if (W.empty())
      continue;
    if (Out.size() > 1)
      Out += ' ';
    Out += W.str();
  }
  return Continued ? Out + " ..." : Out;
}

/// A condition that one macro decides: the macro and whether the code is
/// taken when it is defined. None for anything else.
std::optional<std::pair<std::string, bool>>
singleMacroCondition(StringRef Directive) {
  StringRef Rest = Directive;
  if (!Rest.consume_front("#"))
    return std::nullopt;
  bool WhenDefined = true;
  if (Rest.consume_front("ifdef ") || Rest.consume_front("elifdef ")) {
  } else if (Rest.consume_front("ifndef ") ||
             Rest.consume_front("elifndef ")) {
    WhenDefined = false;
  } else if (Rest.consume_front("if ") || Rest.consume_front("elif ")) {
    Rest = Rest.trim();
    if (Rest.consume_front("!"))
      WhenDefined = false;
    Rest = Rest.trim();
    if (Rest.consume_front("defined")) {
      Rest = Rest.trim();
      if (Rest.consume_front("(") && !Rest.consume_back(")"))
        return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  Rest = Rest.trim();
  if (Rest.empty() || isDigit(Rest.front()) ||
      !all_of(Rest, [](char C) { return isAlnum(C) || C == '_'; }))
    return std::nullopt;
  return std::make_pair(Rest.str(), WhenDefined);
}

/// "define X" or "undefine X" when that alone brings skipped code in.
std::string adviceFor(const std::string &Directive, const std::string &Opener,
                      bool ChainHasElif) {
  bool IsElse = StringRef(Directive).starts_with("#else");
  if (IsElse && ChainHasElif)
    return ""; // Any of several conditions may have taken the branch.
  if (!IsElse && StringRef(Directive).starts_with("#elif"))
    return ""; // An earlier branch may have been taken instead.
  auto C = singleMacroCondition(IsElse ? Opener : Directive);
  if (!C)
    return "";
  bool Define = IsElse ? !C->second : C->second;
  return (Define ? "define " : "undefine ") + C->first;
}

} // namespace

bool mentionsDistributedCode(StringRef Text) {
  std::string Lower = Text.lower();
  return any_of(DistributedWords, [&](StringRef W) {
    return StringRef(Lower).contains(W);
  });
}

InactiveCodeCollector::LineKey
InactiveCodeCollector::lineOf(SourceLocation Loc) const {
  std::pair<FileID, unsigned> D = SM.getDecomposedExpansionLoc(Loc);
  return {D.first, SM.getLineNumber(D.first, D.second)};
}

void InactiveCodeCollector::FileChanged(SourceLocation Loc,
                                        FileChangeReason Reason,
                                        SrcMgr::CharacteristicKind,
                                        FileID) {
  if (Reason == EnterFile)
    (void)isRepeatedInclusion(SM.getFileID(Loc));
}

bool InactiveCodeCollector::isRepeatedInclusion(FileID FID) {
  const FileEntry *File = SM.getFileEntryForID(FID);
  if (!File)
    return false;
  return FirstInclusion.try_emplace(File, FID).first->second != FID;
}

void InactiveCodeCollector::noteBranch(SourceLocation Loc,
                                       SourceLocation IfLoc) {
  Openers[lineOf(Loc)] = IfLoc;
}

void InactiveCodeCollector::Else(SourceLocation Loc, SourceLocation IfLoc) {
  noteBranch(Loc, IfLoc);
}

void InactiveCodeCollector::Elif(SourceLocation Loc, SourceRange,
                                 ConditionValueKind, SourceLocation IfLoc) {
  noteBranch(Loc, IfLoc);
  ChainsWithElif.insert(IfLoc.getRawEncoding());
}

void InactiveCodeCollector::Elifdef(SourceLocation Loc, SourceRange,
                                    SourceLocation IfLoc) {
  noteBranch(Loc, IfLoc);
  ChainsWithElif.insert(IfLoc.getRawEncoding());
}

void InactiveCodeCollector::Elifndef(SourceLocation Loc, SourceRange,
                                     SourceLocation IfLoc) {
  noteBranch(Loc, IfLoc);
  ChainsWithElif.insert(IfLoc.getRawEncoding());
}

void InactiveCodeCollector::SourceRangeSkipped(SourceRange Range,
                                               SourceLocation) {
  // Where: user code read for the first time.
  SourceLocation Begin = SM.getExpansionLoc(Range.getBegin());
  if (Begin.isInvalid() || SM.isInSystemHeader(Begin))
    return;
  auto [FID, BeginOffset] = SM.getDecomposedLoc(Begin);
  auto [EndFID, EndOffset] =
      SM.getDecomposedLoc(SM.getExpansionLoc(Range.getEnd()));
  if (EndFID != FID || EndOffset < BeginOffset || isRepeatedInclusion(FID))
    return;
  OptionalFileEntryRef File = SM.getFileEntryRefForID(FID);
  if (!File)
    return;

  // What: the lines between the opening directive and the one that ends
  // the skipped branch (#endif, #else, #elif).
  StringRef Buffer = SM.getBufferData(FID);
  unsigned FirstLine = SM.getLineNumber(FID, BeginOffset);
  unsigned LastLine = SM.getLineNumber(FID, EndOffset);
  unsigned BodyBegin = SM.getDecomposedLoc(SM.translateLineCol(
                           FID, FirstLine + 1, 1)).second;
  unsigned LastLineBegin = SM.getDecomposedLoc(SM.translateLineCol(
                               FID, LastLine, 1)).second;
  bool EndsOnDirective =
      Buffer.substr(LastLineBegin).ltrim(" \t").starts_with("#");
  unsigned BodyEnd = EndsOnDirective ? LastLineBegin : EndOffset;
  if (LastLine <= FirstLine || BodyEnd <= BodyBegin ||
      !mentionsDistributedCode(Buffer.slice(BodyBegin, BodyEnd)))
    return;

  // Why: the directive, and for an #else or #elif the #if it continues.
  InactiveRegion R;
  SmallString<256> Path(File->getName());
  if (!SM.getFileManager().getVirtualFileSystem().makeAbsolute(Path))
    sys::path::remove_dots(Path, /*remove_dot_dot=*/false);
  R.File = std::string(Path);
  R.Line = FirstLine;
  R.Lines = LastLine - FirstLine - (EndsOnDirective ? 1 : 0);
  R.Directive = directiveText(Buffer.substr(BeginOffset));
  bool ChainHasElif = false;
  if (auto It = Openers.find({FID, FirstLine}); It != Openers.end()) {
    SourceLocation IfLoc = It->second;
    auto [IfFID, IfOffset] = SM.getDecomposedExpansionLoc(IfLoc);
    StringRef IfBuffer = SM.getBufferData(IfFID);
    // IfLoc names the directive's keyword; its line starts with the '#'.
    size_t LineStart = IfBuffer.rfind('\n', IfOffset);
    LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
    R.Opener = directiveText(IfBuffer.substr(LineStart).ltrim(" \t"));
    ChainHasElif = ChainsWithElif.count(IfLoc.getRawEncoding());
  }
  // `#if 0` (or the #else of `#if 1`) is code switched off by hand: no
  // build configuration brings it in.
  if (R.Directive == "#if 0" || (R.Directive == "#else" && R.Opener == "#if 1"))
    return;
  R.Advice = adviceFor(R.Directive, R.Opener, ChainHasElif);
  Out.push_back(std::move(R));
}

std::string describeInactiveRegion(const InactiveRegion &R) {
  std::string Text =
      formatv("{0} line{1} under '{2}'", R.Lines, R.Lines == 1 ? "" : "s",
              R.Directive)
          .str();
  if (!R.Opener.empty())
    Text += " of '" + R.Opener + "'";
  Text += " not analysed";
  if (!R.Advice.empty())
    Text += " (" + R.Advice + " to analyse them)";
  return Text;
}

} // namespace ddplint
