//===--- DeviceMoveAfterWrapCheck.cpp - ddp-device-move-after-wrap --------===//

#include "ddp/DeviceMoveAfterWrapCheck.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::ddp {

namespace {
constexpr llvm::StringLiteral MoveId = "move";
constexpr llvm::StringLiteral FunctionId = "function";

AST_MATCHER(CallExpr, isModuleMove) {
  return modules::moduleMoveReceiver(Node) != nullptr;
}
} // namespace

void DeviceMoveAfterWrapCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      cxxMemberCallExpr(isModuleMove(), unless(isExpansionInSystemHeader()),
                        forFunction(functionDecl().bind(FunctionId)))
          .bind(MoveId),
      this);
}

void DeviceMoveAfterWrapCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Move = Result.Nodes.getNodeAs<CallExpr>(MoveId);
  const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId);
  const CXXMethodDecl *To = nullptr;
  const Expr *Receiver = modules::moduleMoveReceiver(*Move, &To);
  const WrapperLife &Life = lifeOf(*Function, *Result.Context);
  if (Life.empty())
    return;

  if (const Wrap *W = Life.wrappedModule(Receiver, Move)) {
    diag(Move->getExprLoc(),
         "%0 is moved to another device or dtype while %1 wraps it: "
         "Module::to replaces the parameters' data, which drops the gradient "
         "hooks the wrapper registered, so gradients silently stop syncing "
         "and the replicas diverge; move the module before wrapping it, or "
         "rebuild the wrapper after the move")
        << WrapperLife::moduleName(*W) << W->Wrapper;
    noteWrap(*W);
    return;
  }
  // A wrapper that is itself a module and does not define its own `to`
  // forwards the move to the module it wraps.
  if (const Wrap *W = Life.wrapper(Receiver, Move)) {
    if (Vocab.isWrapperClass(*To->getParent()))
      return; // the wrapper's own `to` can rebuild its state
    diag(Move->getExprLoc(),
         "moving wrapper %1 moves %0, the module it wraps, to another device "
         "or dtype: Module::to replaces the parameters' data, which drops the "
         "gradient hooks the wrapper registered, so gradients silently stop "
         "syncing and the replicas diverge; move the module before wrapping "
         "it, or rebuild the wrapper after the move")
        << WrapperLife::moduleName(*W) << W->Wrapper;
    noteWrap(*W);
  }
}

} // namespace clang::tidy::ddp
