//===- DivergenceCommunicators.cpp - Communicators of some ranks ----------===//
//
// A communicator split off by what differs between ranks holds some of them
// only: a branch that the rank of another communicator decides may pick
// exactly its members, and the analysis cannot show otherwise.
//
//===----------------------------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "analysis/Divergence.h"
#include "vocabulary/Collectives.h"
#include "vocabulary/Vocabulary.h"

namespace clang::tidy::ddp {

namespace {
/// The variable or own field an output argument (`&comm`, `&this->comm_`)
/// writes.
const ValueDecl *outputDecl(const Expr *Output) {
  Output = Output ? Output->IgnoreParenImpCasts() : nullptr;
  if (const auto *Address = dyn_cast_or_null<UnaryOperator>(Output);
      Address && Address->getOpcode() == UO_AddrOf)
    return referencedDecl(Address->getSubExpr());
  return nullptr;
}
} // namespace

const DivergenceAnalysis::CommunicatorFacts &
DivergenceAnalysis::communicatorFacts() {
  if (Communicators)
    return *Communicators;
  Communicators.emplace();
  llvm::SmallVector<std::pair<const FunctionDecl *, const CallExpr *>, 4>
      Splits;
  forEachUserCall(Context, [&](const FunctionDecl &Caller,
                               const CallExpr &Call) {
    if (collectives::communicatorSplit(Call))
      Splits.push_back({&Caller, &Call});
    else if (const Expr *Out = Vocab.rankOutputArgument(Call))
      if (const ValueDecl *Rank = outputDecl(Out))
        Communicators->RankOf[Rank] =
            Call.getNumArgs() ? referencedDecl(Call.getArg(0)) : nullptr;
  });
  // The colour's divergence needs the flow facts, which may ask for these
  // facts in turn: read after the index is in place.
  for (auto [Caller, Call] : Splits) {
    std::optional<collectives::CommunicatorSplit> Split =
        collectives::communicatorSplit(*Call);
    const ValueDecl *Out = outputDecl(Split->Output);
    if (!Out)
      continue;
    bool Some = !Split->Colour;
    if (!Some)
      if (const FunctionDecl *Def = userDefinition(*Caller))
        if (FunctionDivergence *Facts = function(*Def))
          Some = Facts->value(Split->Colour).diverges();
    auto [It, New] = Communicators->Subgroups.try_emplace(Out, Some);
    if (!New)
      It->second &= Some;
  }
  return *Communicators;
}

bool DivergenceAnalysis::isSubgroupCommunicator(const ValueDecl &Comm,
                                                unsigned Depth) {
  const CommunicatorFacts &Facts = communicatorFacts();
  if (auto It = Facts.Subgroups.find(&Comm); It != Facts.Subgroups.end())
    return It->second;
  const auto *Param = dyn_cast<ParmVarDecl>(&Comm);
  const auto *Callee =
      Param ? dyn_cast<FunctionDecl>(Param->getDeclContext()) : nullptr;
  if (!Callee || Depth > 4)
    return false;
  unsigned Index = Param->getFunctionScopeIndex();
  // A copy: the recursion below may add to the index of callers.
  std::vector<CallSite> Sites = callersOf(*Callee);
  return !Sites.empty() && llvm::all_of(Sites, [&](const CallSite &Site) {
    if (Index >= Site.Call->getNumArgs() ||
        isa<CXXOperatorCallExpr>(Site.Call))
      return false;
    const ValueDecl *Passed = referencedDecl(Site.Call->getArg(Index));
    return Passed && isSubgroupCommunicator(*Passed, Depth + 1);
  });
}

std::optional<const ValueDecl *>
DivergenceAnalysis::rankCommunicator(const ValueDecl &Rank) {
  const CommunicatorFacts &Facts = communicatorFacts();
  if (auto It = Facts.RankOf.find(&Rank); It != Facts.RankOf.end())
    return It->second;
  return std::nullopt;
}

} // namespace clang::tidy::ddp
