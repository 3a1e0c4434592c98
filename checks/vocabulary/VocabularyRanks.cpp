//===--- VocabularyRanks.cpp - rank and world-size sources ----------------===//
//
// Where a value that differs between ranks comes from (rank queries,
// rank environment variables, names that hold the rank), and where
// the world size comes from.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/Vocabulary.h"
#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp {

namespace {

template <typename QueryFunction>
bool returnsQueried(const std::vector<QueryFunction> &Functions,
                    const FunctionDecl &FD) {
  for (const QueryFunction &F : Functions)
    if (F.OutputArgument < 0 && F.Name.matches(FD))
      return true;
  return false;
}

template <typename QueryFunction>
const Expr *queriedOutputArgument(const std::vector<QueryFunction> &Functions,
                                  const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return nullptr;
  for (const QueryFunction &F : Functions)
    if (F.OutputArgument >= 0 &&
        static_cast<unsigned>(F.OutputArgument) < Call.getNumArgs() &&
        F.Name.matches(*FD))
      return Call.getArg(F.OutputArgument);
  return nullptr;
}

/// The string literal a call's argument \p I spells, if it is one.
std::optional<llvm::StringRef> stringArgument(const CallExpr &Call, unsigned I) {
  if (I >= Call.getNumArgs())
    return std::nullopt;
  const Expr *Arg = stripObjectWrappers(Call.getArg(I));
  if (const auto *Ctor = dyn_cast_or_null<CXXConstructExpr>(Arg))
    if (Ctor->getNumArgs() >= 1) // std::string("WORLD_SIZE")
      Arg = Ctor->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Lit = dyn_cast_or_null<StringLiteral>(Arg))
    return Lit->getString();
  return std::nullopt;
}

bool isUpperAscii(char C) { return C >= 'A' && C <= 'Z'; }
bool isLowerAscii(char C) { return C >= 'a' && C <= 'z'; }


bool isBoolType(QualType T) {
  return !T.isNull() && T.getNonReferenceType()->isBooleanType();
}

} // namespace

/// The lower-case words of an identifier: `local_rank`, `localRank` and
/// `LOCAL_RANK` all give {local, rank}; `m_rank_` gives {m, rank}.
llvm::SmallVector<std::string, 4> identifierWords(llvm::StringRef Name) {
  llvm::SmallVector<std::string, 4> Words;
  std::string Current;
  auto Flush = [&] {
    if (!Current.empty())
      Words.push_back(std::move(Current));
    Current.clear();
  };
  for (size_t I = 0; I < Name.size(); ++I) {
    char C = Name[I];
    if (C == '_') {
      Flush();
      continue;
    }
    // A new word starts at an upper-case letter that follows a lower-case
    // letter or a digit (`myRank`), or that starts a capitalised word after
    // an acronym (`MPIRank` -> mpi, rank).
    if (isUpperAscii(C) && !Current.empty() &&
        (!isUpperAscii(Name[I - 1]) ||
         (I + 1 < Name.size() && isLowerAscii(Name[I + 1]))))
      Flush();
    Current.push_back(llvm::toLower(C));
  }
  Flush();
  return Words;
}

//===----------------------------------------------------------------------===//
// Rank sources
//===----------------------------------------------------------------------===//

bool RankVocabulary::returnsRank(const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  if (returnsQueried(RankFunctions, *FD))
    return true;
  // getenv("RANK") and its relatives.
  llvm::StringRef Name = FD->getName();
  if ((Name == "getenv" || Name == "secure_getenv") && Call.getNumArgs() == 1)
    if (std::optional<llvm::StringRef> Var = stringArgument(Call, 0))
      return llvm::is_contained(RankEnvironmentVariables, *Var);
  return false;
}

const Expr *RankVocabulary::rankOutputArgument(const CallExpr &Call) const {
  return queriedOutputArgument(RankFunctions, Call);
}

//===----------------------------------------------------------------------===//
// World-size sources
//===----------------------------------------------------------------------===//

bool RankVocabulary::returnsWorldSize(const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  if (returnsQueried(WorldSizeFunctions, *FD))
    return true;
  // getenv("WORLD_SIZE"), and configuration readers handed the same name
  // (`env_int("WORLD_SIZE", 1)`): the value is the launcher's world size.
  if (FD->getReturnType()->isVoidType())
    return false;
  if (std::optional<llvm::StringRef> Var = stringArgument(Call, 0))
    return llvm::is_contained(WorldSizeEnvironmentVariables, *Var);
  return false;
}

const Expr *
RankVocabulary::worldSizeOutputArgument(const CallExpr &Call) const {
  return queriedOutputArgument(WorldSizeFunctions, Call);
}

bool ranks::isWorldSizeName(llvm::StringRef Name) {
  std::string Lower = Name.lower();
  llvm::StringRef N(Lower);
  N.consume_front("m_");
  N = N.trim('_');
  if (llvm::StringSwitch<bool>(N)
          .Cases("ws", "nranks", "n_ranks", "num_ranks", "numranks", true)
          .Cases("nproc", "nprocs", "n_procs", "num_procs", "numprocs", true)
          .Cases("num_processes", "nprocesses", "comm_size", "commsize", true)
          .Cases("num_replicas", "numreplicas", "replicas", true)
          .Cases("ngpus", "n_gpus", "num_gpus", "numgpus", true)
          .Default(false))
    return true;
  // world, world_size, kWorldSize; not world_rank.
  return N.contains("world") && !N.contains("rank");
}

bool ranks::isSizeMethodName(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name.lower())
      .Cases("size", "getsize", "get_size", "nranks", "num_ranks", true)
      .Default(false);
}

bool ranks::looksLikeAveraging(llvm::StringRef Name) {
  return Name == "/" || Name == "/=" ||
         nameContainsAny(Name, {"div", "mul_", "avg", "average", "world",
                                "getsize", "comm_size"});
}

bool RankVocabulary::isRankName(const NamedDecl &D) const {
  if (!D.getDeclName().isIdentifier())
    return false;
  if (RankVariables.matches(D))
    return true;
  llvm::SmallVector<std::string, 4> Words = identifierWords(D.getName());
  if (Words.empty())
    return false;
  QualType Type;
  if (const auto *FD = dyn_cast<FunctionDecl>(&D))
    Type = FD->getReturnType();
  else if (const auto *VD = dyn_cast<ValueDecl>(&D))
    Type = VD->getType();
  auto Has = [&](llvm::StringRef W) { return llvm::is_contained(Words, W); };

  // `is_main`, `isMaster`, `is_root_process`, `master_process`,
  // `is_rank_zero`: a flag set on one rank only.
  if (isBoolType(Type) && (Words.front() == "is" || Words.back() == "process"))
    return Has("main") || Has("master") || Has("root") || Has("leader") ||
           Has("chief") || Has("primary") || Has("rank0") ||
           (Has("rank") && Has("zero"));

  // `rank`, `rank_`, `m_rank`, `local_rank`, `myRank`, `getRank`, `myrank`.
  llvm::StringRef Last = Words.back();
  if (Last != "rank" && Last != "myrank" && Last != "localrank" &&
      Last != "worldrank" && Last != "globalrank")
    return false;
  // Another process's rank, or a count: `root_rank`, `src_rank`,
  // `num_rank`, `master_rank`, `samples_per_rank`. These hold the same value
  // on every rank, so a condition on them alone takes the same branch
  // everywhere: a broadcast's root (`broadcast(t, root_rank)`) must be the
  // same on every rank for the collective to match at all, and a count of
  // ranks is the world's. Only a comparison with this process's own rank
  // (`rank == root_rank`) tells the ranks apart, and `rank` says so.
  static constexpr llvm::StringLiteral Others[] = {
      "root",  "src",   "source", "dst",    "dest",   "destination",
      "target", "peer", "num",    "n",      "max",    "min",
      "total", "other", "remote", "master", "leader", "main",
      "head",  "owner", "next",   "prev",   "last",   "first",
      "per",   "each",  "every"};
  for (const std::string &W : Words)
    if (llvm::is_contained(Others, W))
      return false;
  return true;
}

bool RankVocabulary::readsRankEnvironment(const CallExpr &Call) const {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier() ||
      !llvm::StringRef(FD->getName().lower()).contains("env"))
    return false;
  for (const Expr *Arg : Call.arguments())
    if (const auto *Lit =
            dyn_cast<StringLiteral>(Arg->IgnoreParenImpCasts()))
      if (llvm::is_contained(RankEnvironmentVariables, Lit->getString()))
        return true;
  return false;
}

bool RankVocabulary::namesRank(const Stmt &S) const {
  if (const auto *Call = dyn_cast<CallExpr>(&S)) {
    if (returnsRank(*Call) || readsRankEnvironment(*Call))
      return true;
    const FunctionDecl *FD = Call->getDirectCallee();
    return FD && isRankName(*FD);
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(&S))
    return isRankName(*DRE->getDecl());
  if (const auto *ME = dyn_cast<MemberExpr>(&S))
    return isRankName(*ME->getMemberDecl());
  return false;
}

bool RankVocabulary::mentionsRank(const Stmt *S) const {
  if (!S)
    return false;
  if (namesRank(*S))
    return true;
  // One step through a local: `const bool leader = pg->getRank() == 0;`
  if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
    if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
      if (V->isLocalVarDecl() && V->getInit() && V->getInit() != S &&
          mentionsRank(V->getInit()))
        return true;
  for (const Stmt *Child : S->children())
    if (mentionsRank(Child))
      return true;
  return false;
}

} // namespace clang::tidy::ddp

namespace clang::tidy::ddp {

bool ranks::readsClock(const CallExpr &Call) {
  const FunctionDecl *FD = Call.getDirectCallee();
  if (!FD || !FD->getDeclName().isIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  const auto *Method = dyn_cast<CXXMethodDecl>(FD);
  if (Method)
    return Name == "now" && Method->isStatic() &&
           identifierName(Method->getParent()).ends_with("clock");
  bool Global = FD->isInStdNamespace() ||
                FD->getDeclContext()->getRedeclContext()->isTranslationUnit() ||
                FD->isExternC();
  return Global && llvm::StringSwitch<bool>(Name)
                       .Cases("time", "clock", "gettimeofday", "clock_gettime",
                              "MPI_Wtime", "omp_get_wtime", true)
                       .Default(false);
}

bool ranks::differsPerProcess(const Stmt *S, unsigned Depth) {
  if (!S || Depth > 8)
    return false;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(S))
    if (const CXXRecordDecl *RD = Construct->getConstructor()->getParent();
        RD && identifierName(RD) == "random_device" && RD->isInStdNamespace())
      return true;
  if (const auto *Call = dyn_cast<CallExpr>(S)) {
    if (readsClock(*Call))
      return true;
    if (const FunctionDecl *FD = Call->getDirectCallee();
        FD && identifierName(FD) == "getpid")
      return true;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(S))
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
        Var && Var->hasLocalStorage() && Var->getInit())
      return differsPerProcess(Var->getInit(), Depth + 1);
  for (const Stmt *Child : S->children())
    if (differsPerProcess(Child, Depth + 1))
      return true;
  return false;
}

std::optional<bool>
ranks::soleProcessOnThen(const Expr *Condition,
                         llvm::function_ref<bool(const Expr *)> IsWorldSize,
                         const ASTContext &Context) {
  const auto *Compare = dyn_cast_or_null<BinaryOperator>(
      Condition ? Condition->IgnoreParenImpCasts() : nullptr);
  if (!Compare || !Compare->isComparisonOp())
    return std::nullopt;
  BinaryOperatorKind Op = Compare->getOpcode();
  const Expr *World = Compare->getLHS(), *Number = Compare->getRHS();
  if (!IsWorldSize(World)) {
    std::swap(World, Number);
    Op = BinaryOperator::reverseComparisonOp(Op);
    if (!IsWorldSize(World))
      return std::nullopt;
  }
  Expr::EvalResult K;
  if (Number->isValueDependent() || !Number->EvaluateAsInt(K, Context))
    return std::nullopt;
  int64_t N = K.Val.getInt().getExtValue();
  if ((Op == BO_EQ && N == 1) || (Op == BO_LE && N == 1) || (Op == BO_LT && N == 2))
    return true;
  if ((Op == BO_NE && N == 1) || (Op == BO_GT && N == 1) || (Op == BO_GE && N == 2))
    return false;
  return std::nullopt;
}

} // namespace clang::tidy::ddp
