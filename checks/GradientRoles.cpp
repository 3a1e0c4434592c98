//===--- GradientRoles.cpp - which values hold gradients ------------------===//
//
// The role half of GradientModel: which variables, fields and parameters
// hold gradients or parameters, seeded by `grad()`, `parameters()`, parameter
// names and hook callbacks, and propagated to a fixpoint; and which
// collective buffers are copies of gradients made for the collective alone.
//
//===----------------------------------------------------------------------===//

#include "GradientModel.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::ddp {

namespace {

constexpr unsigned MaxExprDepth = 16;

/// Tensor methods whose result is (a view, copy or pointer of) the object's
/// data: a gradient stays a gradient through them. Reductions (`norm`,
/// `sum`, `pow`) do not: a gradient norm is not a gradient.
bool passesDataThrough(llvm::StringRef Method) {
  return llvm::StringSwitch<bool>(Method)
      .Cases("data", "detach", "detach_", "view", "view_as", "reshape",
             "reshape_as", "flatten", "contiguous", true)
      .Cases("clone", "to", "cpu", "cuda", "slice", "narrow", "select",
             "index", "index_select", true)
      .Cases("data_ptr", "const_data_ptr", "mutable_data_ptr", "div", "div_",
             "mul", "mul_", "add_", "sub_", true)
      .Cases("copy_", "set_", "float", "double", "half", "bfloat16", "type",
             "toType", "squeeze", true)
      .Cases("unsqueeze", "chunk", "split", "unbind", "value", "front", "back",
             "at", "begin", true)
      .Cases("end", "get", true)
      .Default(false);
}

/// Tensor methods whose result shares the object's storage: what is written
/// into the result lands in the object (`bucket.narrow(0, off, n).copy_(g)`).
bool sharesStorage(llvm::StringRef Method) {
  return llvm::StringSwitch<bool>(Method)
      .Cases("data", "detach", "view", "view_as", "narrow", "slice", true)
      .Cases("select", "squeeze", "unsqueeze", "as_strided", "expand", true)
      .Cases("t", "transpose", "permute", "diagonal", "unflatten", true)
      .Default(false);
}

/// Free functions whose result is new storage holding copies of their
/// tensor arguments' data (`flatten_dense_tensors` is not: it returns a view
/// of a single tensor).
bool copiesIntoNewTensor(llvm::StringRef Function) {
  return llvm::StringSwitch<bool>(Function)
      .Cases("cat", "concat", "concatenate", "stack", true)
      .Default(false);
}

/// Free functions whose result holds their tensor arguments' data.
bool combinesData(llvm::StringRef Function) {
  if (copiesIntoNewTensor(Function))
    return true;
  return llvm::StringSwitch<bool>(Function)
      .Case("flatten", true)
      .Cases("flatten_dense_tensors", "unflatten_dense_tensors", "div", "mul",
             true)
      .Cases("narrow", "reshape", "ref", "cref", "addressof", true)
      .Case("inplace", true) // boost::mpi::inplace(buffer)
      .Default(false);
}

/// Whether a declaration of type T can hold a tensor, a container of them,
/// or a pointer into one: anything but a plain number.
bool mayHoldTensor(QualType T) {
  if (T.isNull())
    return false;
  if (T->isReferenceType() || T->isPointerType())
    return true;
  return !T->isArithmeticType() && !T->isEnumeralType();
}

/// A collective's data argument: a pointer, a tensor, or a container of
/// them (not the communicator, the count or the options).
bool isBuffer(QualType T) {
  T = T.getNonReferenceType();
  if (T->isPointerType())
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  return Name == "at::Tensor" || Name == "std::vector" ||
         Name == "c10::ArrayRef" || Name == "boost::mpi::inplace_t";
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

/// A tensor expression that makes new storage from its operands (not
/// `flatten_dense_tensors`, which returns a view of a single tensor).
bool makesFreshTensor(const Expr *E) {
  E = stripObjectWrappers(E)->IgnoreParenCasts();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E))
    return identifierName(Member->getMethodDecl()) == "clone";
  if (const auto *Call = dyn_cast<CallExpr>(E);
      Call && !isa<CXXOperatorCallExpr>(Call))
    return copiesIntoNewTensor(identifierName(Call->getDirectCallee()));
  return false;
}

/// The tensors a container's initialiser holds (`{a.clone(), b.clone()}`),
/// or the initialiser itself for a tensor; false when it is anything else.
bool initialisedTensors(const Expr *Init,
                        llvm::SmallVectorImpl<const Expr *> &Out,
                        unsigned Depth = 0) {
  if (!Init || Depth > 8)
    return false;
  Init = Init->IgnoreImplicit();
  if (Vocabulary::isTensor(Init->getType())) {
    Out.push_back(Init);
    return true;
  }
  if (const auto *List = dyn_cast<InitListExpr>(Init))
    return List->getNumInits() > 0 &&
           llvm::all_of(List->inits(), [&](const Expr *E) {
             return initialisedTensors(E, Out, Depth + 1);
           });
  if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(Init))
    return initialisedTensors(IL->getSubExpr(), Out, Depth + 1);
  // std::vector's constructor from an initializer list (its allocator
  // left to the default).
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Init))
    return Construct->getNumArgs() >= 1 &&
           llvm::all_of(llvm::drop_begin(Construct->arguments()),
                        [](const Expr *Arg) {
                          return isa<CXXDefaultArgExpr>(Arg);
                        }) &&
           initialisedTensors(Construct->getArg(0), Out, Depth + 1);
  return false;
}

} // namespace

/// Container and tensor methods that store their arguments' data into the
/// object.
bool GradientModel::storesIntoObject(llvm::StringRef Method) {
  return llvm::StringSwitch<bool>(Method)
      .Cases("push_back", "emplace_back", "insert", "emplace", "assign", true)
      .Cases("copy_", "set_", "index_put_", "append", true)
      .Default(false);
}

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

unsigned GradientModel::declRole(const CodeUnit &U, const ValueDecl *D) const {
  if (!D)
    return NoRole;
  if (isa<FieldDecl>(D))
    return FieldRoles.lookup(D);
  unsigned Role = NoRole;
  for (const CodeUnit *C = &U; C; C = C->Enclosing)
    Role |= C->Roles.lookup(D);
  if (isa<ParmVarDecl>(D))
    Role |= ParamRoles.lookup(D);
  return Role;
}

unsigned GradientModel::role(const CodeUnit &U, const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < MaxExprDepth; ++Depth) {
    E = E->IgnoreParens();
    if (const auto *Cast = dyn_cast<CastExpr>(E)) {
      E = Cast->getSubExpr();
      continue;
    }
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = M->getSubExpr();
      continue;
    }
    if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = B->getSubExpr();
      continue;
    }
    if (const auto *C = dyn_cast<ExprWithCleanups>(E)) {
      E = C->getSubExpr();
      continue;
    }
    if (const auto *IL = dyn_cast<CXXStdInitializerListExpr>(E)) {
      E = IL->getSubExpr();
      continue;
    }
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return declRole(U, DRE->getDecl());
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return isa<FieldDecl>(ME->getMemberDecl())
                 ? FieldRoles.lookup(ME->getMemberDecl())
                 : NoRole;
    if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
      if (Unary->getOpcode() == UO_LNot)
        return NoRole;
      E = Unary->getSubExpr();
      continue;
    }
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(E)) {
      E = Subscript->getBase();
      continue;
    }
    if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
      if (Binary->isAssignmentOp() || Binary->isCompoundAssignmentOp()) {
        E = Binary->getLHS();
        continue;
      }
      if (Binary->getOpcode() == BO_Comma) {
        E = Binary->getRHS();
        continue;
      }
      if (Binary->isMultiplicativeOp() || Binary->isAdditiveOp())
        return role(U, Binary->getLHS()) | role(U, Binary->getRHS());
      return NoRole;
    }
    if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E))
      return role(U, Cond->getTrueExpr()) | role(U, Cond->getFalseExpr());
    if (const auto *Init = dyn_cast<InitListExpr>(E)) {
      unsigned Role = NoRole;
      for (const Expr *Element : Init->inits())
        Role |= role(U, Element);
      return Role;
    }
    if (const auto *Ctor = dyn_cast<CXXConstructExpr>(E)) {
      unsigned Role = NoRole;
      for (const Expr *Arg : Ctor->arguments())
        Role |= role(U, Arg);
      return Role;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return NoRole;
    if (Vocabulary::isGradAccess(*Call))
      return GradientRole;
    if (Vocabulary::parameterCollection(*Call))
      return ParameterRole;
    if (Call->isCallToStdMove() && Call->getNumArgs() == 1) {
      E = Call->getArg(0);
      continue;
    }
    const FunctionDecl *FD = Call->getDirectCallee();
    llvm::StringRef Name = identifierName(FD);
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      // The optimizer's own list of what it updates.
      if ((Name == "parameters" || Name == "params") &&
          Vocab.isOptimizerClass(*Member->getMethodDecl()->getParent()))
        return ParameterRole;
      if (passesDataThrough(Name)) {
        E = Member->getImplicitObjectArgument();
        continue;
      }
    } else if (Vocabulary::dependentMemberCall(*Call)) {
      // Left dependent in a template: `p.grad().reshape({-1})`.
      if (passesDataThrough(spelledCalleeName(*Call))) {
        E = Vocabulary::memberCallObject(*Call);
        continue;
      }
    } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      OverloadedOperatorKind K = Op->getOperator();
      if (K == OO_Subscript || K == OO_Arrow || Op->isAssignmentOp() ||
          (K == OO_Star && Op->getNumArgs() == 1)) {
        E = Op->getArg(0);
        continue;
      }
      if (K == OO_Star || K == OO_Slash || K == OO_Plus || K == OO_Minus) {
        unsigned Role = NoRole;
        for (const Expr *Arg : Op->arguments())
          Role |= role(U, Arg);
        return Role;
      }
    } else if (FD && (combinesData(Name) ||
                      FD->getQualifiedNameAsString() == "std::forward")) {
      unsigned Role = NoRole;
      for (const Expr *Arg : Call->arguments())
        Role |= role(U, Arg);
      return Role;
    }
    if (FD && FD->getQualifiedNameAsString() == "torch::autograd::grad")
      return GradientRole;
    if (const CodeUnit *Callee = calleeUnit(*Call))
      return ReturnRoles.lookup(Callee->Function);
    return NoRole;
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
      if (!passesDataThrough(identifierName(Member->getMethodDecl())))
        return nullptr;
      E = Member->getImplicitObjectArgument();
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E);
        Call && Vocabulary::dependentMemberCall(*Call)) {
      if (!passesDataThrough(spelledCalleeName(*Call)))
        return nullptr;
      E = Vocabulary::memberCallObject(*Call);
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
    if (!Member || !sharesStorage(identifierName(Member->getMethodDecl())))
      return nullptr;
    return Member->getImplicitObjectArgument();
  }
  return nullptr;
}

CodeUnit *GradientModel::ownerUnit(const VarDecl &Var) const {
  const auto *FD = dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  return FD ? ByFunction.lookup(FD) : nullptr;
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
  for (const auto &U : Units)
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
  for (const auto &U : Units) {
    if (Vocabulary::isCustomFunctionBackward(*U->Function))
      SeedGradients(*U);
    for (const CallExpr *Call : U->Calls)
      if (const Expr *Callback = Vocabulary::gradientHookCallback(*Call))
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
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D))
          if (Var->getInit() && mayHoldTensor(Var->getType()))
            Changed |= orRole(U.Roles, Var, role(U, Var->getInit()));
      continue;
    }
    if (const auto *For = dyn_cast<CXXForRangeStmt>(S)) {
      Changed |= orRole(U.Roles, For->getLoopVariable(),
                        role(U, For->getRangeInit()));
      continue;
    }
    if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
      if (Binary->isAssignmentOp())
        storeRole(U, Binary->getLHS(), role(U, Binary->getRHS()), Changed);
      continue;
    }
    if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
      if (Return->getRetValue())
        Changed |= orRole(ReturnRoles, U.Function, role(U, Return->getRetValue()));
      continue;
    }
    const auto *Call = dyn_cast<CallExpr>(S);
    if (!Call)
      continue;
    const FunctionDecl *FD = Call->getDirectCallee();
    // A collective leaves in every buffer what any buffer held: the output
    // of `all_reduce(comm, in, n, out, op)` holds gradients when `in` did.
    if (Vocab.classifyCollective(*Call)) {
      unsigned Bits = NoRole;
      for (const Expr *Arg : Call->arguments())
        Bits |= role(U, Arg);
      for (const Expr *Arg : Call->arguments())
        if (isBuffer(Arg->getType()))
          storeRole(U, Arg, Bits, Changed);
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
      if (Op->isAssignmentOp() && Op->getNumArgs() == 2)
        storeRole(U, Op->getArg(0), role(U, Op->getArg(1)), Changed);
    } else if (const Expr *Object = Vocabulary::memberCallObject(*Call)) {
      // Also left unresolved in a template: `grads.push_back(p.grad())`.
      if (storesIntoObject(spelledCalleeName(*Call))) {
        unsigned Bits = NoRole;
        for (const Expr *Arg : Call->arguments())
          Bits |= role(U, Arg);
        storeRole(U, Object, Bits, Changed);
      }
    } else if (FD && Call->getNumArgs() >= 2) {
      llvm::StringRef Name = identifierName(FD);
      if (Name == "memcpy" || Name == "memmove")
        storeRole(U, Call->getArg(0), role(U, Call->getArg(1)), Changed);
      else if ((Name == "copy" || Name == "copy_n") && Call->getNumArgs() == 3)
        storeRole(U, Call->getArg(2), role(U, Call->getArg(0)), Changed);
    }
    // What a call hands to a function defined here.
    if (const CodeUnit *Callee = calleeUnit(*Call))
      for (auto [Param, Arg] : boundArguments(*Call, *Callee))
        if (!isa<CXXDefaultArgExpr>(Arg) && mayHoldTensor(Param->getType()))
          Changed |= orRole(ParamRoles, Param, role(U, Arg));
  }
  return Changed;
}

bool GradientModel::copyHolders(
    const CodeUnit &U, const Expr *Buffer,
    llvm::SmallVectorImpl<const VarDecl *> &Holders) const {
  const auto *Var = dyn_cast_or_null<VarDecl>(rootDecl(Buffer));
  auto IsOwnLocal = [&](const VarDecl *V) {
    return V && V->isLocalVarDecl() && !V->isStaticLocal() &&
           !V->getType()->isReferenceType() && ownerUnit(*V) == &U;
  };
  if (!IsOwnLocal(Var))
    return false;
  // The buffer and the locals it was filled with share the reduced storage.
  Holders.push_back(Var);
  llvm::SmallVector<const Expr *, 4> Elements;
  if (!initialisedTensors(Var->getInit(), Elements))
    return false;
  for (const Expr *Element : Elements) {
    if (makesFreshTensor(Element))
      continue;
    const auto *Local = dyn_cast_or_null<VarDecl>(rootDecl(Element));
    if (!IsOwnLocal(Local) || !Local->getInit() ||
        !makesFreshTensor(Local->getInit()) ||
        !Vocabulary::isTensor(Local->getType()))
      return false;
    Holders.push_back(Local);
  }
  return true;
}

llvm::SmallVector<const Expr *, 4>
GradientModel::keptCopyUses(const CodeUnit &U, const CallExpr &Collective,
                            const Expr *Buffer) const {
  llvm::SmallVector<const VarDecl *, 4> Holders;
  llvm::SmallVector<const Expr *, 4> Kept;
  if (!copyHolders(U, Buffer, Holders))
    return Kept;
  const Expr *Init = Holders.front()->getInit();
  for (const Stmt *S : U.Stmts) {
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    if (!Ref || !llvm::is_contained(Holders, Ref->getDecl()) ||
        U.contains(&Collective, Ref) || U.contains(Init, Ref))
      continue;
    if (valueKept(U, Ref))
      Kept.push_back(Ref);
  }
  return Kept;
}

bool GradientModel::isDiscardedCopy(const CodeUnit &U,
                                    const CallExpr &Collective,
                                    const Expr *Buffer) const {
  llvm::SmallVector<const VarDecl *, 4> Holders;
  return copyHolders(U, Buffer, Holders) &&
         keptCopyUses(U, Collective, Buffer).empty();
}

llvm::SmallVector<const Stmt *, 4>
GradientModel::copyWriteBacks(const CodeUnit &U,
                              const CallExpr &Collective) const {
  llvm::SmallVector<const Stmt *, 4> Uses;
  llvm::SmallVector<const VarDecl *, 4> Holders;
  for (const Expr *Arg : Collective.arguments()) {
    if (!(role(U, Arg) & GradientRole))
      continue;
    Holders.clear();
    if (!copyHolders(U, Arg, Holders))
      return {}; // the gradients themselves are reduced
    for (const Expr *Ref : keptCopyUses(U, Collective, Arg)) {
      // The whole statement that takes the reduced value back.
      const Stmt *Top = Ref;
      while (const Stmt *Up = U.Parent.lookup(Top)) {
        if (!isa<Expr>(Up))
          break;
        Top = Up;
      }
      // The CFG holds the expression, not its cleanups.
      if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Top))
        Top = Cleanups->getSubExpr()->IgnoreImplicit();
      Uses.push_back(Top);
    }
  }
  return Uses;
}

} // namespace clang::tidy::ddp
