//===--- ProjectFunctions.cpp - what functions out of sight do ------------===//

#include "vocabulary/ProjectFunctions.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Index/USRGeneration.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace clang::tidy::ddp {

namespace {

constexpr std::pair<CollectiveKind, llvm::StringLiteral> KindNames[] = {
    {CollectiveKind::AllReduce, "allreduce"},
    {CollectiveKind::Broadcast, "broadcast"},
    {CollectiveKind::AllGather, "allgather"},
    {CollectiveKind::Gather, "gather"},
    {CollectiveKind::Scatter, "scatter"},
    {CollectiveKind::Reduce, "reduce"},
    {CollectiveKind::ReduceScatter, "reduce_scatter"},
    {CollectiveKind::AllToAll, "alltoall"},
    {CollectiveKind::Barrier, "barrier"},
};
constexpr std::pair<ReduceOpKind, llvm::StringLiteral> OpNames[] = {
    {ReduceOpKind::Sum, "sum"},
    {ReduceOpKind::Average, "avg"},
    {ReduceOpKind::PreMultipliedSum, "premul_sum"},
    {ReduceOpKind::Other, "other"},
    {ReduceOpKind::Unknown, "unknown"},
};
constexpr std::pair<FunctionEffects::Seeding, llvm::StringLiteral> SeedNames[] = {
    {FunctionEffects::Seeding::Common, "common"},
    {FunctionEffects::Seeding::Parameter, "param"},
    {FunctionEffects::Seeding::PerProcess, "process"},
    {FunctionEffects::Seeding::Rank, "rank"},
};

template <typename T, size_t N>
llvm::StringRef nameOf(const std::pair<T, llvm::StringLiteral> (&Table)[N],
                       T Value) {
  for (const auto &[V, Name] : Table)
    if (V == Value)
      return Name;
  return "";
}

template <typename T, size_t N>
std::optional<T> valueOf(const std::pair<T, llvm::StringLiteral> (&Table)[N],
                         llvm::StringRef Name) {
  for (const auto &[V, Spelled] : Table)
    if (Spelled == Name)
      return V;
  return std::nullopt;
}

std::string originText(uint8_t O) {
  std::string Text;
  if (O & FunctionEffects::FromRank)
    Text += "rank";
  if (O & FunctionEffects::FromWorldSize)
    Text += Text.empty() ? "world" : "+world";
  return Text;
}

std::optional<uint8_t> parseOrigin(llvm::StringRef Text) {
  uint8_t O = 0;
  llvm::SmallVector<llvm::StringRef, 2> Parts;
  Text.split(Parts, '+');
  for (llvm::StringRef P : Parts) {
    if (P == "rank")
      O |= FunctionEffects::FromRank;
    else if (P == "world")
      O |= FunctionEffects::FromWorldSize;
    else
      return std::nullopt;
  }
  return O;
}

/// `draws=rank`, `draws=param2` (seeded with parameter 2), `draws=gen1`
/// (drawn from the generator handed as parameter 1).
bool decodeDraws(llvm::StringRef Value, FunctionEffects &E) {
  unsigned Index = 0;
  bool Generator = Value.consume_front("gen");
  if ((Generator || Value.consume_front("param")) &&
      !Value.getAsInteger(10, Index)) {
    E.Draws = Generator ? FunctionEffects::Seeding::Generator
                        : FunctionEffects::Seeding::Parameter;
    E.DrawParameter = int(Index);
    return true;
  }
  std::optional<FunctionEffects::Seeding> S = valueOf(SeedNames, Value);
  E.Draws = S.value_or(FunctionEffects::Seeding::None);
  return S.has_value();
}

/// One `key=value` (or bare `key`) field of an encoding into \p E.
bool decodeField(llvm::StringRef Key, llvm::StringRef Value,
                 FunctionEffects &E) {
  unsigned Index = 0;
  if (Key == "collective") {
    E.Communicates = true;
    E.Collective = valueOf(KindNames, Value);
    return E.Collective.has_value() || Value == "some";
  }
  if (Key == "op") {
    std::optional<ReduceOpKind> Op = valueOf(OpNames, Value);
    E.Op = Op.value_or(ReduceOpKind::Unknown);
    return Op.has_value();
  }
  if (Key == "returns") {
    std::optional<uint8_t> O = parseOrigin(Value);
    E.Returned = O.value_or(0);
    return O.has_value();
  }
  if (Key.consume_front("out") && !Key.getAsInteger(10, Index)) {
    std::optional<uint8_t> O = parseOrigin(Value);
    if (O)
      E.Outputs[Index] = *O;
    return O.has_value();
  }
  if (Key == "seed") {
    if (Value.consume_front("param") && !Value.getAsInteger(10, Index)) {
      E.Seeds = FunctionEffects::Seeding::Parameter;
      E.SeedParameter = int(Index);
      return true;
    }
    std::optional<FunctionEffects::Seeding> S = valueOf(SeedNames, Value);
    E.Seeds = S.value_or(FunctionEffects::Seeding::None);
    return S.has_value();
  }
  if (Key == "draws")
    return decodeDraws(Value, E);
  if (Key == "saves" || Key == "loads") {
    bool Ranked = Value.consume_back(":ranked");
    bool Plain = Value.consume_back(":file");
    if (!Value.consume_front("param") || Value.getAsInteger(10, Index) ||
        (Ranked && Key != "saves"))
      return false;
    (Key == "saves" ? E.SavesPath : E.LoadsPath) = int(Index);
    E.SavesOnSomeRanks |= Ranked;
    (Key == "saves" ? E.SavesPlainFile : E.LoadsPlainFile) = Plain;
    return true;
  }
  if (Key == "steps")
    return E.StepsParameters = true;
  if (Key == "broadcasts")
    return E.BroadcastsParameters = true;
  if (Key == "group" && (Value == "open" || Value == "close")) {
    E.Groups = Value == "open" ? FunctionEffects::Group::Opens
                               : FunctionEffects::Group::Closes;
    return true;
  }
  return false;
}

} // namespace

bool FunctionEffects::operator==(const FunctionEffects &O) const {
  return Communicates == O.Communicates && Collective == O.Collective && Op == O.Op && Returned == O.Returned &&
         Outputs == O.Outputs && Seeds == O.Seeds &&
         SeedParameter == O.SeedParameter && Draws == O.Draws &&
         DrawParameter == O.DrawParameter && SavesPath == O.SavesPath &&
         LoadsPath == O.LoadsPath && SavesPlainFile == O.SavesPlainFile &&
         LoadsPlainFile == O.LoadsPlainFile &&
         SavesOnSomeRanks == O.SavesOnSomeRanks && StepsParameters == O.StepsParameters &&
         BroadcastsParameters == O.BroadcastsParameters &&
         Groups == O.Groups;
}

std::string FunctionEffects::encode() const {
  llvm::SmallVector<std::string, 8> Fields;
  if (Communicates) {
    Fields.push_back(
        ("collective=" + (Collective ? nameOf(KindNames, *Collective) : "some"))
            .str());
    if (Op != ReduceOpKind::Unknown)
      Fields.push_back(("op=" + nameOf(OpNames, Op)).str());
  }
  if (Returned)
    Fields.push_back("returns=" + originText(Returned));
  for (const auto &[Index, O] : Outputs)
    Fields.push_back("out" + std::to_string(Index) + "=" + originText(O));
  if (Seeds == Seeding::Parameter)
    Fields.push_back("seed=param" + std::to_string(SeedParameter));
  else if (Seeds != Seeding::None)
    Fields.push_back(("seed=" + nameOf(SeedNames, Seeds)).str());
  if (Draws == Seeding::Parameter || Draws == Seeding::Generator)
    Fields.push_back((Draws == Seeding::Generator ? "draws=gen" : "draws=param") +
                     std::to_string(DrawParameter));
  else if (Draws != Seeding::None)
    Fields.push_back(("draws=" + nameOf(SeedNames, Draws)).str());
  if (SavesPath >= 0)
    Fields.push_back("saves=param" + std::to_string(SavesPath) +
                     (SavesPlainFile ? ":file" : "") +
                     (SavesOnSomeRanks ? ":ranked" : ""));
  if (LoadsPath >= 0)
    Fields.push_back("loads=param" + std::to_string(LoadsPath) +
                     (LoadsPlainFile ? ":file" : ""));
  if (StepsParameters)
    Fields.push_back("steps");
  if (BroadcastsParameters)
    Fields.push_back("broadcasts");
  if (Groups != Group::None)
    Fields.push_back(Groups == Group::Opens ? "group=open" : "group=close");
  return llvm::join(Fields, ";");
}

std::optional<FunctionEffects> FunctionEffects::decode(llvm::StringRef Text) {
  FunctionEffects E;
  llvm::SmallVector<llvm::StringRef, 8> Fields;
  Text.trim().split(Fields, ';', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Field : Fields) {
    auto [Key, Value] = Field.split('=');
    if (!decodeField(Key.trim(), Value.trim(), E))
      return std::nullopt;
  }
  return E;
}

std::string functionUSR(const FunctionDecl &FD) {
  llvm::SmallString<128> USR;
  if (index::generateUSRForDecl(FD.getCanonicalDecl(), USR))
    return "";
  return std::string(USR);
}

ProjectFunctions &ProjectFunctions::instance() {
  static ProjectFunctions Store;
  return Store;
}

namespace {
/// The questions asked on this thread (USR -> answer).
thread_local std::map<std::string, std::string> Questions;

/// Parses one summary file into \p Out; lines that do not parse are left
/// out (a damaged file costs its own functions, not the run).
void parseSummaryFile(llvm::StringRef Text,
                      std::vector<std::pair<std::string, FunctionEffects>> &Out) {
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines) {
    auto [USR, Encoding] = Line.split('\t');
    if (USR.empty() || !USR.starts_with("c:"))
      continue;
    if (std::optional<FunctionEffects> E = FunctionEffects::decode(Encoding))
      Out.emplace_back(USR.str(), *E);
  }
}
} // namespace

size_t ProjectFunctions::loadFolder(llvm::StringRef Dir) {
  {
    std::lock_guard<std::mutex> Guard(Lock);
    if (!LoadedFolders.try_emplace(Dir, true).second)
      return ByUSR.size();
  }
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".summaries")
      Files.push_back(It->path());
  return loadFiles(Files);
}

size_t ProjectFunctions::loadFiles(llvm::ArrayRef<std::string> Paths) {
  std::vector<std::pair<std::string, FunctionEffects>> Loaded;
  for (const std::string &Path : Paths)
    if (auto Buffer = llvm::MemoryBuffer::getFile(Path))
      parseSummaryFile((*Buffer)->getBuffer(), Loaded);
  add(Loaded);
  return size();
}

void ProjectFunctions::add(
    const std::vector<std::pair<std::string, FunctionEffects>> &Unit) {
  std::lock_guard<std::mutex> Guard(Lock);
  for (const auto &[USR, E] : Unit)
    ByUSR[USR] = E;
}

std::optional<FunctionEffects>
ProjectFunctions::lookup(const FunctionDecl &FD) const {
  if (FD.isDefined() || FD.getASTContext().getSourceManager().isInSystemHeader(
                            FD.getLocation()))
    return std::nullopt;
  std::string USR = functionUSR(FD);
  if (USR.empty())
    return std::nullopt;
  std::optional<FunctionEffects> Found;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    auto It = ByUSR.find(USR);
    if (It != ByUSR.end())
      Found = It->second;
  }
  // The first answer is the one to compare later: a unit that asked before
  // another unit's summary arrived and again after it used both answers,
  // and is analysed again once the store settles.
  Questions.try_emplace(USR, Found ? Found->encode() : "");
  return Found;
}

std::string ProjectFunctions::encodingOf(llvm::StringRef USR) const {
  std::lock_guard<std::mutex> Guard(Lock);
  auto It = ByUSR.find(USR);
  return It == ByUSR.end() ? "" : It->second.encode();
}

size_t ProjectFunctions::size() const {
  std::lock_guard<std::mutex> Guard(Lock);
  return ByUSR.size();
}

std::vector<std::pair<std::string, std::string>>
ProjectFunctions::takeQuestions() {
  std::vector<std::pair<std::string, std::string>> Asked(Questions.begin(),
                                                         Questions.end());
  Questions.clear();
  return Asked;
}

std::string ProjectFunctions::format(
    const std::vector<std::pair<std::string, FunctionEffects>> &Unit) {
  std::string Text;
  for (const auto &[USR, E] : Unit)
    Text += USR + "\t" + E.encode() + "\n";
  return Text;
}

} // namespace clang::tidy::ddp
