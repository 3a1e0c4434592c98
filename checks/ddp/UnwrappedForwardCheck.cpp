//===--- UnwrappedForwardCheck.cpp - ddp-unwrapped-forward ----------------===//

#include "ddp/UnwrappedForwardCheck.h"

#include "analysis/ASTUtils.h"
#include "analysis/ParameterLoops.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {
constexpr llvm::StringLiteral CallId = "call";
constexpr llvm::StringLiteral FunctionId = "function";

/// The module a computation runs on: a forward pass, or any member function
/// of a module class that returns a tensor (`compute_loss`, `embed`).
const Expr *computationReceiver(const CallExpr &Call, const Vocabulary &Vocab) {
  if (const Expr *Receiver = Vocab.forwardReceiver(Call))
    return Receiver;
  const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call);
  if (!Member || !tensors::isTensor(Call.getType()))
    return nullptr;
  const CXXMethodDecl *MD = Member->getMethodDecl();
  if (!MD || !modules::isModuleClass(*MD->getParent()))
    return nullptr;
  return Member->getImplicitObjectArgument();
}

AST_MATCHER_P(CallExpr, isModuleComputation, const Vocabulary *, Vocab) {
  return computationReceiver(Node, *Vocab) != nullptr;
}

} // namespace

void UnwrappedForwardCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(isModuleComputation(&Vocab), unless(isExpansionInSystemHeader()),
               forFunction(functionDecl(isDefinition()).bind(FunctionId)))
          .bind(CallId),
      this);
}

namespace {
/// Whether \p S holds \p Call or reads one of \p Tainted.
bool mentions(const Stmt *S, const CallExpr &Call,
              const llvm::SmallPtrSetImpl<const VarDecl *> &Tainted) {
  return containsWhere(S, [&](const Stmt *X) {
    if (X == &Call)
      return true;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        return Tainted.contains(V);
    return false;
  });
}

/// The assigned side and the value of an assignment, built-in or overloaded.
std::pair<const Expr *, const Expr *> assignedFrom(const Expr *A) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(A))
    return Op->getNumArgs() == 2
               ? std::make_pair(Op->getArg(0), Op->getArg(1))
               : std::make_pair(nullptr, nullptr);
  const auto *B = cast<BinaryOperator>(A);
  return {B->getLHS(), B->getRHS()};
}

/// Values computed from \p Call: locals initialised or assigned from it,
/// transitively (a loss from logits from the forward).
llvm::SmallPtrSet<const VarDecl *, 8>
valuesComputedFrom(const CallExpr &Call, const Stmt &Body,
                   ASTContext &Context) {
  llvm::SmallPtrSet<const VarDecl *, 8> Tainted;
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const BoundNodes &N :
         match(findAll(declStmt(forEach(
                   varDecl(hasInitializer(expr().bind("init"))).bind("v")))),
               Body, Context)) {
      const auto *V = N.getNodeAs<VarDecl>("v");
      if (!Tainted.contains(V) &&
          mentions(N.getNodeAs<Expr>("init"), Call, Tainted))
        Changed |= Tainted.insert(V).second;
    }
    for (const BoundNodes &N : match(
             findAll(expr(anyOf(binaryOperator(isAssignmentOperator()),
                                cxxOperatorCallExpr(isAssignmentOperator())))
                         .bind("a")),
             Body, Context)) {
      auto [Lhs, Rhs] = assignedFrom(N.getNodeAs<Expr>("a"));
      const auto *V =
          Lhs ? dyn_cast_or_null<VarDecl>(referencedDecl(Lhs)) : nullptr;
      if (V && !Tainted.contains(V) && mentions(Rhs, Call, Tainted))
        Changed |= Tainted.insert(V).second;
    }
  }
  return Tainted;
}
} // namespace

const CallExpr *
UnwrappedForwardCheck::backwardFedBy(const CallExpr &Call,
                                     const FunctionDecl &Function,
                                     ASTContext &Context) const {
  const Stmt *Body = Function.getBody();
  llvm::SmallPtrSet<const VarDecl *, 8> Tainted =
      valuesComputedFrom(Call, *Body, Context);
  auto Mentions = [&](const Stmt *S) { return mentions(S, Call, Tainted); };
  for (const BoundNodes &N :
       match(findAll(callExpr().bind("b")), *Body, Context)) {
    const auto *B = N.getNodeAs<CallExpr>("b");
    if (!modules::isBackwardCall(*B))
      continue;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(B)) {
      if (Mentions(Member->getImplicitObjectArgument()))
        return B;
    } else if (llvm::any_of(B->arguments(), Mentions)) {
      return B;
    }
  }
  return nullptr;
}

bool UnwrappedForwardCheck::reducesGradients(const Stmt &S,
                                             ASTContext &Context,
                                             unsigned Depth) const {
  return containsWhere(&S, [&](const Stmt *X) {
    const auto *Call = dyn_cast<CallExpr>(X);
    if (!Call)
      return false;
    if (std::optional<CollectiveInfo> C = Vocab.classifyCollective(*Call)) {
      if (C->Kind != CollectiveKind::AllReduce &&
          C->Kind != CollectiveKind::ReduceScatter)
        return false;
      return enclosingParameterLoop(*Call, Context).Loop ||
             llvm::any_of(Call->arguments(), [](const Expr *Arg) {
               return containsWhere(Arg, [](const Stmt *Y) {
                 const auto *G = dyn_cast<CallExpr>(Y);
                 return G && training::isGradAccess(*G);
               });
             });
    }
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Def = nullptr;
    return Depth < 2 && Callee && Callee->hasBody(Def) && Def->getBody() &&
           !Context.getSourceManager().isInSystemHeader(Def->getLocation()) &&
           reducesGradients(*Def->getBody(), Context, Depth + 1);
  });
}

bool UnwrappedForwardCheck::gradientsReducedAfter(const CallExpr &Backward,
                                                  const FunctionDecl &Function,
                                                  const WrapperLife &Life,
                                                  ASTContext &Context) const {
  for (const BoundNodes &N :
       match(findAll(callExpr().bind("c")), *Function.getBody(), Context)) {
    const auto *C = N.getNodeAs<CallExpr>("c");
    if (C != &Backward && Life.flow().reachable(&Backward, C) &&
        reducesGradients(*C, Context, 0))
      return true;
  }
  return false;
}

void UnwrappedForwardCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  const WrapperLife &Life = lifeOf(*Function, *Result.Context);
  if (Life.empty())
    return;
  const Expr *Receiver = computationReceiver(*Call, Vocab);
  const Wrap *W = Life.wrappedModule(Receiver, Call);
  if (!W)
    return;
  const CallExpr *Backward = backwardFedBy(*Call, *Function, *Result.Context);
  if (!Backward ||
      gradientsReducedAfter(*Backward, *Function, Life, *Result.Context))
    return;

  auto Diag = diag(Call->getExprLoc(),
                   "%0 runs on %1 instead of its wrapper %2: the wrapper's "
                   "gradient sync is never armed, so the backward pass reduces "
                   "nothing and each rank trains its own replica on its own "
                   "shard; run it through %2, or all-reduce every gradient "
                   "after the backward pass")
              << (Vocab.forwardReceiver(*Call) ? std::string("forward pass")
                                               : "'" + Call->getDirectCallee()
                                                           ->getNameAsString() +
                                                     "'")
              << WrapperLife::moduleName(*W) << W->Wrapper;
  // Offer the wrapper's forward where the call is a plain `forward`.
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  if (Member && modules::isForwardMethodName(
                    identifierName(Member->getMethodDecl()))) {
    std::string Replacement =
        W->Wrapper->getNameAsString() +
        (modules::isPointerLikeHandle(W->Wrapper->getType()) ? "->" : ".") +
        identifierName(Member->getMethodDecl()).str();
    Diag << FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Member->getCallee()->getSourceRange()),
        Replacement);
  }
  Diag.~DiagnosticBuilder(); // emit before the notes
  diag(Backward->getExprLoc(), "the gradients of this backward pass stay local",
       DiagnosticIDs::Note);
  noteWrap(*W);
}

} // namespace clang::tidy::ddp
