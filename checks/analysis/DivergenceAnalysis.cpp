//===--- DivergenceAnalysis.cpp - summaries across a translation unit -----===//
//
// The parts of the divergence analysis that connect functions: what a helper
// returns, what a field holds, what callers pass for a parameter.
//
//===----------------------------------------------------------------------===//

#include "analysis/Divergence.h"

#include "analysis/ASTUtils.h"
#include "analysis/DivergenceInternal.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang::tidy::ddp {

DivergenceAnalysis::DivergenceAnalysis(const Vocabulary &Vocab,
                                       ASTContext &Context)
    : Vocab(Vocab), Context(Context), Sites(Vocab, Context) {}

DivergenceAnalysis::~DivergenceAnalysis() = default;

FunctionDivergence *DivergenceAnalysis::function(const FunctionDecl &FD) {
  auto It = Functions.find(&FD);
  if (It != Functions.end())
    return It->second.get();
  if (!FD.getBody() || !InProgress.insert(&FD).second)
    return nullptr;
  auto Facts = std::make_unique<FunctionDivergence>(*this, FD);
  InProgress.erase(&FD);
  if (!Facts->valid())
    Facts.reset();
  FunctionDivergence *Result = Facts.get();
  Functions[&FD] = std::move(Facts);
  return Result;
}

const ParentMap &DivergenceAnalysis::parents(const FunctionDecl &FD) {
  std::unique_ptr<ParentMap> &Map = Parents[&FD];
  if (!Map)
    Map = std::make_unique<ParentMap>(const_cast<Stmt *>(FD.getBody()));
  return *Map;
}

Divergence DivergenceAnalysis::returned(const FunctionDecl &FD) {
  const FunctionDecl *Def = userDefinition(FD);
  if (!Def)
    return {};
  FunctionDivergence *Facts = function(*Def);
  return Facts ? Facts->returned() : Divergence();
}

namespace {

/// The field `this->F` (or `F` in a member function) that \p E names; null
/// when it names something else.
const FieldDecl *thisField(const Expr *E) {
  const auto *ME =
      dyn_cast_or_null<MemberExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
  if (!ME || !isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  return dyn_cast<FieldDecl>(ME->getMemberDecl());
}

} // namespace

void forEachOwnFieldAssignment(
    const FunctionDecl &Def,
    llvm::function_ref<void(const FieldDecl &, const Stmt *, const Expr *)>
        Visit) {
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(&Def))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isWritten() && Init->getMember())
        Visit(*Init->getMember(), Init->getInit(), Init->getInit());
  forEachStmt(Def.getBody(), [&](const Stmt *S) {
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (const FieldDecl *F = thisField(BO->getLHS());
          F && BO->isAssignmentOp())
        Visit(*F, S, BO->getRHS());
    } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
      if (const FieldDecl *F = thisField(UO->getSubExpr());
          F && UO->isIncrementDecrementOp())
        Visit(*F, S, nullptr);
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
      if (Op->getNumArgs() >= 1 && Op->isAssignmentOp())
        if (const FieldDecl *F = thisField(Op->getArg(0)))
          Visit(*F, S, Op->getNumArgs() == 2 ? Op->getArg(1) : nullptr);
    }
  });
}

namespace {

/// The assignments to field \p F in one method \p Def: (statement, value
/// assigned or null for ++ / --).
llvm::SmallVector<std::pair<const Stmt *, const Expr *>, 4>
fieldAssignments(const FieldDecl &F, const FunctionDecl &Def) {
  llvm::SmallVector<std::pair<const Stmt *, const Expr *>, 4> Found;
  forEachOwnFieldAssignment(
      Def, [&](const FieldDecl &G, const Stmt *S, const Expr *Value) {
        if (&G == &F)
          Found.push_back({S, Value});
      });
  return Found;
}

} // namespace

Divergence DivergenceAnalysis::field(const FieldDecl &F) {
  const auto *RD = dyn_cast<CXXRecordDecl>(F.getParent());
  if (!RD || inSystemHeader(*RD))
    return {};
  auto It = Fields.find(&F);
  if (It != Fields.end())
    return It->second;
  if (!FieldsInProgress.insert(&F).second)
    return {};

  Divergence Result;
  for (const CXXMethodDecl *Method : RD->methods()) {
    const FunctionDecl *Def = userDefinition(*Method);
    if (!Def)
      continue;
    auto Assignments = fieldAssignments(F, *Def);
    if (Assignments.empty())
      continue;
    FunctionDivergence *Facts = function(*Def);
    // Asked from inside that very method's analysis (it reads the field it
    // also assigns): analyse it again on the side, with this field unknown.
    if (!Facts && InProgress.count(Def)) {
      Scratch.push_back(std::make_unique<FunctionDivergence>(*this, *Def));
      Facts = Scratch.back()->valid() ? Scratch.back().get() : nullptr;
    }
    if (!Facts)
      continue;
    // What the method leaves in the field; a constructor's initialiser is
    // no statement of its body, so its value is taken where it is written.
    std::optional<Divergence> AtExit = Facts->ownFieldAtExit(F);
    if (AtExit)
      Result.merge(*AtExit);
    for (const auto &[Where, Value] : Assignments) {
      if (AtExit && Facts->blockOf(Where))
        continue;
      if (Value)
        Result.merge(Facts->value(Value));
      Result.merge(Facts->implicitAt(Where));
    }
  }
  FieldsInProgress.erase(&F);
  Result = Result.sourcesOnly();
  Fields[&F] = Result;
  return Result;
}

const std::vector<DivergenceAnalysis::CallSite> &
DivergenceAnalysis::callersOf(const FunctionDecl &FD) {
  if (!Callers) {
    Callers.emplace();
    forEachUserCall(Context, [&](const FunctionDecl &Caller,
                                 const CallExpr &Call) {
      if (const FunctionDecl *Callee = Call.getDirectCallee())
        (*Callers)[Callee->getCanonicalDecl()].push_back({&Caller, &Call});
    });
  }
  return (*Callers)[FD.getCanonicalDecl()];
}

Divergence DivergenceAnalysis::passedFor(const FunctionDecl &FD,
                                         unsigned Index) {
  auto Key = std::make_pair(FD.getCanonicalDecl(), Index);
  auto It = Passed.find(Key);
  if (It != Passed.end())
    return It->second;
  Passed[Key] = Divergence(); // a recursive call passes nothing more
  Divergence Result;
  std::vector<CallSite> Sites = callersOf(FD);
  for (const CallSite &Site : Sites) {
    const CallExpr &Call = *Site.Call;
    unsigned Offset = isa<CXXOperatorCallExpr>(Call) &&
                              isa<CXXMethodDecl>(Call.getDirectCallee()) &&
                              !cast<CXXMethodDecl>(Call.getDirectCallee())
                                   ->isStatic()
                          ? 1
                          : 0;
    if (Index + Offset >= Call.getNumArgs())
      continue;
    const FunctionDecl *Caller = userDefinition(*Site.Caller);
    FunctionDivergence *Facts = Caller ? function(*Caller) : nullptr;
    if (!Facts)
      continue;
    const Expr *Arg = Call.getArg(Index + Offset);
    Result.merge(fromCallers(*Caller, Facts->value(Arg)).through(Arg));
  }
  Passed[Key] = Result;
  return Result;
}

Divergence DivergenceAnalysis::fromCallers(const FunctionDecl &FD,
                                           const Divergence &D) {
  Divergence Result = D.sourcesOnly();
  for (unsigned I = 0; I < 64; ++I)
    if (D.parameters() & (uint64_t(1) << I))
      Result.merge(passedFor(FD, I));
  return Result;
}

} // namespace clang::tidy::ddp
