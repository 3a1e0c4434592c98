//===--- GradientRoles.cpp - which values hold gradients ------------------===//
//
// The role part of GradientModel: which variables, fields and parameters
// hold gradients or parameters, seeded by `grad()`, `parameters()`, parameter
// names and hook callbacks, and propagated to a fixpoint through what the
// vocabulary says library calls do with data (VocabularyDataFlow.cpp).
//
//===----------------------------------------------------------------------===//

#include "model/GradientModel.h"

#include "analysis/ASTUtils.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

#include <optional>

namespace clang::tidy::ddp {

namespace {

constexpr unsigned MaxExprDepth = 16;

/// Whether a declaration of type T can hold a tensor, a container of them,
/// or a pointer into one: anything but a plain number.
bool mayHoldTensor(QualType T) {
  if (T.isNull())
    return false;
  if (T->isReferenceType() || T->isPointerType())
    return true;
  return !T->isArithmeticType() && !T->isEnumeralType();
}

/// Roles suggested by a parameter's name: `grads`, `gradient_buffer`;
/// `params`, `weights`.
unsigned roleFromName(const ParmVarDecl &P) {
  std::string Name = identifierName(&P).lower();
  if (Name.find("grad") != std::string::npos)
    return GradientRole;
  if (Name.find("param") != std::string::npos ||
      Name.find("weight") != std::string::npos)
    return ParameterRole;
  return NoRole;
}

/// Whether \p D's name says it holds parameters: `weights`, `params`.
bool namedAsParameters(const ValueDecl *D) {
  std::string Name = identifierName(D).lower();
  return Name.find("weight") != std::string::npos ||
         Name.find("param") != std::string::npos;
}

/// An update of \p S: `t += u`, `t -= u`, `t = t + u`, `t = t - u`, with
/// the target t and what is applied to it, u; none for other statements.
/// \p Root names the storage an expression designates.
std::optional<std::pair<const Expr *, const Expr *>>
updateOperands(const Stmt *S,
               llvm::function_ref<const ValueDecl *(const Expr *)> Root) {
  BinaryOperatorKind Kind = BO_Comma;
  auto Assigned = binaryOperands(dyn_cast<Expr>(S), Kind);
  if (!Assigned)
    return std::nullopt;
  auto [Target, Value] = *Assigned;
  if (Kind == BO_AddAssign || Kind == BO_SubAssign)
    return Assigned;
  BinaryOperatorKind Arithmetic = BO_Comma;
  auto Sum = Kind == BO_Assign ? binaryOperands(Value, Arithmetic)
                               : std::nullopt;
  if (!Sum || (Arithmetic != BO_Add && Arithmetic != BO_Sub))
    return std::nullopt;
  const ValueDecl *Updated = Root(Target);
  if (Updated && Root(Sum->first) == Updated)
    return std::make_pair(Target, Sum->second);
  if (Updated && Arithmetic == BO_Add && Root(Sum->second) == Updated)
    return std::make_pair(Target, Sum->first);
  return std::nullopt;
}

} // namespace

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

unsigned GradientModel::declRole(const CodeUnit &U, const ValueDecl *D) const {
  if (!D)
    return NoRole;
  if (isa<FieldDecl>(D))
    return fieldRole(D);
  unsigned Role = NoRole;
  for (const CodeUnit *C = &U; C; C = C->Enclosing)
    Role |= C->Roles.lookup(D);
  if (isa<ParmVarDecl>(D))
    Role |= ParamRoles.lookup(D);
  return Role;
}

unsigned GradientModel::fieldRole(const ValueDecl *Field) const {
  unsigned Role = FieldRoles.lookup(Field);
  // A homegrown layer's gradient storage, by its name: `dw_`, `grad_weight`.
  if (mayHoldTensor(Field->getType()) &&
      flow::namesGradientStorage(identifierName(Field)))
    Role |= GradientRole;
  return Role;
}

const Expr *GradientModel::roleCarrier(const Expr *E) {
  if (const auto *Cast = dyn_cast<CastExpr>(E))
    return Cast->getSubExpr();
  if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
    return M->getSubExpr();
  if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
    return B->getSubExpr();
  if (const auto *C = dyn_cast<ExprWithCleanups>(E))
    return C->getSubExpr();
  if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(E))
    return IL->getSubExpr();
  if (const auto *Unary = dyn_cast<UnaryOperator>(E))
    return Unary->getOpcode() == UO_LNot ? nullptr : Unary->getSubExpr();
  if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E))
    return Subscript->getBase();
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    if (Binary->isAssignmentOp() || Binary->isCompoundAssignmentOp())
      return Binary->getLHS();
    if (Binary->getOpcode() == BO_Comma)
      return Binary->getRHS();
  }
  return nullptr;
}

std::optional<unsigned> GradientModel::combinedRole(const CodeUnit &U,
                                                    const Expr *E) const {
  auto Combine = [&](auto Operands) {
    unsigned Role = NoRole;
    for (const Expr *Operand : Operands)
      Role |= role(U, Operand);
    return Role;
  };
  if (isa<UnaryOperator>(E))
    return NoRole; // `!grad`
  if (const auto *Binary = dyn_cast<BinaryOperator>(E))
    return Binary->isMultiplicativeOp() || Binary->isAdditiveOp()
               ? role(U, Binary->getLHS()) | role(U, Binary->getRHS())
               : NoRole;
  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E))
    return role(U, Cond->getTrueExpr()) | role(U, Cond->getFalseExpr());
  if (const auto *Init = dyn_cast<InitListExpr>(E))
    return Combine(Init->inits());
  if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E))
    return Combine(Ctor->arguments());
  return std::nullopt;
}

unsigned GradientModel::callRole(const CodeUnit &U, const CallExpr &Call,
                                 const Expr *&Next) const {
  auto Combine = [&](auto Operands) {
    unsigned Role = NoRole;
    for (const Expr *Operand : Operands)
      Role |= role(U, Operand);
    return Role;
  };
  const FunctionDecl *FD = Call.getDirectCallee();
  if (training::isGradAccess(Call) ||
      (FD && flow::returnsGradients(*FD)))
    return GradientRole;
  if (training::parameterCollection(Call))
    return ParameterRole;
  if (Call.isCallToStdMove() && Call.getNumArgs() == 1) {
    Next = Call.getArg(0);
    return NoRole;
  }
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    // The optimizer's own list of what it updates.
    if (Vocab.isOptimizerParameterList(*Member))
      return ParameterRole;
    if (flow::keepsObjectData(identifierName(FD)))
      Next = Member->getImplicitObjectArgument();
  } else if (modules::dependentMemberCall(Call)) {
    // Left dependent in a template: `p.grad().reshape({-1})`.
    if (flow::keepsObjectData(spelledCalleeName(Call)))
      Next = modules::memberCallObject(Call);
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    OverloadedOperatorKind K = Op->getOperator();
    if (K == OO_Subscript || K == OO_Arrow || Op->isAssignmentOp() ||
        (K == OO_Star && Op->getNumArgs() == 1))
      Next = Op->getArg(0);
    else if (K == OO_Star || K == OO_Slash || K == OO_Plus || K == OO_Minus)
      return Combine(Op->arguments());
  } else if (FD && (flow::combinesArgumentData(identifierName(FD)) ||
                    FD->getQualifiedNameAsString() == "std::forward")) {
    return Combine(Call.arguments());
  }
  if (Next)
    return NoRole;
  if (const CodeUnit *Callee = calleeUnit(Call))
    return ReturnRoles.lookup(Callee->Function);
  return NoRole;
}

unsigned GradientModel::role(const CodeUnit &U, const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < MaxExprDepth; ++Depth) {
    E = E->IgnoreParens();
    if (const Expr *Inner = roleCarrier(E)) {
      E = Inner;
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return declRole(U, DRE->getDecl());
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return isa<FieldDecl>(ME->getMemberDecl())
                 ? fieldRole(ME->getMemberDecl())
                 : NoRole;
    if (std::optional<unsigned> Combined = combinedRole(U, E))
      return *Combined;
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return NoRole;
    const Expr *Next = nullptr;
    unsigned Role = callRole(U, *Call, Next);
    if (!Next)
      return Role;
    E = Next;
  }
  return NoRole;
}

const ValueDecl *GradientModel::rootDecl(const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < MaxExprDepth; ++Depth) {
    E = stripObjectWrappers(E)->IgnoreParenCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return DRE->getDecl();
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return isa<FieldDecl>(ME->getMemberDecl()) ? ME->getMemberDecl() : nullptr;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      if (!flow::keepsObjectData(identifierName(Member->getMethodDecl())))
        return nullptr;
      E = Member->getImplicitObjectArgument();
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E);
        Call && modules::dependentMemberCall(*Call)) {
      if (!flow::keepsObjectData(spelledCalleeName(*Call)))
        return nullptr;
      E = modules::memberCallObject(*Call);
      continue;
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      OverloadedOperatorKind K = Op->getOperator();
      if (K == OO_Subscript || K == OO_Arrow || (K == OO_Star && Op->getNumArgs() == 1)) {
        E = Op->getArg(0);
        continue;
      }
      return nullptr;
    }
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E)) {
      E = Subscript->getBase();
      continue;
    }
    if (const auto *Unary = dyn_cast<UnaryOperator>(E);
        Unary && (Unary->getOpcode() == UO_Deref || Unary->getOpcode() == UO_AddrOf)) {
      E = Unary->getSubExpr();
      continue;
    }
    if (const auto *Binary = dyn_cast<BinaryOperator>(E);
        Binary && Binary->isAdditiveOp() && Binary->getLHS()->getType()->isPointerType()) {
      E = Binary->getLHS(); // buffer + offset
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

bool GradientModel::orRole(llvm::DenseMap<const ValueDecl *, unsigned> &Map,
                           const ValueDecl *D, unsigned Bits) {
  if (!D || !Bits)
    return false;
  unsigned &Slot = Map[D];
  if ((Slot | Bits) == Slot)
    return false;
  Slot |= Bits;
  return true;
}

const Expr *GradientModel::viewedTensor(const VarDecl &Var) const {
  const Expr *Init = Var.getInit();
  if (!Init || isa<ParmVarDecl>(&Var))
    return nullptr;
  // `auto &slot = bucket_;`: a reference is the object itself.
  if (Var.getType()->isReferenceType())
    return Init;
  // `auto slot = bucket_.narrow(0, offset, n);`: a view of the object.
  const Expr *E = Init;
  for (unsigned Depth = 0; E && Depth < MaxExprDepth; ++Depth) {
    E = stripObjectWrappers(E)->IgnoreParenCasts();
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
        Ctor && Ctor->getNumArgs() == 1) {
      E = Ctor->getArg(0);
      continue;
    }
    const auto *Member = dyn_cast<CXXMemberCallExpr>(E);
    if (!Member ||
        !flow::sharesObjectStorage(identifierName(Member->getMethodDecl())))
      return nullptr;
    return Member->getImplicitObjectArgument();
  }
  return nullptr;
}

CodeUnit *GradientModel::ownerUnit(const VarDecl &Var) const {
  const auto *FD = dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  return FD ? Graph.definedUnit(FD) : nullptr;
}

void GradientModel::storeRole(CodeUnit &U, const Expr *Target, unsigned Bits,
                              bool &Changed, unsigned Depth) {
  const ValueDecl *D = rootDecl(Target);
  if (!D || !Bits || !mayHoldTensor(D->getType()))
    return;
  if (isa<FieldDecl>(D)) {
    Changed |= orRole(FieldRoles, D, Bits);
    return;
  }
  // A local of an enclosing unit written in a lambda (a hook filling a
  // captured slot) holds the role where it is declared, so that the
  // enclosing unit sees it too.
  const auto *Var = dyn_cast<VarDecl>(D);
  CodeUnit *Owner = Var && !isa<ParmVarDecl>(Var) ? ownerUnit(*Var) : nullptr;
  if (!Owner)
    Owner = &U;
  Changed |= orRole(Owner->Roles, D, Bits);
  // What is written into a view lands in the tensor it views.
  if (Var && Depth < 4)
    if (const Expr *Viewed = viewedTensor(*Var))
      storeRole(*Owner, Viewed, Bits, Changed, Depth + 1);
}

void GradientModel::seedRoles() {
  for (const auto &U : units())
    for (const ParmVarDecl *P : U->Function->parameters())
      if (mayHoldTensor(P->getType()))
        orRole(ParamRoles, P, roleFromName(*P));
  // Hook callbacks, and custom autograd functions' backward, receive the
  // gradients being produced.
  auto SeedGradients = [&](const CodeUnit &Hook) {
    for (const ParmVarDecl *P : Hook.Function->parameters())
      if (mayHoldTensor(P->getType()))
        orRole(ParamRoles, P, GradientRole);
  };
  for (const auto &U : units()) {
    if (training::isCustomFunctionBackward(*U->Function))
      SeedGradients(*U);
    for (const CallExpr *Call : U->Calls)
      if (const Expr *Callback = training::gradientHookCallback(*Call))
        for (const CodeUnit *Hook : callableUnits(Callback))
          SeedGradients(*Hook);
  }
}

bool GradientModel::propagateRoles(CodeUnit &U) {
  bool Changed = false;
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(U.Function))
    for (const CXXCtorInitializer *Init : Ctor->inits())
      if (Init->isMemberInitializer() &&
          mayHoldTensor(Init->getMember()->getType()))
        Changed |= orRole(FieldRoles, Init->getMember(),
                          role(U, Init->getInit()));
  for (const Stmt *S : U.Stmts) {
    if (const auto *Call = dyn_cast<CallExpr>(S))
      propagateCall(U, *Call, Changed);
    else
      propagateStatement(U, S, Changed);
  }
  return Changed;
}

void GradientModel::propagateUpdate(CodeUnit &U, const Stmt *S,
                                    bool &Changed) {
  auto Update = updateOperands(
      S, [&](const Expr *E) { return rootDecl(E); });
  if (!Update)
    return;
  const ValueDecl *Target = rootDecl(Update->first);
  if (!Target || !mayHoldTensor(Target->getType()) ||
      (!(role(U, Update->first) & ParameterRole) &&
       !namedAsParameters(Target)))
    return;
  forEachStmt(Update->second, [&](const Stmt *Part) {
    if (!isa<DeclRefExpr, MemberExpr>(Part))
      return;
    const ValueDecl *Root = rootDecl(cast<Expr>(Part));
    if (Root != Target && !isSnapshotOf(U, Root, Target, *S))
      storeRole(U, cast<Expr>(Part), GradientRole, Changed);
  });
}

void GradientModel::propagateStatement(CodeUnit &U, const Stmt *S,
                                       bool &Changed) {
  propagateUpdate(U, S, Changed);
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D))
        if (Var->getInit() && mayHoldTensor(Var->getType()))
          Changed |= orRole(U.Roles, Var, role(U, Var->getInit()));
  } else if (const auto *For = dyn_cast<CXXForRangeStmt>(S)) {
    Changed |= orRole(U.Roles, For->getLoopVariable(),
                      role(U, For->getRangeInit()));
  } else if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
    if (Binary->isAssignmentOp())
      storeRole(U, Binary->getLHS(), role(U, Binary->getRHS()), Changed);
  } else if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
    if (Return->getRetValue())
      Changed |= orRole(ReturnRoles, U.Function, role(U, Return->getRetValue()));
  }
}

void GradientModel::propagateCall(CodeUnit &U, const CallExpr &Call,
                                  bool &Changed) {
  auto ArgumentRoles = [&] {
    unsigned Bits = NoRole;
    for (const Expr *Arg : Call.arguments())
      Bits |= role(U, Arg);
    return Bits;
  };
  // A collective leaves in every buffer what any buffer held: the output
  // of `all_reduce(comm, in, n, out, op)` holds gradients when `in` did.
  // Only its buffers: a communicator, a datatype or an operation handle
  // carries no data.
  if (collectiveOf(U, Call)) {
    unsigned Bits = NoRole;
    for (const Expr *Arg : Call.arguments())
      if (flow::isCollectiveBufferType(Arg->getType()))
        Bits |= role(U, Arg);
    for (const Expr *Arg : Call.arguments())
      if (flow::isCollectiveBufferType(Arg->getType()))
        storeRole(U, Arg, Bits, Changed);
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    propagateUpdate(U, Op, Changed);
    if (Op->isAssignmentOp() && Op->getNumArgs() == 2)
      storeRole(U, Op->getArg(0), role(U, Op->getArg(1)), Changed);
  } else if (const Expr *Object = modules::memberCallObject(Call)) {
    // Also left unresolved in a template: `grads.push_back(p.grad())`.
    if (flow::storesIntoObject(spelledCalleeName(Call)))
      storeRole(U, Object, ArgumentRoles(), Changed);
  } else if (std::optional<RawCopy> Copy =
                 flow::rawDataCopy(Call)) {
    storeRole(U, Copy->Destination, role(U, Copy->Source), Changed);
  }
  // What a call hands to a function defined here.
  if (const CodeUnit *Callee = calleeUnit(Call))
    for (auto [Param, Arg] : boundArguments(Call, *Callee))
      if (!isa<CXXDefaultArgExpr>(Arg) && mayHoldTensor(Param->getType()))
        Changed |= orRole(ParamRoles, Param, role(U, Arg));
}

} // namespace clang::tidy::ddp
