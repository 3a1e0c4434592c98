//===--- Averaging.cpp - world sizes and gradient averages ----------------===//
//
// What is the world size, what divides by it, and which units average
// gradients. The learning rates scaled by it are in LearningRateScaling.cpp.
//
//===----------------------------------------------------------------------===//

#include "model/Averaging.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace clang::tidy::ddp {

using averaging::MaxExprDepth;
using averaging::MaxRounds;

namespace {

/// Sees through parentheses, casts and conversions: a world size handed to
/// `div_` arrives as a `c10::Scalar` built from it.
const Expr *strip(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < MaxExprDepth; ++Depth) {
    E = stripObjectWrappers(E)->IgnoreParenCasts();
    const auto *Ctor = dyn_cast<CXXConstructExpr>(E);
    if (!Ctor || Ctor->getNumArgs() != 1 || isa<CXXTemporaryObjectExpr>(Ctor))
      return E;
    E = Ctor->getArg(0);
  }
  return E;
}

} // namespace

Averaging::Averaging(const GradientModel &Model) : Model(Model) {
  findWorldSizeDecls();
  findScaledLearningRates();
  findAveragingUnits();
}

bool Averaging::isWorldSize(const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < MaxExprDepth; ++Depth) {
    E = strip(E);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return WorldSizeDecls.contains(DRE->getDecl()) ||
             (!isa<FunctionDecl>(DRE->getDecl()) &&
              ranks::isWorldSizeName(identifierName(DRE->getDecl()))) ||
             isReducedCount(E);
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return isa<FieldDecl>(ME->getMemberDecl()) &&
             (WorldSizeDecls.contains(ME->getMemberDecl()) ||
              ranks::isWorldSizeName(identifierName(ME->getMemberDecl())));
    if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
      // world * accumulation_steps: averaging over ranks and micro-batches.
      if (Binary->getOpcode() != BO_Mul)
        return false;
      return isWorldSize(Binary->getLHS()) || isWorldSize(Binary->getRHS());
    }
    if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E))
      return isWorldSize(Cond->getTrueExpr()) || isWorldSize(Cond->getFalseExpr());
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return false;
    if (Model.vocabulary().returnsWorldSize(*Call) || isReducedCount(Call))
      return true;
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD)
      return false;
    if (const CodeUnit *Callee = Model.calleeUnit(*Call))
      if (WorldSizeDecls.contains(Callee->Function))
        return true;
    llvm::StringRef Name = identifierName(FD);
    if (ranks::isWorldSizeName(Name))
      return true; // get_world_size(), ctx.world_size()
    // A framework communicator's size: `comm.size()`, `group->getSize()`.
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
        MD && GradientModel::looksLikeCommunicator(MD->getParent()) &&
        ranks::isSizeMethodName(Name))
      return true;
    // torch::tensor(ws), std::max(ws, 1), static_cast through a helper.
    if (flow::isTensorOfNumbers(Name) || Name == "max" || Name == "min")
      return llvm::any_of(Call->arguments(),
                          [&](const Expr *Arg) { return isWorldSize(Arg); });
    return false;
  }
  return false;
}

bool Averaging::isReducedCount(const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
    E = strip(E);
    // A local initialised with one: `const double tokens = all_sum(pg, n);`.
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(DRE->getDecl());
      if (!Var || !Var->hasLocalStorage() || isa<ParmVarDecl>(Var) ||
          !Var->getType().isConstQualified())
        return false;
      E = Var->getInit();
      continue;
    }
    // A helper of this unit that all-reduces a number and returns it.
    const auto *Call = dyn_cast<CallExpr>(E);
    const CodeUnit *Callee = Call ? Model.calleeUnit(*Call) : nullptr;
    if (!Callee || !Callee->Function->getReturnType()->isArithmeticType())
      return false;
    return llvm::any_of(Callee->Calls, [&](const CallExpr *Inner) {
      std::optional<CollectiveInfo> Info =
          Model.vocabulary().classifyCollective(*Inner);
      return Info && Info->Kind == CollectiveKind::AllReduce;
    });
  }
  return false;
}

bool Averaging::isPerRank(const Expr *E) const {
  for (unsigned Depth = 0; E && Depth < MaxExprDepth; ++Depth) {
    E = strip(E);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return PerRankDecls.contains(DRE->getDecl());
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return PerRankDecls.contains(ME->getMemberDecl());
    // An integer quotient is a count per rank (`batch / world`), not a scale.
    if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
      if (Binary->getOpcode() == BO_Div)
        return !Binary->getType()->isIntegerType() &&
               isWorldSize(Binary->getRHS());
      if (Binary->getOpcode() == BO_Mul)
        return isPerRank(Binary->getLHS()) || isPerRank(Binary->getRHS());
      return false;
    }
    if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E))
      return isPerRank(Cond->getTrueExpr()) || isPerRank(Cond->getFalseExpr());
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
      if (Op->getOperator() == OO_Slash && Op->getNumArgs() == 2)
        return isWorldSize(Op->getArg(1));
      if (Op->getOperator() == OO_Star && Op->getNumArgs() == 2)
        return isPerRank(Op->getArg(0)) || isPerRank(Op->getArg(1));
      return false;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    if (!Call)
      return false;
    if (const CodeUnit *Callee = Model.calleeUnit(*Call))
      if (PerRankDecls.contains(Callee->Function))
        return true;
    llvm::StringRef Name = identifierName(Call->getDirectCallee());
    if (flow::isTensorOfNumbers(Name))
      return llvm::any_of(Call->arguments(),
                          [&](const Expr *Arg) { return isPerRank(Arg); });
    return false;
  }
  return false;
}

const Expr *Averaging::averagedTensor(const Expr *E) const {
  // T / ws, T * (1 / ws), (1 / ws) * T.
  auto Scaled = [&](bool Divides, const Expr *Tensor,
                    const Expr *Factor) -> const Expr * {
    if (Divides ? isWorldSize(Factor) : isPerRank(Factor))
      return Tensor;
    return nullptr;
  };
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
    std::optional<TensorScaling> Scaling =
        flow::tensorScaling(identifierName(Member->getMethodDecl()));
    if (Member->getNumArgs() >= 1 && Scaling)
      return Scaled(*Scaling == TensorScaling::Division,
                    Member->getImplicitObjectArgument(), Member->getArg(0));
    return nullptr;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Op->getNumArgs() != 2)
      return nullptr;
    OverloadedOperatorKind K = Op->getOperator();
    if (K == OO_Slash || K == OO_SlashEqual)
      return Scaled(true, Op->getArg(0), Op->getArg(1));
    if (K == OO_Star || K == OO_StarEqual) {
      if (const Expr *T = Scaled(false, Op->getArg(0), Op->getArg(1)))
        return T;
      return K == OO_Star ? Scaled(false, Op->getArg(1), Op->getArg(0)) : nullptr;
    }
    return nullptr;
  }
  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    BinaryOperatorKind K = Binary->getOpcode();
    if (K == BO_Div || K == BO_DivAssign)
      return Scaled(true, Binary->getLHS(), Binary->getRHS());
    if (K == BO_Mul || K == BO_MulAssign) {
      if (const Expr *T = Scaled(false, Binary->getLHS(), Binary->getRHS()))
        return T;
      return K == BO_Mul ? Scaled(false, Binary->getRHS(), Binary->getLHS())
                         : nullptr;
    }
    return nullptr;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    std::optional<TensorScaling> Scaling =
        flow::tensorScaling(identifierName(Call->getDirectCallee()));
    if (Call->getNumArgs() >= 2 && Scaling)
      return Scaled(*Scaling == TensorScaling::Division, Call->getArg(0),
                    Call->getArg(1));
  }
  return nullptr;
}

llvm::SmallVector<const Stmt *, 4>
Averaging::gradientAverages(const CodeUnit &U) const {
  // A quotient that makes a new tensor averages the gradients only when
  // that tensor goes somewhere: `sum / ws` read down to a number for a log
  // line leaves the summed gradients as they were.
  auto outOfPlace = [](const Expr *E) {
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(E)) {
      return !flow::isInPlaceMethodName(
          identifierName(Member->getMethodDecl()));
    }
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
      return Op->getOperator() == OO_Slash || Op->getOperator() == OO_Star;
    if (const auto *Binary = dyn_cast<BinaryOperator>(E))
      return Binary->getOpcode() == BO_Div || Binary->getOpcode() == BO_Mul;
    return false;
  };
  llvm::SmallVector<const Stmt *, 4> Out;
  for (const Stmt *S : U.Stmts) {
    const auto *E = dyn_cast<Expr>(S);
    if (!E)
      continue;
    if (const Expr *Tensor = averagedTensor(E)) {
      if ((Model.role(U, Tensor) & GradientRole) &&
          (!outOfPlace(E) || Model.valueKept(U, E)))
        Out.push_back(S);
    } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
      // A function that averages, defined here; or one defined elsewhere
      // handed the gradients (or the model) and 1 / world size:
      // `scale_gradients(model, 1.0 / ws)`.
      if (AveragingUnits.contains(Model.calleeUnit(*Call)) ||
          (Model.isOpaqueUserFunction(Call->getDirectCallee()) &&
           llvm::any_of(Call->arguments(),
                        [&](const Expr *Arg) {
                          return isPerRank(Arg) || isWorldSize(Arg);
                        }) &&
           llvm::any_of(Call->arguments(), [&](const Expr *Arg) {
             return (Model.role(U, Arg) & GradientRole) ||
                    modules::moduleClassOfHandle(Arg->getType());
           })))
        Out.push_back(S);
    }
  }
  return Out;
}

void Averaging::findAveragingUnits() {
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    bool Changed = false;
    for (const auto &U : Model.units())
      if (!AveragingUnits.contains(U.get()) && !gradientAverages(*U).empty())
        Changed |= AveragingUnits.insert(U.get()).second;
    if (!Changed)
      break;
  }
}

bool Averaging::containsAverage(const Stmt *S) const {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (const auto *E = dyn_cast<Expr>(S); E && averagedTensor(E))
    return true;
  return llvm::any_of(S->children(),
                      [&](const Stmt *Child) { return containsAverage(Child); });
}

bool Averaging::backpropagatesAveragedLoss(const CodeUnit &U,
                                           const CallExpr &Backward) const {
  const Expr *Loss = training::backwardRoot(Backward);
  if (!Loss)
    return false;
  // (loss / ws).backward(), torch::autograd::backward({loss / ws})
  if (containsAverage(Loss))
    return true;
  if (const auto *List = dyn_cast<InitListExpr>(strip(Loss));
      List && List->getNumInits() > 0)
    Loss = List->getInit(0);
  const auto *Var = dyn_cast_or_null<VarDecl>(Model.rootDecl(Loss));
  if (!Var)
    return false;
  // auto loss = criterion(output, target) / world_size;
  if (const Expr *Init = Var->getInit(); Init && averagedTensor(strip(Init)))
    return true;
  // loss /= ws; loss = loss / ws; loss.div_(ws) before the backward.
  for (const Stmt *S : U.Stmts)
    if (const auto *E = dyn_cast<Expr>(S))
      if (const Expr *Tensor = averagedTensor(E))
        if (Model.rootDecl(Tensor) == Var && Model.flow(U).reachable(S, &Backward))
          return true;
  return false;
}

const VarDecl *Averaging::reducedCountOutput(const CallExpr &Call) const {
  std::optional<CollectiveInfo> Info =
      Model.vocabulary().classifyCollective(Call);
  if (!Info || Info->Kind != CollectiveKind::AllReduce ||
      Call.getNumArgs() < 2)
    return nullptr;
  // The receive buffer comes second in MPI's and NCCL's all-reduce alike
  // (also after MPI_IN_PLACE).
  const auto *Address =
      dyn_cast<UnaryOperator>(Call.getArg(1)->IgnoreParenImpCasts());
  if (!Address || Address->getOpcode() != UO_AddrOf)
    return nullptr;
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Address->getSubExpr()->IgnoreParenImpCasts());
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->getType()->isIntegerType() ? Var : nullptr;
}

bool Averaging::recordValue(const ValueDecl *D, const Expr *Value) {
  if (!D || !Value)
    return false;
  if (isWorldSize(Value))
    return WorldSizeDecls.insert(D).second;
  if (isPerRank(Value))
    return PerRankDecls.insert(D).second;
  return false;
}

bool Averaging::recordCall(const CallExpr &Call) {
  bool Changed = false;
  // MPI_Comm_size(comm, &world), also into a field of a struct:
  // MPI_Comm_size(comm, &peers.size) makes every `x.size` of that struct a
  // world size.
  if (const Expr *Out = Model.vocabulary().worldSizeOutputArgument(Call))
    if (const ValueDecl *D =
            handleDecl(Out) ? handleDecl(Out) : Model.rootDecl(Out))
      Changed |= WorldSizeDecls.insert(D).second;
  // MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, comm): a count summed
  // over the ranks divides a sum into a global mean.
  if (const VarDecl *Total = reducedCountOutput(Call))
    Changed |= WorldSizeDecls.insert(Total).second;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&Call);
      Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
    Changed |= recordValue(Model.rootDecl(Op->getArg(0)), Op->getArg(1));
  // A world size handed to a function defined here.
  if (const CodeUnit *Callee = Model.calleeUnit(Call))
    for (auto [Param, Arg] : GradientModel::boundArguments(Call, *Callee))
      Changed |= recordValue(Param, Arg);
  return Changed;
}

bool Averaging::recordStatement(const CodeUnit &U, const Stmt *S) {
  bool Changed = false;
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D))
        Changed |= recordValue(Var, Var->getInit());
  } else if (const auto *Binary = dyn_cast<BinaryOperator>(S)) {
    if (Binary->getOpcode() == BO_Assign)
      Changed |= recordValue(Model.rootDecl(Binary->getLHS()), Binary->getRHS());
  } else if (const auto *Return = dyn_cast<ReturnStmt>(S)) {
    Changed |= recordValue(U.Function, Return->getRetValue());
  } else if (const auto *Call = dyn_cast<CallExpr>(S)) {
    Changed |= recordCall(*Call);
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(S)) {
    // ... or to a constructor defined here: Trainer trainer(opts, rank, size).
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (Ctor && Model.unitOf(Ctor))
      for (unsigned I = 0, N = std::min(Construct->getNumArgs(),
                                        Ctor->getNumParams());
           I < N; ++I)
        if (!isa<CXXDefaultArgExpr>(Construct->getArg(I)))
          Changed |= recordValue(Ctor->getParamDecl(I), Construct->getArg(I));
  }
  return Changed;
}

void Averaging::findWorldSizeDecls() {
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    bool Changed = false;
    for (const auto &U : Model.units()) {
      // Trainer(pg) : world_(pg->getSize()) {}
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(U->Function))
        for (const CXXCtorInitializer *Init : Ctor->inits())
          if (Init->isMemberInitializer())
            Changed |= recordValue(Init->getMember(), Init->getInit());
      for (const Stmt *S : U->Stmts)
        Changed |= recordStatement(*U, S);
    }
    if (!Changed)
      break;
  }
}

llvm::SmallVector<const Stmt *, 2>
Averaging::singleProcessBranches(const CodeUnit &U) const {
  llvm::SmallVector<const Stmt *, 2> Out;
  for (const Stmt *S : U.Stmts) {
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || !If->getCond())
      continue;
    std::optional<bool> Single = ranks::soleProcessOnThen(
        If->getCond(), [&](const Expr *E) { return isWorldSize(E); },
        Model.context());
    const Stmt *Branch = !Single ? nullptr : *Single ? If->getThen() : If->getElse();
    if (Branch)
      Out.push_back(Branch);
  }
  return Out;
}

} // namespace clang::tidy::ddp
