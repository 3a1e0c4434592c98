//===--- WrapperCheckBase.cpp -------------------------------------------------===//

#include "ddp/WrapperCheckBase.h"

namespace clang::tidy::ddp {

const WrapperLife &WrapperCheckBase::lifeOf(const FunctionDecl &Function,
                                        ASTContext &Context) {
  std::unique_ptr<WrapperLife> &Life = Lives[&Function];
  if (!Life)
    Life = std::make_unique<WrapperLife>(Function, Context, Vocab);
  return *Life;
}

void WrapperCheckBase::noteWrap(const Wrap &W) {
  if (W.Site || !isa<ParmVarDecl>(W.Wrapper))
    diag(W.Loc, "%0 wrapped here", DiagnosticIDs::Note)
        << WrapperLife::moduleName(W);
  else
    diag(W.Loc, "%0 receives the wrapper built by the caller",
         DiagnosticIDs::Note)
        << W.Wrapper;
}

bool WrapperCheckBase::issuesCollective(const Stmt &S, ASTContext &Context,
                                    unsigned Depth) const {
  if (const auto *Call = dyn_cast<CallExpr>(&S)) {
    if (Vocab.classifyCollective(*Call))
      return true;
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Def = nullptr;
    if (Depth < 2 && Callee && Callee->hasBody(Def) && Def->getBody() &&
        !Context.getSourceManager().isInSystemHeader(Def->getLocation()) &&
        issuesCollective(*Def->getBody(), Context, Depth + 1))
      return true;
  }
  for (const Stmt *Child : S.children())
    if (Child && issuesCollective(*Child, Context, Depth))
      return true;
  return false;
}

} // namespace clang::tidy::ddp
