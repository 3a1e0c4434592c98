//===--- VocabularyReduceOps.cpp - what a reducing collective applies -----===//
//
// The operation of an all-reduce, reduce or reduce-scatter: c10d's
// ReduceOp and its options structs, MPI_Op, ncclRedOp_t and boost's
// function objects, followed through variables, assignments, macros
// and what a caller passes for a helper's parameters.
//
//===----------------------------------------------------------------------===//

#include "vocabulary/Vocabulary.h"
#include "vocabulary/VocabularyInternal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp {

namespace {

/// The operation a predefined name stands for: c10d's ReduceOp enumerators,
/// NCCL's ncclRedOp_t, MPI's MPI_Op macros (and Open MPI's objects behind
/// them).
ReduceOpKind reduceOpNamed(llvm::StringRef Name) {
  if (Name.consume_front("ompi_mpi_op_"))
    return Name == "sum" ? ReduceOpKind::Sum : ReduceOpKind::Other;
  if (Name.starts_with("MPI_"))
    return Name == "MPI_SUM" ? ReduceOpKind::Sum : ReduceOpKind::Other;
  return llvm::StringSwitch<ReduceOpKind>(Name)
      .Cases("SUM", "ncclSum", ReduceOpKind::Sum)
      .Cases("AVG", "ncclAvg", ReduceOpKind::Average)
      .Case("PREMUL_SUM", ReduceOpKind::PreMultipliedSum)
      .Cases("PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR",
             ReduceOpKind::Other)
      .Cases("ncclProd", "ncclMax", "ncclMin", ReduceOpKind::Other)
      .Default(ReduceOpKind::Unknown);
}

/// Calls to a function named Name anywhere in Scope.
void findCallsNamed(const Stmt *Scope, llvm::StringRef Name,
                    llvm::SmallVectorImpl<const CallExpr *> &Out) {
  if (!Scope)
    return;
  if (const auto *Call = dyn_cast<CallExpr>(Scope))
    if (const FunctionDecl *FD = Call->getDirectCallee())
      if (FD->getDeclName().isIdentifier() && FD->getName() == Name)
        Out.push_back(Call);
  for (const Stmt *Child : Scope->children())
    findCallsNamed(Child, Name, Out);
}

/// Assignments `Var.Field = value` anywhere in Scope, in source order.
void findFieldAssignments(const Stmt *Scope, const VarDecl &Var,
                          llvm::StringRef Field,
                          llvm::SmallVectorImpl<const Expr *> &Values) {
  if (!Scope)
    return;
  const Expr *LHS = nullptr, *RHS = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(Scope);
      BO && BO->getOpcode() == BO_Assign)
    LHS = BO->getLHS(), RHS = BO->getRHS();
  else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Scope);
           Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
    LHS = Op->getArg(0), RHS = Op->getArg(1);
  if (LHS)
    if (const auto *ME = dyn_cast<MemberExpr>(LHS->IgnoreParenImpCasts()))
      if (ME->getMemberDecl()->getDeclName().isIdentifier() &&
          ME->getMemberDecl()->getName() == Field)
        if (const auto *Base =
                dyn_cast<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts()))
          if (Base->getDecl() == &Var)
            Values.push_back(RHS);
  for (const Stmt *Child : Scope->children())
    findFieldAssignments(Child, Var, Field, Values);
}

class ReduceOpClassifier {
public:
  ReduceOpClassifier(const Stmt *Scope, const ASTContext &Context,
                     const ParameterBindings *Bindings)
      : Scope(Scope), Context(Context), Bindings(Bindings) {}

  /// A ReduceOp / ncclRedOp_t / MPI_Op value.
  ReduceOpKind value(const Expr *E, unsigned Depth = 0) const {
    if (!E || Depth > 6)
      return ReduceOpKind::Unknown;
    if (ReduceOpKind K = macroNamed(E->getBeginLoc()); K != ReduceOpKind::Unknown)
      return K;
    E = stripObjectWrappers(E)->IgnoreParenCasts();
    if (const auto *Unary = dyn_cast<UnaryOperator>(E);
        Unary && Unary->getOpcode() == UO_AddrOf)
      E = Unary->getSubExpr()->IgnoreParenCasts();
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E))
      return Ctor->getNumArgs() == 0 ? ReduceOpKind::Sum // ReduceOp(): SUM
                                     : value(Ctor->getArg(0), Depth + 1);
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (FD && FD->getDeclName().isIdentifier() &&
          FD->getName() == "makeNCCLPreMulSum")
        return ReduceOpKind::PreMultipliedSum;
      return ReduceOpKind::Unknown;
    }
    if (const auto *Choice = dyn_cast<ConditionalOperator>(E))
      return conditional(*Choice, Depth);
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    if (!DRE || !DRE->getDecl()->getDeclName().isIdentifier())
      return ReduceOpKind::Unknown;
    if (const auto *Enum = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
      return reduceOpNamed(Enum->getName());
    const auto *Var = dyn_cast<VarDecl>(DRE->getDecl());
    if (!Var)
      return ReduceOpKind::Unknown;
    if (const Expr *Bound = bound(Var))
      return value(Bound, Depth + 1);
    if (ReduceOpKind K = reduceOpNamed(Var->getName()); K != ReduceOpKind::Unknown)
      return K;
    // ncclRedOpCreatePreMulSum(&op, &scalar, ...): a scaled sum.
    llvm::SmallVector<const CallExpr *, 2> Creations;
    findCallsNamed(Scope, "ncclRedOpCreatePreMulSum", Creations);
    for (const CallExpr *Create : Creations)
      if (Create->getNumArgs() >= 1 && handleDecl(Create->getArg(0)) == Var)
        return ReduceOpKind::PreMultipliedSum;
    if (Var->hasLocalStorage() || Var->isStaticLocal() ||
        Var->getType().isConstQualified())
      if (const Expr *Init = Var->getInit())
        return value(Init, Depth + 1);
    return ReduceOpKind::Unknown;
  }

  /// A c10d options struct (AllreduceOptions, ReduceScatterOptions, ...).
  ReduceOpKind options(const Expr *E, unsigned Depth = 0) const {
    if (!E || Depth > 6 || isa<CXXDefaultArgExpr>(E))
      return ReduceOpKind::Sum; // the default AllreduceOptions()
    E = stripObjectWrappers(E);
    if (const auto *Init = dyn_cast<InitListExpr>(E))
      return initList(*Init, Depth);
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E))
      return Ctor->getNumArgs() == 0 ? ReduceOpKind::Sum
                                     : options(Ctor->getArg(0), Depth + 1);
    const auto *DRE = dyn_cast<DeclRefExpr>(E);
    const auto *Var = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (const Expr *Bound = bound(Var))
      return options(Bound, Depth + 1);
    if (!Var || isa<ParmVarDecl>(Var) || !Var->hasLocalStorage())
      return ReduceOpKind::Unknown;
    llvm::SmallVector<const Expr *, 2> Assigned;
    findFieldAssignments(Scope, *Var, "reduceOp", Assigned);
    if (!Assigned.empty())
      return value(Assigned.back(), Depth + 1);
    return Var->getInit() ? options(Var->getInit(), Depth + 1)
                          : ReduceOpKind::Sum;
  }

private:
  /// What a caller passes for a parameter of the helper the collective is
  /// in (its default argument where it passes none); null otherwise.
  const Expr *bound(const VarDecl *Var) const {
    const auto *Param = dyn_cast_or_null<ParmVarDecl>(Var);
    if (!Param || !Bindings)
      return nullptr;
    auto It = Bindings->find(Param);
    if (It == Bindings->end())
      return nullptr;
    if (isa<CXXDefaultArgExpr>(It->second))
      return Param->hasDefaultArg() ? Param->getDefaultArg() : nullptr;
    return It->second;
  }

  /// The enumerator an expression names, through the bindings.
  const EnumConstantDecl *enumerator(const Expr *E) const {
    for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
      const auto *DRE =
          dyn_cast<DeclRefExpr>(stripObjectWrappers(E)->IgnoreParenCasts());
      if (!DRE)
        return nullptr;
      if (const auto *Enum = dyn_cast<EnumConstantDecl>(DRE->getDecl()))
        return Enum;
      E = bound(dyn_cast<VarDecl>(DRE->getDecl()));
    }
    return nullptr;
  }

  /// `op == Op::Sum ? ReduceOp::SUM : ReduceOp::MAX`: the arm the bound
  /// enumerators select, or the kind both arms share.
  ReduceOpKind conditional(const ConditionalOperator &Choice,
                           unsigned Depth) const {
    if (const auto *Test = dyn_cast<BinaryOperator>(
            Choice.getCond()->IgnoreParenImpCasts());
        Test && Test->isEqualityOp()) {
      const EnumConstantDecl *L = enumerator(Test->getLHS());
      const EnumConstantDecl *R = enumerator(Test->getRHS());
      if (L && R)
        return value((L == R) == (Test->getOpcode() == BO_EQ)
                         ? Choice.getTrueExpr()
                         : Choice.getFalseExpr(),
                     Depth + 1);
    }
    ReduceOpKind True = value(Choice.getTrueExpr(), Depth + 1);
    return True == value(Choice.getFalseExpr(), Depth + 1)
               ? True
               : ReduceOpKind::Unknown;
  }

  /// `MPI_SUM` and friends, seen through the macros that spell them.
  ReduceOpKind macroNamed(SourceLocation Loc) const {
    const SourceManager &SM = Context.getSourceManager();
    for (unsigned Depth = 0; Loc.isMacroID() && Depth < 8; ++Depth) {
      if (!SM.isMacroArgExpansion(Loc)) {
        llvm::StringRef Name =
            Lexer::getImmediateMacroName(Loc, SM, Context.getLangOpts());
        if (ReduceOpKind K = reduceOpNamed(Name); K != ReduceOpKind::Unknown)
          return K;
      }
      Loc = SM.getImmediateMacroCallerLoc(Loc);
    }
    return ReduceOpKind::Unknown;
  }

  /// `AllreduceOptions{ReduceOp::AVG}`, `{.reduceOp = ReduceOp::AVG}`, and
  /// derived options (`AllreduceCoalescedOptions{{ReduceOp::AVG}}`).
  ReduceOpKind initList(const InitListExpr &Init, unsigned Depth) const {
    // The semantic form lists one initializer per base and field, in order,
    // designated or not.
    const InitListExpr *Form = &Init;
    if (const InitListExpr *Semantic = Init.getSemanticForm())
      Form = Semantic;
    const CXXRecordDecl *RD = Form->getType()->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition())
      return ReduceOpKind::Unknown;
    unsigned I = 0;
    for (unsigned Bases = RD->getNumBases(); I < Bases; ++I)
      if (I < Form->getNumInits())
        if (const auto *BaseInit =
                dyn_cast<InitListExpr>(Form->getInit(I)->IgnoreImplicit()))
          if (ReduceOpKind K = initList(*BaseInit, Depth + 1);
              K != ReduceOpKind::Unknown)
            return K;
    for (const FieldDecl *Field : RD->fields()) {
      if (Field->getDeclName().isIdentifier() && Field->getName() == "reduceOp") {
        if (I >= Form->getNumInits())
          return ReduceOpKind::Sum;
        const Expr *Value = Form->getInit(I);
        if (isa<ImplicitValueInitExpr>(Value) || isa<CXXDefaultInitExpr>(Value))
          return ReduceOpKind::Sum;
        return value(Value, Depth + 1);
      }
      ++I;
    }
    return ReduceOpKind::Unknown;
  }

  const Stmt *Scope;
  const ASTContext &Context;
  const ParameterBindings *Bindings;
};

/// Whether a record (or one of its bases) has a `reduceOp` field: the c10d
/// options structs of reducing collectives.
bool hasReduceOpField(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition())
    return false;
  for (const FieldDecl *Field : RD->fields())
    if (Field->getDeclName().isIdentifier() && Field->getName() == "reduceOp")
      return true;
  for (const CXXBaseSpecifier &Base : RD->bases())
    if (hasReduceOpField(Base.getType()->getAsCXXRecordDecl()))
      return true;
  return false;
}

} // namespace

std::optional<ReduceOpKind>
CollectiveVocabulary::reduceOp(const CallExpr &Call, const Stmt *Scope,
                     const ASTContext &Context,
                     const ParameterBindings *Bindings) const {
  std::optional<CollectiveInfo> Info = classifyCollective(Call);
  // Left unresolved in a template: `MPI_Allreduce(grad_.data(), ...)`.
  const FunctionDecl *Unresolved = nullptr;
  if (!Info)
    Info = collectives::classifyUnresolvedCollective(Call, Unresolved);
  if (!Info || (Info->Kind != CollectiveKind::AllReduce &&
                Info->Kind != CollectiveKind::Reduce &&
                Info->Kind != CollectiveKind::ReduceScatter))
    return std::nullopt;
  ReduceOpClassifier Classify(Scope, Context, Bindings);
  switch (Info->Api) {
  case CollectiveApi::Configured:
    return ReduceOpKind::Sum; // a framework's `sum`
  case CollectiveApi::Named:
    return ReduceOpKind::Unknown; // `allReduce(x, scale)` may average
  case CollectiveApi::Mpi:
  case CollectiveApi::Nccl:
    // MPI_Allreduce(send, recv, count, type, op, comm), ncclAllReduce(send,
    // recv, count, type, op, comm, stream): the op is argument 4 in every
    // reducing call of both.
    return Call.getNumArgs() > 4 ? Classify.value(Call.getArg(4))
                                 : ReduceOpKind::Unknown;
  case CollectiveApi::BoostMpi: {
    if (Call.getNumArgs() == 0)
      return ReduceOpKind::Unknown;
    const Expr *Op = Call.getArg(Call.getNumArgs() - 1);
    const CXXRecordDecl *RD = Op->getType()->getAsCXXRecordDecl();
    if (!RD)
      return ReduceOpKind::Unknown;
    std::string Name = qualifiedName(*RD);
    if (Name == "std::plus")
      return ReduceOpKind::Sum;
    if (Name == "std::multiplies" || Name == "boost::mpi::maximum" ||
        Name == "boost::mpi::minimum" || Name == "std::logical_and" ||
        Name == "std::logical_or" || Name == "std::bit_and" ||
        Name == "std::bit_or" || Name == "std::bit_xor")
      return ReduceOpKind::Other;
    return ReduceOpKind::Unknown;
  }
  case CollectiveApi::C10d:
    for (unsigned I = Call.getNumArgs(); I-- > 0;)
      if (hasReduceOpField(Call.getArg(I)->getType()->getAsCXXRecordDecl()))
        return Classify.options(Call.getArg(I));
    return ReduceOpKind::Sum;
  }
  return ReduceOpKind::Unknown;
}

} // namespace clang::tidy::ddp
