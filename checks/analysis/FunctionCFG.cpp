//===--- FunctionCFG.cpp --------------------------------------------------===//

#include "analysis/FunctionCFG.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"

namespace clang::tidy::ddp {

namespace {

/// Fills the parts clang leaves out of a range-based `for` over a dependent
/// range, once: a later instantiation never happens (parsing is over) and
/// no check reads these parts of a pattern.
class RangeLoopCompleter : public RecursiveASTVisitor<RangeLoopCompleter> {
public:
  explicit RangeLoopCompleter(ASTContext &Context) : Context(Context) {}

  bool shouldVisitLambdaBody() const { return false; }

  bool VisitCXXForRangeStmt(CXXForRangeStmt *Loop) {
    if (Loop->getBeginStmt() && Loop->getEndStmt() && Loop->getCond() &&
        Loop->getInc())
      return true;
    auto *RangeStmt = dyn_cast_or_null<DeclStmt>(Loop->getRangeStmt());
    auto *Range = RangeStmt && RangeStmt->isSingleDecl()
                      ? dyn_cast<VarDecl>(RangeStmt->getSingleDecl())
                      : nullptr;
    if (!Range)
      return true; // the CFG builder gives up on this function, as before
    SourceLocation Loc = Loop->getColonLoc();
    if (!Loop->getBeginStmt())
      Loop->setBeginStmt(new (Context) NullStmt(Loc));
    if (!Loop->getEndStmt())
      Loop->setEndStmt(new (Context) NullStmt(Loc));
    // `__begin != __end` and `++__begin` read the range, as these reads do.
    // They are of dependent type, so the CFG builder never evaluates the
    // condition and keeps both the edge into the body and the exit.
    if (!Loop->getCond())
      Loop->setCond(readOf(*Range, Loc));
    if (!Loop->getInc())
      Loop->setInc(readOf(*Range, Loc));
    return true;
  }

private:
  Expr *readOf(VarDecl &Range, SourceLocation Loc) {
    return DeclRefExpr::Create(Context, NestedNameSpecifierLoc(),
                               SourceLocation(), &Range,
                               /*RefersToEnclosingVariableOrCapture=*/false,
                               Loc, Range.getType(), VK_LValue);
  }

  ASTContext &Context;
};

} // namespace

std::unique_ptr<CFG> buildFunctionCFG(const Decl *Function, const Stmt *Body,
                                      ASTContext &Context) {
  if (!Body)
    return nullptr;
  const auto *DC = dyn_cast_or_null<DeclContext>(Function);
  if (DC && DC->isDependentContext())
    RangeLoopCompleter(Context).TraverseStmt(const_cast<Stmt *>(Body));
  CFG::BuildOptions Options;
  Options.AddInitializers = true;
  Options.AddCXXDefaultInitExprInCtors = true;
  Options.setAllAlwaysAdd();
  return CFG::buildCFG(Function, const_cast<Stmt *>(Body), &Context, Options);
}

} // namespace clang::tidy::ddp
