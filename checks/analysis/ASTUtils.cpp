//===--- ASTUtils.cpp -----------------------------------------------------===//

#include "analysis/ASTUtils.h"
#include "vocabulary/VocabularyHelpers.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace clang::tidy::ddp {

namespace {

/// Whether \p Instance, a declaration of an instantiated class, is an
/// instantiation of \p Pattern with a body.
bool instantiatesWithBody(const Decl *Instance, const FunctionDecl &Pattern) {
  auto Matches = [&](const FunctionDecl *F) {
    return F && F->doesThisDeclarationHaveABody() &&
           F->getTemplateInstantiationPattern() == &Pattern;
  };
  if (const auto *F = dyn_cast<FunctionDecl>(Instance))
    return Matches(F);
  if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(Instance))
    for (const FunctionDecl *Spec : FTD->specializations())
      if (Matches(Spec))
        return true;
  return false;
}

} // namespace

const Stmt *parentStmtAcrossDecls(const Stmt &S, ASTContext &Context) {
  DynTypedNodeList Parents = Context.getParents(S);
  for (unsigned Depth = 0; Depth < 4 && !Parents.empty(); ++Depth) {
    for (const DynTypedNode &Parent : Parents)
      if (const auto *P = Parent.get<Stmt>())
        return P;
    // A lambda's body hangs off its call operator, inside its class, inside
    // the LambdaExpr.
    const auto *Method = Parents[0].get<CXXMethodDecl>();
    const auto *Record = Parents[0].get<CXXRecordDecl>();
    // An OpenMP region's statements hang off a captured declaration.
    if (!Parents[0].get<VarDecl>() && !Parents[0].get<CapturedDecl>() &&
        !(Method && Method->getParent()->isLambda()) &&
        !(Record && Record->isLambda()))
      return nullptr;
    Parents = Context.getParents(Parents[0]);
  }
  return nullptr;
}

std::optional<DynTypedNode>
enclosingWhere(const Stmt &S, ASTContext &Context,
               llvm::function_ref<bool(const DynTypedNode &, const DynTypedNode &)>
                   Stop) {
  DynTypedNode From = DynTypedNode::create(S);
  for (unsigned Depth = 0; Depth < 256; ++Depth) {
    DynTypedNodeList Parents = Context.getParents(From);
    if (Parents.empty() || Parents[0].get<FunctionDecl>())
      return std::nullopt;
    if (Stop(Parents[0], From))
      return Parents[0];
    From = Parents[0];
  }
  return std::nullopt;
}

bool isInstantiatedPattern(const FunctionDecl &FD) {
  if (!FD.isDependentContext())
    return false;
  // A function template: one of its specializations.
  if (const FunctionTemplateDecl *FTD = FD.getDescribedFunctionTemplate())
    for (const FunctionDecl *Spec : FTD->specializations())
      if (Spec->doesThisDeclarationHaveABody() &&
          Spec->getTemplateInstantiationPattern() == &FD)
        return true;
  // A member of a class template: the member of one of its specializations,
  // whose body is instantiated only where it is used.
  const auto *RD = dyn_cast<CXXRecordDecl>(FD.getDeclContext());
  const ClassTemplateDecl *CTD = RD ? RD->getDescribedClassTemplate() : nullptr;
  if (!CTD)
    return false;
  for (const ClassTemplateSpecializationDecl *Spec : CTD->specializations())
    for (const Decl *Member : Spec->decls())
      if (instantiatesWithBody(Member, FD))
        return true;
  return false;
}

namespace {

/// Visits every call in user code with the function (or lambda) that makes
/// it, template instantiations included.
class CallIndexer : public RecursiveASTVisitor<CallIndexer> {
  using Base = RecursiveASTVisitor<CallIndexer>;

public:
  using Callback =
      llvm::function_ref<void(const FunctionDecl &Caller, const CallExpr &)>;
  CallIndexer(const SourceManager &SM, Callback OnCall)
      : SM(SM), OnCall(OnCall) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitLambdaBody() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    if (!isa<TranslationUnitDecl>(D) && SM.isInSystemHeader(D->getLocation()))
      return true;
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (FD && isInstantiatedPattern(*FD))
      FD = nullptr; // patterns: their instantiations are visited instead
    if (FD)
      Stack.push_back(FD);
    bool Result = Base::TraverseDecl(D);
    if (FD)
      Stack.pop_back();
    return Result;
  }
  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    Stack.push_back(Lambda->getCallOperator());
    bool Result = Base::TraverseLambdaExpr(Lambda);
    Stack.pop_back();
    return Result;
  }
  bool VisitCallExpr(CallExpr *Call) {
    if (!Stack.empty() && Stack.back())
      OnCall(*Stack.back(), *Call);
    return true;
  }

private:
  const SourceManager &SM;
  Callback OnCall;
  llvm::SmallVector<const FunctionDecl *, 8> Stack;
};

} // namespace

void forEachUserCall(
    ASTContext &Context,
    llvm::function_ref<void(const FunctionDecl &Caller, const CallExpr &Call)>
        OnCall) {
  CallIndexer Indexer(Context.getSourceManager(), OnCall);
  Indexer.TraverseDecl(Context.getTranslationUnitDecl());
}

const LambdaExpr *lambdaOf(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripObjectWrappers(E);
    if (const auto *Lambda = dyn_cast<LambdaExpr>(E))
      return Lambda;
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
      E = Construct->getNumArgs() == 1 ? Construct->getArg(0) : nullptr;
      continue;
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    E = Var && Var->hasLocalStorage() ? Var->getInit() : nullptr;
  }
  return nullptr;
}

const Expr *subscriptBase(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (const auto *Subscript = dyn_cast_or_null<ArraySubscriptExpr>(E))
    return Subscript->getBase();
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() > 0)
    return Op->getArg(0);
  return nullptr;
}

const Expr *subscriptIndex(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (const auto *Subscript = dyn_cast_or_null<ArraySubscriptExpr>(E))
    return Subscript->getIdx();
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
    return Op->getArg(1);
  return nullptr;
}

std::optional<std::pair<const Expr *, const Expr *>>
binaryOperands(const Expr *E, BinaryOperatorKind &Kind) {
  E = E ? stripObjectWrappers(E) : nullptr;
  if (const auto *Binary = dyn_cast_or_null<BinaryOperator>(E)) {
    Kind = Binary->getOpcode();
    return std::make_pair(Binary->getLHS(), Binary->getRHS());
  }
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E);
      Op && Op->getNumArgs() == 2 && Op->getOperator() != OO_Subscript) {
    Kind = BinaryOperator::getOverloadedOpcode(Op->getOperator());
    return std::make_pair(Op->getArg(0), Op->getArg(1));
  }
  return std::nullopt;
}

bool isOutputType(QualType T) {
  if (T->isLValueReferenceType())
    return !T.getNonReferenceType().isConstQualified();
  return T->isPointerType() && !T->getPointeeType().isConstQualified();
}

} // namespace clang::tidy::ddp
