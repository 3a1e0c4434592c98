//===--- WrapperCheck.cpp -------------------------------------------------===//

#include "WrapperCheck.h"

namespace clang::tidy::ddp {

const WrapperLife &WrapperCheck::lifeOf(const FunctionDecl &Function,
                                        ASTContext &Context) {
  std::unique_ptr<WrapperLife> &Life = Lives[&Function];
  if (!Life)
    Life = std::make_unique<WrapperLife>(Function, Context, Vocab);
  return *Life;
}

void WrapperCheck::noteWrap(const Wrap &W) {
  if (W.Site || !isa<ParmVarDecl>(W.Wrapper))
    diag(W.Loc, "%0 wrapped here", DiagnosticIDs::Note)
        << WrapperLife::moduleName(W);
  else
    diag(W.Loc, "%0 receives the wrapper built by the caller",
         DiagnosticIDs::Note)
        << W.Wrapper;
}

} // namespace clang::tidy::ddp
