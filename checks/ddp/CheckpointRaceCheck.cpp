//===--- CheckpointRaceCheck.cpp - ddp-checkpoint-race --------------------===//

#include "ddp/CheckpointRaceCheck.h"

#include "analysis/Divergence.h"
#include "model/RankConfinement.h"

#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::ddp {

namespace {

/// A `torch::save` or `torch::load` of a file shared by every rank, or a
/// file opened with C stdio or a stream (File).
struct Access {
  const Expr *Call;
  const Expr *Path;
  /// Equal keys name the same file (see pathKey).
  std::string Key;
  bool File = false;
  /// A helper that writes it on some ranks only (its summary says so).
  bool SomeRanks = false;
};

std::string sourceText(const Stmt &S, const ASTContext &Context) {
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(S.getSourceRange()),
             Context.getSourceManager(), Context.getLangOpts())
      .str();
}

/// The string literal a path spells, through `std::string`'s constructor
/// and a const local initialised with one.
const StringLiteral *literalPath(const Expr *E) {
  if (const StringLiteral *Literal = spelledStringLiteral(E))
    return Literal;
  const auto *Var = dyn_cast_or_null<VarDecl>(referencedDecl(E));
  return Var && Var->getType().isConstQualified() && Var->getInit()
             ? literalPath(Var->getInit())
             : nullptr;
}

/// What names the file: its text for a literal (also behind a const
/// local), the variable for any other variable, else the expression as
/// written, white space removed.
std::string pathKey(const Expr &Path, const ASTContext &Context) {
  if (const StringLiteral *Literal = literalPath(&Path))
    return ("literal:" + Literal->getString()).str();
  if (const ValueDecl *D = referencedDecl(&Path))
    return "decl:" + std::to_string(reinterpret_cast<uintptr_t>(D));
  std::string Text = sourceText(Path, Context);
  llvm::erase_if(Text, [](char C) { return isspace(C); });
  return "text:" + Text;
}

class UnitCheckpoints {
public:
  UnitCheckpoints(ClangTidyCheck &Check, const GradientModel &Model,
                  FunctionSummaries &Summaries)
      : Check(Check), Model(Model), Vocab(Model.vocabulary()),
        Summaries(Summaries), Context(Model.context()),
        Confinement(Model.graph(), Summaries) {}

  /// The saves and loads of \p U whose file name does not mention the rank.
  void collect(const CodeUnit &U);
  bool empty() const { return Saves.empty() && Loads.empty(); }
  void run(const CodeUnit &U);

private:
  /// Whether the file name \p Path holds the rank: it mentions it, or it is
  /// a local that a statement of \p U fills with it.
  bool namesRankFile(const CodeUnit &U, const Expr &Path);
  /// The condition on the rank in \p U that decides whether \p S runs.
  const Expr *rankCondition(const CodeUnit &U, const Stmt &S) {
    return Confinement.rankCondition(U, S);
  }
  /// Which side of the `if` testing \p Condition holds \p S: 0 for its
  /// `then`, 1 for its `else`, -1 when no `if` around S tests it.
  int sideOf(const CodeUnit &U, const Stmt &S, const Expr &Condition);
  /// Whether \p S runs on some ranks only: under a condition on the rank,
  /// here or around every call of its unit.
  bool guardedByRank(const CodeUnit &U, const Stmt &S) {
    return Confinement.someRanksOnly(U, S);
  }
  /// The calls of \p U that make the ranks meet.
  std::vector<const Stmt *> collectives(const CodeUnit &U);

  void everyRankWrites(const Access &Save);
  void readBeforeWritten(const CodeUnit &U, const Access &Save);
  void fixedDevice(const Access &Load);
  /// A literal as written (`"ckpt.pt"`), anything else quoted (`'path'`).
  std::string display(const Access &A) const {
    std::string Text = sourceText(*A.Path, Context);
    return spelledStringLiteral(A.Path) ? Text : "'" + Text + "'";
  }

  ClangTidyCheck &Check;
  const GradientModel &Model;
  const Vocabulary &Vocab;
  /// The translation unit's, shared with every check.
  DivergenceAnalysis &analysis() { return Summaries.analysis(); }
  /// Whether \p Path is a parameter of \p U's function that its callers in
  /// this unit pass: each call is the access, where the caller's conditions
  /// and file name show (the callee's summary names the parameter).
  bool passedByCallers(const CodeUnit &U, const Expr &Path) const {
    return parameterIndexOf(*U.Function, &Path) >= 0 &&
           !Model.callers(U).empty();
  }

  FunctionSummaries &Summaries;
  ASTContext &Context;
  RankConfinement Confinement;
  std::vector<Access> Saves, Loads;
  std::optional<std::vector<const Stmt *>> Collectives;
};

bool UnitCheckpoints::namesRankFile(const CodeUnit &U, const Expr &Path) {
  if (Vocab.mentionsRank(&Path))
    return true;
  // A buffer or string the unit fills with the rank:
  // `sprintf(name, "ckpt-%d.pt", rank)`, `name += std::to_string(rank)`.
  const auto *Ref = dyn_cast<DeclRefExpr>(stripObjectWrappers(&Path));
  const auto *Name = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Name || !Name->hasLocalStorage())
    return false;
  auto Writes = [&](const Expr *Target) {
    const auto *R = dyn_cast_or_null<DeclRefExpr>(
        Target ? stripObjectWrappers(Target) : nullptr);
    return R && R->getDecl() == Name;
  };
  return llvm::any_of(U.Stmts, [&](const Stmt *S) {
    const Expr *Target = nullptr;
    if (const auto *Call = dyn_cast<CallExpr>(S); Call && Call->getNumArgs())
      Target = Call->getArg(0);
    else if (const auto *BO = dyn_cast<BinaryOperator>(S);
             BO && BO->isAssignmentOp())
      Target = BO->getLHS();
    return Writes(Target) && Vocab.mentionsRank(S);
  });
}

void UnitCheckpoints::collect(const CodeUnit &U) {
  // torch::save and torch::load, and the project's functions that write or
  // read a file named by an argument (their summaries say which).
  for (const CallExpr *Call : U.Calls) {
    bool Plain = false, SomeRanks = false;
    const Expr *Save =
        Summaries.filePath(*Call, /*Saves=*/true, &Plain, &SomeRanks);
    const Expr *Path = Save ? Save : Summaries.filePath(*Call, false, &Plain);
    // A file name with the rank in it is this rank's own file.
    if (!Path || namesRankFile(U, *Path) || passedByCallers(U, *Path))
      continue;
    (Save ? Saves : Loads)
        .push_back({Call, Path, pathKey(*Path, Context), Plain, SomeRanks});
  }
  // Files handed from one rank to the others with C stdio or streams.
  for (const Stmt *S : U.Stmts) {
    const auto *E = dyn_cast<Expr>(S);
    std::optional<FileAccess> File =
        E ? checkpoints::fileAccess(*E) : std::nullopt;
    if (!File || namesRankFile(U, *File->Path) ||
        passedByCallers(U, *File->Path))
      continue;
    (File->Write ? Saves : Loads)
        .push_back({E, File->Path, pathKey(*File->Path, Context), true});
  }
}

int UnitCheckpoints::sideOf(const CodeUnit &U, const Stmt &S,
                            const Expr &Condition) {
  const Stmt *Child = &S;
  for (const Stmt *P = U.Parent.lookup(Child); P;
       Child = P, P = U.Parent.lookup(P)) {
    const auto *If = dyn_cast<IfStmt>(P);
    if (!If || !If->getCond() || !U.contains(If->getCond(), &Condition))
      continue;
    if (Child == If->getThen())
      return 0;
    if (Child == If->getElse())
      return 1;
  }
  return -1;
}

std::vector<const Stmt *> UnitCheckpoints::collectives(const CodeUnit &U) {
  if (Collectives)
    return *Collectives;
  Collectives.emplace();
  for (const Stmt *S : U.Stmts) {
    const auto *E = dyn_cast<Expr>(S);
    if (!E || (!isa<CallExpr>(E) && !isa<CXXConstructExpr>(E)))
      continue;
    bool Meets = analysis().sites().collective(*E).has_value();
    if (const auto *Call = dyn_cast<CallExpr>(E); !Meets && Call)
      Meets = analysis().sites().backward(*U.Function, *Call).has_value();
    if (Meets)
      Collectives->push_back(S);
  }
  return *Collectives;
}

void UnitCheckpoints::run(const CodeUnit &U) {
  // A plain file every rank writes may be meant per machine (a local
  // scratch directory); only its hand-off from one rank is reported.
  for (const Access &Save : Saves) {
    if (guardedByRank(U, *Save.Call))
      readBeforeWritten(U, Save);
    else if (!Save.File && !Save.SomeRanks &&
             !Confinement.mayBeSomeRanksOnly(U, *Save.Call))
      everyRankWrites(Save);
  }
  for (const Access &Load : Loads)
    if (!Load.File && !guardedByRank(U, *Load.Call))
      fixedDevice(Load);
}

void UnitCheckpoints::everyRankWrites(const Access &Save) {
  Check.diag(Save.Call->getBeginLoc(),
             "every rank writes checkpoint %0 at the same time: the writers "
             "truncate and interleave one another's output, and on a shared "
             "file system the file tears; save on one rank only (under "
             "'if (rank == 0)') or put the rank in the file name")
      << display(Save);
}

void UnitCheckpoints::readBeforeWritten(const CodeUnit &U, const Access &Save) {
  const Expr *Condition = rankCondition(U, *Save.Call);
  if (!Condition)
    return; // the condition is in a caller: out of this unit's flow
  std::string ConditionText = sourceText(*Condition, Context);
  std::vector<const Stmt *> Avoid = collectives(U);
  Avoid.push_back(Save.Call);
  for (const Access &Load : Loads) {
    if (Load.Key != Save.Key || Load.File != Save.File)
      continue;
    // Read on the same side of the same condition: the writing ranks read
    // their own file.
    if (const Expr *LoadCondition = rankCondition(U, *Load.Call);
        LoadCondition &&
        sourceText(*LoadCondition, Context) == ConditionText &&
        sideOf(U, *Load.Call, *LoadCondition) ==
            sideOf(U, *Save.Call, *Condition))
      continue;
    // The ranks that skip the save reach the load without meeting the
    // writer in a collective first.
    if (!Model.flow(U).reachable(Condition, Load.Call, Avoid))
      continue;
    Check.diag(Save.Call->getBeginLoc(),
               "%select{checkpoint|file}1 %0 is written on one rank and read "
               "on the others with no collective in between: the readers can "
               "open it before the write completes and %select{load a stale "
               "or partial state, so the replicas start from different "
               "parameters|read a stale or partial file, so the ranks go on "
               "from different data (polling for the file does not wait for "
               "the writer to finish)}1; call a barrier between the "
               "%select{save and the load|write and the read}1, or broadcast "
               "the %select{state|contents}1 instead of reading the file")
        << display(Save) << Save.File;
    Check.diag(Condition->getBeginLoc(),
               "only ranks where this condition holds write it",
               DiagnosticIDs::Note);
    Check.diag(Load.Call->getBeginLoc(),
               "the other ranks read it here, possibly while it is written",
               DiagnosticIDs::Note);
    return;
  }
}

void UnitCheckpoints::fixedDevice(const Access &Load) {
  std::optional<FixedDevice> Device =
      checkpoints::checkpointLoadDevice(*cast<CallExpr>(Load.Call));
  if (!Device || Vocab.mentionsRank(Device->Where))
    return;
  Check.diag(Load.Call->getBeginLoc(),
             "every rank loads checkpoint %0 onto cuda:%1: the state of every "
             "rank lands on that one GPU instead of the rank's own device, "
             "which runs out of memory or leaves ranks computing on a device "
             "they do not own; load onto this rank's device "
             "(torch::Device(torch::kCUDA, local_rank)) or onto the CPU and "
             "move the model after")
      << display(Load) << static_cast<int>(Device->Index);
  Check.diag(Device->Where->getBeginLoc(), "the device is fixed here",
             DiagnosticIDs::Note);
}

} // namespace

void CheckpointRaceCheck::analyze(const GradientModel &Model) {
  FunctionSummaries &Summaries = summaries(Model.context());
  for (const auto &U : Model.units()) {
    if (!U->Reported || !Model.isDistributed(*U))
      continue;
    UnitCheckpoints Checkpoints(*this, Model, Summaries);
    Checkpoints.collect(*U);
    if (!Checkpoints.empty())
      Checkpoints.run(*U);
  }
}

} // namespace clang::tidy::ddp
