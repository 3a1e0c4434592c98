//===- CollectiveTrace.cpp - Where the ranks' collectives part ------------===//

#include "CollectiveTrace.h"

#include "Process.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

using namespace ddpharness;

std::string CallSite::describe() const {
  llvm::StringRef Name(Function);
  while (Name.consume_front("(anonymous namespace)::"))
    ;
  std::string Short = Name.substr(0, Name.find('(')).str();
  if (Line <= 0)
    return Function.empty()
               ? File
               : Short + " in " + llvm::sys::path::filename(File).str();
  return llvm::sys::path::filename(File).str() + ":" + std::to_string(Line) +
         (Short.empty() ? "" : " (" + Short + ")");
}

std::string TracedCollective::describe() const {
  std::string Out = Kind;
  if (Op != "-")
    Out += " " + Op;
  if (Kind != "barrier")
    Out += " " + std::to_string(Count) + " x " + Dtype;
  if (Root >= 0)
    Out += ", root " + std::to_string(Root);
  return Out;
}

bool TracedCollective::sameAs(const TracedCollective &O) const {
  return Kind == O.Kind && Op == O.Op && Count == O.Count &&
         Dtype == O.Dtype && Root == O.Root;
}

namespace {

/// One rank's file: collectives by id, with the raw frames to resolve.
struct RawTrace {
  std::vector<TracedCollective> Issued;
  std::vector<std::vector<std::string>> Frames;
};

int64_t number(llvm::StringRef Text) {
  int64_t Value = 0;
  return Text.getAsInteger(10, Value) ? -1 : Value;
}

/// Phase 1: each line of a rank's file; a malformed line (a write the
/// crash cut short) is skipped.
RawTrace parseTrace(llvm::StringRef Text) {
  RawTrace Out;
  std::map<int64_t, size_t> ById;
  llvm::SmallVector<llvm::StringRef, 12> F;
  for (llvm::StringRef Line : llvm::split(Text, '\n')) {
    F.clear();
    Line.split(F, '\t');
    if (F.size() == 12 && F[0] == "C") {
      TracedCollective C;
      C.Id = number(F[1]);
      C.Group = F[2].str();
      C.Kind = F[3].str();
      C.Op = F[4].str();
      C.Count = number(F[5]);
      C.Dtype = F[6].str();
      C.Root = number(F[7]);
      C.Blocking = F[8] == "1";
      C.IssuedNs = number(F[10]);
      ById[C.Id] = Out.Issued.size();
      Out.Issued.push_back(C);
      Out.Frames.emplace_back();
      for (llvm::StringRef Frame : llvm::split(F[11], ';'))
        if (Frame != "-")
          Out.Frames.back().push_back(Frame.str());
    } else if (F.size() == 3 && (F[0] == "W" || F[0] == "D")) {
      auto It = ById.find(number(F[1]));
      if (It == ById.end())
        continue;
      TracedCollective &C = Out.Issued[It->second];
      (F[0] == "W" ? C.WaitNs : C.DoneNs) = number(F[2]);
    }
  }
  std::map<std::string, int64_t> PerGroup;
  for (TracedCollective &C : Out.Issued)
    C.Index = PerGroup[C.Group]++;
  return Out;
}

/// The program that resolves addresses to lines: LLVM's symbolizer, or else
/// binutils' addr2line, which machines with GCC and no LLVM have.
struct Symbolizer {
  std::string Path;
  bool Binutils = false;
};

Symbolizer findSymbolizer() {
  for (const char *Name : {"llvm-symbolizer", "llvm-symbolizer-19",
                           "llvm-symbolizer-18", "llvm-symbolizer-17",
                           "llvm-symbolizer-16", "addr2line"})
    if (llvm::ErrorOr<std::string> Path = llvm::sys::findProgramByName(Name))
      return {*Path, llvm::StringRef(Name) == "addr2line"};
  return {};
}

/// One frame's lines as either program prints them: a function's name, then
/// its file:line[:column] (addr2line may add " (discriminator N)"), innermost
/// first.
std::vector<CallSite> parseSites(llvm::ArrayRef<llvm::StringRef> Lines,
                                 const std::string &Module, bool Binutils) {
  std::vector<CallSite> Sites;
  for (size_t I = 0; I + 1 < Lines.size(); I += 2) {
    CallSite S;
    S.Function = Lines[I].str();
    llvm::StringRef Where = Lines[I + 1].split(" (discriminator").first;
    auto [File, LineText] = Where.rsplit(':');
    if (!Binutils)
      std::tie(File, LineText) = File.rsplit(':');
    S.File = File == "??" ? Module : File.str();
    S.Line = std::max(0, int(number(LineText)));
    Sites.push_back(S);
  }
  return Sites;
}

/// The symbolizer's output, one block of lines per address asked: LLVM's
/// blocks end with an empty line; addr2line's (-a) begin with the address.
std::vector<std::vector<llvm::StringRef>> blocksOf(llvm::StringRef Text,
                                                   bool Binutils) {
  std::vector<std::vector<llvm::StringRef>> Blocks;
  bool Open = false;
  for (llvm::StringRef Line : llvm::split(Text, '\n')) {
    Line = Line.trim();
    if (Binutils ? Line.starts_with("0x") : Line.empty()) {
      if (Binutils)
        Blocks.emplace_back();
      Open = Binutils;
      continue;
    }
    if (!Open) {
      Blocks.emplace_back();
      Open = true;
    }
    Blocks.back().push_back(Line);
  }
  return Blocks;
}

std::vector<std::string> symbolizerCommand(const Symbolizer &Tool,
                                           const std::string &Module) {
  if (Tool.Binutils)
    return {Tool.Path, "-e", Module, "-a", "-f", "-C", "-i"};
  return {Tool.Path, "--obj=" + Module, "--inlines", "--demangle",
          "--output-style=LLVM"};
}

/// Phase 2: every distinct frame, resolved with the symbolizer, one run per
/// module; inlined calls become frames of their own, innermost first.
std::map<std::string, std::vector<CallSite>>
symbolise(const std::set<std::string> &Frames, std::vector<std::string> &Warn) {
  std::map<std::string, std::vector<std::string>> ByModule;
  for (const std::string &Frame : Frames) {
    size_t Plus = Frame.rfind('+');
    if (Plus != std::string::npos)
      ByModule[Frame.substr(0, Plus)].push_back(Frame);
  }
  std::map<std::string, std::vector<CallSite>> Out;
  Symbolizer Tool = ByModule.empty() ? Symbolizer() : findSymbolizer();
  if (Tool.Path.empty() && !ByModule.empty())
    Warn.push_back("neither llvm-symbolizer nor addr2line on PATH: call "
                   "sites are shown as module+offset");
  for (auto &[Module, List] : ByModule) {
    if (Tool.Path.empty())
      break;
    std::vector<std::string> Argv = symbolizerCommand(Tool, Module);
    for (const std::string &Frame : List) {
      uint64_t Offset = 0;
      llvm::StringRef(Frame).substr(Frame.rfind('+') + 1).getAsInteger(0,
                                                                       Offset);
      // A return address: the call is the byte before it.
      Argv.push_back(llvm::formatv("{0:x}", Offset ? Offset - 1 : 0).str());
    }
    std::string Stderr;
    llvm::Expected<std::string> Text = captureOutput(Argv, 30, Stderr);
    if (!Text) {
      Warn.push_back("could not resolve call sites in " + Module + ": " +
                     llvm::toString(Text.takeError()));
      continue;
    }
    auto Blocks = blocksOf(*Text, Tool.Binutils);
    for (size_t I = 0; I < Blocks.size() && I < List.size(); ++I)
      Out[List[I]] = parseSites(Blocks[I], Module, Tool.Binutils);
  }
  return Out;
}

/// The harness library's own frames (its reference wrapper's hooks), and
/// standard or LibTorch templates inlined into the program.
bool isMachinery(const CallSite &S) {
  for (const char *Folder : {"runtime-harness/lib/", "include/ddpharness/"})
    if (llvm::StringRef(S.File).contains(Folder))
      return true;
  for (const char *Prefix : {"ddpharness::", "std::", "c10::", "c10d::",
                             "at::", "torch::", "__gnu_cxx::"})
    if (llvm::StringRef(S.Function).starts_with(Prefix))
      return true;
  return false;
}

/// Phase 3: each collective's sites, the machinery's frames (the harness
/// library, inlined standard and LibTorch templates) dropped when the
/// program's own frames remain.
void attachSites(RawTrace &Raw,
                 const std::map<std::string, std::vector<CallSite>> &Known) {
  for (size_t I = 0; I < Raw.Issued.size(); ++I) {
    std::vector<CallSite> All;
    for (const std::string &Frame : Raw.Frames[I]) {
      auto It = Known.find(Frame);
      if (It != Known.end() && !It->second.empty() &&
          It->second.front().Function != "??")
        All.insert(All.end(), It->second.begin(), It->second.end());
      else
        All.push_back(CallSite{"", Frame, 0});
    }
    std::vector<CallSite> Own;
    std::copy_if(All.begin(), All.end(), std::back_inserter(Own),
                 [](const CallSite &S) { return !isMachinery(S); });
    Raw.Issued[I].Sites = Own.empty() ? All : Own;
  }
}

/// Phase 4: the collective a rank entered, or began to wait on, and never
/// left; the latest such.
void findBlocked(RankCollectives &R, int64_t EndNs) {
  for (size_t I = R.Issued.size(); I-- > 0;) {
    const TracedCollective &C = R.Issued[I];
    if (C.DoneNs >= 0)
      continue;
    int64_t Since = C.WaitNs >= 0 ? C.WaitNs : C.Blocking ? C.IssuedNs : -1;
    if (Since < 0)
      continue;
    R.Blocked = I;
    R.BlockedSeconds = std::max<int64_t>(0, EndNs - Since) / 1e9;
    return;
  }
}

/// Phase 5: per group, the first index at which the ranks' collectives
/// differ or some rank has none; of those, the one issued first.
void findDisagreement(CollectiveAnalysis &A) {
  std::map<std::string, int64_t> Longest;
  for (const RankCollectives &R : A.Ranks)
    for (const TracedCollective &C : R.Issued)
      Longest[C.Group] = std::max(Longest[C.Group], C.Index + 1);
  int64_t Earliest = INT64_MAX;
  for (const auto &[Group, Length] : Longest) {
    for (int64_t Index = 0; Index < Length; ++Index) {
      std::vector<std::optional<size_t>> At;
      const TracedCollective *First = nullptr;
      bool Differ = false;
      int64_t When = INT64_MAX;
      for (const RankCollectives &R : A.Ranks) {
        auto It = std::find_if(R.Issued.begin(), R.Issued.end(),
                               [&](const TracedCollective &C) {
                                 return C.Group == Group && C.Index == Index;
                               });
        if (It == R.Issued.end()) {
          At.push_back(std::nullopt);
          Differ = true;
          continue;
        }
        At.push_back(size_t(It - R.Issued.begin()));
        When = std::min(When, It->IssuedNs);
        Differ |= First && !First->sameAs(*It);
        First = First ? First : &*It;
      }
      if (!Differ)
        continue;
      if (When < Earliest) {
        Earliest = When;
        A.Disagree = true;
        A.Group = Group;
        A.Index = Index;
        A.At = At;
      }
      break;
    }
  }
}

int64_t modifiedNs(const std::string &Path) {
  llvm::sys::fs::file_status Status;
  if (llvm::sys::fs::status(Path, Status))
    return 0;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Status.getLastModificationTime().time_since_epoch())
      .count();
}

} // namespace

CollectiveAnalysis ddpharness::analyseCollectives(const std::string &Dir,
                                                  int NumRanks) {
  CollectiveAnalysis A;
  int64_t EndNs = modifiedNs(Dir + "/harness.json");
  bool Recorded = EndNs > 0;
  std::vector<RawTrace> Raw;
  for (int Rank = 0; NumRanks <= 0 || Rank < NumRanks; ++Rank) {
    std::string Path = Dir + "/collectives-rank" + std::to_string(Rank) +
                       ".tsv";
    auto File = llvm::MemoryBuffer::getFile(Path);
    if (!File && NumRanks <= 0)
      break;
    Raw.push_back(File ? parseTrace((*File)->getBuffer()) : RawTrace());
    A.Ranks.emplace_back();
    A.Ranks.back().Present = bool(File);
    A.Available |= bool(File);
    if (File && !Recorded)
      EndNs = std::max(EndNs, modifiedNs(Path));
  }
  if (!A.Available)
    return A;
  std::set<std::string> Frames;
  for (const RawTrace &R : Raw)
    for (const auto &List : R.Frames)
      Frames.insert(List.begin(), List.end());
  auto Known = symbolise(Frames, A.Warnings);
  for (size_t Rank = 0; Rank < Raw.size(); ++Rank) {
    attachSites(Raw[Rank], Known);
    A.Ranks[Rank].Issued = std::move(Raw[Rank].Issued);
    findBlocked(A.Ranks[Rank], EndNs);
  }
  findDisagreement(A);
  return A;
}
