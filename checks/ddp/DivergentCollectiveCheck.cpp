//===--- DivergentCollectiveCheck.cpp - ddp-divergent-collective ----------===//

#include "ddp/DivergentCollectiveCheck.h"
#include "analysis/ASTUtils.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

#include <string>
#include <vector>

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {

// Bound-node ids.
constexpr llvm::StringLiteral FunctionId = "function";

//--- What a diagnostic says about each source ------------------------------

const char *dependsOn(DivergenceSource S) {
  switch (S) {
  case DivergenceSource::Rank:
    return "depends on the rank";
  case DivergenceSource::GradientPresence:
    return "depends on whether this rank has a gradient";
  case DivergenceSource::LocalData:
    return "depends on this rank's own data (a loss or metric that was not "
           "reduced across ranks)";
  case DivergenceSource::GradientValue:
    return "depends on this rank's gradients before they are reduced";
  case DivergenceSource::TensorShape:
    return "depends on the shape of a tensor local to this rank";
  case DivergenceSource::LoaderExhaustion:
    return "depends on whether this rank's data loader is exhausted";
  case DivergenceSource::BatchCount:
    return "depends on how many batches this rank processed";
  case DivergenceSource::ProcessEvent:
    return "depends on what reaches each process on its own (a signal, a "
           "clock)";
  }
  return "differs between ranks";
}

const char *howToFix(DivergenceSource S) {
  switch (S) {
  case DivergenceSource::Rank:
    return "issue it on every rank (a root/non-root split must call the "
           "matching collective on both sides)";
  case DivergenceSource::GradientPresence:
    return "materialise a zero gradient (torch::zeros_like) instead of "
           "skipping, and reduce on every rank";
  case DivergenceSource::ProcessEvent:
    return "agree on it first (all-reduce the flag with MAX, or broadcast "
           "rank 0's decision), so that every rank takes the same branch";
  default:
    return "reduce the value across ranks before testing it, so that every "
           "rank takes the same branch";
  }
}

const char *originNote(DivergenceSource S) {
  switch (S) {
  case DivergenceSource::Rank:
    return "the rank comes from here";
  case DivergenceSource::GradientPresence:
    return "whether the gradient exists is read here";
  case DivergenceSource::LocalData:
    return "this rank's own data comes from here";
  case DivergenceSource::GradientValue:
    return "an unreduced gradient is read here";
  case DivergenceSource::TensorShape:
    return "the shape of a rank-local tensor is read here";
  case DivergenceSource::LoaderExhaustion:
    return "this rank's data loader position is read here";
  case DivergenceSource::BatchCount:
    return "this loop counts this rank's batches";
  case DivergenceSource::ProcessEvent:
    return "this process's own signal flag or clock is read here";
  }
  return "";
}

std::string subjectOf(const CollectiveSite &S, const Expr &Call) {
  std::string Callee = S.Callee->getNameAsString();
  // A lambda, or a std::function, is called through the variable or field
  // that holds it.
  if (const auto *Method = dyn_cast<CXXMethodDecl>(S.Callee);
      Method && (Method->getParent()->isLambda() ||
                 Method->getOverloadedOperator() == OO_Call)) {
    const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
    const ValueDecl *Holder =
        Op && Op->getNumArgs() > 0 ? referencedDecl(Op->getArg(0)) : nullptr;
    if (Holder)
      Callee = Holder->getNameAsString();
    else if (Method->getParent()->isLambda())
      Callee = "lambda";
  }
  switch (S.How) {
  case CollectiveSite::Via::Api:
    return "collective '" + Callee + "'";
  case CollectiveSite::Via::Helper:
    if (S.Api)
      return "'" + Callee + "', which issues collective '" +
             S.Api->getNameAsString() + "',";
    return "'" + Callee + "', which issues collectives,";
  case CollectiveSite::Via::Communicator:
    return "'" + Callee +
           "', which is handed the communicator and so issues collectives,";
  case CollectiveSite::Via::Backward:
    if (isa_and_nonnull<FunctionDecl>(S.Wrapper))
      return "'backward', which runs the all-reducing gradient hooks "
             "installed by '" +
             S.Wrapper->getNameAsString() + "',";
    return "'backward', which runs the all-reducing gradient hooks of "
           "wrapper '" +
           (S.Wrapper ? S.Wrapper->getNameAsString() : std::string("?")) +
           "',";
  }
  return "'" + Callee + "'";
}

const char *exitName(const Stmt *Exit) {
  if (isa<ReturnStmt>(Exit))
    return "return";
  if (isa<BreakStmt>(Exit))
    return "break";
  if (isa<ContinueStmt>(Exit))
    return "continue";
  if (isa<CXXThrowExpr>(Exit))
    return "throw";
  return "goto";
}

} // namespace

void DivergentCollectiveCheck::registerMatchers(MatchFinder *Finder) {
  // Cheapest test first: the plugin meets every function of LibTorch's
  // headers here.
  Finder->addMatcher(functionDecl(unless(isExpansionInSystemHeader()),
                                  isDefinition(), unless(isImplicit()),
                                  hasBody(compoundStmt()))
                         .bind(FunctionId),
                     this);
}

void DivergentCollectiveCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  // Templates are analysed in their instantiations, where calls resolve,
  // and as written when nothing instantiates them.
  if (!Function || isInstantiatedPattern(*Function))
    return;
  if (!Analysis || &Analysis->context() != Result.Context)
    Analysis = std::make_unique<DivergenceAnalysis>(Vocab, *Result.Context);
  checkFunction(*Function);
}

void DivergentCollectiveCheck::checkFunction(const FunctionDecl &Function) {
  if (!Analysis->sites().issues(Function))
    return;
  FunctionDivergence *Flow = Analysis->function(Function);
  if (!Flow)
    return;
  DivergentSites Sites(*Analysis, Function, *Flow);
  if (!Sites.collect())
    return;
  std::vector<DivergentSites::Finding> Findings = Sites.decide();
  for (const DivergentSites::Finding *F : Sites.toReport(Findings))
    report(*F, Sites);
}

void DivergentCollectiveCheck::report(const DivergentSites::Finding &F,
                                      const DivergentSites &Sites) {
  DivergenceSource Why = F.Condition.primary();
  const Expr *Call = F.Collective->Call;
  std::string Subject = subjectOf(F.Collective->What, *Call);
  if (F.Exit)
    diag(Call->getBeginLoc(),
         "%0 is skipped %select{|from the next iteration on }4by ranks "
         "that leave early through '%1' on a condition that %2; the ranks "
         "that stay wait forever in it (the job hangs); %3")
        << Subject << exitName(F.Exit) << dependsOn(Why) << howToFix(Why)
        << Sites.precedes(Call, F.Exit);
  else
    diag(Call->getBeginLoc(),
         "%0 runs only on ranks where a condition that %1 holds; ranks "
         "that skip it wait forever in their next collective (the job "
         "hangs); %2")
        << Subject << dependsOn(Why) << howToFix(Why);
  reportNotes(F, Sites);
}

void DivergentCollectiveCheck::reportNotes(const DivergentSites::Finding &F,
                                           const DivergentSites &Sites) {
  DivergenceSource Why = F.Condition.primary();
  const Expr *Condition = Sites.condition(F);
  if (Condition)
    diag(Condition->getBeginLoc(), "this condition %0", DiagnosticIDs::Note)
        << dependsOn(Why);
  if (F.Exit)
    diag(F.Exit->getBeginLoc(), "ranks where it holds leave through this '%0'",
         DiagnosticIDs::Note)
        << exitName(F.Exit);
  if (const Stmt *Origin = F.Condition.origin(Why))
    if (!Condition || !Sites.isWithin(Origin, Condition))
      diag(Origin->getBeginLoc(), originNote(Why), DiagnosticIDs::Note);
  // The chain into the helper: where its body issues the collective.
  const CollectiveSite &What = F.Collective->What;
  if (What.How == CollectiveSite::Via::Helper && What.Callee)
    if (const Expr *Inside = Analysis->sites().firstIssued(*What.Callee))
      diag(Inside->getBeginLoc(), "the collective is issued here, inside %0",
           DiagnosticIDs::Note)
          << What.Callee;
}

} // namespace clang::tidy::ddp
